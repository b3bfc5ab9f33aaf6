import ReelComposition
import Testing

@Suite struct AsyncVideoCompositingTests {
    let context = VideoCompositionRenderContext(width: 8, height: 4, pixelFormat: .bgra)

    /// Waits (without a deadline) until its task is cancelled.
    struct Patient: AsyncVideoCompositing {
        func compose(_ request: AsynchronousVideoCompositionRequest) async throws -> PixelBuffer {
            try await Task.sleep(for: .seconds(86_400))
            return request.renderContext.newPixelBuffer()
        }
    }

    struct Failing: AsyncVideoCompositing {
        struct Broken: Error {}
        func compose(_ request: AsynchronousVideoCompositionRequest) async throws -> PixelBuffer { throw Broken() }
    }

    struct Good: AsyncVideoCompositing {
        var requiredPixelBufferAttributesForRenderContext: PixelBufferAttributes { .yuv420p }
        func compose(_ request: AsynchronousVideoCompositionRequest) async throws -> PixelBuffer { request.renderContext.newPixelBuffer() }
    }

    func start<C: AsyncVideoCompositing>(_ adapter: AsyncVideoCompositorAdapter<C>, count: Int, outcomes: Recorder<String>) {
        for i in 0..<count {
            adapter.startRequest(
                AsynchronousVideoCompositionRequest(
                    renderContext: context, compositionTime: t(Double(i)), videoCompositionInstruction: TestInstruction(timeRange: range(0, 10))
                ) { outcome in
                    switch outcome {
                    case .composed: outcomes.append("composed")
                    case .failed(let e): outcomes.append("failed: \(e.message)")
                    case .cancelled: outcomes.append("cancelled")
                    case .abandoned: outcomes.append("abandoned")
                    }
                })
        }
    }

    @Test func cancelAllReturnsOnceEveryRequestIsFinished() async {
        let outcomes = Recorder<String>()
        let adapter = AsyncVideoCompositorAdapter(Patient())
        start(adapter, count: 3, outcomes: outcomes)
        await adapter.cancelAllPendingVideoCompositionRequests()
        #expect(outcomes.all == ["cancelled", "cancelled", "cancelled"])
    }

    @Test func thrownErrorsFinishTheRequestWithTheTime() async {
        let outcomes = Recorder<String>()
        let adapter = AsyncVideoCompositorAdapter(Failing())
        start(adapter, count: 1, outcomes: outcomes)
        await adapter.cancelAllPendingVideoCompositionRequests()
        // Either it failed before the cancel, or the cancel got it first.
        #expect(outcomes.all == ["failed: the compositor failed at composition time 0 s"] || outcomes.all == ["cancelled"])
    }

    @Test func attributesComeFromTheBase() {
        let adapter = AsyncVideoCompositorAdapter(Good())
        #expect(adapter.requiredPixelBufferAttributesForRenderContext == .yuv420p)
        #expect(adapter.sourcePixelBufferAttributes == nil)
        #expect(AsyncVideoCompositorAdapter(Patient()).requiredPixelBufferAttributesForRenderContext == .bgra)
    }
}
