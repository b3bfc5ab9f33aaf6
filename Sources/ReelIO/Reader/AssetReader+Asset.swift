import ReelCore

extension AssetReader {
    /// A reader for an ``Asset``'s file (AVAssetReader(asset:)).
    public convenience init(asset: Asset) throws(ReelError) {
        try self.init(url: asset.url)
    }
}

extension AssetReaderTrackOutput {
    /// An output for `track` of the asset the reader reads (AVAssetReaderTrackOutput(track:outputSettings:)).
    public convenience init(track: AssetTrack, settings: Settings, bufferCapacity: Int = 8) {
        self.init(trackID: track.trackID, settings: settings, bufferCapacity: bufferCapacity)
    }
}
