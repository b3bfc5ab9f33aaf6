import Foundation
import ReelCore

/// Reads a media file's tracks as decoded frames, decoded audio or raw samples
/// (AVAssetReader).
///
/// Add one ``AssetReaderTrackOutput`` per track to read, set ``timeRange`` if only part
/// is wanted, then call ``startReading()``. Each output runs its own demux/decode loop on
/// a thread of its own (never on Swift's cooperative pool), bounded by the output's
/// buffer, so outputs read at their own pace without blocking one another.
///
/// The file is opened and probed once, by `init(url:)` (or `open(url:)`); the first
/// output reads from that opened file, each further output opens one of its own on its
/// thread. ``startReading()`` does no I/O: it checks the outputs and starts the threads.
/// A demuxer an output (or a reader never started) is done with goes back to the file's
/// pool, shared by the process (`MediaFile`): the next reader of the same unchanged file
/// takes it, rewound, instead of opening and probing the file again.
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
    /// For a URL read over the network: how long a connection or a read may wait before
    /// it fails (30 s unless given; an ``Asset``'s ``Asset/Options/networkTimeout``).
    public let networkTimeout: Duration
    /// The file's tracks, in stream order, as ``Asset`` lists them (header timing).
    public let tracks: [AssetTrack]

    private let state = Lock(AssetReaderState())
    /// The file opened and probed by `init`, until the first output's loop takes it.
    private let probed: Lock<ProbedInput?>
    /// The file as the process shares it: its pool of demuxers and its MP4 boxes (read
    /// once for every reader of the file).
    private let file: MediaFile
    private let demuxerOpens = Lock(0)
    /// Each video track's keyframe times, from the container's index.
    private let keyframes: [Int32: [MediaTime]]

    /// Opens `url` and lists its tracks. Throws when the file is missing, unreadable or
    /// not a media file. For a URL that is not a file, no connection or read (of this
    /// open, and of each output's) waits longer than `networkTimeout`.
    ///
    /// Blocks while the file is opened and probed: async code uses ``open(url:networkTimeout:)``.
    /// The opened file is kept for the first output to read.
    @available(*, noasync, message: "blocks the thread while the file is opened: use try await AssetReader.open(url:)")
    public init(url: URL, networkTimeout: Duration = .seconds(30)) throws(ReelError) {
        self.url = url
        self.networkTimeout = networkTimeout
        let file = MediaFile.shared(url)
        let input = try file.takeDemuxer(networkTimeout: networkTimeout)
        var (tracks, _, origin) = try AssetProbe.tracks(input, family: ContainerFamily(formatName: input.formatName))
        AssetProbe.settle(&tracks, origin: origin)
        // The tracks know their file, so an output can tell them from another file's.
        let source = AssetSource(url: url, options: Asset.Options())
        self.tracks = tracks.map { $0.attached(to: source) }
        var keyframes: [Int32: [MediaTime]] = [:]
        for track in tracks where track.mediaType == .video && !track.isCoverPicture {
            if let index = input.streamIndex(forTrackID: track.trackID) { keyframes[track.trackID] = input.keyframeTimes(ofStreamAt: index) }
        }
        self.keyframes = keyframes
        self.probed = Lock(ProbedInput(input))
        self.file = file
        demuxerOpens.withLock { $0 += 1 }
    }

    deinit {
        // Never started: the probed demuxer goes back to the pool.
        if let unused = probed.withLock({ taken -> ProbedInput? in
            defer { taken = nil }; return taken
        }) {
            file.giveBack(unused.input)
        }
    }

    /// How many demuxers this reader has used (each opened with `avformat_open_input`, or
    /// taken open from the file's pool): one when made, then one for each output after the
    /// first.
    package var demuxerOpenCount: Int { demuxerOpens.withLock { $0 } }

    /// How many times the file's MP4 boxes were read (for the times of a metadata track's
    /// samples): at most once for every reader of the same file in the process.
    package var movieBoxReadCount: Int { file.boxReadCount }

    /// How many times the file was opened (`avformat_open_input`) by any reader or asset
    /// of the process.
    package var fileOpenCount: Int { file.openCount }

    /// How many pictures came out of the decoders of the file, for any reader or asset of
    /// the process.
    package var decodedPictureCount: Int { file.decodedPictureCount }

    /// How many pictures of the file its readers left out of their decoders, for any reader
    /// or asset of the process: H.264 pictures no other refers to, before a seek's frame.
    package var pictureLeftOutCount: Int { file.pictureLeftOutCount }

    /// When the keyframes of video track `trackID` show, in order, as the container's index
    /// lists them (an MP4 sample table's sync samples, Matroska's cues); empty when it lists
    /// none. For deciding between reading on and seeking: a keyframe may be missing, and
    /// the times of an MP4's keyframes are their decode times moved by the stream's first
    /// reordering delay, so they can be a frame or two off where B-frames vary it.
    package func keyframeTimes(trackID: Int32) -> [MediaTime] { keyframes[trackID] ?? [] }

    /// A reader of `url`, opened and probed on a thread of its own while the caller
    /// suspends (`init(url:)` blocks the calling thread).
    public static func open(url: URL, networkTimeout: Duration = .seconds(30)) async throws(ReelError) -> AssetReader {
        try await onDedicatedThread(named: "reel.reader.open") { () throws(ReelError) in try AssetReader(url: url, networkTimeout: networkTimeout) }
    }

    /// Opens a reader of `url` as ``open(url:networkTimeout:)`` does, runs `body` with it
    /// and returns what `body` returns.
    ///
    /// However `body` ends (it returns, throws, or stops because its task was cancelled),
    /// the reader is stopped as by ``cancelReading()`` and this returns only once its read
    /// loops have ended and its demuxers are back in the file's pool, so no thread reads the
    /// file afterwards and the next reader of the file takes them. A reference to the reader
    /// kept past `body` finds it stopped (`.cancelled`, or `.completed` or `.failed` if it
    /// got there first). Throws what opening the file throws (`body` does not run), else
    /// what `body` throws, unchanged; a cancelled task is not an error of its own here: an
    /// output's `next()` throws `.cancelled` when the task is cancelled while it waits.
    public static func withReader<Result>(
        url: URL, networkTimeout: Duration = .seconds(30), isolation: isolated (any Actor)? = #isolation,
        _ body: (AssetReader) async throws(ReelError) -> Result
    ) async throws(ReelError) -> Result {
        let reader = try await open(url: url, networkTimeout: networkTimeout)
        return try await reader.run(isolation: isolation, body)
    }

    /// Runs `body` with this reader, then stops the reader and waits for its loops, whether
    /// `body` returns or throws (``withReader(url:networkTimeout:isolation:_:)``).
    func run<Result>(isolation: isolated (any Actor)?, _ body: (AssetReader) async throws(ReelError) -> Result) async throws(ReelError) -> Result {
        let result: Result
        do throws(ReelError) {
            result = try await body(self)
        } catch {
            await cancelReadingAndWait()
            throw error
        }
        await cancelReadingAndWait()
        return result
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

    /// Adds an output that reads several of the file's tracks through readers of its own
    /// (an audio mix). Throws when the reader has started, a track is not one of this
    /// file's (a track of another file, or of none), or the output refuses the tracks.
    public func add(_ output: any AssetReaderCompositeOutput) throws(ReelError) {
        guard state.withLock({ $0.isConfigurable }) else {
            throw ReelError(.invalidArgument, "outputs can only be added before startReading()", path: url.path)
        }
        for track in output.sourceTracks {
            guard let own = self.track(withID: track.trackID), own.index == track.index,
                let file = track.source?.url, file.standardizedFileURL == url.standardizedFileURL
            else {
                let other = track.source.map { " (it is a track of \(NetworkInput.location($0.url)))" } ?? ""
                throw ReelError(.invalidArgument, "the track is not one of this file's\(other)", path: url.path, trackID: track.trackID)
            }
        }
        try output.attach(to: self)
        guard state.withLock({ $0.add(composite: output) }) else {
            throw ReelError(.invalidArgument, "outputs can only be added before startReading()", path: url.path)
        }
    }

    private static func tooLate(_ output: AssetReaderTrackOutput, _ url: URL) -> ReelError {
        ReelError(.invalidArgument, "outputs can only be added before startReading()", path: url.path, trackID: output.trackID)
    }

    /// Starts every output's read loop, each on a thread of its own, and returns without
    /// waiting for them: no file is opened and nothing is read on the calling thread.
    ///
    /// Throws when there are no outputs, the time range is invalid, an output's settings
    /// do not fit its track (kind, output size) or no decoder exists for its codec. What
    /// fails later on an output's thread (opening the file again, reading its boxes,
    /// opening the decoder, seeking, reading) fails the reader (``status`` `.failed`,
    /// ``error`` set) and reaches that output's consumer from `next()`.
    public func startReading() throws(ReelError) {
        let (outputs, composites, range): ([AssetReaderTrackOutput], [any AssetReaderCompositeOutput], TimeRange)
        switch state.withLock({ $0.startReading() }) {
        case .refuse(let reason): throw ReelError(.invalidArgument, reason, path: url.path)
        case .start(let o, let c, let r): (outputs, composites, range) = (o, c, r)
        }
        do throws(ReelError) {
            for output in outputs {
                guard let track = track(withID: output.trackID) else {
                    throw ReelError(.invalidArgument, "the file has no such track", path: url.path, trackID: output.trackID)
                }
                try TrackPipeline.check(output.settings, track: track, path: url.path)
            }
            for output in composites { try output.prepare(timeRange: range) }
        } catch {
            state.withLock { $0.startFailed(error) }
            throw error
        }
        // An output that starts with a seek to a time decodes ahead little at first, as after a reset.
        let queues = outputs.map { BoundedQueue<AssetReaderSample>(capacity: $0.bufferCapacity, startingCapacity: $0.startSeekTime == nil ? nil : 1) }
        let reading = state.withLock { $0.started(count: outputs.count + composites.count) }
        for output in composites {
            output.start { [weak state] failure in state?.withLock { $0.loopFinished(failure) } }
            if !reading { output.cancel(cancelledError) }
        }
        let first = probed.withLock { taken -> ProbedInput? in
            defer { taken = nil }
            return taken
        }
        for (index, (output, queue)) in zip(outputs, queues).enumerated() {
            let (randomAccess, seekTime, drains, forSeeks) = output.state.withLock {
                $0.queue = queue
                $0.timeRange = range
                $0.started = true
                return ($0.supportsRandomAccess, $0.seekTime, $0.drainsAtSeekFrame, $0.decodesForSeeks)
            }
            // Cancelled while starting: the loops end at once.
            if !reading { queue.cancel(error: cancelledError) }
            let given = index == 0 ? first : nil
            // The loop holds neither the reader, its state (which lists the outputs) nor the
            // output: when the consumer lets go of them, the output's deinit cancels the
            // queue and the loop ends, instead of blocking for ever on a queue nobody reads.
            let loop = ReadLoop(
                networkTimeout: networkTimeout, trackID: output.trackID, settings: output.settings, range: range,
                file: file, demuxerOpens: demuxerOpens, dropped: output.dropped, frameTimes: output.frameTimes, seekTime: seekTime,
                drainsAtSeekFrame: drains, decodesForSeeks: forSeeks, requests: randomAccess ? output.randomAccess : nil)
            startDedicatedThread(named: "reel.reader.track\(output.trackID)") { [weak state] in
                let failure = loop.run(from: given, into: queue)
                // Status first, so a consumer that sees the end also sees `.completed`.
                state?.withLock { $0.loopFinished(failure) }
                queue.finish(error: failure)
            }
        }
    }

    /// Stops every output: their loops end and their consumers get a `.cancelled` error.
    public func cancelReading() {
        let (outputs, composites) = state.withLock { $0.cancel() }
        for output in outputs {
            output.markConfigurationAsFinal()
            output.state.withLock { $0.queue }?.cancel(error: cancelledError)
        }
        for output in composites { output.cancel(cancelledError) }
    }

    /// Stops every output and waits (off Swift's cooperative pool) until their loops have
    /// ended, so their demuxers are back in the file's pool for the next reader: for a
    /// reader read only in part, when another reader of the file comes next. A reader never
    /// started gives back the demuxer it probed the file with at once (it can no longer
    /// start), instead of when it goes away.
    package func cancelReadingAndWait() async {
        cancelReading()
        if state.withLock({ $0.isRunning }) {
            _ = try? await onDedicatedThread(named: "reel.reader.stop") { [state] () throws(ReelError) in
                state.withLock(when: { !$0.isRunning }) { _ in }
            }
        }
        // No start is at work (it would count as running): a start that came before took
        // the probed demuxer, and one that comes now is refused.
        if let unused = probed.withLock({ taken -> ProbedInput? in
            defer { taken = nil }
            return taken
        }) {
            file.giveBack(unused.input)
        }
    }

    /// Whether a read loop of the reader is still running (or ``startReading()`` is making
    /// them).
    package var hasRunningLoops: Bool { state.withLock { $0.isRunning } }

    private var cancelledError: ReelError { ReelError(.cancelled, "reading was cancelled", path: url.path) }
}

/// The demuxer ``AssetReader/init(url:)`` opened and probed, handed whole to the first
/// output's thread.
private final class ProbedInput: @unchecked Sendable {
    // @unchecked: the reader keeps it behind its lock until one output's thread takes it
    // (once); from then on that thread alone uses it.
    let input: InputFormatContext

    init(_ input: InputFormatContext) { self.input = input }
}

/// One output's loop, on its own thread: takes the probed file or opens one, makes the
/// pipeline and runs it.
private struct ReadLoop: Sendable {
    let networkTimeout: Duration
    let trackID: Int32
    let settings: AssetReaderTrackOutput.Settings
    let range: TimeRange
    let file: MediaFile
    let demuxerOpens: Lock<Int>
    /// The output's count of pictures decoded but not delivered.
    let dropped: Lock<Int>
    /// Where the loop notes when the frames it delivers show (``FrameTimes``).
    let frameTimes: Lock<FrameTimes>
    /// Where the first range's read seeks, when later than its start, and whether it
    /// drains the decoder at the frame showing then.
    let seekTime: MediaTime?
    let drainsAtSeekFrame: Bool
    /// Whether the decoder gets a thread more, for a reader that seeks often.
    let decodesForSeeks: Bool
    /// A random-access output's requests: after each range the loop waits for the next
    /// one here instead of ending.
    let requests: Lock<RandomAccessRequests>?

    /// Runs to the end of the range (of the last range asked for, with random access), a
    /// cancel or an error, which it returns. The demuxer goes back to the file's pool
    /// unless reading it failed.
    func run(from given: ProbedInput?, into queue: BoundedQueue<AssetReaderSample>) -> ReelError? {
        if queue.isCancelled, requests == nil {
            if let given { file.giveBack(given.input) }
            return nil
        }
        let input: InputFormatContext
        var pipeline: TrackPipeline?
        do throws(ReelError) {
            if let given {
                input = given.input
            } else {
                input = try file.takeDemuxer(networkTimeout: networkTimeout)
                demuxerOpens.withLock { $0 += 1 }
            }
            pipeline = try TrackPipeline(
                input: input, trackID: trackID, settings: settings,
                timeRange: range, queue: queue, file: file, dropped: dropped, frameTimes: frameTimes, seeks: decodesForSeeks)
        } catch {
            return error
        }
        let failure = pipeline.map { read(with: $0, from: queue) } ?? nil
        // The pipeline (its decoder and packets) is gone before another reader can take
        // the demuxer.
        pipeline = nil
        if failure == nil || failure?.code == .cancelled { file.giveBack(input) }
        return failure
    }

    private func read(with pipeline: TrackPipeline, from queue: BoundedQueue<AssetReaderSample>) -> ReelError? {
        var failure = queue.isCancelled ? nil : pipeline.run(seekingTo: seekTime, drainingAtSeekFrame: drainsAtSeekFrame)
        guard let requests else { return failure }
        var current = queue
        while true {
            // The range is read, failed, or was left for others (a reset cancelled its
            // queue): its consumer sees the end, then the loop waits for more or the end.
            if !current.isCancelled { current.finish(error: failure) }
            let next = requests.withLock(when: { $0.pending != nil || $0.isFinal }) {
                r -> (ranges: [TimeRange], seekTime: MediaTime?, drainsAtSeekFrame: Bool, queue: BoundedQueue<AssetReaderSample>)? in
                defer { r.pending = nil }
                return r.pending
            }
            guard let next else { return failure }
            current = next.queue
            failure = nil
            for (i, range) in next.ranges.enumerated() where failure == nil && !current.isCancelled {
                failure = pipeline.run(
                    timeRange: range, seekingTo: i == 0 ? next.seekTime : nil, drainingAtSeekFrame: i == 0 && next.drainsAtSeekFrame, into: current)
            }
        }
    }
}
