import Foundation
import ReelComposition
import Synchronization
import Testing

/// A compositor in AVFoundation's class form: made by the engine with `init()`, no
/// `cancelAllPendingVideoCompositionRequests` of its own.
final class ClassFormCompositor: InitializableVideoCompositing {
    /// How many instances were made (the engine makes one per render).
    static let made = Atomic<Int>(0)
    init() { Self.made.add(1, ordering: .relaxed) }
    var sourcePixelBufferAttributes: PixelBufferAttributes? { PixelBufferAttributes(pixelFormatType: [.bgra]) }
    var requiredPixelBufferAttributesForRenderContext: PixelBufferAttributes { PixelBufferAttributes(pixelFormatType: [.bgra]) }
    func startRequest(_ request: AsynchronousVideoCompositionRequest) {
        // Each frame is one grey level: 10 times its index.
        let index = Int((request.compositionTime.seconds * 2).rounded())
        request.finish(withComposedVideoFrame: solid(UInt8(10 * index), UInt8(10 * index), UInt8(10 * index)))
    }
}

/// Another one, to tell which of two settings won.
final class OtherClassFormCompositor: InitializableVideoCompositing {
    init() {}
    var sourcePixelBufferAttributes: PixelBufferAttributes? { nil }
    var requiredPixelBufferAttributesForRenderContext: PixelBufferAttributes { .bgra }
    func startRequest(_ request: AsynchronousVideoCompositionRequest) { request.finish(withComposedVideoFrame: solid(1, 2, 3)) }
}

@Suite struct VideoCompositingTests {
    func engine(_ v: MutableVideoComposition) throws -> RenderEngine {
        var m = MutableComposition()
        try m.insertTimeRange(range(0, 2), of: SourceDescription(identifier: "v", tracks: [videoTrack("v", 1, duration: 2)]), at: .zero)
        var s = RenderSources()
        s.add(InMemoryVideoFrameSource(count: 4, frameDuration: t(0.5)) { numbered($0) }, for: SourceTrackReference(sourceIdentifier: "v", trackID: 1))
        return RenderEngine(composition: Composition(m), videoComposition: VideoComposition(v), sources: s)
    }

    func classComposition() -> MutableVideoComposition {
        var v = MutableVideoComposition()
        v.frameDuration = t(0.5)
        v.renderSize = Size(width: 64, height: 36)
        v.instructions = [VideoCompositionInstruction(timeRange: range(0, 2), layerInstructions: [.init(trackID: 1)])]
        v.customVideoCompositorClass = ClassFormCompositor.self
        return v
    }

    @Test func aCompositorClassIsMadeWithInitAndRenders() async throws {
        let before = ClassFormCompositor.made.load(ordering: .relaxed)
        var frames: [PixelBuffer] = []
        for try await frame in try engine(classComposition()).frames() { frames.append(frame.pixelBuffer) }
        #expect(frames.map { pixel($0, 5, 5) } == [[0, 0, 0, 255], [10, 10, 10, 255], [20, 20, 20, 255], [30, 30, 30, 255]])
        #expect(ClassFormCompositor.made.load(ordering: .relaxed) > before)
    }

    @Test func theClassIsKeptThroughCopies() {
        let v = VideoComposition(classComposition())
        #expect(v.customVideoCompositorClass == ClassFormCompositor.self)
        #expect(v.mutableCopy().customVideoCompositorClass == ClassFormCompositor.self)
        #expect(v.customVideoCompositor?() is ClassFormCompositor)
    }

    @Test func aRenderContextKeepsTheClassButNotAFactoryClosure() {
        let byClass = VideoComposition(classComposition())
        let keptClass = VideoCompositionRenderContext(width: 64, height: 36, pixelFormat: .bgra, videoComposition: byClass).videoComposition
        #expect(keptClass?.customVideoCompositorClass == ClassFormCompositor.self)
        #expect(keptClass?.customVideoCompositor?() is ClassFormCompositor)
        var byClosure = classComposition()
        byClosure.customVideoCompositor = { OtherClassFormCompositor() }
        let kept = VideoCompositionRenderContext(width: 64, height: 36, pixelFormat: .bgra, videoComposition: VideoComposition(byClosure)).videoComposition
        #expect(kept?.customVideoCompositor == nil)
        #expect(kept?.instructions.count == 1)
    }

    @Test func theLastSettingWins() {
        var v = classComposition()
        v.customVideoCompositor = { OtherClassFormCompositor() }
        #expect(v.customVideoCompositorClass == nil)
        #expect(v.customVideoCompositor?() is OtherClassFormCompositor)
        v.customVideoCompositorClass = ClassFormCompositor.self
        #expect(v.customVideoCompositor?() is ClassFormCompositor)
        v.customVideoCompositorClass = nil
        #expect(v.customVideoCompositor == nil)
    }

    @Test func theDefaultCancelReturnsAndLeavesRequestsToFinish() async {
        let compositor = ClassFormCompositor()
        let outcomes = Recorder<String>()
        compositor.startRequest(
            AsynchronousVideoCompositionRequest(
                renderContext: VideoCompositionRenderContext(width: 64, height: 36, pixelFormat: .bgra),
                compositionTime: t(0.5), videoCompositionInstruction: TestInstruction(timeRange: range(0, 1))
            ) { outcome in
                if case .composed = outcome { outcomes.append("composed") } else { outcomes.append("other") }
            })
        await compositor.cancelAllPendingVideoCompositionRequests()
        #expect(outcomes.all == ["composed"])
    }
}
