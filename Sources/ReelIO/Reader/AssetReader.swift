import Foundation
import ReelCore

/// Reads a media file's tracks as decoded frames, decoded audio or raw samples
/// (AVAssetReader).
///
/// Add one ``AssetReaderTrackOutput`` per track to read, set ``timeRange`` if only part
/// is wanted, then call ``startReading()``. Each output runs its own demux/decode loop on
/// a thread of its own (never on Swift's cooperative pool), bounded by the output's
/// buffer, so outputs read at their own pace without blocking one another.
public final class AssetReader: Sendable {
    /// Where the reader is in its life.
    public enum Status: Sendable, Hashable {
        case unknown
        case reading
        case completed
        case failed
        case cancelled
    }

    /// One track of the file: an ``AssetTrack``, classified as ``Asset`` classifies it.
    public typealias Track = AssetTrack

    public let url: URL
    /// The file's tracks, in stream order, as ``Asset`` lists them (header timing).
    public let tracks: [AssetTrack]

    private let state = Lock(AssetReaderState())

    /// Opens `url` and lists its tracks. Throws when the file is missing, unreadable or
    /// not a media file.
    ///
    /// Blocks while the file is opened and probed: async code uses ``open(url:)``.
    public init(url: URL) throws(ReelError) {
        self.url = url
        let input = try InputFormatContext(url: url)
        var (tracks, _, origin) = try AssetProbe.tracks(input, family: ContainerFamily(formatName: input.formatName))
        AssetProbe.settle(&tracks, origin: origin)
        self.tracks = tracks
    }

    /// A reader of `url`, opened and probed on a thread of its own while the caller
    /// suspends (``init(url:)`` blocks the calling thread).
    public static func open(url: URL) async throws(ReelError) -> AssetReader {
        try await onDedicatedThread(named: "reel.reader.open") { () throws(ReelError) in try AssetReader(url: url) }
    }

    /// The first track with `trackID`.
    public func track(withID trackID: Int32) -> Track? { tracks.first { $0.trackID == trackID } }

    /// The tracks of one media type; cover pictures are left out (``tracks`` lists them as
    /// video, flagged, as ``Asset`` does, but they are not media to read).
    public func tracks(withMediaType type: MediaType) -> [AssetTrack] {
        tracks.filter { $0.mediaType == type && !$0.isCoverPicture }
    }

    public var status: Status { state.withLock { $0.status } }
    /// Why the reader failed, when ``status`` is `.failed`.
    public var error: ReelError? { state.withLock { $0.error } }
    public var outputs: [AssetReaderTrackOutput] { state.withLock { $0.outputs } }

    /// The part of the file to read, `[start, end)`; the whole file by default. Set it
    /// before ``startReading()``.
    public var timeRange: TimeRange {
        get { state.withLock { $0.timeRange } }
        set { state.withLock { $0.setTimeRange(newValue) } }
    }

    /// Whether `output` can be added: the reader has not started, the track exists and
    /// the output belongs to no reader yet.
    public func canAdd(_ output: AssetReaderTrackOutput) -> Bool {
        (try? check(output)) != nil
    }

    private func check(_ output: AssetReaderTrackOutput) throws(ReelError) -> Track {
        guard state.withLock({ $0.isConfigurable }) else { throw Self.tooLate(output, url) }
        guard let track = track(withID: output.trackID) else {
            let known = tracks.map { String($0.trackID) }.joined(separator: ", ")
            throw ReelError(.invalidArgument, "the file has no such track (tracks: \(known))", path: url.path, trackID: output.trackID)
        }
        if output.state.withLock({ $0.attached }) {
            throw ReelError(.invalidArgument, "the output already belongs to a reader", path: url.path, trackID: output.trackID)
        }
        return track
    }

    /// Adds an output; throws when ``canAdd(_:)`` would say no, saying why.
    public func add(_ output: AssetReaderTrackOutput) throws(ReelError) {
        let track = try check(output)
        guard state.withLock({ $0.add(output) }) else { throw Self.tooLate(output, url) }
        output.state.withLock {
            $0.attached = true
            $0.formatDescription = track.formatDescription
        }
    }

    private static func tooLate(_ output: AssetReaderTrackOutput, _ url: URL) -> ReelError {
        ReelError(.invalidArgument, "outputs can only be added before startReading()", path: url.path, trackID: output.trackID)
    }

    /// Starts every output's read loop. Throws when there are no outputs, the time range
    /// is invalid, an output's settings do not fit its track or no decoder exists for it.
    public func startReading() throws(ReelError) {
        let (outputs, range): ([AssetReaderTrackOutput], TimeRange)
        switch state.withLock({ $0.startReading() }) {
        case .refuse(let reason): throw ReelError(.invalidArgument, reason, path: url.path)
        case .start(let o, let r): (outputs, range) = (o, r)
        }
        var pipelines: [TrackPipeline] = []
        do {
            for output in outputs {
                let queue = BoundedQueue<AssetReaderSample>(capacity: output.bufferCapacity)
                pipelines.append(try TrackPipeline(url: url, trackID: output.trackID, settings: output.settings,
                                                   timeRange: range, queue: queue))
            }
        } catch {
            state.withLock { $0.startFailed(error) }
            throw error
        }
        let reading = state.withLock { $0.started(count: pipelines.count) }
        for (output, pipeline) in zip(outputs, pipelines) {
            output.state.withLock {
                $0.queue = pipeline.queue
                $0.timeRange = range
            }
            // Cancelled while the loops were made: they end at once.
            if !reading { pipeline.queue.cancel(error: cancelledError) }
            let thread = Thread { [self] in
                let failure = pipeline.run()
                // Status first, so a consumer that sees the end also sees `.completed`.
                self.pipelineFinished(failure)
                pipeline.queue.finish(error: failure)
            }
            thread.name = "reel.reader.track\(pipeline.trackID)"
            thread.start()
        }
    }

    private func pipelineFinished(_ failure: ReelError?) {
        state.withLock { $0.loopFinished(failure) }
    }

    /// Stops every output: their loops end and their consumers get a `.cancelled` error.
    public func cancelReading() {
        let outputs = state.withLock { $0.cancel() }
        for output in outputs { output.state.withLock { $0.queue }?.cancel(error: cancelledError) }
    }

    private var cancelledError: ReelError { ReelError(.cancelled, "reading was cancelled", path: url.path) }
}
