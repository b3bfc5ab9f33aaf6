import ReelTesting
import Testing

/// Reel's built-in compositor, run through the same contract checks users run on theirs.
@Suite struct StandardCompositorVerificationTests {
    static let second = MediaTime(value: 1, timescale: 1)

    /// A one-second crossfade from track 1 to track 2, with track 2 shrunk and moved.
    static func crossfade() -> VideoCompositionInstruction {
        let range = TimeRange(start: .zero, duration: second)
        var top = VideoCompositionLayerInstruction(trackID: 2)
        top.setOpacityRamp(fromStartOpacity: 0, toEndOpacity: 1, timeRange: range)
        top.setTransformRamp(
            fromStart: .identity,
            toEnd: Transform2D(scaleX: 0.5, y: 0.5).translatedBy(x: 16, y: 8), timeRange: range)
        let bottom = VideoCompositionLayerInstruction(trackID: 1)
        return VideoCompositionInstruction(timeRange: range, backgroundColor: .black, layerInstructions: [top, bottom])
    }

    @Test("the built-in compositor keeps the contract", arguments: [[PixelFormat.yuv420p], [.bgra]])
    func standardCompositorKeepsTheContract(formats: [PixelFormat]) async throws {
        // The built-in compositor draws layers only, so swapping metadata changes nothing.
        let verifier = CompositorVerifier(
            instructions: [Self.crossfade()], videoTrackIDs: [1, 2],
            metadataMustAffectOutput: false
        ) {
            StandardVideoCompositor(pixelFormats: formats)
        }
        let report = try await verifier.verify()
        #expect(report.checkedRules.contains(.finishExactlyOnce))
        #expect(report.checkedRules.contains(.determinism))
        #expect(report.checkedRules.contains(.missingSourceFrame))
        #expect(report.requestCount > 10)
    }
}
