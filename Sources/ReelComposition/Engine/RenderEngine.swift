/// Renders a composition with a video composition into frames, in time order
/// (what `AVAssetReaderVideoCompositionOutput` and export do, without the files).
///
/// For each output time the engine finds the instruction, maps the time to each required
/// source track through the composition's segments, takes the frame showing then and the
/// metadata group whose range holds it, builds an ``AsynchronousVideoCompositionRequest`` and
/// starts it on the compositor (or, for a passthrough instruction, outputs the source frame).
/// A bounded number of requests are in flight; frames come out strictly in time order as an
/// `AsyncSequence`, and nothing is produced faster than it is consumed.
///
/// ```swift
/// let engine = RenderEngine(composition: c, videoComposition: v, sources: sources)
/// for try await frame in try engine.frames() { try await writer.append(frame.pixelBuffer, at: frame.time) }
/// ```
public struct RenderEngine: Sendable {
    /// How a render runs.
    public struct Options: Sendable {
        /// How many requests may be started and not yet delivered (at least 1).
        public var maximumRequestsInFlight: Int
        /// A request not finished this long after it started fails the render; nil waits forever.
        public var requestTimeout: Duration?
        /// The render format to use when the compositor accepts it.
        public var preferredPixelFormat: PixelFormat?
        /// The part of the composition to render; all of it by default.
        public var timeRange: TimeRange?
        /// Passed on to the render context.
        public var highQualityRendering: Bool
        /// Where warnings go (a request finished twice, a group dropped); standard error by default.
        public var diagnostics: @Sendable (RenderDiagnostic) -> Void
        /// Whether the render's first frame is a seek's, shown alone before the render goes
        /// on (a player's or a preview's): its source frames are asked for with
        /// ``VideoFrameSource/seekFrame(at:acceptedFormats:)``, which a file-backed source
        /// answers sooner, and the frames after them later. The render starts the frames
        /// after it only once the next one is asked for: a seek's source readers decode from
        /// the keyframe again to read on, work that would slow a seek coming soon after. Off
        /// by default: a render that plays through (an export) reads on from its first frame
        /// without a pause.
        public var firstFrameIsSeek = false

        /// Options with the given settings; each has a default.
        public init(
            maximumRequestsInFlight: Int = 4, requestTimeout: Duration? = nil,
            preferredPixelFormat: PixelFormat? = nil, timeRange: TimeRange? = nil,
            highQualityRendering: Bool = true,
            diagnostics: @escaping @Sendable (RenderDiagnostic) -> Void = RenderDiagnostic.standardErrorLogger
        ) {
            self.maximumRequestsInFlight = maximumRequestsInFlight
            self.requestTimeout = requestTimeout
            self.preferredPixelFormat = preferredPixelFormat
            self.timeRange = timeRange
            self.highQualityRendering = highQualityRendering
            self.diagnostics = diagnostics
        }
    }

    /// The composition to render.
    public let composition: Composition
    /// How the composition's video tracks make each output frame.
    public let videoComposition: VideoComposition
    /// Where the engine finds each source track's frames, metadata, captions and sound.
    public let sources: any RenderSourceProvider
    /// How the render runs.
    public let options: Options

    /// An engine that renders `composition` with `videoComposition`, reading from `sources`.
    public init(
        composition: Composition, videoComposition: VideoComposition, sources: any RenderSourceProvider,
        options: Options = Options()
    ) {
        self.composition = composition
        self.videoComposition = videoComposition
        self.sources = sources
        self.options = options
    }

    /// The frames of the render, validated first: throws `invalidComposition` listing every
    /// problem. Each iteration of the sequence is a render of its own, with a new compositor
    /// from the video composition's factory (or the built-in one), unless `compositor` is
    /// given.
    public func frames(compositor: (any VideoCompositing)? = nil) throws(ReelError) -> RenderedFrames {
        let range = options.timeRange ?? composition.timeRange
        try videoComposition.validated(for: composition, timeRange: range)
        guard options.maximumRequestsInFlight >= 1 else {
            throw ReelError(.invalidArgument, "maximumRequestsInFlight is \(options.maximumRequestsInFlight): it must be at least 1")
        }
        let factory: @Sendable () -> any VideoCompositing
        if let compositor {
            factory = { compositor }
        } else {
            factory = videoComposition.customVideoCompositor ?? { StandardVideoCompositor() }
        }
        return RenderedFrames(engine: self, timeRange: range, makeCompositor: factory)
    }

    /// Renders everything and returns the frames (for short compositions and tests).
    public func renderAll(compositor: (any VideoCompositing)? = nil) async throws(ReelError) -> [RenderedFrame] {
        var out: [RenderedFrame] = []
        var iterator = try frames(compositor: compositor).makeAsyncIterator()
        while let frame = try await iterator.next(isolation: nil) { out.append(frame) }
        return out
    }
}

/// One output frame: its composition time, how long it shows, and its pixels.
public struct RenderedFrame: Sendable {
    /// The composition time at which the frame starts showing.
    public var time: MediaTime
    /// How long the frame shows.
    public var duration: MediaTime
    /// The frame's pixels.
    public var pixelBuffer: PixelBuffer
    /// The index of the instruction that produced it.
    public var instructionIndex: Int
    /// Whether a passthrough instruction produced it without the compositor.
    public var isPassthrough: Bool
    /// The timed metadata groups the compositor's request carried, by track ID (composition
    /// times); empty for a passthrough frame.
    public var sourceTimedMetadata: [Int32: TimedMetadataGroup]

    /// A frame with the given time, duration and pixels.
    public init(
        time: MediaTime, duration: MediaTime, pixelBuffer: PixelBuffer, instructionIndex: Int = 0, isPassthrough: Bool = false,
        sourceTimedMetadata: [Int32: TimedMetadataGroup] = [:]
    ) {
        self.time = time
        self.duration = duration
        self.pixelBuffer = pixelBuffer
        self.instructionIndex = instructionIndex
        self.isPassthrough = isPassthrough
        self.sourceTimedMetadata = sourceTimedMetadata
    }
}

/// The frames of a render, in time order (`AsyncSequence`, failing with `ReelError`).
/// Cancelling the task that iterates cancels the compositor's pending requests.
public struct RenderedFrames: AsyncSequence, Sendable {
    public typealias Element = RenderedFrame
    public typealias Failure = ReelError

    let engine: RenderEngine
    let timeRange: TimeRange
    let makeCompositor: @Sendable () -> any VideoCompositing

    public func makeAsyncIterator() -> AsyncIterator {
        let pipeline = RenderPipeline(engine: engine, timeRange: timeRange, makeCompositor: makeCompositor)
        return AsyncIterator(pipeline: pipeline, owner: Owner(pipeline: pipeline))
    }

    public struct AsyncIterator: AsyncIteratorProtocol, Sendable {
        let pipeline: RenderPipeline
        /// Gone with the last copy of the iterator: the render then starts no more requests.
        let owner: Owner

        public mutating func next(isolation actor: isolated (any Actor)?) async throws(ReelError) -> RenderedFrame? {
            try await nextFrame()
        }

        public mutating func next() async throws(ReelError) -> RenderedFrame? {
            try await nextFrame()
        }

        private func nextFrame() async throws(ReelError) -> RenderedFrame? {
            do throws(ReelError) {
                guard let frame = try await pipeline.next() else {
                    owner.renderEnded()
                    return nil
                }
                return frame
            } catch {
                // The pipeline stopped itself before throwing.
                owner.renderEnded()
                throw error
            }
        }

        /// Ends the render before its end (a player's seek): returns once no request of
        /// it will start and the compositor has finished or cancelled the pending ones
        /// (`cancelAllPendingVideoCompositionRequests`), so its sources are free for the
        /// next render. `next()` then returns nil.
        public func stop() async {
            await pipeline.stop()
            owner.renderEnded()
        }
    }

    /// Tells the pipeline, when the iterator is dropped before the render ended, that nobody
    /// waits for its frames. A render that ended has nothing to tell: the pipeline, and the
    /// compositor with it, are then freed with the iterator, not later by a task.
    final class Owner: Sendable {
        let pipeline: RenderPipeline
        private let ended = Lock(false)
        init(pipeline: RenderPipeline) { self.pipeline = pipeline }
        func renderEnded() { ended.withLock { $0 = true } }
        deinit {
            guard !ended.withLock({ $0 }) else { return }
            let pipeline = pipeline
            Task { await pipeline.abandon() }
        }
    }
}
