import ReelComposition
import ReelTestSupport
import ReelTesting
import Testing

@Suite struct FrameRendererTests {
    static func engine(videoComposition: (Composition) -> VideoComposition) throws -> RenderEngine {
        let clip = try PlaybackClip.source()
        let composition = try PlaybackClip.composition(clip)
        return RenderEngine(
            composition: composition, videoComposition: videoComposition(composition), sources: clip,
            options: RenderEngine.Options(diagnostics: { _ in }))
    }

    @Test(arguments: [1.0, 0.5])
    func everyFrameEqualsTheFrameOfAWholeRender(scale: Double) async throws {
        // The built-in compositor with a layer transform, so pixels depend on the scale.
        let engine = try Self.engine { composition in
            var v = PlaybackClip.videoComposition(composition, compositor: nil).mutableCopy()
            v.renderScale = scale
            var instruction = MutableVideoCompositionInstruction()
            instruction.timeRange = composition.timeRange
            instruction.requiredSourceSampleDataTrackIDs = [2]
            var layer = VideoCompositionLayerInstruction(trackID: 1)
            layer.setOpacityRamp(fromStartOpacity: 1, toEndOpacity: 0.2, timeRange: composition.timeRange)
            instruction.layerInstructions = [layer]
            v.instructions = [instruction]
            return VideoComposition(v)
        }
        let whole = try await engine.renderAll()
        let renderer = try FrameRenderer(
            engine: RenderEngine(
                composition: engine.composition, videoComposition: engine.videoComposition,
                sources: engine.sources, options: engine.options))
        // In a scrambled order, as a scrubbing preview asks.
        for index in [7, 0, 29, 13, 12, 28, 1] {
            let frame = try await renderer.frame(at: whole[index].time + MediaTime(value: 1, timescale: 100), renderScale: scale)
            #expect(frame.time == whole[index].time)
            #expect(frame.duration == whole[index].duration)
            #expect(frame.pixelBuffer.hasSamePixels(as: whole[index].pixelBuffer), "frame \(index)")
            #expect(frame.sourceTimedMetadata == whole[index].sourceTimedMetadata)
        }
    }

    @Test func frameRangesFollowTheFrameGrid() async throws {
        let renderer = try FrameRenderer(engine: Self.engine { PlaybackClip.videoComposition($0, compositor: PlaybackCompositor()) })
        #expect(try await renderer.frameTimeRange(containing: MediaTime(value: 57, timescale: 100)) == TimeRange(start: tenths(5), duration: tenths(1)))
        #expect(try await renderer.frameTimeRange(containing: .zero) == TimeRange(start: .zero, duration: tenths(1)))
        #expect(try await renderer.frameTimeRange(containing: tenths(30)) == nil)
        await expectReelError(.invalidArgument) { _ = try await renderer.frame(at: tenths(31)) }
    }

    @Test func oneCompositorToldOfEachNewScale() async throws {
        let compositor = PlaybackCompositor()
        let renderer = try FrameRenderer(engine: Self.engine { PlaybackClip.videoComposition($0, compositor: compositor) })
        #expect(renderer.compositor as? PlaybackCompositor === compositor)
        _ = try await renderer.frame(at: tenths(1))
        _ = try await renderer.frame(at: tenths(2))
        _ = try await renderer.frame(at: tenths(2), renderScale: 0.25)
        #expect(compositor.contexts.all.map(\.width) == [64, 16])
        #expect(compositor.requests.all.map(\.width) == [64, 64, 16])
    }

    @Test func metadataIsTheGroupARequestCarries() async throws {
        let compositor = PlaybackCompositor()
        let renderer = try FrameRenderer(engine: Self.engine { PlaybackClip.videoComposition($0, compositor: compositor) })
        let frame = try await renderer.frame(at: tenths(13))
        let looked = try await renderer.timedMetadata(at: tenths(13), trackIDs: [2])
        #expect(looked.map(\.trackID) == [2])
        #expect(looked.first?.sample.group == frame.sourceTimedMetadata[2])
        #expect(looked.first?.sample.group == compositor.requests.all.last?.groups[2])
    }

    @Test func cancellingTheCallerCancelsTheCompositorsRequests() async throws {
        let manual = ManualCompositor()
        let renderer = try FrameRenderer(engine: Self.engine { PlaybackClip.videoComposition($0, compositor: manual) })
        let task = Task { try await renderer.frame(at: tenths(4)) }
        await manual.waitForRequests(count: 1)
        let held = try #require(manual.pendingRequests.first)
        task.cancel()
        let result = await task.result
        expectReelError(.cancelled) { _ = try result.get() }
        // ManualCompositor finishes what it holds as cancelled when asked: it was asked
        // before the render returned.
        #expect(held.isFinished)
    }

    @Test func aCompositorKeepingItsContextIsFreedWithTheRender() async throws {
        // The factory holds the compositor, and the compositor its render context: the
        // context must not hold the factory in turn, or neither is ever freed.
        weak var freed: ContextKeepingCompositor?
        do {
            let compositor = ContextKeepingCompositor()
            freed = compositor
            let engine = try Self.engine { PlaybackClip.videoComposition($0, compositor: compositor) }
            #expect(try await engine.renderAll().count == 30)
            #expect(compositor.context.withLock { $0?.videoComposition?.renderSize } == Size(width: 64, height: 36))
        }
        #expect(freed == nil)
    }

    @Test func anInvalidVideoCompositionIsRefused() throws {
        let engine = try Self.engine { composition in
            var v = PlaybackClip.videoComposition(composition, compositor: nil).mutableCopy()
            v.instructions = []
            return VideoComposition(v)
        }
        expectReelError(.invalidComposition) { _ = try FrameRenderer(engine: engine) }
    }
}

/// A compositor that keeps its render context, as most do, and fills each frame with black.
private final class ContextKeepingCompositor: VideoCompositing {
    let context = Lock<VideoCompositionRenderContext?>(nil)
    var sourcePixelBufferAttributes: PixelBufferAttributes? { .bgra }
    var requiredPixelBufferAttributesForRenderContext: PixelBufferAttributes { .bgra }

    func renderContextChanged(_ newRenderContext: VideoCompositionRenderContext) { context.withLock { $0 = newRenderContext } }

    func startRequest(_ request: AsynchronousVideoCompositionRequest) {
        let out = request.renderContext.newPixelBuffer()
        out.withUnsafeMutableBytes(plane: 0) { raw in for i in 0..<raw.count { raw[i] = 0 } }
        request.finish(withComposedVideoFrame: out)
    }
}
