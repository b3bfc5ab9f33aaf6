import Foundation
import Testing

@Suite("reel export and reel thumbnail", .serialized)
struct ExportThumbnailCommandTests {
    static let fixtures = ReelProcess.packageRoot.appendingPathComponent("Fixtures")

    @Test(.enabled(if: ReelProcess.hasReelAndFFmpeg, "needs the reel binary and ffmpeg"))
    func exportCutsAndKeepsTheGPSTrack() throws {
        let folder = try ReelProcess.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = Self.fixtures.appendingPathComponent("counter-gps.mp4").path
        let out = try ReelProcess.reel(["export", input, "-o", "cut.mp4", "--start", "0.5", "--duration", "1", "--preset", "h264"], in: folder)
        #expect(out.status == 0, "\(out.stderr)")
        #expect(try ReelProcess.frameHashes("cut.mp4", in: folder).count == 30)
        let csv = try ReelProcess.reel(["metadata", "export", "cut.mp4", "--format", "csv"], in: folder)
        // The fixes from 0.6 s to 1.4 s: five, moved to start at 0.
        #expect(csv.stdout.split(separator: "\n").count == 6, "\(csv.stdout)")
        let bad = try ReelProcess.reel(["export", input, "-o", "x.mp4", "--preset", "fast"], in: folder)
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("--preset fast"))
    }

    @Test("--at within half a frame of the end is the last frame", .enabled(if: ReelProcess.reel != nil, "needs the reel binary"))
    func thumbnailNearTheEndIsTheLastFrame() throws {
        let folder = try ReelProcess.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        // 60 frames at 30 fps: 1.99 rounds to 2.0, the end; the frame showing is the last.
        let input = Self.fixtures.appendingPathComponent("counter-320x240.mp4").path
        let near = try ReelProcess.reel(["thumbnail", input, "--at", "1.99", "-o", "near.png"], in: folder)
        #expect(near.status == 0, "\(near.stderr)")
        let last = try ReelProcess.reel(["thumbnail", input, "--at", "59/30", "-o", "last.png", "--exact"], in: folder)
        #expect(last.status == 0, "\(last.stderr)")
        let nearPNG = try? Data(contentsOf: folder.appendingPathComponent("near.png"))
        #expect(nearPNG != nil && nearPNG == (try? Data(contentsOf: folder.appendingPathComponent("last.png"))))
        let end = try ReelProcess.reel(["thumbnail", input, "--at", "2", "-o", "end.png"], in: folder)
        #expect(end.status == 1)
        #expect(end.stderr.contains("past the end"))
    }

    @Test(.enabled(if: ReelProcess.reel != nil, "needs the reel binary"))
    func thumbnailWritesThePNGOfTheFrame() throws {
        let folder = try ReelProcess.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = Self.fixtures.appendingPathComponent("counter-320x240.mp4").path
        let out = try ReelProcess.reel(["thumbnail", input, "--at", "1", "-o", "t.png", "--exact"], in: folder)
        #expect(out.status == 0, "\(out.stderr)")
        let png = try Data(contentsOf: folder.appendingPathComponent("t.png"))
        #expect(png.prefix(8) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
        // IHDR: width and height, big-endian, at bytes 16...23.
        let size = png[16..<24].reduce(into: [UInt8]()) { $0.append($1) }
        #expect(size == [0, 0, 1, 64, 0, 0, 0, 240])
        let late = try ReelProcess.reel(["thumbnail", input, "--at", "9", "-o", "late.png"], in: folder)
        #expect(late.status == 1)
        #expect(late.stderr.contains("past the end"))
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("late.png").path))
    }
}
