import Foundation
import Reel
import ReelDocuments
import ReelTestSupport
import ReelTesting
import Testing

/// Each example composition, rendered on the fixtures, against golden frames.
@Suite("Examples")
struct ExampleGoldenTests {
    /// Decoding is exact, compositing deterministic: a small tolerance covers only
    /// rounding differences between machines' FFmpeg builds.
    static let tolerance = ImageTolerance(maximumChannelDifference: 3)

    static let cases: [(example: String, frames: [Int])] = [
        ("gps-dashboard", [0, 45]),
        ("picture-in-picture", [0, 15, 40]),
        ("crossfade", [10, 30, 50]),
        ("multi-camera", [10, 40]),
    ]

    @Test(.requires(.dejaVuFont), arguments: cases.indices)
    func rendersTheGoldenFrames(_ index: Int) async throws {
        let c = Self.cases[index]
        let frames = try await ExampleSupport.frames(c.example, at: c.frames)
        let goldens = Golden(nextTo: #filePath)
        for i in c.frames {
            let frame = try #require(frames[i], "\(c.example) has no frame \(i)")
            // Every frame is checked (and, when recording, recorded) before failing.
            do {
                try goldens.verify(frame, named: "\(c.example)-\(String(format: "%04d", i))", tolerance: Self.tolerance)
            } catch {
                Issue.record(error)
            }
        }
    }

    /// The lowest PSNR a sampled frame of the encoded output may have against its golden
    /// (the compositor's own frame): x264 at the examples' CRF 23 gives 32.4 to 40.7 dB on
    /// these clips. It catches a wrong or broken picture, not a neighbouring frame (the
    /// counter clips' frames differ in a few digits): the frame list catches those.
    static let encodedPSNR = 30.0

    /// FATE-style: each example rendered to a file as `reel render` does, then every frame
    /// read back with Reel's reader. Its `pts duration` lines must match
    /// `Goldens/NAME-frames.txt` (a dropped, doubled or moved frame fails, which the sampled
    /// pictures cannot show), and the sampled frames must look like their goldens (PSNR).
    /// Pictures are compared by PSNR, not hashed: the encoded bits are not repeatable (see
    /// docs/testing.md, "Per-frame goldens").
    @Test(.requires(.dejaVuFont), arguments: cases.indices)
    func everyOutputFrameIsWhereItsGoldenSays(_ index: Int) async throws {
        let c = Self.cases[index]
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("\(c.example).mp4")
        try await ExampleSupport.render(c.example, to: url)
        let frames = try ExampleSupport.decodedFrames(of: url)
        let goldens = Golden(nextTo: #filePath)
        do {
            try goldens.verifyLines(frames.map { "\($0.presentationTime) \($0.duration)" }, named: "\(c.example)-frames")
        } catch {
            Issue.record(error)
        }
        for i in c.frames where i < frames.count {
            let name = "\(c.example)-\(String(format: "%04d", i))"
            let expected = try PNG.read(contentsOf: goldens.path("\(name).png"))
            let comparison = ImageComparison(expected: expected, actual: RasterImage(frames[i].pixelBuffer))
            #expect(comparison.psnr >= Self.encodedPSNR, "\(name) of the encoded file: \(comparison)")
        }
    }

    /// The main job: the dashboard over real GoPro footage with its own GPS track.
    @Test(.requires(.sharedMedia, .dejaVuFont))
    func gpsDashboardOnGoProFootage() async throws {
        let clip = TestFiles.sharedMedia.appendingPathComponent("gpmf-parser_max-heromode.mp4").path
        let frames = try await ExampleSupport.frames("gps-dashboard", at: [150], overrides: [.init(name: nil, path: clip)])
        let frame = try #require(frames[150])
        #expect(frame.width == 848 && frame.height == 480)
        try Golden(nextTo: #filePath).verify(frame, named: "gps-dashboard-gopro-0150", tolerance: Self.tolerance)
    }

    @Test func everyExampleIsAValidCompositionFile() throws {
        let folder = TestFiles.packageRoot.appendingPathComponent("Examples")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        var checked = 0
        for name in names {
            let path = folder.appendingPathComponent(name).appendingPathComponent("composition.json").path
            guard FileManager.default.fileExists(atPath: path) else { continue }
            _ = try CompositionFile.load(path: path)
            checked += 1
        }
        #expect(checked >= 4)
    }
}
