/// One render in progress: walks the output times, prepares and starts requests (at most
/// `maximumRequestsInFlight` ahead of the consumer) and hands back frames in time order.
actor RenderPipeline {
    private let engine: RenderEngine
    private let timeRange: TimeRange
    private let makeCompositor: @Sendable () -> any VideoCompositing

    private var compositor: (any VideoCompositing)?
    private var context: VideoCompositionRenderContext?
    private var sourceFormats: PixelBufferAttributes?
    private var nextTime: MediaTime?
    private var instructionIndex = 0
    private var pending: [(slot: RequestSlot, frame: PendingFrame)] = []
    private var done = false
    /// Starts the requests after the frame ``next()`` waits for (see there).
    private var filling: Task<Result<Void, ReelError>, Never>?
    private var converters: [ConversionKey: PixelBufferPool] = [:]
    /// Each caption track's groups in composition time, read on first use.
    private var captionGroups: [Int32: [CaptionGroup]] = [:]
    private let videoTrackIDs: [Int32]
    /// When the composition's last segment of each source video track ends: once the render
    /// has asked for the frames before then, the source is closed (``VideoFrameSource/close()``).
    private var sourcesNeededUntil: [SourceTrackReference: MediaTime]
    /// The output time whose source frames are asked for as a seek's
    /// (``VideoFrameSource/seekFrame(at:acceptedFormats:)``): the first frame of a render
    /// whose first frame is a seek's, or a single frame rendered for a seek.
    private var seekTime: MediaTime?

    struct PendingFrame {
        var time: MediaTime
        var duration: MediaTime
        var instructionIndex: Int
        var isPassthrough: Bool
        var sourceTimedMetadata: [Int32: TimedMetadataGroup] = [:]
    }

    struct ConversionKey: Hashable {
        var width: Int, height: Int, format: PixelFormat
    }

    init(engine: RenderEngine, timeRange: TimeRange, makeCompositor: @escaping @Sendable () -> any VideoCompositing) {
        self.engine = engine
        self.timeRange = timeRange
        self.makeCompositor = makeCompositor
        self.videoTrackIDs = engine.composition.tracks(withMediaType: .video).filter(\.isEnabled).map(\.trackID)
        var until: [SourceTrackReference: MediaTime] = [:]
        for track in engine.composition.tracks(withMediaType: .video) {
            for segment in track.segments where !segment.isEmpty {
                guard let reference = segment.sourceTrack else { continue }
                until[reference] = until[reference].map { MediaTime.maximum($0, segment.target.end) } ?? segment.target.end
            }
        }
        self.sourcesNeededUntil = until
        self.seekTime = engine.options.firstFrameIsSeek ? timeRange.start : nil
    }

    private var videoComposition: VideoComposition { engine.videoComposition }
    private var options: RenderEngine.Options { engine.options }

    // MARK: Consumer side

    func next() async throws(ReelError) -> RenderedFrame? {
        guard !done else { return nil }
        do throws(ReelError) {
            if Task.isCancelled { throw cancelledError(at: pending.first?.frame.time ?? nextTime ?? timeRange.start) }
            try await start()
            // The requests started while the last frame was waited for (one filler at a time:
            // each takes the next output time).
            try await finishFilling()
            try await fill(upTo: 1)
            guard !pending.isEmpty else {
                done = true
                return nil
            }
            let (slot, frame) = pending.removeFirst()
            // The requests after this one start while it is waited for, so a frame comes back
            // as soon as the compositor has it, not after the next frames' sources are read
            // (what a seek waits for); together with it, at most `maximumRequestsInFlight`.
            // Not after a seek's frame: the render goes on once the next frame is asked for.
            let limit = options.maximumRequestsInFlight - 1
            if limit > 0, nextTime != nil, frame.time != seekTime {
                filling = Task { () -> Result<Void, ReelError> in
                    do throws(ReelError) {
                        try await self.fill(upTo: limit)
                        return .success(())
                    } catch {
                        return .failure(error)
                    }
                }
            }
            let cancelled = cancelledError(at: frame.time)
            let result = await withTaskCancellationHandler {
                await slot.wait()
            } onCancel: {
                slot.resolve(.failure(cancelled))
            }
            switch result {
            case .success(let buffer):
                return RenderedFrame(
                    time: frame.time, duration: frame.duration, pixelBuffer: buffer,
                    instructionIndex: frame.instructionIndex, isPassthrough: frame.isPassthrough,
                    sourceTimedMetadata: frame.sourceTimedMetadata)
            case .failure(let error):
                throw error
            }
        } catch {
            await stop()
            throw error
        }
    }

    /// Nobody iterates any more (the iterator was dropped without ``stop()``): the requests
    /// being started in the background stop before their compositor request, and no other
    /// starts. Those already started are the compositor's to finish.
    func abandon() {
        done = true
        filling?.cancel()
    }

    /// Ends the render: waits for the requests being started in the background to stop
    /// (their sources are read by then), then asks the compositor to finish or cancel what
    /// it holds. The render's sources are then free for another render.
    func stop() async {
        done = true
        if let filling {
            filling.cancel()
            _ = await filling.value
            self.filling = nil
        }
        await cancelPending()
    }

    /// Waits for the requests being started in the background, and throws what stopped them.
    private func finishFilling() async throws(ReelError) {
        guard let filling else { return }
        self.filling = nil
        try await filling.value.get()
    }

    private func cancelledError(at time: MediaTime) -> ReelError {
        ReelError(.cancelled, "the render was cancelled at composition time \(time.secondsDescription)", time: time)
    }

    /// Asks the compositor to finish or cancel what it has, and waits (rule 6).
    private func cancelPending() async {
        pending.removeAll()
        // The request being waited for has left `pending` but may still be with the
        // compositor, so ask it whatever the slots say.
        if let compositor { await compositor.cancelAllPendingVideoCompositionRequests() }
    }

    // MARK: Setup

    /// Makes the compositor and render context on first use (rule 7: attributes read once,
    /// `renderContextChanged` before the first request).
    private func start() async throws(ReelError) {
        guard compositor == nil else { return }
        let compositor = makeCompositor()
        let required = compositor.requiredPixelBufferAttributesForRenderContext.pixelFormatType
        let sourceFormats = compositor.sourcePixelBufferAttributes
        guard let first = required.first else {
            throw ReelError(.compositorFailed, "the compositor's requiredPixelBufferAttributesForRenderContext lists no pixel format")
        }
        if let s = sourceFormats, s.pixelFormatType.isEmpty {
            throw ReelError(.compositorFailed, "the compositor's sourcePixelBufferAttributes lists no pixel format")
        }
        let format = options.preferredPixelFormat.flatMap { required.contains($0) ? $0 : nil } ?? first
        let context = try makeContext(format: format, renderScale: videoComposition.renderScale)
        self.compositor = compositor
        // Sources are asked for (and converted to) the render format first when accepted.
        self.sourceFormats = sourceFormats.map { s in
            s.accepts(format) ? PixelBufferAttributes(pixelFormatType: [format] + s.pixelFormatType.filter { $0 != format }) : s
        }
        self.context = context
        self.nextTime = timeRange.duration > .zero ? timeRange.start : nil
        compositor.renderContextChanged(context)
    }

    /// A render context in `format` at `renderScale` (the video composition's size times it).
    private func makeContext(format: PixelFormat, renderScale: Double) throws(ReelError) -> VideoCompositionRenderContext {
        let w = (videoComposition.renderSize.width * renderScale).rounded(), h = (videoComposition.renderSize.height * renderScale).rounded()
        guard w.isFinite, h.isFinite, w >= 1, h >= 1, w <= 32768, h <= 32768 else {
            throw ReelError(
                .invalidArgument,
                "render scale \(renderScale) gives a \(w)x\(h) frame from render size \(videoComposition.renderSize.width)x\(videoComposition.renderSize.height): it must be 1 to 32768 pixels each way"
            )
        }
        return VideoCompositionRenderContext(
            width: Int(w), height: Int(h), pixelFormat: format, renderScale: renderScale,
            highQualityRendering: options.highQualityRendering, videoComposition: videoComposition,
            poolCapacity: options.maximumRequestsInFlight + 4)
    }

    // MARK: One frame at a time (FrameRenderer)

    /// Makes the compositor on first use, and a new render context when `renderScale` differs
    /// from the current one (then `renderContextChanged`, rule 7).
    func prepareSingleFrames(renderScale: Double) async throws(ReelError) -> any VideoCompositing {
        try await start()
        guard let compositor, let context else { throw ReelError(.internalError, "the render pipeline has no compositor") }
        if context.renderScale != renderScale {
            let changed = try makeContext(format: context.pixelFormat, renderScale: renderScale)
            self.context = changed
            compositor.renderContextChanged(changed)
        }
        return compositor
    }

    /// Starts the request for the output frame starting at `time` (a frame start on the
    /// render's timeline) and returns its slot and frame, without entering the render's
    /// own sequence of times. With `isSeek`, its source frames are asked for as a seek's.
    func startSingleFrame(at time: MediaTime, isSeek: Bool = false) async throws(ReelError) -> (slot: RequestSlot, frame: PendingFrame) {
        if isSeek { seekTime = time }
        let end = try await outputEnd(after: time)
        return try await startFrame(at: time, end: end)
    }

    /// The output frame holding `time`: from a frame start on the `frameDuration` grid from
    /// the start of the range (or the timing track's frame), to where the next one starts;
    /// nil outside the range.
    func outputFrameRange(containing time: MediaTime) async throws(ReelError) -> TimeRange? {
        guard timeRange.containsTime(time) else { return nil }
        if let timingID = videoComposition.sourceTrackIDForFrameTiming,
            let track = engine.composition.track(withTrackID: timingID),
            let segment = track.segment(forTrackTime: time),
            let frame = try await sourceFrame(track: timingID, at: time),
            let start = segment.compositionTime(forSourceTime: frame.timeRange.start),
            let end = segment.compositionTime(forSourceTime: frame.timeRange.end)
        {
            let from = MediaTime.maximum(MediaTime.maximum(start, segment.target.start), timeRange.start)
            let to = MediaTime.minimum(MediaTime.minimum(end, segment.target.end), timeRange.end)
            if from <= time, time < to { return TimeRange(start: from, end: to) }
        }
        let step = videoComposition.frameDuration
        let offset = time - timeRange.start
        // k = floor(offset / step), exactly: offset.value * step.timescale / (offset.timescale * step.value).
        let (num, o1) = offset.value.multipliedReportingOverflow(by: Int64(step.timescale))
        let (den, o2) = Int64(offset.timescale).multipliedReportingOverflow(by: step.value)
        let k: Int64 = (o1 || o2 || den <= 0) ? Int64((offset.seconds / step.seconds).rounded(.down)) : num / den
        var start = timeRange.start + step * Int32(clamping: k)
        if start > time { start = start - step }
        let end = MediaTime.minimum(start + step, timeRange.end)
        return TimeRange(start: start, end: end)
    }

    /// The metadata sample of each of `trackIDs` holding composition time `time`, mapped to
    /// composition time exactly as a request carries it.
    func timedMetadata(at time: MediaTime, trackIDs: [Int32]) async throws(ReelError) -> [(trackID: Int32, sample: TimedMetadataSample)] {
        var out: [(trackID: Int32, sample: TimedMetadataSample)] = []
        for id in trackIDs {
            if let sample = try await metadata(track: id, at: time) { out.append((id, sample)) }
        }
        return out
    }

    /// Asks the compositor to finish or cancel every request it holds (rule 6).
    func cancelCompositorRequests() async {
        if let compositor { await compositor.cancelAllPendingVideoCompositionRequests() }
    }

    // MARK: Producer side

    /// Starts requests until `limit` are pending or the times run out.
    private func fill(upTo limit: Int) async throws(ReelError) {
        while pending.count < limit, let time = nextTime {
            if Task.isCancelled { throw cancelledError(at: time) }
            try await prepare(at: time)
        }
    }

    private func prepare(at time: MediaTime) async throws(ReelError) {
        let frameEnd = try await outputEnd(after: time)
        nextTime = frameEnd < timeRange.end ? frameEnd : nil
        _ = try await startFrame(at: time, end: frameEnd) { slot, frame in pending.append((slot, frame)) }
        if let next = nextTime { await closeSources(neededBefore: next) }
    }

    /// Closes the video sources the composition needs nothing from at or after `time`, the
    /// frames before it having been asked for. Only while the render goes on: a source
    /// whose last frame is the render's last stays open for whoever renders next with it
    /// (an image generator asking for one frame after another).
    private func closeSources(neededBefore time: MediaTime) async {
        let finished = sourcesNeededUntil.filter { !(time < $0.value) }.map(\.key)
        for reference in finished {
            sourcesNeededUntil[reference] = nil
            await engine.sources.videoFrameSource(for: reference)?.close()
        }
    }

    /// Builds and starts the request (or the passthrough) for the output frame `[time, end)`.
    /// `enqueue` sees the slot before any work that may throw, so a render can cancel it.
    private func startFrame(
        at time: MediaTime, end frameEnd: MediaTime,
        enqueue: (RequestSlot, PendingFrame) -> Void = { _, _ in }
    ) async throws(ReelError) -> (slot: RequestSlot, frame: PendingFrame) {
        guard let compositor, let context else { throw ReelError(.internalError, "the render pipeline has no compositor") }
        guard let (index, instruction) = instruction(at: time) else {
            throw ReelError(.invalidComposition, "no instruction covers composition time \(time.secondsDescription)", time: time)
        }
        let slot = RequestSlot(time: time)
        var pendingFrame = PendingFrame(
            time: time, duration: MediaTime.minimum(frameEnd, timeRange.end) - time,
            instructionIndex: index, isPassthrough: instruction.passthroughTrackID != nil)
        enqueue(slot, pendingFrame)

        if let passthrough = instruction.passthroughTrackID {
            // Rule 8: the source frame is the output; the compositor is not called.
            let output = try await passthroughFrame(track: passthrough, at: time, context: context)
            slot.resolve(.success(output))
            return (slot, pendingFrame)
        }

        var frames: [(trackID: Int32, frame: PixelBuffer)] = []
        for id in instruction.requiredSourceTrackIDs ?? videoTrackIDs {
            if let frame = try await sourceFrame(track: id, at: time) {
                frames.append((id, convertForCompositor(frame.pixelBuffer)))
            }
        }
        var sampleData: [(trackID: Int32, sample: TimedMetadataSample)] = []
        for id in instruction.requiredSourceSampleDataTrackIDs where videoComposition.sourceSampleDataTrackIDs.contains(id) {
            if let sample = try await metadata(track: id, at: time) { sampleData.append((id, sample)) }
        }
        pendingFrame.sourceTimedMetadata = Dictionary(sampleData.map { ($0.trackID, $0.sample.group) }, uniquingKeysWith: { a, _ in a })
        if let i = pending.lastIndex(where: { $0.slot === slot }) { pending[i].frame = pendingFrame }
        var captions: [(trackID: Int32, group: CaptionGroup)] = []
        for id in instruction.requiredSourceCaptionTrackIDs {
            if let group = try await captionGroup(track: id, at: time) { captions.append((id, group)) }
        }
        let diagnostics = options.diagnostics
        let request = AsynchronousVideoCompositionRequest(
            renderContext: context, compositionTime: time, videoCompositionInstruction: instruction,
            sourceFrames: frames, sourceSampleData: sampleData, sourceCaptionGroups: captions,
            diagnostics: diagnostics
        ) { [slot] outcome in
            let result: RequestSlot.Result
            switch outcome {
            case .composed(let buffer): result = .success(buffer)
            case .failed(let error), .abandoned(let error): result = .failure(error)
            case .cancelled:
                result = .failure(ReelError(.cancelled, "the compositor cancelled the request for composition time \(time.secondsDescription)", time: time))
            }
            if !slot.resolve(result), case .composed = outcome {
                diagnostics(
                    RenderDiagnostic(
                        kind: .lateFinish, compositionTime: time,
                        message: "the request for composition time \(time.secondsDescription) finished after the render stopped waiting for it"))
            }
        }
        if let timeout = options.requestTimeout {
            slot.startTimeout(
                timeout,
                error: ReelError(
                    .compositorFailed, "the compositor did not finish the request for composition time \(time.secondsDescription) within \(timeout)",
                    time: time))
        }
        // A render abandoned while this frame's sources were read asks nothing more.
        if Task.isCancelled { throw cancelledError(at: time) }
        compositor.startRequest(request)
        return (slot, pendingFrame)
    }

    /// The instruction holding `time`, searching forward from the last one used.
    private func instruction(at time: MediaTime) -> (Int, any VideoCompositionInstructionProtocol)? {
        let list = videoComposition.instructions
        if instructionIndex < list.count, list[instructionIndex].timeRange.containsTime(time) {
            return (instructionIndex, list[instructionIndex])
        }
        guard let found = videoComposition.instruction(at: time) else { return nil }
        instructionIndex = found.index
        return found
    }

    /// The end of the output frame starting at `time`: one `frameDuration` later, or the end
    /// of the timing track's frame showing at `time` (and no later than its segment's end).
    private func outputEnd(after time: MediaTime) async throws(ReelError) -> MediaTime {
        let step = time + videoComposition.frameDuration
        guard let timingID = videoComposition.sourceTrackIDForFrameTiming,
            let track = engine.composition.track(withTrackID: timingID),
            let segment = track.segment(forTrackTime: time),
            let frame = try await sourceFrame(track: timingID, at: time),
            let end = segment.compositionTime(forSourceTime: frame.timeRange.end)
        else { return step }
        let bounded = MediaTime.minimum(end, segment.target.end)
        return time < bounded ? bounded : step
    }

    // MARK: Sources

    private func sourceFrame(track id: Int32, at time: MediaTime) async throws(ReelError) -> VideoFrame? {
        guard let track = engine.composition.track(withTrackID: id), let (ref, sourceTime) = track.sourceTime(at: time) else { return nil }
        guard let source = engine.sources.videoFrameSource(for: ref) else {
            throw ReelError(.invalidArgument, "no video frame source for \(ref), used by composition track \(id)", trackID: id, time: time)
        }
        let formats = sourceFormats?.pixelFormatType
        if time == seekTime {
            return try await source.seekFrame(at: sourceTime, acceptedFormats: formats)
        }
        return try await source.frame(at: sourceTime, acceptedFormats: formats)
    }

    private func metadata(track id: Int32, at time: MediaTime) async throws(ReelError) -> TimedMetadataSample? {
        guard let track = engine.composition.track(withTrackID: id), let segment = track.segment(forTrackTime: time),
            let ref = segment.sourceTrack, let sourceTime = segment.sourceTime(forCompositionTime: time)
        else { return nil }
        guard let source = engine.sources.timedMetadataSource(for: ref) else {
            throw ReelError(.invalidArgument, "no timed metadata source for \(ref), used by composition track \(id)", trackID: id, time: time)
        }
        guard let sample = try await source.sample(at: sourceTime) else { return nil }
        guard sample.group.timeRange.containsTime(sourceTime) else {
            // Rule 2: no carry-forward, whatever the source returns.
            options.diagnostics(
                RenderDiagnostic(
                    kind: .metadataGroupOutOfRange, compositionTime: time, trackID: id,
                    message:
                        "the metadata source for \(ref) returned a group over \(sample.group.timeRange) for source time \(sourceTime.secondsDescription); it was not delivered"
                ))
            return nil
        }
        var group = sample.group
        group.timeRange = segment.compositionTimeRange(forSourceTimeRange: group.timeRange) ?? group.timeRange
        for i in group.items.indices where group.items[i].time.isNumeric {
            if let mapped = segment.compositionTime(forSourceTime: group.items[i].time) { group.items[i].time = mapped }
        }
        var buffer = sample.sampleBuffer
        if let b = buffer, let mapped = segment.compositionTimeRange(forSourceTimeRange: b.timeRange) {
            buffer?.presentationTime = mapped.start
            buffer?.duration = mapped.duration
        }
        return TimedMetadataSample(group: group, sampleBuffer: buffer)
    }

    /// The captions of caption track `id` showing at composition time `time`, as a group;
    /// nil when none shows. The track's captions are read, cut to its segments and retimed
    /// once, on first use.
    private func captionGroup(track id: Int32, at time: MediaTime) async throws(ReelError) -> CaptionGroup? {
        if let groups = captionGroups[id] { return CaptionGroup.group(at: time, in: groups) }
        guard let track = engine.composition.track(withTrackID: id) else { return nil }
        let sources = engine.sources
        let captions = try await track.compositionCaptions { ref throws(ReelError) in
            guard let source = sources.captionSource(for: ref) else {
                throw ReelError(.invalidArgument, "no caption source for \(ref), used by composition track \(id)", trackID: id, time: time)
            }
            return try await source.captions()
        }
        let groups = CaptionGroup.groups(for: captions).filter { !$0.captions.isEmpty }
        captionGroups[id] = groups
        return CaptionGroup.group(at: time, in: groups)
    }

    // MARK: Pixels

    /// The source frame in a format the compositor accepts (rule 7).
    private func convertForCompositor(_ buffer: PixelBuffer) -> PixelBuffer {
        guard let formats = sourceFormats, !formats.accepts(buffer.format), let target = formats.pixelFormatType.first else { return buffer }
        let out = pool(width: buffer.width, height: buffer.height, format: target).makeBuffer()
        PixelConversion.convert(buffer, into: out)
        return out
    }

    /// The passthrough track's frame as an output frame: as it is when it matches the render
    /// context, else converted and scaled; the background when the track shows nothing.
    private func passthroughFrame(track id: Int32, at time: MediaTime, context: VideoCompositionRenderContext) async throws(ReelError) -> PixelBuffer {
        guard let frame = try await sourceFrame(track: id, at: time)?.pixelBuffer else {
            let out = context.newPixelBuffer()
            PixelFill.fill(out, with: .black)
            return out
        }
        if frame.width == context.width, frame.height == context.height, frame.format == context.pixelFormat { return frame }
        var converted = frame
        if frame.format != context.pixelFormat {
            converted = pool(width: frame.width, height: frame.height, format: context.pixelFormat).makeBuffer()
            PixelConversion.convert(frame, into: converted)
        }
        if converted.width == context.width && converted.height == context.height { return converted }
        let out = context.newPixelBuffer()
        LayerCompositing.resize(converted, into: out)
        return out
    }

    private func pool(width: Int, height: Int, format: PixelFormat) -> PixelBufferPool {
        let key = ConversionKey(width: width, height: height, format: format)
        if let pool = converters[key] { return pool }
        let pool = PixelBufferPool(width: width, height: height, format: format, maximumIdleCount: options.maximumRequestsInFlight + 2)
        converters[key] = pool
        return pool
    }
}
