import Foundation
import ReelTestSupport
import Testing

@Suite("reel export and reel thumbnail", .serialized)
struct ExportThumbnailCommandTests {
    static let fixtures = TestFiles.packageRoot.appendingPathComponent("Fixtures")

    @Test(.requires(.ffmpeg, .ffprobe))
    func exportCutsAndKeepsTheGPSTrack() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = Self.fixtures.appendingPathComponent("counter-gps.mp4").path
        let out = await ReelProcess.reel(["export", input, "-o", "cut.mp4", "--start", "0.5", "--duration", "1", "--preset", "h264"], in: folder)
        #expect(out.status == 0, "\(out.stderr)")
        #expect(try ReelProcess.frameHashes("cut.mp4", in: folder).count == 30)
        let csv = await ReelProcess.reel(["metadata", "export", "cut.mp4", "--format", "csv"], in: folder)
        // The fixes from 0.6 s to 1.4 s: five, moved to start at 0.
        #expect(csv.stdout.split(separator: "\n").count == 6, "\(csv.stdout)")
        let bad = await ReelProcess.reel(["export", input, "-o", "x.mp4", "--preset", "fast"], in: folder)
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("--preset fast"))
    }

    @Test(.requires(.ffmpeg, .ffprobe))
    func exportTakesAVFoundationPresetNames() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = Self.fixtures.appendingPathComponent("counter-320x240.mp4").path
        let sound = await ReelProcess.reel(["export", input, "-o", "sound.m4a", "--preset", "AppleM4A"], in: folder)
        #expect(sound.status == 0, "\(sound.stderr)")
        let probe = try TestTools.run(
            try #require(TestTools.which("ffprobe")),
            ["-v", "error", "-show_entries", "stream=codec_name,codec_type", "-of", "csv=p=0", "sound.m4a"], in: folder)
        #expect(probe.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "aac,audio")
        let silent = Self.fixtures.appendingPathComponent("vfr.mp4").path
        let refused = await ReelProcess.reel(["export", silent, "-o", "none.m4a", "--preset", "AVAssetExportPresetAppleM4A"], in: folder)
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("no audio track"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("none.m4a").path))
    }

    @Test(.requires(.ffmpeg))
    func exportOfATrackThatCannotBeDecodedIsOneLineAndNothingWritten() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let broken = try BrokenAACClip.make(in: folder)
        let out = await ReelProcess.reel(["export", broken.path, "-o", "out.mp4", "--preset", "h264"], in: folder)
        #expect(out.status == 1, "\(out.stderr)")
        #expect(out.stderrLines.count == 1, "\(out.stderr)")
        #expect(out.stderr.contains(broken.path) && out.stderr.contains("track 2"), "\(out.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["broken-aac.mov"], "nothing written")
    }

    @Test(.requires(.ffmpeg, .ffprobe), arguments: ["h264", "passthrough"])
    func exportKeepsAPhonesDisplayMatrix(preset: String) async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = Self.fixtures.appendingPathComponent("portrait.mp4").path
        let out = await ReelProcess.reel(["export", input, "-o", "out.mp4", "--preset", preset], in: folder)
        #expect(out.status == 0, "\(out.stderr)")
        let geometry = try ReelProcess.videoGeometry("out.mp4", in: folder)
        #expect(geometry.width == 160 && geometry.height == 120 && geometry.rotation == -90, "\(geometry)")
        // Players turn it upright: the stored top-left block shows top right.
        let shown = try ReelProcess.shownPicture("out.mp4", in: folder)
        #expect(shown.width == 120 && shown.height == 160)
        #expect(shown.gray(110, 10) > 200 && shown.gray(10, 10) < 50 && shown.gray(110, 150) < 50)
    }

    /// rotated-90.mp4 stores 320x240 pictures with a display matrix turning them to 240x320.
    @Test(.requires(.ffmpeg, .ffprobe), arguments: ["h264", "passthrough"])
    func aTurnedClipStaysUprightInMP4AndMPEGTS(preset: String) async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.copyItem(at: Self.fixtures.appendingPathComponent("rotated-90.mp4"), to: folder.appendingPathComponent("in.mp4"))
        let input = "in.mp4"
        let source = try ReelProcess.videoGeometry(input, in: folder)
        try #require(abs(source.rotation) == 90, "\(source)")
        let shownSource = try ReelProcess.shownPicture(input, in: folder)

        // MP4 keeps the display matrix, and the thumbnail of the export is upright.
        let mp4 = await ReelProcess.reel(["export", input, "-o", "out.mp4", "--preset", preset], in: folder)
        #expect(mp4.status == 0, "\(mp4.stderr)")
        #expect(!mp4.stderr.contains("rotation not carried"), "\(mp4.stderr)")
        let kept = try ReelProcess.videoGeometry("out.mp4", in: folder)
        #expect(kept.width == source.width && kept.height == source.height && kept.rotation == source.rotation, "\(kept)")
        let thumb = await ReelProcess.reel(["thumbnail", "out.mp4", "--at", "0.5", "-o", "t.png"], in: folder)
        #expect(thumb.status == 0, "\(thumb.stderr)")
        let png = try Data(contentsOf: folder.appendingPathComponent("t.png"))
        let size = png[16..<24].reduce(into: [UInt8]()) { $0.append($1) }
        #expect(size == [0, 0, 0, 240, 0, 0, 1, 64], "\(size)")

        // MPEG-TS has no display matrix: a re-encode draws the pictures upright; a copy
        // keeps them as stored and says so in one line, before the first frame.
        let ts = await ReelProcess.reel(["export", input, "-o", "out.ts", "--preset", preset], in: folder)
        #expect(ts.status == 0, "\(ts.stderr)")
        let written = try ReelProcess.videoGeometry("out.ts", in: folder)
        #expect(written.rotation == 0, "\(written)")
        let warnings = ts.stderrLines.filter { $0.contains("rotation not carried") }
        if preset == "passthrough" {
            #expect(warnings.count == 1, "\(ts.stderr)")
            #expect(written.width == source.width && written.height == source.height, "\(written)")
        } else {
            #expect(warnings.isEmpty, "\(ts.stderr)")
            let shown = try ReelProcess.shownPicture("out.ts", in: folder)
            try #require(shown.width == shownSource.width && shown.height == shownSource.height, "\(written)")
            let difference = zip(shown.bytes, shownSource.bytes).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) } / shown.bytes.count
            #expect(difference < 8, "mean difference \(difference) from the upright source")
        }
    }

    @Test(.requires(.ffprobe))
    func exportKeepsTheSourcesArtistAlbumAndCopyright() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = Self.fixtures.appendingPathComponent("userdata.mov").path
        let out = await ReelProcess.reel(["export", input, "-o", "out.mov", "--preset", "h264"], in: folder)
        #expect(out.status == 0, "\(out.stderr)")
        let probe = try TestTools.run("ffprobe", ["-v", "error", "-show_entries", "format_tags", "-of", "default=nw=1", "out.mov"], in: folder)
        // As user data, or as metadata keys when another of the source's items (its
        // keywords) needs them.
        for (key, value) in [("title", "Reel user data"), ("artist", "Reel Artist"), ("album", "Reel Album"), ("copyright", "2024 Reel")] {
            #expect(
                probe.stdout.contains("TAG:\(key)=\(value)") || probe.stdout.contains("TAG:com.apple.quicktime.\(key)=\(value)"),
                "\(key) missing from \(probe.stdout)")
        }
    }

    @Test(.requires(.ffmpeg, .ffprobe))
    func thumbnailsAreUprightUnlessAskedNotToBe() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = Self.fixtures.appendingPathComponent("portrait.mp4").path
        let out = await ReelProcess.reel(["thumbnail", input, "--at", "0.5", "-o", "up.png"], in: folder)
        #expect(out.status == 0, "\(out.stderr)")
        let up = try ReelProcess.shownPicture("up.png", in: folder)
        #expect(up.width == 120 && up.height == 160)
        #expect(up.gray(110, 10) > 200 && up.gray(10, 10) < 50 && up.gray(110, 150) < 50)
        let stored = await ReelProcess.reel(["thumbnail", input, "--at", "0.5", "-o", "stored.png", "--no-transform"], in: folder)
        #expect(stored.status == 0, "\(stored.stderr)")
        let raw = try ReelProcess.shownPicture("stored.png", in: folder)
        #expect(raw.width == 160 && raw.height == 120)
        #expect(raw.gray(10, 10) > 200 && raw.gray(150, 10) < 50)
    }

    @Test("--at within half a frame of the end is the last frame")
    func thumbnailNearTheEndIsTheLastFrame() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // 60 frames at 30 fps: 1.99 rounds to 2.0, the end; the frame showing is the last.
        let input = Self.fixtures.appendingPathComponent("counter-320x240.mp4").path
        let near = await ReelProcess.reel(["thumbnail", input, "--at", "1.99", "-o", "near.png"], in: folder)
        #expect(near.status == 0, "\(near.stderr)")
        let last = await ReelProcess.reel(["thumbnail", input, "--at", "59/30", "-o", "last.png", "--exact"], in: folder)
        #expect(last.status == 0, "\(last.stderr)")
        let nearPNG = try? Data(contentsOf: folder.appendingPathComponent("near.png"))
        #expect(nearPNG != nil && nearPNG == (try? Data(contentsOf: folder.appendingPathComponent("last.png"))))
        let end = await ReelProcess.reel(["thumbnail", input, "--at", "2", "-o", "end.png"], in: folder)
        #expect(end.status == 1)
        #expect(end.stderr.contains("past the end"))
    }

    @Test()
    func thumbnailWritesThePNGOfTheFrame() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = Self.fixtures.appendingPathComponent("counter-320x240.mp4").path
        let out = await ReelProcess.reel(["thumbnail", input, "--at", "1", "-o", "t.png", "--exact"], in: folder)
        #expect(out.status == 0, "\(out.stderr)")
        let png = try Data(contentsOf: folder.appendingPathComponent("t.png"))
        #expect(png.prefix(8) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
        // IHDR: width and height, big-endian, at bytes 16...23.
        let size = png[16..<24].reduce(into: [UInt8]()) { $0.append($1) }
        #expect(size == [0, 0, 1, 64, 0, 0, 0, 240])
        let late = await ReelProcess.reel(["thumbnail", input, "--at", "9", "-o", "late.png"], in: folder)
        #expect(late.status == 1)
        #expect(late.stderr.contains("past the end"))
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("late.png").path))
    }

    @Test(
        "reel thumbnail of a composition file draws the render's frame at that time, compositor included",
        .requires(.ffmpeg))
    func thumbnailOfACompositionIsTheRendersFrame() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let lossless = RenderCommandTests.dashboard.replacingOccurrences(
            of: "\"video\": {\"codec\": \"h264\", \"crf\": 23, \"preset\": \"veryfast\"}",
            with: "\"video\": {\"codec\": \"ffv1\"}")
        #expect(lossless != RenderCommandTests.dashboard)
        let c = try RenderCommandTests.write(lossless, in: folder)
        let render = await ReelProcess.reel(["render", c, "-o", "whole.mov"], in: folder)
        #expect(render.status == 0, "\(render.stderr)")
        // 1.5 s is frame 45; the dashboard's numbers change every frame.
        let thumb = await ReelProcess.reel(["thumbnail", c, "--at", "1.5", "-o", "t.png"], in: folder)
        #expect(thumb.status == 0, "\(thumb.stderr)")
        let ffmpeg = try #require(TestTools.which("ffmpeg"))
        func psnr(frame: Int) throws -> Double {
            let out = try TestTools.run(
                ffmpeg,
                [
                    "-v", "info", "-nostats", "-i", "t.png", "-i", "whole.mov", "-lavfi",
                    "[1:v]select=eq(n\\,\(frame)),format=rgb24[r];[0:v]format=rgb24[t];[t][r]psnr", "-f", "null", "-",
                ], in: folder)
            let line = out.stderr.split(separator: "\n").first { $0.contains("PSNR") } ?? ""
            let average = line.split(separator: " ").first { $0.hasPrefix("average:") }.map { String($0.dropFirst("average:".count)) } ?? "0"
            return average == "inf" ? .infinity : Double(average) ?? 0
        }
        let same = try await psnr(frame: 45), before = try await psnr(frame: 44)
        #expect(same >= 40, "frame 45: \(same) dB")
        #expect(before < same - 3, "frame 44: \(before) dB against frame 45's \(same) dB")
        // Outside the composition: one line, nothing written.
        let late = await ReelProcess.reel(["thumbnail", c, "--at", "5", "-o", "late.png"], in: folder)
        #expect(late.status == 1 && late.stderrLines.count == 1 && late.stderr.contains("outside the composition"), "\(late.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("late.png").path))
    }
}

extension ReelProcess {
    /// ffprobe's width, height and display-matrix rotation (0 when none) of the first video stream.
    static func videoGeometry(_ file: String, in folder: URL) throws -> (width: Int, height: Int, rotation: Int) {
        guard let ffprobe = TestTools.which("ffprobe") else { throw CocoaError(.fileNoSuchFile) }
        let out = try TestTools.run(
            ffprobe,
            [
                "-v", "error", "-select_streams", "v:0", "-show_entries", "stream=width,height:stream_side_data=rotation",
                "-of", "default=nw=1", file,
            ], in: folder)
        var values: [String: Int] = [:]
        for line in out.stdout.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1)
            if parts.count == 2, let v = Int(parts[1]) { values[String(parts[0])] = v }
        }
        return (values["width"] ?? 0, values["height"] ?? 0, values["rotation"] ?? 0)
    }

    /// A picture as players show it: the first frame, turned by its display matrix (what
    /// ffmpeg does by default), as 8-bit grey.
    struct Picture {
        var width: Int, height: Int, bytes: [UInt8]
        func gray(_ x: Int, _ y: Int) -> UInt8 { bytes[y * width + x] }
    }

    static func shownPicture(_ file: String, in folder: URL) throws -> Picture {
        guard let ffmpeg = TestTools.which("ffmpeg") else { throw CocoaError(.fileNoSuchFile) }
        let g = try videoGeometry(file, in: folder)
        let turned = abs(g.rotation) % 180 == 90
        let name = "\(file).gray"
        let out = try TestTools.run(ffmpeg, ["-v", "error", "-y", "-i", file, "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "gray", name], in: folder)
        guard out.status == 0 else { throw CocoaError(.fileReadCorruptFile) }
        let bytes = [UInt8](try Data(contentsOf: folder.appendingPathComponent(name)))
        let picture = Picture(width: turned ? g.height : g.width, height: turned ? g.width : g.height, bytes: bytes)
        guard bytes.count == picture.width * picture.height else { throw CocoaError(.fileReadCorruptFile) }
        return picture
    }
}
