import Foundation
import ReelTestSupport
import Testing

/// The plugin path: a compositor in its own package (Examples/custom-compositor) gets its
/// own `reel` through `ReelCLI.main(registering:)`.
@Suite("Compositor plugins", .serialized)
struct PluginTests {
    static let example = TestFiles.packageRoot.appendingPathComponent("Examples/custom-compositor")

    static var sepiaBinary: URL? {
        ReelProcess.binary.map { $0.deletingLastPathComponent().appendingPathComponent("reel-sepia") }
            .flatMap { FileManager.default.isExecutableFile(atPath: $0.path) ? $0 : nil }
    }

    @Test(.requires(.sepiaBinary, .ffmpeg))
    func thePackagesOwnReelRendersWithItsCompositor() throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let sepia = try #require(Self.sepiaBinary)
        let composition = Self.example.appendingPathComponent("composition.json").path
        let list = try TestTools.run(sepia, ["render", composition, "-o", "x.mp4", "--list-compositors"], in: folder)
        #expect(list.stdout.contains("sepia\t"))
        #expect(list.stdout.contains("standard\t"))
        let out = try TestTools.run(sepia, ["render", composition, "-o", "sepia.mp4"], in: folder)
        #expect(out.status == 0, "\(out.stderr)")
        // A sepia frame is warm: red over green over blue, on average.
        let ffmpeg = try #require(TestTools.which("ffmpeg"))
        let raw = try TestTools.run(
            ffmpeg, ["-v", "error", "-ss", "1", "-i", "sepia.mp4", "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "rgb24", "frame.rgb"], in: folder)
        #expect(raw.status == 0)
        let bytes = [UInt8](try Data(contentsOf: folder.appendingPathComponent("frame.rgb")))
        #expect(bytes.count == 320 * 240 * 3)
        var sums = [0, 0, 0]
        for (i, b) in bytes.enumerated() { sums[i % 3] += Int(b) }
        #expect(sums[0] > sums[1] && sums[1] > sums[2], "\(sums)")
    }

    @Test func theTutorialShowsTheExampleAsBuilt() throws {
        let source = try String(contentsOf: Self.example.appendingPathComponent("Sources/reel-sepia/Sepia.swift"), encoding: .utf8)
        let doc = try String(contentsOf: TestFiles.packageRoot.appendingPathComponent("docs/first-compositor.md"), encoding: .utf8)
        #expect(doc.contains("```swift\n" + source + "```"))
        #expect(source.split(separator: "\n", omittingEmptySubsequences: false).count - 1 <= 40)
    }

    @Test()
    func theStockReelDoesNotKnowThePluginsCompositor() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = await ReelProcess.reel(["render", Self.example.appendingPathComponent("composition.json").path, "-o", "x.mp4"], in: folder)
        #expect(out.status == 2)
        #expect(out.stderr.contains("compositor.name: no compositor named \"sepia\""), "\(out.stderr)")
    }
}
