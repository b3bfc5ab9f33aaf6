import ReelTesting
import Testing

@Suite struct CompositorHarnessTests {
    let instruction = SpeedBarInstruction(timeRange: oneSecond)
    static let half = MediaTime(value: 1, timescale: 2)

    func gps(speed: Double) throws -> TimedMetadataGroup {
        try SyntheticMetadata.gpsGroups(
            [GPSSample(time: .zero, fix: GPSFix(latitude: 1, longitude: 2, speed2D: speed))],
            lastDuration: MediaTime(value: 1, timescale: 1))[0]
    }

    @Test func rendersAFrameFromSyntheticSourcesAndMetadata() async throws {
        let harness = CompositorHarness(compositor: AsyncVideoCompositorAdapter(SpeedBar()), width: 64, height: 36)
        #expect(harness.renderContext.pixelFormat == .bgra)
        let source = SyntheticFrame.counter(42, width: 64, height: 36, format: .bgra)
        let frame = try await harness.render(
            at: Self.half, instruction: instruction,
            sourceFrames: [1: source], metadata: [2: try gps(speed: 5)])
        #expect(readCounter(from: frame) == 42)
        #expect(frame.rgba(x: 19, y: 35) == RGBA(255, 255, 0))  // 5 m/s is a 20-pixel bar
        #expect(frame.rgba(x: 20, y: 35) != RGBA(255, 255, 0))
        try harness.finish()
    }

    @Test func captionGroupsReachTheCompositor() async throws {
        /// White when caption track 3 shows "hi", black otherwise.
        struct CaptionProbe: AsyncVideoCompositing {
            func compose(_ request: AsynchronousVideoCompositionRequest) async throws -> PixelBuffer {
                let shows = request.sourceCaptionGroup(byTrackID: 3)?.captions.map(\.text) == ["hi"]
                let context = request.renderContext
                return SyntheticFrame.make(
                    .solid(shows ? Color(red: 1, green: 1, blue: 1) : Color(red: 0, green: 0, blue: 0)),
                    width: context.width, height: context.height, format: context.pixelFormat)
            }
        }
        let harness = CompositorHarness(compositor: AsyncVideoCompositorAdapter(CaptionProbe()), width: 16, height: 8)
        let group = CaptionGroup(timeRange: oneSecond, captions: [Caption("hi", timeRange: oneSecond)])
        let with = try await harness.render(at: Self.half, instruction: instruction, captions: [3: group])
        let without = try await harness.render(at: Self.half, instruction: instruction)
        #expect(with.rgba(x: 0, y: 0) == RGBA(255, 255, 255))
        #expect(without.rgba(x: 0, y: 0) == RGBA(0, 0, 0))
        try harness.finish()
    }

    @Test func missingInputsAreNilForTheCompositor() async throws {
        let harness = CompositorHarness(compositor: AsyncVideoCompositorAdapter(SpeedBar()), width: 16, height: 8)
        let frame = try await harness.render(at: .zero, instruction: instruction)
        #expect(frame.rgba(x: 0, y: 0) == RGBA(0, 0, 0))
        #expect(frame.rgba(x: 0, y: 7) == RGBA(0, 0, 0))  // no group, no bar
    }

    @Test func requestsFinishInTheOrderTheTestChooses() async throws {
        let manual = ManualCompositor()
        let harness = CompositorHarness(compositor: manual, width: 8, height: 8)
        let times = (0..<3).map { MediaTime(value: Int64($0), timescale: 30) }
        let requests = times.map { harness.startRequest(at: $0, instruction: instruction) }
        #expect(harness.pendingRequests == requests)
        #expect(manual.startedTimes == times)

        let last = SyntheticFrame.counter(2, width: 8, height: 8, format: .bgra)
        #expect(manual.finish(at: times[2], with: last))
        #expect(harness.isFinished(requests[2]) && !harness.isFinished(requests[0]))
        #expect(try await harness.frame(of: requests[2]) === last)
        #expect(manual.fail(at: times[0], with: ReelError(.compositorFailed, "boom")))
        #expect(harness.pendingRequests == [requests[1]])
        await harness.cancelAll()
        guard case .cancelled = await harness.outcome(of: requests[1]) else {
            Issue.record("request 1 should be cancelled")
            return
        }
        if case .failed(let e) = await harness.outcome(of: requests[0]) { #expect(e.message == "boom") } else { Issue.record("request 0 should have failed") }
        try harness.finish()
    }

    @Test func finishReportsRequestsNeverFinished() {
        let harness = CompositorHarness(compositor: ManualCompositor(), width: 8, height: 8)
        harness.startRequest(at: Self.half, instruction: instruction)
        #expect {
            try harness.finish()
        } throws: { error in
            let leftovers = error as? CompositorHarness.Leftovers
            return leftovers?.neverFinished.count == 1
                && "\(error)".contains("request #0 at 0.5 s (SpeedBarInstruction [0/1, 1/1)) was never finished")
        }
    }

    @Test func finishReportsRequestsFinishedTwiceAndDropped() async {
        let twice = CompositorHarness(compositor: FinishesTwice(), width: 8, height: 8)
        let r = twice.startRequest(at: .zero, instruction: instruction)
        _ = await twice.outcome(of: r)
        #expect(twice.diagnostics.map(\.kind) == [.requestFinishedTwice])
        #expect { try twice.finish() } throws: { "\($0)".contains("was finished 2 times") }

        let dropped = CompositorHarness(compositor: NeverFinishes(), width: 8, height: 8)
        let d = dropped.startRequest(at: .zero, instruction: instruction)
        guard case .abandoned = await dropped.outcome(of: d) else {
            Issue.record("a dropped request should report itself abandoned")
            return
        }
        #expect { try dropped.finish() } throws: { "\($0)".contains("was released without being finished") }
    }

    @Test func renderContextChangesReachTheCompositor() async throws {
        let manual = ManualCompositor(requiredPixelBufferAttributesForRenderContext: PixelBufferAttributes(pixelFormatType: [.yuv420p, .bgra]))
        let harness = CompositorHarness(compositor: manual, width: 8, height: 8)
        #expect(harness.renderContext.pixelFormat == .yuv420p)
        harness.changeRenderContext(VideoCompositionRenderContext(width: 32, height: 16, pixelFormat: .bgra))
        #expect(manual.renderContexts.map(\.width) == [8, 32])
        #expect(harness.renderContextHistory.map(\.pixelFormat) == [.yuv420p, .bgra])
        let r = harness.startRequest(at: .zero, instruction: instruction)
        let pending = try #require(manual.pendingRequests.first)
        #expect(pending.renderContext.width == 32)
        manual.finishAll { $0.renderContext.newPixelBuffer() }
        #expect(try await harness.frame(of: r).width == 32)
    }

    @Test func aHeldRequestIsReportedUnfinishedAfterTheTimeLimit() async {
        // The one place a limit matters: a compositor that holds a request forever.
        let harness = CompositorHarness(compositor: ManualCompositor(), width: 8, height: 8, timeLimit: .milliseconds(50))
        let r = harness.startRequest(at: .zero, instruction: instruction)
        guard case .unfinished = await harness.outcome(of: r) else {
            Issue.record("expected unfinished")
            return
        }
        await expectThrows { _ = try await harness.frame(of: r) }
    }

    func expectThrows(_ body: () async throws -> Void) async {
        do {
            try await body()
            Issue.record("expected an error")
        } catch {}
    }

    @Test func waitForRequestsReturnsOnceEnoughHaveStarted() async {
        let manual = ManualCompositor()
        let harness = CompositorHarness(compositor: manual, width: 8, height: 8)
        let started = Task { await manual.waitForRequests(count: 2) }
        harness.startRequest(at: .zero, instruction: instruction)
        harness.startRequest(at: Self.half, instruction: instruction)
        await started.value
        #expect(manual.pendingRequests.count == 2)
        await harness.cancelAll()
        try? harness.finish()
    }
}
