/// One output frame to compose (`AVAsynchronousVideoCompositionRequest`): the composition
/// time, the instruction in force, the source frames, timed metadata and captions for that
/// time, and the finish calls.
///
/// Rule 4: finish every request exactly once, with a frame, an error or as cancelled, from
/// any task. A second finish is ignored and reported as a ``RenderDiagnostic``. Finishing
/// with no frame, or with a frame of another size or format than the render context's, is an
/// error. A request released without being finished fails the render with an error naming
/// its composition time.
public final class AsynchronousVideoCompositionRequest: Sendable {
    /// How a request ended, as told to whoever made it (the engine, or a test harness).
    public enum Outcome: Sendable {
        /// Finished with a good frame.
        case composed(PixelBuffer)
        /// Finished with an error, or with no frame or a wrong one.
        case failed(ReelError)
        /// Finished with `finishCancelledRequest()`.
        case cancelled
        /// Released by the compositor without being finished.
        case abandoned(ReelError)
    }

    /// Where to render: size, format, pool.
    public let renderContext: VideoCompositionRenderContext
    /// The output time being composed.
    public let compositionTime: MediaTime
    /// The video tracks that have a frame in this request, in the instruction's order.
    public let sourceTrackIDs: [Int32]
    /// The metadata tracks that have a group in this request, in the instruction's order.
    public let sourceSampleDataTrackIDs: [Int32]
    /// The caption tracks that have captions showing in this request, in the instruction's
    /// order (`requiredSourceCaptionTrackIDs`).
    public let sourceCaptionTrackIDs: [Int32]
    /// The instruction whose time range holds `compositionTime`.
    public let videoCompositionInstruction: any VideoCompositionInstructionProtocol

    private let frames: [Int32: PixelBuffer]
    private let sampleData: [Int32: TimedMetadataSample]
    private let captionGroups: [Int32: CaptionGroup]
    private let state = Lock<Bool>(false)
    private let completion: @Sendable (Outcome) -> Void
    private let diagnostics: @Sendable (RenderDiagnostic) -> Void

    /// A request with the given sources; `completion` is called exactly once with how it
    /// ended, `diagnostics` for each ignored extra finish.
    ///
    /// `sourceFrames`, `sourceSampleData` and `sourceCaptionGroups` are in the instruction's
    /// order; their track IDs become `sourceTrackIDs`, `sourceSampleDataTrackIDs` and
    /// `sourceCaptionTrackIDs`. A metadata sample's group and raw sample are in composition
    /// time.
    public init(
        renderContext: VideoCompositionRenderContext, compositionTime: MediaTime,
        videoCompositionInstruction: any VideoCompositionInstructionProtocol,
        sourceFrames: [(trackID: Int32, frame: PixelBuffer)] = [],
        sourceSampleData: [(trackID: Int32, sample: TimedMetadataSample)] = [],
        sourceCaptionGroups: [(trackID: Int32, group: CaptionGroup)] = [],
        diagnostics: @escaping @Sendable (RenderDiagnostic) -> Void = RenderDiagnostic.standardErrorLogger,
        completion: @escaping @Sendable (Outcome) -> Void
    ) {
        self.renderContext = renderContext
        self.compositionTime = compositionTime
        self.videoCompositionInstruction = videoCompositionInstruction
        var seenFrames = Set<Int32>()
        self.sourceTrackIDs = sourceFrames.map(\.trackID).filter { seenFrames.insert($0).inserted }
        self.frames = Dictionary(sourceFrames.map { ($0.trackID, $0.frame) }, uniquingKeysWith: { first, _ in first })
        var seenData = Set<Int32>()
        self.sourceSampleDataTrackIDs = sourceSampleData.map(\.trackID).filter { seenData.insert($0).inserted }
        self.sampleData = Dictionary(sourceSampleData.map { ($0.trackID, $0.sample) }, uniquingKeysWith: { first, _ in first })
        var seenCaptions = Set<Int32>()
        self.sourceCaptionTrackIDs = sourceCaptionGroups.map(\.trackID).filter { seenCaptions.insert($0).inserted }
        self.captionGroups = Dictionary(sourceCaptionGroups.map { ($0.trackID, $0.group) }, uniquingKeysWith: { first, _ in first })
        self.diagnostics = diagnostics
        self.completion = completion
    }

    deinit {
        let finished = state.withLock { $0 }
        if !finished {
            completion(
                .abandoned(
                    ReelError(
                        .compositorFailed,
                        "the compositor released the request for composition time \(compositionTime.secondsDescription) without finishing it",
                        time: compositionTime)))
        }
    }

    // MARK: Sources

    /// The frame of video track `trackID` at this time; nil when the instruction does not
    /// require the track or it has no frame here (an empty edit).
    ///
    /// Read it, never write it: it may be the decoder's own picture, which later pictures
    /// are decoded from. Draw on a buffer of your own (``VideoCompositionRenderContext/newPixelBuffer()``),
    /// or return the frame as it is.
    public func sourceFrame(byTrackID trackID: Int32) -> PixelBuffer? { frames[trackID] }

    /// The raw sample of metadata track `trackID` whose time range holds this time, when
    /// delivered (rule 1) and known.
    public func sourceSampleBuffer(byTrackID trackID: Int32) -> SampleBuffer? { sampleData[trackID]?.sampleBuffer }

    /// The metadata group of track `trackID` whose time range (in composition time) holds
    /// this time; nil when there is none (no carry-forward) or the track is not delivered.
    public func sourceTimedMetadata(byTrackID trackID: Int32) -> TimedMetadataGroup? { sampleData[trackID]?.group }

    /// The captions of caption track `trackID` showing at this time, as a group whose time
    /// range (in composition time) is the span over which the same captions show; nil when
    /// none shows, or the instruction does not list the track in
    /// `requiredSourceCaptionTrackIDs`.
    public func sourceCaptionGroup(byTrackID trackID: Int32) -> CaptionGroup? { captionGroups[trackID] }

    // MARK: Finishing

    /// Whether one of the finish calls has been made.
    public var isFinished: Bool { state.withLock { $0 } }

    /// Finishes with the composed frame, which must come from the render context (its size
    /// and format). Nil is an error.
    public func finish(withComposedVideoFrame frame: PixelBuffer?) {
        let time = compositionTime.secondsDescription
        guard let frame else {
            return finish(
                .failed(
                    ReelError(
                        .compositorFailed, "the compositor finished the request for composition time \(time) without a frame",
                        time: compositionTime)), how: "with a frame")
        }
        let context = renderContext
        guard frame.width == context.width, frame.height == context.height, frame.format == context.pixelFormat else {
            return finish(
                .failed(
                    ReelError(
                        .compositorFailed,
                        "the compositor finished the request for composition time \(time) with a \(frame.width)x\(frame.height) \(frame.format) frame, but the render context is \(context.width)x\(context.height) \(context.pixelFormat)",
                        time: compositionTime)), how: "with a frame")
        }
        finish(.composed(frame), how: "with a frame")
    }

    /// Finishes with an error: the render fails with it.
    public func finish(with error: any Error) {
        let reelError =
            (error as? ReelError)
            ?? ReelError(
                .compositorFailed, "the compositor failed at composition time \(compositionTime.secondsDescription)",
                time: compositionTime, underlying: error)
        finish(.failed(reelError), how: "with an error")
    }

    /// Finishes a request the compositor gave up on because it was cancelled.
    public func finishCancelledRequest() {
        finish(.cancelled, how: "as cancelled")
    }

    private func finish(_ outcome: Outcome, how: String) {
        let first = state.withLock { finished in
            defer { finished = true }
            return !finished
        }
        if first {
            completion(outcome)
        } else {
            diagnostics(
                RenderDiagnostic(
                    kind: .requestFinishedTwice, compositionTime: compositionTime,
                    message: "the request for composition time \(compositionTime.secondsDescription) was finished again (\(how)); the second finish was ignored"
                ))
        }
    }
}
