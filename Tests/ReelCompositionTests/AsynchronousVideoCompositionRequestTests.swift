import Foundation
import ReelComposition
import Testing

@Suite struct AsynchronousVideoCompositionRequestTests {
    let context = VideoCompositionRenderContext(width: 8, height: 4, pixelFormat: .bgra)
    let instruction = TestInstruction(timeRange: range(0, 10))

    func makeRequest(
        at time: Double, outcomes: Recorder<String>, diagnostics: Recorder<RenderDiagnostic>,
        frames: [(trackID: Int32, frame: PixelBuffer)] = []
    ) -> AsynchronousVideoCompositionRequest {
        AsynchronousVideoCompositionRequest(
            renderContext: context, compositionTime: t(time), videoCompositionInstruction: instruction,
            sourceFrames: frames, diagnostics: { diagnostics.append($0) }
        ) { outcome in
            switch outcome {
            case .composed: outcomes.append("composed")
            case .failed(let e): outcomes.append("failed: \(e.message)")
            case .cancelled: outcomes.append("cancelled")
            case .abandoned(let e): outcomes.append("abandoned: \(e.message)")
            }
        }
    }

    @Test func captionGroupsAreGivenByTrackOnceInOrder() {
        let a = CaptionGroup(timeRange: range(1, 2), captions: [Caption("a", timeRange: range(1, 2))])
        let b = CaptionGroup(timeRange: range(0, 3), captions: [Caption("b", timeRange: range(0, 3))])
        let request = AsynchronousVideoCompositionRequest(
            renderContext: context, compositionTime: t(1.5), videoCompositionInstruction: instruction,
            sourceCaptionGroups: [(7, a), (3, b), (7, b)], diagnostics: { _ in }
        ) { _ in }
        defer { request.finishCancelledRequest() }
        #expect(request.sourceCaptionTrackIDs == [7, 3])
        #expect(request.sourceCaptionGroup(byTrackID: 7) == a)
        #expect(request.sourceCaptionGroup(byTrackID: 3) == b)
        #expect(request.sourceCaptionGroup(byTrackID: 1) == nil)
        #expect(request.sourceSampleDataTrackIDs.isEmpty)
    }

    @Test func metadataSamplesAreGivenByTrackOnceInOrder() {
        let a = TimedMetadataSample(
            group: TimedMetadataGroup(timeRange: range(1, 2), items: []),
            sampleBuffer: SampleBuffer(data: Data([1, 2]), presentationTime: t(1), duration: t(1), format: .camm))
        let b = TimedMetadataSample(group: TimedMetadataGroup(timeRange: range(0, 3), items: []))
        let request = AsynchronousVideoCompositionRequest(
            renderContext: context, compositionTime: t(1.5), videoCompositionInstruction: instruction,
            sourceSampleData: [(5, a), (2, b), (5, b)], diagnostics: { _ in }
        ) { _ in }
        defer { request.finishCancelledRequest() }
        #expect(request.sourceSampleDataTrackIDs == [5, 2])
        #expect(request.sourceTimedMetadata(byTrackID: 5) == a.group)
        #expect(request.sourceSampleBuffer(byTrackID: 5) == a.sampleBuffer)
        #expect(request.sourceTimedMetadata(byTrackID: 2) == b.group)
        #expect(request.sourceSampleBuffer(byTrackID: 2) == nil)
        #expect(request.sourceTimedMetadata(byTrackID: 9) == nil)
    }

    @Test func finishTwiceIsIgnoredAndReported() {
        let outcomes = Recorder<String>(), diagnostics = Recorder<RenderDiagnostic>()
        let request = makeRequest(at: 1.5, outcomes: outcomes, diagnostics: diagnostics)
        request.finish(withComposedVideoFrame: context.newPixelBuffer())
        request.finish(with: ReelError(.compositorFailed, "late"))
        #expect(outcomes.all == ["composed"])
        #expect(diagnostics.all.map(\.kind) == [.requestFinishedTwice])
        #expect(diagnostics.all.first?.message == "the request for composition time 1.5 s was finished again (with an error); the second finish was ignored")
    }

    @Test func releasedUnfinishedNamesTheTime() {
        let outcomes = Recorder<String>(), diagnostics = Recorder<RenderDiagnostic>()
        do { _ = makeRequest(at: 2.5, outcomes: outcomes, diagnostics: diagnostics) }
        #expect(outcomes.all == ["abandoned: the compositor released the request for composition time 2.5 s without finishing it"])
    }

    @Test func finishingWithoutAFrameOrAWrongFrameFails() {
        let outcomes = Recorder<String>(), diagnostics = Recorder<RenderDiagnostic>()
        makeRequest(at: 1, outcomes: outcomes, diagnostics: diagnostics).finish(withComposedVideoFrame: nil)
        makeRequest(at: 2, outcomes: outcomes, diagnostics: diagnostics)
            .finish(withComposedVideoFrame: PixelBuffer(width: 8, height: 4, format: .yuv420p))
        #expect(
            outcomes.all == [
                "failed: the compositor finished the request for composition time 1 s without a frame",
                "failed: the compositor finished the request for composition time 2 s with a 8x4 yuv420p frame, but the render context is 8x4 bgra",
            ])
    }

    @Test func sourcesKeepTheGivenOrder() {
        let outcomes = Recorder<String>(), diagnostics = Recorder<RenderDiagnostic>()
        let f = PixelBuffer(width: 2, height: 2, format: .bgra)
        let request = makeRequest(at: 0, outcomes: outcomes, diagnostics: diagnostics, frames: [(3, f), (1, f)])
        #expect(request.sourceTrackIDs == [3, 1])
        #expect(request.sourceFrame(byTrackID: 1) === f)
        #expect(request.sourceFrame(byTrackID: 2) == nil)
        #expect(request.sourceTimedMetadata(byTrackID: 4) == nil)
        request.finishCancelledRequest()
        #expect(outcomes.all == ["cancelled"])
    }
}
