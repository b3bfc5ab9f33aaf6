import ReelComposition
import Synchronization
import Testing

/// A compositor whose behaviour per request is given by a closure; it keeps the requests it
/// is told to hold, and its cancel finishes them as cancelled (rule 6).
final class ScriptedCompositor: VideoCompositing {
    enum Action { case finish, finishTwice, fail, hold, drop, holdBatch(Int) }
    let script: @Sendable (Int, MediaTime) -> Action
    let held = Lock<[AsynchronousVideoCompositionRequest]>([])
    let started = Recorder<MediaTime>()
    let cancels = Atomic<Int>(0)
    let onHold: (@Sendable () -> Void)?

    init(onHold: (@Sendable () -> Void)? = nil, _ script: @escaping @Sendable (Int, MediaTime) -> Action) {
        self.script = script
        self.onHold = onHold
    }

    var sourcePixelBufferAttributes: PixelBufferAttributes? { .bgra }
    var requiredPixelBufferAttributesForRenderContext: PixelBufferAttributes { .bgra }

    static func frame(for request: AsynchronousVideoCompositionRequest) -> PixelBuffer {
        let out = request.renderContext.newPixelBuffer()
        let value = UInt8(truncatingIfNeeded: Int(request.compositionTime.seconds * 4))
        out.withUnsafeMutableBytes(plane: 0) { $0[0] = value }
        return out
    }

    func startRequest(_ request: AsynchronousVideoCompositionRequest) {
        let index = started.all.count
        started.append(request.compositionTime)
        switch script(index, request.compositionTime) {
        case .finish: request.finish(withComposedVideoFrame: Self.frame(for: request))
        case .finishTwice:
            request.finish(withComposedVideoFrame: Self.frame(for: request))
            request.finish(withComposedVideoFrame: Self.frame(for: request))
        case .fail: request.finish(with: ReelError(.compositorFailed, "the overlay font is missing"))
        case .drop: break
        case .hold:
            held.withLock { $0.append(request) }
            onHold?()
        case .holdBatch(let n):
            // Finish in reverse order once `n` are held.
            let batch: [AsynchronousVideoCompositionRequest] = held.withLock { h in
                h.append(request)
                guard h.count == n else { return [] }
                defer { h.removeAll() }
                return h.reversed()
            }
            for r in batch { r.finish(withComposedVideoFrame: Self.frame(for: r)) }
        }
    }

    func cancelAllPendingVideoCompositionRequests() async {
        cancels.add(1, ordering: .relaxed)
        let all = held.withLock { h in
            defer { h.removeAll() }; return h
        }
        for r in all { r.finishCancelledRequest() }
    }
}

@Suite struct RenderEngineContractTests {
    /// Two seconds of one video track, 1/4 s frames, one custom instruction.
    func setup(passthroughFrom: Double? = nil) throws(ReelError) -> (Composition, VideoComposition, RenderSources) {
        var m = MutableComposition()
        try m.insertTimeRange(range(0, 2), of: SourceDescription(identifier: "v", tracks: [videoTrack("v", 1, duration: 2)]), at: .zero)
        let c = Composition(m)
        let instructions: [any VideoCompositionInstructionProtocol] =
            passthroughFrom.map { p in
                [TestInstruction(timeRange: range(0, p)), TestInstruction(timeRange: range(p, 2), passthroughTrackID: 1)]
            } ?? [TestInstruction(timeRange: range(0, 2))]
        let v = VideoComposition(
            frameDuration: MediaTime(value: 1, timescale: 4), renderSize: Size(width: 64, height: 36),
            instructions: instructions)
        var sources = RenderSources()
        sources.add(
            InMemoryVideoFrameSource(count: 8, frameDuration: MediaTime(value: 1, timescale: 4)) { numbered(200 + $0) },
            for: SourceTrackReference(sourceIdentifier: "v", trackID: 1))
        return (c, v, sources)
    }

    func render(_ compositor: ScriptedCompositor, options: RenderEngine.Options = .init(), passthroughFrom: Double? = nil) async throws(ReelError)
        -> [RenderedFrame]
    {
        let (c, v, s) = try setup(passthroughFrom: passthroughFrom)
        return try await RenderEngine(composition: c, videoComposition: v, sources: s, options: options).renderAll(compositor: compositor)
    }

    @Test func finishTwiceIsIgnoredAndLogged() async throws {
        let diagnostics = Recorder<RenderDiagnostic>()
        let compositor = ScriptedCompositor { i, _ in i == 2 ? .finishTwice : .finish }
        let frames = try await render(compositor, options: .init(diagnostics: { diagnostics.append($0) }))
        #expect(frames.count == 8)
        #expect(diagnostics.all.map(\.kind) == [.requestFinishedTwice])
        #expect(diagnostics.all.first?.compositionTime == t(0.5))
    }

    @Test func neverFinishedRequestFailsNamingTheTime() async throws {
        let compositor = ScriptedCompositor { i, _ in i == 3 ? .hold : .finish }
        do {
            _ = try await render(compositor, options: .init(requestTimeout: .milliseconds(50)))
            Issue.record("the render should fail")
        } catch {
            #expect(error.time == t(0.75))
            #expect(error.message.hasPrefix("the compositor did not finish the request for composition time 0.75 s"))
        }
        #expect(compositor.cancels.load(ordering: .relaxed) == 1)
    }

    @Test func droppedRequestFailsNamingTheTime() async throws {
        let compositor = ScriptedCompositor { i, _ in i == 5 ? .drop : .finish }
        do {
            _ = try await render(compositor)
            Issue.record("the render should fail")
        } catch {
            #expect(error.message == "the compositor released the request for composition time 1.25 s without finishing it")
            #expect(error.time == t(1.25))
        }
    }

    @Test func finishWithErrorFailsTheRender() async throws {
        let compositor = ScriptedCompositor { i, _ in i == 1 ? .fail : .finish }
        do {
            _ = try await render(compositor)
            Issue.record("the render should fail")
        } catch {
            #expect(error.message == "the overlay font is missing")
        }
    }

    @Test(arguments: [1, 2, 4, 8])
    func outOfOrderFinishesStillComeOutInOrder(batch: Int) async throws {
        let compositor = ScriptedCompositor { _, _ in .holdBatch(batch) }
        let frames = try await render(compositor, options: .init(maximumRequestsInFlight: batch))
        #expect(frames.map(\.time) == (0..<8).map { MediaTime(value: Int64($0), timescale: 4) })
        #expect(frames.map { pixel($0.pixelBuffer, 0, 0)[0] } == Array(0..<8))
    }

    @Test(arguments: [1, 2, 4])
    func aFrameComesBackBeforeTheNextFramesSourcesAreRead(inFlight: Int) async throws {
        // What a seek waits for is its own frame: the source of the frame after it is held
        // until the first frame is back (or a thousand turns of the scheduler, when the
        // engine waits for that source before handing the first frame back).
        let (c, v, _) = try setup()
        let firstIsBack = Atomic<Bool>(false)
        let readsBeforeFirst = Recorder<MediaTime>()
        var sources = RenderSources()
        sources.add(
            HeldSource(
                inner: InMemoryVideoFrameSource(count: 8, frameDuration: MediaTime(value: 1, timescale: 4)) { numbered(200 + $0) },
                isReleased: { firstIsBack.load(ordering: .acquiring) }, heldBack: readsBeforeFirst),
            for: SourceTrackReference(sourceIdentifier: "v", trackID: 1))
        let engine = RenderEngine(composition: c, videoComposition: v, sources: sources, options: .init(maximumRequestsInFlight: inFlight))
        var frames = try engine.frames(compositor: ScriptedCompositor { _, _ in .finish }).makeAsyncIterator()
        let first = try await frames.next()
        firstIsBack.store(true, ordering: .releasing)
        #expect(first?.time == .zero)
        var count = 1
        while try await frames.next() != nil { count += 1 }
        #expect(count == 8)
        #expect(readsBeforeFirst.all.isEmpty, "read before the first frame came back: \(readsBeforeFirst.all)")
    }

    @Test func inFlightRequestsAreBounded() async throws {
        // Holding every request: the engine must stop starting new ones at the bound.
        let compositor = ScriptedCompositor { _, _ in .hold }
        do {
            _ = try await render(compositor, options: .init(maximumRequestsInFlight: 3, requestTimeout: .milliseconds(50)))
            Issue.record("the render should fail")
        } catch {
            #expect(error.time == .zero)
        }
        #expect(compositor.started.all.count == 3)
    }

    @Test func passthroughSkipsTheCompositor() async throws {
        let compositor = ScriptedCompositor { _, _ in .finish }
        let frames = try await render(compositor, passthroughFrom: 1)
        #expect(compositor.started.all == [t(0), t(0.25), t(0.5), t(0.75)])
        #expect(frames.map(\.isPassthrough) == [false, false, false, false, true, true, true, true])
        // The source frames themselves: frame 4 of the source at 1 s.
        #expect(frames[4...].map { pixel($0.pixelBuffer, 0, 0)[0] } == [204, 205, 206, 207])
    }

    @Test func cancellingTheRenderCancelsPendingRequests() async throws {
        let (holding, signal) = AsyncStream<Void>.makeStream()
        let compositor = ScriptedCompositor(onHold: { signal.yield() }) { i, _ in i == 2 ? .hold : .finish }
        let (c, v, s) = try setup()
        let engine = RenderEngine(composition: c, videoComposition: v, sources: s, options: .init(maximumRequestsInFlight: 2))
        let received = Recorder<MediaTime>()
        let task = Task { () async throws -> Void in
            for try await frame in try engine.frames(compositor: compositor) { received.append(frame.time) }
        }
        var it = holding.makeAsyncIterator()
        _ = await it.next()
        task.cancel()
        let result = await task.result
        guard case .failure(let error as ReelError) = result else {
            Issue.record("the render should fail as cancelled")
            return
        }
        #expect(error.code == .cancelled)
        #expect(compositor.cancels.load(ordering: .relaxed) == 1)
        #expect(compositor.held.withLock { $0.isEmpty })
        #expect(received.all.count <= 2)
    }
}

/// A source whose frames after the first wait for `isReleased` (yielding, a thousand times at
/// most); those read without it are noted in `heldBack`.
private struct HeldSource: VideoFrameSource {
    let inner: InMemoryVideoFrameSource
    let isReleased: @Sendable () -> Bool
    let heldBack: Recorder<MediaTime>

    func frame(at sourceTime: MediaTime) async throws(ReelError) -> VideoFrame? {
        if sourceTime > .zero {
            var turns = 0
            while !isReleased(), turns < 1000 {
                await Task.yield()
                turns += 1
            }
            if !isReleased() { heldBack.append(sourceTime) }
        }
        return try await inner.frame(at: sourceTime)
    }
}
