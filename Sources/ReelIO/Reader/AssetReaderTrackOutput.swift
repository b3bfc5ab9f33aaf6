import ReelCore

/// Reads one track of an ``AssetReader``'s file: decoded video frames, decoded audio, or
/// the samples' raw bytes (timed metadata, passthrough).
///
/// An output is an `AsyncSequence` of ``AssetReaderSample``s with back-pressure: the
/// reader's thread decodes at most ``bufferCapacity`` samples ahead of the consumer. The
/// same samples come typed from ``frames``, ``audio`` and ``sampleBuffers``.
/// Code that runs on its own thread (a render loop) can pull synchronously instead with
/// ``nextFrame()``, ``nextSampleBuffer()`` or ``nextAudio()``. Use one or the other, from
/// one consumer.
///
/// ```swift
/// let reader = try await AssetReader.open(url: url)
/// let video = AssetReaderTrackOutput(trackID: 1, settings: .video(pixelFormat: .bgra))
/// try reader.add(video)
/// try reader.startReading()
/// for try await frame in video.frames { ... }
/// ```
public final class AssetReaderTrackOutput: AsyncSequence, Sendable {
    /// What the output delivers.
    public enum Settings: Sendable, Hashable {
        /// Decoded frames in `pixelFormat`, scaled to `width` x `height` when given
        /// (libswscale, bilinear), into pooled buffers.
        case video(pixelFormat: PixelFormat, width: Int? = nil, height: Int? = nil)
        /// Decoded audio as interleaved 32-bit float PCM at the track's rate and channels.
        case audioPCM
        /// Each sample's bytes unchanged, as a `SampleBuffer` (timed metadata, or
        /// packets to copy into a new file with ``AssetWriterInput``).
        case passthrough
    }

    public typealias Element = AssetReaderSample
    public typealias Failure = ReelError

    /// The track read: the MP4/MOV track ID (MPEG-TS PID), or the stream index in
    /// containers without IDs.
    public let trackID: Int32
    public let settings: Settings
    /// How many samples the reader decodes ahead of the consumer; 0 when it decodes one
    /// only once the consumer asks for it.
    public let bufferCapacity: Int

    struct State {
        var queue: BoundedQueue<AssetReaderSample>?
        var formatDescription: FormatDescription?
        /// The reader's time range, once reading.
        var timeRange: TimeRange?
        var attached = false
        var supportsRandomAccess = false
        var started = false
        /// Where the first range's read seeks, when later than the range's start, and
        /// whether it drains its decoder at the frame showing then.
        var seekTime: MediaTime?
        var drainsAtSeekFrame = false
        var decodesForSeeks = false
    }
    let state = Lock(State())
    /// What ``reset(forReadingTimeRanges:)`` and ``markConfigurationAsFinal()`` tell the
    /// output's read loop; the loop holds this, not the output.
    let randomAccess = Lock(RandomAccessRequests())
    /// How many decoded pictures the read loop dropped because they show before what it
    /// delivers (decoded only because later pictures refer to them).
    let dropped = Lock(0)
    /// When recently delivered frames show, as the reader's loop learns it from the packets.
    let frameTimes = Lock(FrameTimes())

    /// An output for track `trackID`. `bufferCapacity` bounds the samples decoded ahead;
    /// metadata outputs may want more, as their samples are small. With 0, nothing is
    /// decoded ahead: the reader's thread reads and decodes while the consumer waits for
    /// the next sample (as the ffmpeg CLI decodes, between encoding one frame and the
    /// next), so a consumer that encodes each frame as it gets it holds none decoded in
    /// between. The decoder's own threads still work ahead.
    public init(trackID: Int32, settings: Settings, bufferCapacity: Int = 8) {
        self.trackID = trackID
        self.settings = settings
        self.bufferCapacity = Swift.max(0, bufferCapacity)
    }

    /// Nobody can read what is left: the reader's loop for this output stops.
    deinit {
        randomAccess.withLock { $0.isFinal = true }
        state.withLock { $0.queue }?.cancel(error: ReelError(.cancelled, "the output was released while reading", trackID: trackID))
    }

    // MARK: Random access

    /// Whether the output can be moved to other time ranges with
    /// ``reset(forReadingTimeRanges:)`` (AVAssetReaderOutput's `supportsRandomAccess`).
    /// Set it before the reader starts. The reader then keeps the output's file and
    /// decoder open after a range ends, until ``markConfigurationAsFinal()``.
    public var supportsRandomAccess: Bool {
        get { state.withLock { $0.supportsRandomAccess } }
        set { state.withLock { if !$0.started { $0.supportsRandomAccess = newValue } } }
    }

    /// Reads `timeRanges` next (in order; ascending, not overlapping), with the file and
    /// decoder the output already has open: the read loop seeks (`avformat_seek_file`) and
    /// empties its decoder instead of opening the file again. Each range starts
    /// frame-exactly, as the reader's time range does.
    ///
    /// Unlike AVFoundation, which asks that every sample of the last range was read first,
    /// a reset may come at any time: what the last range had not yet delivered is dropped.
    /// Throws when the output does not support random access, is not reading, or its
    /// configuration is final, or when the ranges are empty, invalid or out of order.
    public func reset(forReadingTimeRanges timeRanges: [TimeRange]) throws(ReelError) {
        try reset(forReadingTimeRanges: timeRanges, seekingTo: nil)
    }

    /// ``reset(forReadingTimeRanges:)``, seeking for the first range to the keyframe at or
    /// before `seekTime` instead of before the range's start, when `seekTime` is later: for
    /// a reader that wants the frame showing at `seekTime` and those after it. A video
    /// output then delivers from the frame showing at `seekTime` (found from the packets'
    /// time stamps, whatever their durations say), and decodes the frames before it only
    /// where other pictures refer to them.
    ///
    /// With `drainingAtSeekFrame`, the frame showing at `seekTime` comes out as soon as it is
    /// decoded, and the frames after it later: the decoder is drained at that frame, so
    /// that neither FFmpeg's frame threads nor the codec's reordering hold it back for the
    /// pictures after it, and the packets from the keyframe are decoded again to read on,
    /// once a frame after it is asked for (not before: the next request may be another
    /// seek). For a seek whose frame is shown alone first, as a player's or a preview's is.
    package func reset(
        forReadingTimeRanges timeRanges: [TimeRange], seekingTo seekTime: MediaTime?, drainingAtSeekFrame: Bool = false
    ) throws(ReelError) {
        guard supportsRandomAccess else {
            throw ReelError(.invalidArgument, "reset needs supportsRandomAccess set before startReading()", trackID: trackID)
        }
        guard !timeRanges.isEmpty else { throw ReelError(.invalidArgument, "reset needs at least one time range", trackID: trackID) }
        for (i, range) in timeRanges.enumerated() {
            guard range.start.isNumeric, range.duration.isNumeric || range.duration.isPositiveInfinity, range.duration > .zero else {
                throw ReelError(.invalidArgument, "time range \(i) is empty or not numeric", trackID: trackID)
            }
            if i > 0, range.start < timeRanges[i - 1].end {
                throw ReelError(
                    .invalidArgument, "time range \(i) starts before the one before it ends: ranges must ascend without overlapping", trackID: trackID)
            }
        }
        // Decoding ahead starts small: a consumer that seeks may want one frame and seek again.
        let queue = BoundedQueue<AssetReaderSample>(capacity: bufferCapacity, startingCapacity: 1)
        let old: BoundedQueue<AssetReaderSample>? = try randomAccess.withLock { (requests) throws(ReelError) in
            guard !requests.isFinal else {
                throw ReelError(.invalidArgument, "the output's configuration is final: it reads no more ranges", trackID: trackID)
            }
            let old = state.withLock { s -> BoundedQueue<AssetReaderSample>? in
                guard s.queue != nil else { return nil }
                defer { s.queue = queue }
                return s.queue
            }
            guard old != nil else {
                throw ReelError(.invalidArgument, "the output is not reading yet: add it to an AssetReader and call startReading()", trackID: trackID)
            }
            requests.pending = (timeRanges, seekTime, drainingAtSeekFrame, queue)
            requests.resetCount += 1
            return old
        }
        // Wakes the loop if it is blocked on the old queue; its consumer sees the reset.
        old?.cancel(error: ReelError(.cancelled, "the output was reset to other time ranges", trackID: trackID))
    }

    /// For the range the reader starts with: seek to the keyframe at or before `seekTime`
    /// and deliver from the frame showing then, as ``reset(forReadingTimeRanges:seekingTo:drainingAtSeekFrame:)``
    /// does, when it is later than the range's start. Set it before the reader starts.
    package var startSeekTime: MediaTime? {
        get { state.withLock { $0.seekTime } }
        set { state.withLock { if !$0.started { $0.seekTime = newValue } } }
    }

    /// Whether the read seeking to ``startSeekTime`` drains its decoder at the frame showing
    /// then, as ``reset(forReadingTimeRanges:seekingTo:drainingAtSeekFrame:)`` does. Set it
    /// before the reader starts.
    package var startDrainsAtSeekFrame: Bool {
        get { state.withLock { $0.drainsAtSeekFrame } }
        set { state.withLock { if !$0.started { $0.drainsAtSeekFrame = newValue } } }
    }

    /// Whether the output serves a reader that seeks often (a player's, a preview's): its
    /// decoder gets a thread more than the cores (`Decoder.seekingThreadCount`), its
    /// frames are copies of the decoder's pictures, never the pictures themselves, and its
    /// frame pool starts afresh at each seek, so that its memory does not grow over a long
    /// run of seeks (`TrackPipeline.seeks`). Set it before the reader starts.
    package var decodesForSeeks: Bool {
        get { state.withLock { $0.decodesForSeeks } }
        set { state.withLock { if !$0.started { $0.decodesForSeeks = newValue } } }
    }

    /// No more ranges will be asked for: the read loop ends once the current ranges are
    /// read, and closes the output's file.
    public func markConfigurationAsFinal() {
        randomAccess.withLock { $0.isFinal = true }
    }

    /// How many decoded pictures were dropped, undelivered, because they show before the
    /// range (or before the frame showing at a seek's time): the cost of reaching it.
    package var droppedFrameCount: Int { dropped.withLock { $0 } }

    /// When the frame after the one at `presentationTime` starts, when `presentationTime` is
    /// a recently delivered frame and the packets' time stamps told; nil otherwise. After a
    /// seek to a time (``startSeekTime``, ``reset(forReadingTimeRanges:seekingTo:drainingAtSeekFrame:)``) the
    /// reader reads the packets up to a few frames past it before decoding; after that, the
    /// packets sent to the decoder tell. A consumer so knows how long a frame shows without
    /// holding the next one decoded.
    package func timeOfFrame(after presentationTime: MediaTime) -> MediaTime? {
        frameTimes.withLock { notes in
            notes.times.firstIndex(of: presentationTime).flatMap { $0 + 1 < notes.times.count ? notes.times[$0 + 1] : nil }
        }
    }

    /// Whether the output's read loop waits, for room in the output or for a consumer to
    /// ask for a frame (after a drain at a seek's frame): it decodes nothing meanwhile.
    package var readLoopWaits: Bool { (state.withLock { $0.queue }?.waiterCount ?? 0) > 0 }

    /// How many times ``reset(forReadingTimeRanges:)`` moved the output.
    package var resetCount: Int { randomAccess.withLock { $0.resetCount } }

    /// The track's codec and parameters, once the output is added to a reader.
    public var formatDescription: FormatDescription? { state.withLock { $0.formatDescription } }

    func startedQueue() throws(ReelError) -> BoundedQueue<AssetReaderSample> {
        guard let queue = state.withLock({ $0.queue }) else {
            throw ReelError(.invalidArgument, "the output is not reading yet: add it to an AssetReader and call startReading()", trackID: trackID)
        }
        return queue
    }

    /// The next sample, blocking the calling thread until it is decoded; nil at the end.
    /// For code on its own thread; async code iterates the output instead.
    @available(*, noasync, message: "blocks the thread: iterate the output with for try await instead")
    public func nextSample() throws(ReelError) -> AssetReaderSample? {
        try startedQueue().nextBlocking()
    }

    /// The next decoded frame of a video output, blocking; nil at the end.
    @available(*, noasync, message: "blocks the thread: iterate the output with for try await instead")
    public func nextFrame() throws(ReelError) -> VideoFrame? {
        guard case .video = settings else {
            throw ReelError(.invalidArgument, "nextFrame() needs an output with .video settings", trackID: trackID)
        }
        return try startedQueue().nextBlocking()?.videoFrame
    }

    /// The next raw sample of a passthrough output, blocking; nil at the end.
    @available(*, noasync, message: "blocks the thread: iterate the output with for try await instead")
    public func nextSampleBuffer() throws(ReelError) -> SampleBuffer? {
        guard case .passthrough = settings else {
            throw ReelError(.invalidArgument, "nextSampleBuffer() needs an output with .passthrough settings", trackID: trackID)
        }
        return try startedQueue().nextBlocking()?.sampleBuffer
    }

    /// The next decoded audio of an `.audioPCM` output, blocking; nil at the end.
    @available(*, noasync, message: "blocks the thread: iterate the output with for try await instead")
    public func nextAudio() throws(ReelError) -> DecodedAudio? {
        guard case .audioPCM = settings else {
            throw ReelError(.invalidArgument, "nextAudio() needs an output with .audioPCM settings", trackID: trackID)
        }
        return try startedQueue().nextBlocking()?.audio
    }

    /// The next sample, suspending until it is decoded; nil at the end.
    public func next(isolation actor: isolated (any Actor)? = #isolation) async throws(ReelError) -> AssetReaderSample? {
        try await startedQueue().next(isolation: actor)
    }

    public struct AsyncIterator: AsyncIteratorProtocol {
        let output: AssetReaderTrackOutput

        public mutating func next(isolation actor: isolated (any Actor)?) async throws(ReelError) -> AssetReaderSample? {
            try await output.next(isolation: actor)
        }

        public mutating func next() async throws(ReelError) -> AssetReaderSample? {
            try await output.next(isolation: nil)
        }
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(output: self) }
}

/// When recently delivered frames show, as the packets' time stamps tell: runs of
/// consecutive frames, ascending (after a seek to a time, the frame showing then and the
/// few after it, read before decoding; then each delivered frame's successor).
struct FrameTimes {
    var times: [MediaTime] = []

    /// The most times kept: more than a consumer's queue holds ahead of it.
    static let limit = 64

    /// Notes that the frame after the one at `shown` starts at `next`.
    mutating func note(_ next: MediaTime, after shown: MediaTime) {
        if let i = times.lastIndex(of: shown) {
            guard i + 1 == times.count else { return }
            times.append(next)
        } else {
            times = [shown, next]
        }
        if times.count > Self.limit { times.removeFirst(times.count - Self.limit / 2) }
    }
}

/// The ranges a random-access output was last asked to read, until its loop takes them,
/// and whether more may come.
struct RandomAccessRequests {
    var pending: (ranges: [TimeRange], seekTime: MediaTime?, drainsAtSeekFrame: Bool, queue: BoundedQueue<AssetReaderSample>)?
    var isFinal = false
    var resetCount = 0
}
