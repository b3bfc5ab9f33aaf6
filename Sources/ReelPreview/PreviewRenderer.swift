import Foundation
import Reel

/// One frame of a preview: the composition's frame `index`, rendered by the render engine
/// at the preview's scale, with the timed-metadata groups its compositor received.
public struct PreviewFrame: Sendable {
    public var index: Int
    public var time: MediaTime
    public var pixelBuffer: PixelBuffer
    /// The instruction that drew it; nil in a gap.
    public var instructionIndex: Int?
    public var isPassthrough: Bool
    /// What the compositor's request carried, by track ID (nothing for a passthrough).
    public var metadata: [(trackID: Int32, group: TimedMetadataGroup)]
    /// The document state it was rendered from (``PreviewDocument/State/generation``).
    public var generation: Int
}

/// Renders a document's frames for the preview: the same engine, sources and compositor
/// as `reel render`, at a render scale.
///
/// Frames asked for in order come from one running render, which reads its sources on and
/// keeps its compositor busy; any other frame starts a render at that frame, after the
/// compositor's pending requests are cancelled (as a player's seek does). The last frames
/// rendered are kept, so stepping back to one of them costs nothing.
///
/// Requests take turns: one waits for the one before it (from any page) to have its frame.
/// The actor alone would let a second page's request in while the first waits for its
/// frame, to read on from the same render (each taking the other's next frame), or to
/// start another and so cancel the compositor's request the first waits for.
public actor PreviewRenderer {
    public let scale: Double
    private var state: PreviewDocument.State
    private var videoComposition: VideoComposition
    private var compositor: any VideoCompositing
    private var running: Running?
    private var cache: [Int: PreviewFrame] = [:]
    private var cacheOrder: [Int] = []
    private let cacheLimit: Int
    /// How many renders were started (one per jump), for tests and the benchmark.
    public private(set) var renderStarts = 0
    /// How many of them started at a seek's frame (not while a page played).
    public private(set) var seekRenderStarts = 0
    /// Held by the request being answered, and by a document update (see the type's comment).
    private let turn = AsyncGate()

    /// A render under way: its frames come in order from `next` to `end` (excluded).
    private struct Running {
        var iterator: RenderedFrames.AsyncIterator
        var next: Int
        var end: Int
    }

    /// A renderer for `state` at `scale` (0 < scale <= 1 of the render size) keeping the
    /// last `cacheLimit` frames.
    public init(state: PreviewDocument.State, scale: Double, cacheLimit: Int = 32) {
        self.scale = scale.isFinite && scale > 0 ? min(scale, 1) : 1
        self.state = state
        self.cacheLimit = max(1, cacheLimit)
        self.videoComposition = Self.scaled(state.videoComposition, by: self.scale)
        self.compositor = Self.makeCompositor(state.videoComposition)
    }

    /// The document changed: later frames come from `state` (a new compositor, which gets
    /// its render context before its first request). The readers of the document as it was
    /// stop now, not whenever their sources are last let go of.
    public func update(_ state: PreviewDocument.State) async {
        await turn.enter()
        defer { turn.leave() }
        await running?.iterator.stop()
        await Self.closeVideoSources(of: self.state)
        self.state = state
        videoComposition = Self.scaled(state.videoComposition, by: scale)
        compositor = Self.makeCompositor(state.videoComposition)
        running = nil
        cache.removeAll()
        cacheOrder.removeAll()
    }

    /// No page is left: the running render stops, and the video sources close their readers
    /// and let go of their decoded frames (the next request opens them again), and the
    /// memory freed goes back to the system (`FrameMemory.returnFreedMemory()`). The frames
    /// kept for steps back stay.
    public func releaseSources() async {
        await turn.enter()
        defer { turn.leave() }
        await running?.iterator.stop()
        running = nil
        await Self.closeVideoSources(of: state)
        // The readers' pools and decoders are gone: what the heaps kept of them goes back.
        FrameMemory.returnFreedMemory()
    }

    /// The frames of the document, and the size they are rendered at.
    public var frameCount: Int { state.frameCount }
    public var pixelSize: (width: Int, height: Int) { videoComposition.renderPixelSize }
    public var generation: Int { state.generation }

    /// The time of frame `index`.
    public func time(ofFrame index: Int) -> MediaTime {
        state.range.start + state.videoComposition.frameDuration * Int32(clamping: index)
    }

    /// Frame `index` (0 ..< ``frameCount``). Unless `playing` (asked for by a page that
    /// plays on from it), a render started for it is a seek's: its first frame comes as soon
    /// as it is decoded, the frames after it later (`RenderEngine.Options.firstFrameIsSeek`).
    public func frame(_ index: Int, playing: Bool = false) async throws(ReelError) -> PreviewFrame {
        // A kept frame is answered at once, without waiting for a turn.
        if let cached = cache[index] { return cached }
        await turn.enter()
        defer { turn.leave() }
        return try await frame(index, alone: false, playing: playing)
    }

    /// Frame `index`; when a render starts for it and `alone`, the render is of that frame
    /// only (a scrub's frame: the next request is likely elsewhere, and frames rendered after
    /// it would hold up the seek that comes with it). A render started while `playing` reads
    /// on from its first frame.
    private func frame(_ index: Int, alone: Bool, playing: Bool) async throws(ReelError) -> PreviewFrame {
        guard index >= 0, index < state.frameCount else {
            throw ReelError(.invalidArgument, "frame \(index) is outside 0...\(max(state.frameCount - 1, 0))")
        }
        if let cached = cache[index] { return cached }
        // A frame a little ahead of the running render is read on to; anything else starts anew.
        if running.map({ !(index >= $0.next && index <= $0.next + 8 && index < $0.end) }) ?? true {
            try await start(at: index, frames: alone ? 1 : state.frameCount - index, seeking: !playing)
        }
        while var run = running {
            let produced: RenderedFrame?
            do {
                produced = try await run.iterator.next(isolation: self)
            } catch {
                running = nil
                throw error
            }
            guard let rendered = produced else {
                running = nil
                throw ReelError(.internalError, "the render ended before frame \(index)")
            }
            let made = PreviewFrame(
                index: run.next, time: rendered.time, pixelBuffer: rendered.pixelBuffer,
                instructionIndex: videoComposition.instruction(at: rendered.time)?.index,
                isPassthrough: rendered.isPassthrough,
                metadata: rendered.sourceTimedMetadata.sorted { $0.key < $1.key }.map { ($0.key, $0.value) },
                generation: state.generation)
            remember(made)
            run.next += 1
            running = run.next < run.end ? run : nil
            if made.index == index { return made }
        }
        throw ReelError(.internalError, "no render reached frame \(index)")
    }

    /// A frame from `index - toleranceBefore` to `index + toleranceAfter` (clipped to the
    /// document), the one quickest to show: where `SeekLanding` puts the seek (a keyframe of
    /// the sources in the window), unless a frame rendered already, or the running render's
    /// next, is at least as near to `index`. With no tolerance, frame `index` itself;
    /// `playing` as for ``frame(_:playing:)``.
    public func frame(_ index: Int, toleranceBefore: Int, toleranceAfter: Int, playing: Bool = false) async throws(ReelError) -> PreviewFrame {
        if let cached = cache[index] { return cached }
        await turn.enter()
        defer { turn.leave() }
        guard index >= 0, index < state.frameCount else { return try await frame(index, alone: false, playing: playing) }
        if let cached = cache[index] { return cached }
        // Clipped before adding: a tolerance may be as large as a message can say.
        let low = index - min(max(0, toleranceBefore), index), high = index + min(max(0, toleranceAfter), state.frameCount - 1 - index)
        guard low < high else { return try await frame(index, alone: false, playing: playing) }
        let frameDuration = state.videoComposition.frameDuration
        let landingTime = await SeekLanding.time(
            for: time(ofFrame: index), earliest: time(ofFrame: low), latest: time(ofFrame: high) + frameDuration,
            composition: state.composition, videoComposition: state.videoComposition, sources: state.sources)
        let landing = min(max(firstFrame(atOrAfter: landingTime), low), high)
        let ready = (Array(cache.keys) + (running.map { [$0.next] } ?? [])).filter { (low...high).contains($0) && abs($0 - index) <= abs(landing - index) }
        if let nearest = ready.min(by: { abs($0 - index) < abs($1 - index) }) { return try await frame(nearest, alone: false, playing: playing) }
        return try await frame(landing, alone: true, playing: playing)
    }

    /// The index of the first frame that starts at or after `time`.
    private func firstFrame(atOrAfter time: MediaTime) -> Int {
        let offset = (time - state.range.start).seconds / state.videoComposition.frameDuration.seconds
        guard offset.isFinite else { return 0 }
        return Int((offset - 1e-9).rounded(.up))
    }

    /// Starts a render of `frames` frames from `index`, whose first frame is a seek's when
    /// `seeking`.
    private func start(at index: Int, frames: Int, seeking: Bool) async throws(ReelError) {
        // The render before: stopped, its compositor requests cancelled (a player's seek).
        await running?.iterator.stop()
        running = nil
        let end = min(index + max(frames, 1), state.frameCount)
        var options = RenderEngine.Options(maximumRequestsInFlight: 2)
        // The page shows this frame alone until it plays on.
        options.firstFrameIsSeek = seeking
        options.timeRange = TimeRange(start: time(ofFrame: index), end: end < state.frameCount ? time(ofFrame: end) : state.range.end)
        let engine = RenderEngine(composition: state.composition, videoComposition: videoComposition, sources: state.sources, options: options)
        running = Running(iterator: try engine.frames(compositor: compositor).makeAsyncIterator(), next: index, end: end)
        renderStarts += 1
        if seeking { seekRenderStarts += 1 }
    }

    private func remember(_ frame: PreviewFrame) {
        if cache.updateValue(frame, forKey: frame.index) == nil { cacheOrder.append(frame.index) }
        while cacheOrder.count > cacheLimit { cache[cacheOrder.removeFirst()] = nil }
    }

    /// Closes the video sources of `state`, their readers' threads ended on return.
    private static func closeVideoSources(of state: PreviewDocument.State) async {
        let references = Set(state.composition.tracks(withMediaType: .video).flatMap { $0.segments.compactMap(\.sourceTrack) })
        for reference in references { await state.sources.videoFrameSource(for: reference)?.close() }
    }

    private static func scaled(_ video: VideoComposition, by scale: Double) -> VideoComposition {
        guard scale != 1 else { return video }
        var m = video.mutableCopy()
        m.renderScale = video.renderScale * scale
        return m
    }

    private static func makeCompositor(_ video: VideoComposition) -> any VideoCompositing {
        video.customVideoCompositor?() ?? StandardVideoCompositor()
    }
}
