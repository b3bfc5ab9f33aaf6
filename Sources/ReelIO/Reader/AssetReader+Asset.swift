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

    /// Opens a reader of an ``Asset``'s file as ``open(asset:)`` does, runs `body` with it
    /// and returns what `body` returns. However `body` ends (it returns, throws, or stops
    /// because its task was cancelled), the reader is stopped and its read loops have ended
    /// before this returns, as with ``withReader(url:networkTimeout:isolation:_:)``. Throws
    /// what opening the file throws (`body` does not run), else what `body` throws.
    public static func withReader<Result>(
        asset: Asset, isolation: isolated (any Actor)? = #isolation, _ body: (AssetReader) async throws(ReelError) -> Result
    ) async throws(ReelError) -> Result {
        let reader = try await open(asset: asset)
        return try await reader.run(isolation: isolation, body)
    }
}

extension AssetReaderTrackOutput {
    /// An output for `track` of the asset the reader reads (AVAssetReaderTrackOutput(track:outputSettings:)).
    public convenience init(track: AssetTrack, settings: Settings, bufferCapacity: Int = 8) {
        self.init(trackID: track.trackID, settings: settings, bufferCapacity: bufferCapacity)
    }
}
