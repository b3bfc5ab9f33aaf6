import ReelCore

/// Reads one track of an ``AssetReader``'s file: decoded video frames, decoded audio, or
/// the samples' raw bytes (timed metadata, passthrough).
///
/// An output is an `AsyncSequence` of ``AssetReaderSample``s with back-pressure: the
/// reader's thread decodes at most ``bufferCapacity`` samples ahead of the consumer.
/// Code that runs on its own thread (a render loop) can pull synchronously instead with
/// ``nextFrame()``, ``nextSampleBuffer()`` or ``nextAudio()``. Use one or the other, from
/// one consumer.
///
/// ```swift
/// let reader = try await AssetReader.open(url: url)
/// let video = AssetReaderTrackOutput(trackID: 1, settings: .video(pixelFormat: .bgra))
/// try reader.add(video)
/// try reader.startReading()
/// for try await sample in video { ... }
/// ```
public final class AssetReaderTrackOutput: AsyncSequence, Sendable {
    /// What the output delivers.
    public enum Settings: Sendable, Hashable {
        /// Decoded frames in `pixelFormat`, scaled to `width` x `height` when given
        /// (libswscale, bilinear), into pooled buffers.
        case video(pixelFormat: PixelFormat, width: Int? = nil, height: Int? = nil)
        /// Decoded audio as interleaved 32-bit float PCM at the track's rate and channels.
        case audioPCM
        /// Each sample's bytes unchanged, as a ``SampleBuffer`` (timed metadata, or
        /// packets to copy into a new file with ``AssetWriterInput``).
        case passthrough
    }

    public typealias Element = AssetReaderSample
    public typealias Failure = ReelError

    /// The track read: the MP4/MOV track ID (MPEG-TS PID), or the stream index in
    /// containers without IDs.
    public let trackID: Int32
    public let settings: Settings
    /// How many samples the reader decodes ahead of the consumer.
    public let bufferCapacity: Int

    struct State {
        var queue: BoundedQueue<AssetReaderSample>?
        var formatDescription: FormatDescription?
        /// The reader's time range, once reading.
        var timeRange: TimeRange?
        var attached = false
    }
    let state = Lock(State())

    /// An output for track `trackID`. `bufferCapacity` (at least 1) bounds the samples
    /// decoded ahead; metadata outputs may want more, as their samples are small.
    public init(trackID: Int32, settings: Settings, bufferCapacity: Int = 8) {
        self.trackID = trackID
        self.settings = settings
        self.bufferCapacity = Swift.max(1, bufferCapacity)
    }

    /// Nobody can read what is left: the reader's loop for this output stops.
    deinit {
        state.withLock { $0.queue }?.cancel(error: ReelError(.cancelled, "the output was released while reading", trackID: trackID))
    }

    /// The track's codec and parameters, once the output is added to a reader.
    public var formatDescription: FormatDescription? { state.withLock { $0.formatDescription } }

    private func startedQueue() throws(ReelError) -> BoundedQueue<AssetReaderSample> {
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
