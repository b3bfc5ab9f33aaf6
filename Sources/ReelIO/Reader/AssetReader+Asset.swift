import ReelCore

extension AssetReader {
    /// A reader for an ``Asset``'s file (AVAssetReader(asset:)), with the asset's network
    /// timeout. Blocks while the file is
    /// opened and probed: async code uses ``open(asset:)``.
    @available(*, noasync, message: "blocks the thread while the file is opened: use try await AssetReader.open(asset:)")
    public convenience init(asset: Asset) throws(ReelError) {
        try self.init(url: asset.url, networkTimeout: asset.options.networkTimeout)
    }

    /// A reader for an ``Asset``'s file, opened and probed on a thread of its own while the
    /// caller suspends.
    public static func open(asset: Asset) async throws(ReelError) -> AssetReader {
        try await open(url: asset.url, networkTimeout: asset.options.networkTimeout)
    }
}

extension AssetReaderTrackOutput {
    /// An output for `track` of the asset the reader reads (AVAssetReaderTrackOutput(track:outputSettings:)).
    public convenience init(track: AssetTrack, settings: Settings, bufferCapacity: Int = 8) {
        self.init(trackID: track.trackID, settings: settings, bufferCapacity: bufferCapacity)
    }
}
