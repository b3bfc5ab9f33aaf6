import Foundation
import Reel
import ReelDocuments
import ReelTestSupport
import ReelTesting
import ReelText
import Testing

@testable import GPSDashboard

@Suite("GPSDashboardCompositor")
struct GPSDashboardCompositorTests {

    /// Renders the test composition in memory through the composition file, the registry
    /// and the render engine, as `reel render` does with files.
    static func render(json: String = RenderTestSupport.dashboardJSON) async throws -> [RenderedFrame] {
        let file = try CompositionFile.decode(Data(json.utf8))
        let composition = try file.makeComposition(sources: ["camera": RenderTestSupport.cameraDescription])
        var registry = CompositorRegistry()
        registry.register(GPSDashboardCompositor.registration)
        let groups = try RenderTestSupport.gpsGroups()
        let config = CompositorConfiguration(
            name: file.compositor?.name ?? "standard", parameters: file.compositor?.parameters ?? .object([:]),
            composition: composition, renderSize: Size(width: 480, height: 270),
            timedMetadata: [2: groups])
        let compositor = try registry.makeCompositor(config)
        let video = try file.makeVideoComposition(for: composition, compositor: compositor)
        let engine = RenderEngine(composition: composition, videoComposition: video, sources: try RenderTestSupport.sources())
        return try await engine.renderAll()
    }

    @Test(.requires(.dejaVuFont), arguments: [0, 40])
    func matchesTheGoldenFrame(_ index: Int) async throws {
        let frames = try await Self.render()
        #expect(frames.count == 60)
        #expect(frames.allSatisfy { $0.pixelBuffer.format == .yuv420p })
        let name = "gps-dashboard-" + String(format: "%04d", index)
        try Golden(nextTo: #filePath).verify(frames[index].pixelBuffer, named: name, tolerance: .init(maximumChannelDifference: 2))
    }

    @Test(.requires(.dejaVuFont))
    func valuesChangeEveryFrameNotAtTheGPSRate() async throws {
        let frames = try await Self.render()
        // Frames 0...5 all fall in the first GPS group (0 to 0.2 s), yet each differs:
        // the values are interpolated for every output frame.
        let hashes = frames[0...5].map { FrameHash.hash($0.pixelBuffer) }
        #expect(Set(hashes).count == hashes.count)
        // The same render twice gives the same pixels (what --range pieces rely on).
        let again = try await Self.render()
        #expect(zip(frames, again).allSatisfy { $0.pixelBuffer.hasSamePixels(as: $1.pixelBuffer) })
    }

    @Test(.requires(.dejaVuFont))
    func drawsNothingWhenTheInstructionDoesNotRequireTheTrack() async throws {
        let noGPS = RenderTestSupport.dashboardJSON
            .replacingOccurrences(of: "\"requiredSourceSampleDataTrackIDs\": [2],", with: "\"requiredSourceSampleDataTrackIDs\": [],")
            .replacingOccurrences(of: "\"sourceSampleDataTrackIDs\": [2],", with: "\"sourceSampleDataTrackIDs\": [],")
        let frames = try await Self.render(json: noGPS)
        #expect(frames[10].pixelBuffer.hasSamePixels(as: RenderTestSupport.background))
    }

    @Test func badParametersAreRefusedUpFront() {
        do {
            _ = try GPSDashboardCompositor(
                configuration: CompositorConfiguration(
                    name: "gps-dashboard", parameters: .object(["font": .string("/nonexistent.ttf")])))
            Issue.record("expected an error")
        } catch {
            #expect(error.field == "compositor.parameters.font")
            #expect(error.code == .fileNotFound)
        }
    }
}
