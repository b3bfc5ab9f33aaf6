import Foundation
import Reel
import ReelTestSupport
import Testing

/// Exports keep caption tracks: the whole track, or for a trimmed export the captions that
/// overlap the range, cut at it.
@Suite struct ExportCaptionsTests {
    static let ffmpeg = ["/usr/bin/ffmpeg", "/usr/local/bin/ffmpeg"].first { FileManager.default.isExecutableFile(atPath: $0) }

    static func ms(_ v: Int64) -> MediaTime { MediaTime(value: v, timescale: 1000) }

    static let captions = [
        Caption(spans: [.init("Hello "), .init("world", CaptionStyle(italic: true))], timeRange: TimeRange(start: ms(500), end: ms(1500))),
        Caption("second", timeRange: TimeRange(start: ms(2000), end: ms(3250))),
    ]

    /// A 4 s clip (video and a mov_text track made by ffmpeg from Reel's SRT).
    static func clip(in folder: URL) throws -> URL {
        let srt = folder.appendingPathComponent("in.srt")
        try SRT.write(captions).write(to: srt)
        let out = folder.appendingPathComponent("clip.mp4")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try #require(ffmpeg))
        process.arguments = [
            "-v", "error", "-f", "lavfi", "-i", "color=c=gray:s=64x64:d=4:r=10", "-i", srt.path,
            "-map", "0", "-map", "1", "-c:v", "mpeg4", "-c:s", "mov_text", "-metadata:s:s:0", "language=fra", out.path,
        ]
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "ffmpeg could not make the clip")
        return out
    }

    static func captions(of url: URL) async throws -> [Caption] {
        let reader = try await AssetReader.open(url: url)
        let track = try #require(reader.tracks.first { $0.formatDescription.isCaptionFormat }, "no caption track in the export")
        let output = AssetReaderTrackOutput(trackID: track.trackID, settings: .passthrough)
        try reader.add(output)
        let adaptor = try AssetReaderOutputCaptionAdaptor(assetReaderTrackOutput: output)
        try reader.startReading()
        var out: [Caption] = []
        for try await caption in adaptor { out.append(caption) }
        return out
    }

    @Test(.requires(.ffmpeg), arguments: [AssetWriter.FileType.mp4, .mkv])
    func anExportKeepsTheCaptionTrack(fileType: AssetWriter.FileType) async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let session = AssetExportSession(
            composition: try await Composition(asset: Asset(url: try Self.clip(in: folder))),
            preset: .h264(crf: 30, preset: "ultrafast"))
        let out = folder.appendingPathComponent("out.\(fileType.rawValue)")
        try await session.export(to: out, as: fileType)
        let kept = try await Self.captions(of: out)
        #expect(kept.map(\.text) == Self.captions.map(\.text))
        #expect(kept.map(\.timeRange) == Self.captions.map(\.timeRange))
        #expect(kept.first?.style(at: 6).italic == true)
        let track = try #require(try await Asset(url: out).load(.tracks).first { $0.hasMediaCharacteristic(.legible) })
        #expect(track.languageCode == "fra")
    }

    /// `reel render` of a composition file playing two parts of the clip (source 1-2 s at
    /// 0, source 2.5-4 s at 1 s) with no captions track of its own: the clip's captions
    /// follow the picture.
    @Test(.requires(.ffmpeg, .reelBinary))
    func aRenderKeepsTheSourcesCaptionsRetimedThroughTheEdit() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        _ = try Self.clip(in: folder)
        let json = folder.appendingPathComponent("c.json")
        try Data(
            """
            {"version": 1, "sources": [{"name": "clip", "path": "clip.mp4"}],
             "tracks": [{"trackID": 1, "mediaType": "video",
                         "segments": [{"source": "clip", "sourceStart": 1, "duration": 1}, {"source": "clip", "sourceStart": 2.5, "duration": 1.5}]}],
             "instructions": [{"timeRange": {"start": 0, "end": "end"}, "layerInstructions": [{"trackID": 1}]}],
             "output": {"video": {"codec": "h264", "preset": "ultrafast"}}}
            """.utf8
        ).write(to: json)
        let out = folder.appendingPathComponent("out.mp4")
        _ = try TestTools.run(try #require(TestFiles.reelBinary), ["render", json.path, "-o", out.path]).succeeded("reel render")
        // "Hello world" (source 0.5-1.5 s) plays 1-1.5 s at 0; "second" (2-3.25 s) plays 2.5-3.25 s at 1 s.
        let expected = [
            (text: "Hello world", range: TimeRange(start: .zero, end: Self.ms(500))),
            (text: "second", range: TimeRange(start: Self.ms(1000), end: Self.ms(1750))),
        ]
        let kept = try await Self.captions(of: out)
        #expect(kept.map(\.text) == expected.map(\.text))
        #expect(kept.map(\.timeRange) == expected.map(\.range))
        #expect(kept.first?.style(at: 6).italic == true)
        // FFmpeg reads the same cues.
        let srt = folder.appendingPathComponent("out.srt")
        try TestTools.output("ffmpeg", ["-v", "error", "-i", out.path, "-map", "0:s:0", srt.path])
        let read = try SRT.read(Data(contentsOf: srt)).captions
        #expect(read.map(\.text) == expected.map(\.text))
        #expect(read.map(\.timeRange) == expected.map(\.range))
    }

    @Test(.requires(.ffmpeg))
    func aTrimmedExportKeepsTheOverlappingCaptionsCutAtTheRange() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let session = AssetExportSession(
            composition: try await Composition(asset: Asset(url: try Self.clip(in: folder))),
            preset: .h264(crf: 30, preset: "ultrafast"))
        session.timeRange = TimeRange(start: Self.ms(1000), end: Self.ms(3000))
        let out = folder.appendingPathComponent("out.mp4")
        try await session.export(to: out, as: .mp4)
        let kept = try await Self.captions(of: out)
        #expect(kept.map(\.text) == ["Hello world", "second"])
        // The output starts at the range's start: 1 s in the source is 0 in the export.
        #expect(kept.map(\.timeRange) == [TimeRange(start: .zero, end: Self.ms(500)), TimeRange(start: Self.ms(1000), end: Self.ms(2000))])
    }

    static let frame = MediaTime(value: 1001, timescale: 30000)

    /// A MOV with video and a CEA-608 (`c608`) track muxed by ffmpeg from Reel's SCC of `written`.
    /// FFmpeg's SCC demuxer and MOV muxer drop the last line: a padding line labelled
    /// `padding` (after the last caption) follows.
    static func c608Clip(_ written: [Caption], padding: String, seconds: Int, in folder: URL) throws -> URL {
        let scc = folder.appendingPathComponent("in.scc")
        try (SCC.write(written).data + Data("\(padding)\t8080\n\n".utf8)).write(to: scc)
        let mov = folder.appendingPathComponent("c608.mov")
        try TestTools.output(
            "ffmpeg",
            [
                "-v", "error", "-f", "lavfi", "-i", "color=c=gray:s=64x64:d=\(seconds):r=10", "-i", scc.path,
                "-map", "0", "-map", "1", "-c:v", "mpeg4", "-c:s", "copy", mov.path,
            ])
        return mov
    }

    /// The packets of the file's caption track, as read: times and bytes.
    static func captionPackets(of url: URL) async throws -> (codec: String, packets: [(time: MediaTime, data: Data)]) {
        let reader = try await AssetReader.open(url: url)
        let track = try #require(reader.tracks.first { $0.formatDescription.isCaptionFormat }, "no caption track")
        let output = AssetReaderTrackOutput(trackID: track.trackID, settings: .passthrough)
        try reader.add(output)
        try reader.startReading()
        var packets: [(time: MediaTime, data: Data)] = []
        while let sample = try await output.next() {
            let buffer = try #require(sample.sampleBuffer)
            packets.append((buffer.presentationTime, buffer.data))
        }
        return (track.formatDescription.codecName, packets)
    }

    static let two608 = [
        Caption("FIRST", timeRange: TimeRange(start: frame * 15, end: frame * 30)),
        Caption("SECOND", timeRange: TimeRange(start: frame * 60, end: frame * 90)),
    ]

    /// A CEA-608 track exported to MOV is stream-copied: the same packets at the same times.
    @Test(.requires(.ffmpeg))
    func anExportToMOVCopiesACEA608Track() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let mov = try Self.c608Clip(Self.two608, padding: "00:00:03;15", seconds: 4, in: folder)
        let session = AssetExportSession(composition: try await Composition(asset: Asset(url: mov)), preset: .h264(crf: 30, preset: "ultrafast"))
        let out = folder.appendingPathComponent("out.mov")
        try await session.export(to: out, as: .mov)
        let source = try await Self.captionPackets(of: mov), copied = try await Self.captionPackets(of: out)
        #expect(source.codec == "eia_608" && copied.codec == "eia_608")
        try #require(source.packets.count > 1)
        #expect(copied.packets.map(\.time) == source.packets.map(\.time))
        #expect(copied.packets.map(\.data) == source.packets.map(\.data))
        #expect(try await Self.captions(of: out).map(\.text) == ["FIRST", "SECOND"])
    }

    /// A trimmed export to MOV keeps the CEA-608 packets that start in the range, moved to
    /// the output's start; they read back as the same captions, moved.
    @Test(.requires(.ffmpeg))
    func aTrimmedExportToMOVKeepsTheCEA608PacketsInTheRange() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let mov = try Self.c608Clip(Self.two608, padding: "00:00:03;15", seconds: 4, in: folder)
        let range = TimeRange(start: Self.ms(1200), end: Self.ms(3600))
        let session = AssetExportSession(composition: try await Composition(asset: Asset(url: mov)), preset: .h264(crf: 30, preset: "ultrafast"))
        session.timeRange = range
        let out = folder.appendingPathComponent("out.mov")
        try await session.export(to: out, as: .mov)
        let source = try await Self.captionPackets(of: mov), copied = try await Self.captionPackets(of: out)
        let inRange = source.packets.filter { range.containsTime($0.time) }
        try #require(!inRange.isEmpty && inRange.count < source.packets.count)
        #expect(copied.codec == "eia_608")
        #expect(copied.packets.map(\.time) == inRange.map { $0.time - range.start })
        #expect(copied.packets.map(\.data) == inRange.map(\.data))
        let read = try await Self.captions(of: mov), kept = try await Self.captions(of: out)
        #expect(kept.map(\.text) == ["SECOND"])
        #expect(
            kept.map(\.timeRange)
                == read.filter { $0.text == "SECOND" }.map { TimeRange(start: $0.timeRange.start - range.start, duration: $0.timeRange.duration) })
    }

    /// A `c608` track whose pairs are on field 2 (CC3), copied into MOV: FFmpeg's MOV muxer
    /// writes field 1 only, so the export says what it cannot carry, naming the track and time.
    @Test(.requires(.ffmpeg))
    func aCopiedCEA608TracksFieldTwoIsReportedLost() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let field1 = try Self.c608Clip(Self.two608, padding: "00:00:03;15", seconds: 4, in: folder)
        // The samples hold their pairs in `cdat` atoms; renamed `cdt2`, the pairs are field 2's.
        var bytes = try Data(contentsOf: field1)
        var renamed = 0, at = bytes.startIndex
        while let hit = bytes[at...].range(of: Data("cdat".utf8)) {
            bytes.replaceSubrange(hit, with: Data("cdt2".utf8))
            renamed += 1
            at = hit.upperBound
        }
        let mov = folder.appendingPathComponent("cc3.mov")
        try bytes.write(to: mov)
        let first = try #require(try await Self.captionPackets(of: mov).packets.first).time
        let moved = try await Self.captionPackets(of: mov).packets.flatMap { p in
            stride(from: 0, to: p.data.count, by: 3).map { p.data[p.data.startIndex + $0] }
        }
        try #require(renamed > 0 && !moved.isEmpty && moved.allSatisfy { $0 == 0xFD })
        let session = AssetExportSession(composition: try await Composition(asset: Asset(url: mov)), preset: .h264(crf: 30, preset: "ultrafast"))
        let said = Lock([String]())
        session.renderOptions.diagnostics = { d in said.withLock { $0.append(d.message) } }
        let out = folder.appendingPathComponent("out.mov")
        try await session.export(to: out, as: .mov)
        let warnings = said.withLock { $0 }.filter { $0.contains("field 2") }
        #expect(warnings.count == 1)
        #expect(
            warnings.first?.hasPrefix("caption track ") == true && warnings.first?.contains("(CC3, CC4; first at \(first.secondsDescription))") == true,
            "\(warnings)")
    }

    /// A CEA-608 (`c608`) track, muxed by ffmpeg from Reel's SCC, is kept as 3GPP timed text
    /// in MP4 and as SubRip in Matroska, which have no place for the byte pairs.
    @Test(.requires(.ffmpeg), arguments: [AssetWriter.FileType.mp4, .mkv])
    func anExportKeepsACEA608TrackAsText(fileType: AssetWriter.FileType) async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let frame = Self.frame
        let written = [Caption("FROM 608", timeRange: TimeRange(start: frame * 30, end: frame * 60))]
        let mov = try Self.c608Clip(written, padding: "00:00:02;15", seconds: 3, in: folder)
        let session = AssetExportSession(composition: try await Composition(asset: Asset(url: mov)), preset: .h264(crf: 30, preset: "ultrafast"))
        let out = folder.appendingPathComponent("out.\(fileType.rawValue)")
        try await session.export(to: out, as: fileType)
        #expect(try await Self.captionPackets(of: out).codec == (fileType == .mp4 ? "mov_text" : "subrip"))
        let kept = try await Self.captions(of: out)
        #expect(kept.map(\.text) == ["FROM 608"])
        // FFmpeg's demuxer times the lines by their labels, in milliseconds, and the output by milliseconds: within a frame.
        #expect((kept.first.map { $0.timeRange.start - written[0].timeRange.start }?.magnitude ?? frame) < frame)
        #expect((kept.first.map { $0.timeRange.end - written[0].timeRange.end }?.magnitude ?? frame) < frame)
    }
    static let assScript = """
        [Script Info]
        ScriptType: v4.00+
        PlayResX: 384
        PlayResY: 288

        [V4+ Styles]
        Format: Name, Fontname, Fontsize, PrimaryColour, SecondaryColour, OutlineColour, BackColour, Bold, Italic, Underline, StrikeOut, ScaleX, ScaleY, Spacing, Angle, BorderStyle, Outline, Shadow, Alignment, MarginL, MarginR, MarginV, Encoding
        Style: Default,Arial,16,&Hffffff,&Hffffff,&H0,&H0,0,0,0,0,100,100,0,0,1,1,0,2,10,10,10,0
        Style: Sign,DejaVu Serif,20,&H00ffff,&Hffffff,&H0,&H0,-1,0,0,0,100,100,0,0,1,1,0,8,10,10,10,0

        [Events]
        Format: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text
        Dialogue: 0,0:00:01.00,0:00:03.00,Default,,0,0,0,,Bottom {\\i1}line{\\i0}
        Dialogue: 0,0:00:01.00,0:00:02.00,Sign,,0,0,0,,Top sign
        Dialogue: 0,0:00:03.50,0:00:04.50,Default,,0,0,0,,{\\an7}Top left

        """

    /// A 5 s Matroska file whose caption track ffmpeg copied from a file in `codec`
    /// (`ass`, `srt`, `vtt`) holding `text`.
    static func matroskaClip(_ text: String, ext: String, in folder: URL) throws -> URL {
        let input = folder.appendingPathComponent("in.\(ext)")
        try Data(text.utf8).write(to: input)
        let out = folder.appendingPathComponent("clip.mkv")
        try TestTools.output(
            "ffmpeg",
            [
                "-v", "error", "-f", "lavfi", "-i", "color=c=gray:s=64x64:d=5:r=10", "-i", input.path,
                "-map", "0", "-map", "1", "-c:v", "mpeg4", "-c:s", "copy", "-metadata:s:s:0", "language=deu", out.path,
            ])
        return out
    }

    /// The codec of the first caption stream and its codec private data (the ASS header), by ffprobe and ffmpeg.
    static func probeCaptions(_ url: URL, in folder: URL, ext: String) throws -> (codec: String, file: String) {
        let codec = try TestTools.outputString(
            "ffprobe",
            [
                "-v", "error", "-select_streams", "s:0", "-show_entries", "stream=codec_name",
                "-of", "default=noprint_wrappers=1:nokey=1", url.path,
            ])
        let file = folder.appendingPathComponent("probe-\(UUID().uuidString).\(ext)")
        try TestTools.output("ffmpeg", ["-v", "error", "-i", url.path, "-map", "0:s:0", "-c", "copy", file.path])
        return (codec.trimmingCharacters(in: .whitespacesAndNewlines), try String(contentsOf: file, encoding: .utf8))
    }

    /// An ASS track exported from Matroska to Matroska is copied: codec, styles (the
    /// header), override tags and events at their times, with the passthrough preset and
    /// with a re-encoding one.
    @Test(.requires(.ffmpeg), arguments: [ExportPreset.passthrough, .h264(crf: 30, preset: "ultrafast")])
    func anASSTrackIsCopiedIntoMatroska(preset: ExportPreset) async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let mkv = try Self.matroskaClip(Self.assScript, ext: "ass", in: folder)
        let session = AssetExportSession(composition: try await Composition(asset: Asset(url: mkv)), preset: preset)
        let out = folder.appendingPathComponent("out.mkv")
        try await session.export(to: out, as: .mkv)
        let (codec, script) = try Self.probeCaptions(out, in: folder, ext: "ass")
        #expect(codec == "ass")
        #expect(script.contains("Style: Sign,DejaVu Serif,20,&H00ffff,&Hffffff,&H0,&H0,-1,0,0,0,100,100,0,0,1,1,0,8,10,10,10,0"))
        #expect(script.contains("Dialogue: 0,0:00:01.00,0:00:03.00,Default,,0,0,0,,Bottom {\\i1}line{\\i0}"))
        #expect(script.contains("Dialogue: 0,0:00:01.00,0:00:02.00,Sign,,0,0,0,,Top sign"))
        #expect(script.contains("Dialogue: 0,0:00:03.50,0:00:04.50,Default,,0,0,0,,{\\an7}Top left"))
        let track = try #require(try await Asset(url: out).load(.tracks).first { $0.hasMediaCharacteristic(.legible) })
        #expect(track.languageCode == "deu")
    }

    /// A trimmed export (1.5-4 s) copies the cues that overlap the range, cut at it.
    @Test(.requires(.ffmpeg))
    func aTrimmedCopyCutsTheCuesAtTheRange() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let mkv = try Self.matroskaClip(Self.assScript, ext: "ass", in: folder)
        let session = AssetExportSession(composition: try await Composition(asset: Asset(url: mkv)), preset: .h264(crf: 30, preset: "ultrafast"))
        session.timeRange = TimeRange(start: Self.ms(1500), end: Self.ms(4000))
        let out = folder.appendingPathComponent("out.mkv")
        try await session.export(to: out, as: .mkv)
        let (codec, script) = try Self.probeCaptions(out, in: folder, ext: "ass")
        #expect(codec == "ass")
        #expect(script.contains("Dialogue: 0,0:00:00.00,0:00:01.50,Default,,0,0,0,,Bottom {\\i1}line{\\i0}"))
        #expect(script.contains("Dialogue: 0,0:00:00.00,0:00:00.50,Sign,,0,0,0,,Top sign"))
        #expect(script.contains("Dialogue: 0,0:00:02.00,0:00:02.50,Default,,0,0,0,,{\\an7}Top left"))
        let kept = try await Self.captions(of: out)
        #expect(kept.map(\.text).sorted() == ["Bottom line", "Top left", "Top sign"])
        #expect(kept.first { $0.text == "Top left" }?.timeRange == TimeRange(start: Self.ms(2000), end: Self.ms(2500)))
    }

    /// A SubRip cue placed at the top (`{\an8}`) keeps its tag through a Matroska copy, and a
    /// WebVTT cue its settings.
    @Test(.requires(.ffmpeg), arguments: [("srt", "subrip"), ("vtt", "webvtt")])
    func matroskaCopiesKeepWhereCaptionsSit(ext: String, codec: String) async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let text =
            ext == "srt"
            ? "1\n00:00:01,000 --> 00:00:02,000\n{\\an8}At the top\n\n2\n00:00:04,500 --> 00:00:05,000\nBelow\n"
            : "WEBVTT\n\n00:01.000 --> 00:02.000 line:0 align:start\nAt the top\n\n00:04.500 --> 00:05.000\nBelow\n"
        let mkv = try Self.matroskaClip(text, ext: ext, in: folder)
        let session = AssetExportSession(composition: try await Composition(asset: Asset(url: mkv)), preset: .passthrough)
        let out = folder.appendingPathComponent("out.mkv")
        try await session.export(to: out, as: .mkv)
        let (probed, file) = try Self.probeCaptions(out, in: folder, ext: ext)
        #expect(probed == codec)
        #expect(file.contains(ext == "srt" ? "{\\an8}At the top" : "00:01.000 --> 00:02.000 line:0 align:start\nAt the top"))
        let kept = try await Self.captions(of: out)
        #expect(kept.first?.region?.isInUpperHalf(rows: 15) == true)
        #expect(kept.last?.region == nil)
    }

    /// A mov_text track exported from MP4 to MP4 is copied: the same samples, byte for byte.
    @Test(.requires(.ffmpeg))
    func aMovTextTrackIsCopiedIntoMP4() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let mp4 = try Self.clip(in: folder)
        let session = AssetExportSession(composition: try await Composition(asset: Asset(url: mp4)), preset: .h264(crf: 30, preset: "ultrafast"))
        let out = folder.appendingPathComponent("out.mp4")
        try await session.export(to: out, as: .mp4)
        let source = try await Self.captionPackets(of: mp4), copied = try await Self.captionPackets(of: out)
        #expect(copied.codec == "mov_text")
        #expect(copied.packets.filter { $0.data.count > 2 }.map(\.data) == source.packets.filter { $0.data.count > 2 }.map(\.data))
        let codec = try TestTools.outputString(
            "ffprobe",
            [
                "-v", "error", "-select_streams", "s:0", "-show_entries", "stream=codec_name,codec_tag_string",
                "-of", "default=noprint_wrappers=1", out.path,
            ])
        #expect(codec.contains("codec_name=mov_text") && codec.contains("codec_tag_string=tx3g"))
    }

    /// SubRip cues that overlap (1-5 s, 4.5-6 s), exported where they are written again as
    /// 3GPP timed text, which shows one caption at a time: both texts show while both
    /// cues do, nothing moves, and a warning names the track and the time.
    @Test(.requires(.ffmpeg))
    func overlappingCaptionsAreMergedWithAWarning() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let mkv = try Self.matroskaClip("1\n00:00:01,000 --> 00:00:05,000\nFirst\n\n2\n00:00:04,500 --> 00:00:06,000\nSecond\n", ext: "srt", in: folder)
        let session = AssetExportSession(composition: try await Composition(asset: Asset(url: mkv)), preset: .h264(crf: 30, preset: "ultrafast"))
        let said = Lock([String]())
        session.renderOptions.diagnostics = { d in said.withLock { $0.append(d.message) } }
        let out = folder.appendingPathComponent("out.mp4")
        try await session.export(to: out, as: .mp4)
        let kept = try await Self.captions(of: out)
        #expect(kept.map(\.text) == ["First", "First\nSecond", "Second"])
        #expect(
            kept.map(\.timeRange) == [
                TimeRange(start: Self.ms(1000), end: Self.ms(4500)), TimeRange(start: Self.ms(4500), end: Self.ms(5000)),
                TimeRange(start: Self.ms(5000), end: Self.ms(6000)),
            ])
        let warnings = said.withLock { $0 }.filter { $0.contains("overlap") }
        #expect(warnings.count == 1)
        #expect(warnings.first?.hasPrefix("caption track ") == true && warnings.first?.contains("at 4.5 s") == true)
    }
}
