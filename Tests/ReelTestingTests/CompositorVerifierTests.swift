import ReelTesting
import Testing

@Suite struct CompositorVerifierTests {
    func verifier(timeLimit: Duration = .seconds(10), _ make: @escaping @Sendable () -> any VideoCompositing) -> CompositorVerifier {
        CompositorVerifier(instructions: [SpeedBarInstruction(timeRange: oneSecond)], timeLimit: timeLimit, makeCompositor: make)
    }

    /// Runs the verifier and returns the violation it must find.
    func violation(_ verifier: CompositorVerifier) async -> ContractViolation? {
        do {
            let report = try await verifier.verify()
            Issue.record("the verifier passed a broken compositor: \(report)")
            return nil
        } catch {
            return error
        }
    }

    @Test func wellBehavedCompositorPasses() async throws {
        let report = try await verifier { AsyncVideoCompositorAdapter(SpeedBar()) }.verify()
        #expect(
            report.checkedRules == [
                .metadataDelivery, .metadataAtTime, .missingSourceFrame, .finishExactlyOnce,
                .concurrentRequests, .cancellation, .renderContext, .determinism, .playback,
            ])
        #expect(report.requestCount > 20)
    }

    @Test func catchesFinishingTwice() async throws {
        let v = try #require(await violation(verifier { FinishesTwice() }))
        #expect(v.rule == .finishExactlyOnce)
        #expect(v.compositionTime == .zero)
        #expect(v.description.hasPrefix("rule 4 (every request is finished exactly once, with a frame) broken by the request at 0 s"))
        #expect(v.description.contains("SpeedBarInstruction") && v.description.contains("finished 2 times"))
    }

    @Test func catchesNeverFinishing() async throws {
        let v = try #require(await violation(verifier { NeverFinishes() }))
        #expect(v.rule == .finishExactlyOnce)
        #expect(v.description.contains("rule 4") && v.description.contains("without finishing it"))
        #expect(v.instruction?.contains("SpeedBarInstruction") == true)
    }

    @Test func catchesIgnoringMetadata() async throws {
        let v = try #require(await violation(verifier { AsyncVideoCompositorAdapter(IgnoresMetadata()) }))
        #expect(v.rule == .metadataDelivery)
        #expect(v.description.contains("rule 1") && v.description.contains("ignores the metadata it is given"))
    }

    @Test func catchesNondeterministicOutput() async throws {
        let v = try #require(await violation(verifier { AsyncVideoCompositorAdapter(Nondeterministic()) }))
        #expect(v.rule == .determinism)
        #expect(v.description.contains("determinism (the same request gives the same pixels)"))
        #expect(v.description.contains("first at (0, 0)"))
    }

    @Test func catchesBlockingOnCancel() async throws {
        let (gate, opener) = AsyncStream<Void>.makeStream()
        defer { opener.finish() }
        let v = try #require(await violation(verifier(timeLimit: .seconds(1)) { BlocksOnCancel(gate: gate) }))
        #expect(v.rule == .cancellation)
        #expect(v.description.contains("rule 6") && v.description.contains("did not return"))
    }

    @Test func catchesFinishingARequestASeekCancelled() async throws {
        let v = try #require(await violation(verifier { CancelsFinishedRequests() }))
        #expect(v.rule == .playback)
        #expect(v.compositionTime == .zero)
        #expect(v.description.contains("playback") && v.description.contains("a seek cancelled this request"))
    }

    @Test func catchesCarryingMetadataForward() async throws {
        let v = try #require(await violation(verifier { AsyncVideoCompositorAdapter(CarriesMetadataForward()) }))
        #expect(v.rule == .metadataAtTime)
        #expect(v.description.contains("rule 2") && v.description.contains("carries forward"))
    }

    @Test func catchesAStaleRenderContext() async throws {
        let v = try #require(await violation(verifier { KeepsFirstContext() }))
        #expect(v.rule == .renderContext)
        #expect(v.description.contains("rule 7") && v.description.contains("80x44"))
    }

    @Test func catchesFailingOnAMissingFrame() async throws {
        let v = try #require(await violation(verifier { AsyncVideoCompositorAdapter(NeedsEveryFrame()) }))
        #expect(v.rule == .missingSourceFrame)
        #expect(v.description.contains("rule 3") && v.description.contains("no frame for required video track 1"))
    }

    @Test func catchesAReusedOutputBuffer() async throws {
        let v = try #require(await violation(verifier { ReusesOneBuffer() }))
        #expect(v.rule == .concurrentRequests)
        #expect(v.description.contains("rule 5") && v.description.contains("newest first"))
    }

    @Test func explainsWhatItSkips() async throws {
        struct Plain: VideoCompositionInstructionProtocol { var timeRange: TimeRange }
        let report = try await CompositorVerifier(instructions: [Plain(timeRange: oneSecond)]) {
            AsyncVideoCompositorAdapter(SpeedBar())
        }.verify()
        #expect(!report.checkedRules.contains(.metadataDelivery))
        #expect(report.skippedRules.contains { $0.rule == .metadataDelivery && $0.reason.contains("no instruction asks for metadata") })
        #expect(report.skippedRules.contains { $0.rule == .passthrough })
    }
}
