import Foundation
import Reel
import GPSDashboard
import ReelTesting

/// Opens and renders the example compositions of Examples/ in process, on the fixtures
/// (or, with `--source`-like overrides, on other files).
enum ExampleSupport {
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static let sharedMedia = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/media")
    static var hasSharedMedia: Bool { FileManager.default.fileExists(atPath: sharedMedia.appendingPathComponent("README.md").path) }
    static var hasFont: Bool { FileManager.default.fileExists(atPath: "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf") }

    static func compositionPath(_ example: String) -> String {
        packageRoot.appendingPathComponent("Examples/\(example)/composition.json").path
    }

    /// The registry of the stock `reel`: the built-ins and gps-dashboard.
    static var registry: CompositorRegistry {
        var r = CompositorRegistry()
        r.register(GPSDashboardCompositor.registration)
        return r
    }

    /// Renders `example` and returns the frames at `indices` (in time order).
    static func frames(_ example: String, at indices: [Int], overrides: [CompositionFile.SourceOverride] = []) async throws -> [Int: PixelBuffer] {
        let loaded = try await LoadedComposition.load(path: compositionPath(example), overrides: overrides, registry: registry)
        var options = RenderEngine.Options()
        options.timeRange = loaded.renderRange
        let engine = RenderEngine(composition: loaded.composition, videoComposition: loaded.videoComposition,
                                  sources: AssetRenderSources(files: loaded.sourceURLs), options: options)
        var out: [Int: PixelBuffer] = [:]
        var index = 0
        let wanted = Set(indices)
        for try await frame in try engine.frames() {
            if wanted.contains(index) { out[index] = frame.pixelBuffer }
            index += 1
            if out.count == wanted.count { break }
        }
        return out
    }
}
