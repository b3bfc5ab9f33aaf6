import Foundation
import Reel
import ReelTestSupport
import Testing

@Suite("reel captions")
struct CaptionsCommandTests {
    static let srt = """
        1
        00:00:01,000 --> 00:00:02,500
        Hello <i>world</i>

        2
        00:00:03,000 --> 00:00:05,000
        {\\an8}On <u>top</u>

        """

    static func folderWithSRT() throws -> (URL, URL) {
        let folder = try TestFiles.scratchFolder()
        let input = folder.appendingPathComponent("in.srt")
        try Data(Self.srt.utf8).write(to: input)
        return (folder, input)
    }

    @Test func convertsThroughEveryFormatAndBack() async throws {
        let (folder, input) = try Self.folderWithSRT()
        defer { try? FileManager.default.removeItem(at: folder) }
        var previous = input
        for ext in ["itt", "scc", "vtt"] {
            let next = folder.appendingPathComponent("step.\(ext)")
            _ = await MetadataTestSupport.reelOK(["captions", "convert", previous.path, "-o", next.path])
            previous = next
        }
        let back = folder.appendingPathComponent("back.txt")
        _ = await MetadataTestSupport.reelOK(["captions", "convert", previous.path, "-o", back.path, "--format", "srt"])
        let captions = try SRT.read(Data(contentsOf: back)).captions
        #expect(captions.map(\.text) == ["Hello world", "On top"])
        #expect(captions[0].style(at: 6).italic == true)
        #expect(captions[1].style(at: 3).underline == true)
        #expect(captions[1].region?.isInUpperHalf(rows: 15) == true)
        // Through SCC the times are on 29.97 fps frames: within half a frame.
        #expect(abs(captions[0].timeRange.start.seconds - 1) < 0.017)
        #expect(abs(captions[1].timeRange.end.seconds - 5) < 0.017)
    }

    @Test func validateListsEachProblemAndExitsOne() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("in.vtt")
        try Data("WEBVTT\n\n00:01.000 --> 00:03.000\n<b>one</b>\n\n00:02.000 --> 00:04.000\ntwo ✓\n".utf8).write(to: input)
        let result = await ReelProcess.reel(["captions", "validate", input.path, "--format", "scc"])
        #expect(result.status == 1)
        #expect(
            result.stdout.split(separator: "\n") == [
                "caption 1 at 1 s \"one\": SCC cannot hold bold",
                "caption 2 at 2 s \"two ✓\": overlaps caption 1; SCC shows one caption at a time",
                "caption 2 at 2 s \"two ✓\": characters outside the CEA-608 set: \"✓\" (U+2713)",
            ])
        #expect(result.stderr.contains("3 problems for SCC"))
        let fine = await ReelProcess.reel(["captions", "validate", input.path, "--format", "itt"])
        #expect(fine.status == 0)
        #expect(fine.stdout.isEmpty)
    }

    /// A media file as input: its first caption track, or the one `--track` names. The
    /// Matroska file has the SRT twice: French as SubRip (track 2), English as WebVTT (track 3).
    @Test(.requires(.ffmpeg))
    func convertsAMediaFilesCaptionTrack() async throws {
        let (folder, input) = try Self.folderWithSRT()
        defer { try? FileManager.default.removeItem(at: folder) }
        let mkv = folder.appendingPathComponent("clip.mkv")
        try TestTools.output(
            "ffmpeg",
            [
                "-v", "error", "-f", "lavfi", "-i", "color=c=gray:s=64x64:d=6:r=10", "-i", input.path,
                "-map", "0", "-map", "1", "-map", "1", "-c:v", "mpeg4", "-c:s:0", "srt", "-c:s:1", "webvtt", mkv.path,
            ])
        let first = folder.appendingPathComponent("first.srt")
        _ = await MetadataTestSupport.reelOK(["captions", "convert", mkv.path, "-o", first.path])
        let captions = try SRT.read(Data(contentsOf: first)).captions
        #expect(captions.map(\.text) == ["Hello world", "On top"])
        #expect(captions.map(\.timeRange.start.seconds) == [1, 3])
        #expect(captions[0].style(at: 6).italic == true)
        #expect(captions[1].region?.isInUpperHalf(rows: 15) == true)
        let tracks = try TestTools.outputString("ffprobe", ["-v", "error", "-show_entries", "stream=index,codec_name", "-of", "csv=p=0", mkv.path])
        #expect(tracks.split(separator: "\n") == ["0,mpeg4", "1,subrip", "2,webvtt"])
        let second = folder.appendingPathComponent("second.itt")
        _ = await MetadataTestSupport.reelOK(["captions", "convert", mkv.path, "--track", "3", "-o", second.path])
        #expect(try ITT.read(Data(contentsOf: second)).captions.map(\.text) == ["Hello world", "On top"])
        // A track that holds no captions is one line naming it.
        let video = await ReelProcess.reel(
            ["captions", "convert", mkv.path, "--track", "1", "-o", folder.appendingPathComponent("v.srt").path])
        #expect(video.status == 1)
        #expect(video.stderr.split(separator: "\n").count == 1)
        #expect(video.stderr.contains(mkv.path) && video.stderr.contains("track 1 is a video track, not a caption track"))
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("v.srt").path))
    }

    @Test func badInputIsOneLineNamingFileAndLineAndWritesNothing() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("bad.scc")
        try Data("Scenarist_SCC V1.0\n\n00:00:00;00\t94ae 9x20\n".utf8).write(to: input)
        let output = folder.appendingPathComponent("out.srt")
        let result = await ReelProcess.reel(["captions", "convert", input.path, "-o", output.path])
        #expect(result.status == 1)
        #expect(result.stderr == "reel: \(input.path): line 3: SCC: word 2 \"9x20\" is not four hex digits (at 0.033367 s (1001/30000))\n")
        #expect(!FileManager.default.fileExists(atPath: output.path))
    }

    @Test func anExistingOutputIsKeptUnlessOverwriteIsGiven() async throws {
        let (folder, input) = try Self.folderWithSRT()
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("out.vtt")
        try Data("keep me".utf8).write(to: output)
        let refused = await ReelProcess.reel(["captions", "convert", input.path, "-o", output.path])
        #expect(refused.status == 1)
        #expect(try String(contentsOf: output, encoding: .utf8) == "keep me")
        _ = await MetadataTestSupport.reelOK(["captions", "convert", input.path, "-o", output.path, "--overwrite"])
        #expect(try String(contentsOf: output, encoding: .utf8).hasPrefix("WEBVTT"))
    }

    @Test func anUnknownOutputFormatIsAUsageError() async throws {
        let (folder, input) = try Self.folderWithSRT()
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = await ReelProcess.reel(["captions", "convert", input.path, "-o", folder.appendingPathComponent("x.doc").path])
        #expect(result.status == 2)
        #expect(result.stderr.contains("give --format itt, scc, srt or vtt"))
    }

    /// The mean difference of the bottom 15% of frame `index` of two videos (gray8).
    static func bottomDifference(_ a: URL, _ b: URL, frame index: Int) throws -> Double {
        func frame(_ url: URL) throws -> PixelBuffer {
            let reader = try AssetReader(url: url)
            let id = try #require(reader.tracks(withMediaType: .video).first?.trackID)
            let output = AssetReaderTrackOutput(trackID: id, settings: .video(pixelFormat: .gray8), bufferCapacity: 4)
            try reader.add(output)
            try reader.startReading()
            var n = 0
            while let sample = try output.nextSample() {
                guard let f = sample.videoFrame else { continue }
                if n == index { return f.pixelBuffer }
                n += 1
            }
            throw ReelError(.internalError, "no frame \(index)")
        }
        let x = try frame(a), y = try frame(b)
        var total = 0, count = 0
        x.withUnsafeBytes(plane: 0) { p in
            y.withUnsafeBytes(plane: 0) { q in
                for row in (x.height * 85 / 100)..<x.height {
                    for col in 0..<x.width {
                        total += abs(Int(p[row * x.bytesPerRow[0] + col]) - Int(q[row * y.bytesPerRow[0] + col]))
                        count += 1
                    }
                }
            }
        }
        return Double(total) / Double(count)
    }

    @Test func burnDrawsEachCaptionWhileItShows() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let srt = folder.appendingPathComponent("c.srt")
        try Data("1\n00:00:00,500 --> 00:00:01,000\nBURNT IN\n".utf8).write(to: srt)
        let out = folder.appendingPathComponent("burnt.mp4")
        _ = await MetadataTestSupport.reelOK(["captions", "burn", MetadataTestSupport.counter.path, "--captions", srt.path, "-o", out.path])
        // Frame 21 (0.7 s) shows the caption at the bottom; frame 6 (0.2 s) does not.
        let shown = try Self.bottomDifference(out, MetadataTestSupport.counter, frame: 21)
        let hidden = try Self.bottomDifference(out, MetadataTestSupport.counter, frame: 6)
        #expect(shown > 4 * max(hidden, 1), "bottom differs by \(shown) with the caption, \(hidden) without")
        #expect(hidden < 3)
    }

    @Test("burning captions into a clip with a GPS track keeps the track, the sound, the tags and the chapters", .requires(.ffprobe))
    func burnKeepsTheGPSTrackTagsAndChapters() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let srt = folder.appendingPathComponent("c.srt")
        try Data("1\n00:00:00,500 --> 00:00:01,000\nGPS\n".utf8).write(to: srt)
        // The GPS fixture with a chapter added by ffmpeg.
        let meta = folder.appendingPathComponent("chapters.txt")
        try Data(";FFMETADATA1\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=0\nEND=1000\ntitle=Start\n".utf8).write(to: meta)
        let input = folder.appendingPathComponent("in.mp4")
        _ = try TestTools.run(
            "ffmpeg",
            [
                "-v", "error", "-i", MetadataTestSupport.counterGPS.path, "-i", meta.path,
                "-map", "0", "-map_chapters", "1", "-c", "copy", input.path,
            ])
        let before = try MetadataTestSupport.probeStreams(input).compactMap { $0["codec_tag_string"] as? String }
        try #require(before.contains("gpmd"))
        let out = folder.appendingPathComponent("burnt.mp4")
        let run = await MetadataTestSupport.reelOK(["captions", "burn", input.path, "--captions", srt.path, "-o", out.path])
        let tags = try MetadataTestSupport.probeStreams(out).compactMap { $0["codec_tag_string"] as? String }
        #expect(tags.contains("gpmd") && tags.contains("mp4a"), "\(tags); \(run)")
        // The GPS fixes come through unchanged.
        let source = await MetadataTestSupport.reelOK(["metadata", "export", input.path, "--format", "csv"])
        let burnt = await MetadataTestSupport.reelOK(["metadata", "export", out.path, "--format", "csv"])
        #expect(!source.isEmpty && burnt == source)
        let chapters = try TestTools.outputString("ffprobe", ["-v", "error", "-show_entries", "chapter_tags=title", "-of", "csv=p=0", out.path])
        #expect(chapters.trimmingCharacters(in: .whitespacesAndNewlines) == "Start")
        let title = try TestTools.outputString("ffprobe", ["-v", "error", "-show_entries", "format_tags=title", "-of", "csv=p=0", out.path])
        #expect(title.trimmingCharacters(in: .whitespacesAndNewlines) == "Reel counter")
    }

    @Test(.requires(.ffprobe))
    func burnDrawsOnTheUprightPictureOfPhoneFootage() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let srt = folder.appendingPathComponent("c.srt")
        try Data("1\n00:00:00,000 --> 00:00:01,000\nUPRIGHT\n".utf8).write(to: srt)
        let out = folder.appendingPathComponent("burnt.mp4")
        _ = await MetadataTestSupport.reelOK(["captions", "burn", TestFiles.fixture("portrait.mp4").path, "--captions", srt.path, "-o", out.path])
        // 160x120 stored with a quarter turn: drawn upright, 120x160, with no display matrix left.
        let video = try #require(try MetadataTestSupport.probeStreams(out).first { $0["codec_type"] as? String == "video" })
        #expect(video["width"] as? Int == 120)
        #expect(video["height"] as? Int == 160)
        #expect(video["side_data_list"] == nil)
    }
}
