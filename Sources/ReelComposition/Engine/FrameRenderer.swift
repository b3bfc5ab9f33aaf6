/// Renders single frames of a composition on demand, through the same pipeline as a whole
/// render (``RenderEngine/frames(compositor:)``): the same instruction lookup, source
/// frames, metadata routing, pixel conversion and compositor contract, so a frame rendered
/// here is the frame a render or an export writes for that time, pixel for pixel, at the
/// same render scale.
///
/// One compositor serves every frame, as during AVFoundation playback: it is made once,
/// told the render context before the first request and again when the render scale
/// changes, and requests may overlap. What the player and a preview call:
///
/// ```swift
/// let renderer = try FrameRenderer(engine: RenderEngine(composition: c, videoComposition: v, sources: sources))
/// let range = try await renderer.frameTimeRange(containing: time)!        // the output frame holding `time`
/// let frame = try await renderer.frame(at: range.start, renderScale: 0.5)   // its pixels and metadata groups
/// ```
public final class FrameRenderer: Sendable {
    /// The engine whose composition, video composition, sources and options every frame uses.
    public let engine: RenderEngine
    /// The one compositor every frame goes to.
    public let compositor: any VideoCompositing
    private let pipeline: RenderPipeline
    private let timeRange: TimeRange

    /// Validates the video composition against the composition (throws
    /// `invalidComposition` listing every problem) and makes the compositor: `compositor`
    /// when given, else the video composition's factory, else the built-in one.
    public init(engine: RenderEngine, compositor: (any VideoCompositing)? = nil) throws(ReelError) {
        let range = engine.options.timeRange ?? engine.composition.timeRange
        try engine.videoComposition.validated(for: engine.composition, timeRange: range)
        let made = compositor ?? engine.videoComposition.customVideoCompositor?() ?? StandardVideoCompositor()
        self.engine = engine
        self.compositor = made
        self.timeRange = range
        self.pipeline = RenderPipeline(engine: engine, timeRange: range, makeCompositor: { made })
    }

    /// The output frame holding `time`, from its start to the next frame's (a
    /// `frameDuration` grid from the start of the render's range, or the timing track's
    /// frames); nil outside the range.
    public func frameTimeRange(containing time: MediaTime) async throws(ReelError) -> TimeRange? {
        try await pipeline.outputFrameRange(containing: time)
    }

    /// Renders the output frame holding `time` at `renderScale` (the video composition's
    /// own when nil): the request's composition time is the frame's start, as in a render.
    /// The returned frame carries the metadata groups the request carried.
    ///
    /// A new scale makes a new render context, announced to the compositor with
    /// `renderContextChanged` before the request. Cancelling the calling task stops waiting
    /// (throws `cancelled`) and asks the compositor to cancel what it holds.
    ///
    /// With `isSeek`, the frame is a seek's, shown alone before the frames after it are
    /// asked for: its source frames are asked for with
    /// ``VideoFrameSource/seekFrame(at:acceptedFormats:)``, which a file-backed source
    /// answers sooner, and the frames after them later.
    public func frame(at time: MediaTime, renderScale: Double? = nil, isSeek: Bool = false) async throws(ReelError) -> RenderedFrame {
        guard let range = try await frameTimeRange(containing: time) else {
            throw ReelError(.invalidArgument, "time \(time.secondsDescription) is outside the composition's range \(timeRange)", time: time)
        }
        _ = try await pipeline.prepareSingleFrames(renderScale: renderScale ?? engine.videoComposition.renderScale)
        if Task.isCancelled { throw Self.cancelled(at: range.start) }
        let (slot, pending) = try await pipeline.startSingleFrame(at: range.start, isSeek: isSeek)
        let cancelled = Self.cancelled(at: range.start)
        let result = await withTaskCancellationHandler {
            await slot.wait()
        } onCancel: {
            slot.resolve(.failure(cancelled))
        }
        switch result {
        case .success(let buffer):
            return RenderedFrame(
                time: pending.time, duration: pending.duration, pixelBuffer: buffer,
                instructionIndex: pending.instructionIndex, isPassthrough: pending.isPassthrough,
                sourceTimedMetadata: pending.sourceTimedMetadata)
        case .failure(let error):
            if Task.isCancelled { await pipeline.cancelCompositorRequests() }
            throw error
        }
    }

    /// The timed metadata of each of `trackIDs` (metadata tracks of the composition) whose
    /// group holds composition time `time`, in composition time, in the order asked: the
    /// groups a request at `time` carries for the tracks it is given.
    public func timedMetadata(at time: MediaTime, trackIDs: [Int32]) async throws(ReelError) -> [(trackID: Int32, sample: TimedMetadataSample)] {
        try await pipeline.timedMetadata(at: time, trackIDs: trackIDs)
    }

    /// Asks the compositor to finish or cancel every pending request
    /// (`cancelAllPendingVideoCompositionRequests`), and returns when it has.
    public func cancelAllPendingRequests() async {
        await pipeline.cancelCompositorRequests()
    }

    private static func cancelled(at time: MediaTime) -> ReelError {
        ReelError(.cancelled, "the frame for composition time \(time.secondsDescription) was cancelled", time: time)
    }
}
