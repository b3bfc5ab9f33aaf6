import Foundation
import ReelCaptions
import ReelCore
import ReelIO
import ReelTestSupport
import Testing

@Suite("AssetReaderOutputCaptionAdaptor")
struct AssetReaderOutputCaptionAdaptorTests {
    static let captions: [Caption] = [
        Caption(spans: [.init("Hello "), .init("world", CaptionStyle(italic: true))], timeRange: range(500, 1500)),
        Caption(
            spans: [.init("bold", CaptionStyle(fontWeight: .bold)), .init(" and\n"), .init("red", CaptionStyle(textColor: .red))],
            timeRange: range(2000, 3250)),
    ]

    static func range(_ a: Int64, _ b: Int64) -> TimeRange {
        TimeRange(start: MediaTime(value: a, timescale: 1000), end: MediaTime(value: b, timescale: 1000))
    }

    /// A 4 s clip with the captions as a subtitle track muxed by ffmpeg from an SRT file.
    static func clip(_ container: String, codec: String) throws -> URL {
        let folder = try TestFiles.scratchFolder()
        let srt = folder.appendingPathComponent("in.srt")
        try SRT.write(captions).write(to: srt)
        let out = folder.appendingPathComponent("clip.\(container)")
        _ = try TestTools.outputString(
            try #require(TestTools.which("ffmpeg")?.path),
            [
                "-v", "error", "-y", "-f", "lavfi", "-i", "color=c=gray:s=64x64:d=4:r=10", "-i", srt.path,
                "-map", "0", "-map", "1", "-c:v", "mpeg4", "-c:s", codec, "-metadata:s:s:0", "language=fra", out.path,
            ])
        return out
    }

    static func read(_ url: URL) async throws -> (captions: [Caption], adaptor: AssetReaderOutputCaptionAdaptor, track: AssetReader.Track) {
        let reader = try await AssetReader.open(url: url)
        let track = try #require(
            reader.tracks.first { $0.mediaType == .subtitle || $0.mediaType == MediaType(rawValue: "text") || $0.formatDescription.isCaptionFormat })
        let output = AssetReaderTrackOutput(trackID: track.trackID, settings: .passthrough)
        try reader.add(output)
        let adaptor = try AssetReaderOutputCaptionAdaptor(assetReaderTrackOutput: output)
        try reader.startReading()
        var captions: [Caption] = []
        for try await caption in adaptor { captions.append(caption) }
        return (captions, adaptor, track)
    }

    @Test(
        "the captions of a subtitle track, with their styles", .requires(.ffmpeg),
        arguments: [("mp4", "mov_text"), ("mov", "mov_text"), ("mkv", "srt"), ("mkv", "webvtt"), ("mkv", "ass")])
    func readsEachContainersCaptions(container: String, codec: String) async throws {
        let (captions, adaptor, _) = try await Self.read(try Self.clip(container, codec: codec))
        #expect(adaptor.warnings.isEmpty)
        #expect(captions.map(\.text) == Self.captions.map(\.text))
        // Matroska and MP4 keep milliseconds; ASS events hold centiseconds.
        let tolerance = MediaTime(value: codec == "ass" ? 10 : 1, timescale: 1000)
        for (a, b) in zip(captions, Self.captions) {
            #expect((a.timeRange.start - b.timeRange.start).magnitude <= tolerance)
            #expect((a.timeRange.end - b.timeRange.end).magnitude <= tolerance)
            // FFmpeg's mov_text and webvtt encoders (which made these tracks) write no colours.
            func faces(_ c: Caption) -> [Caption.Span] {
                Caption(
                    spans: c.normalized.spans.map {
                        .init($0.text, CaptionStyle(fontWeight: $0.style.fontWeight, italic: $0.style.italic, underline: $0.style.underline))
                    },
                    timeRange: c.timeRange
                ).spans
            }
            #expect(faces(a) == faces(b), "\(codec): \(a.spans)")
        }
    }

    @Test("groups follow the captions and the gaps between them", .requires(.ffmpeg))
    func groups() async throws {
        let reader = try await AssetReader.open(url: try Self.clip("mp4", codec: "mov_text"))
        let track = try #require(reader.tracks.first { $0.formatDescription.isCaptionFormat })
        let output = AssetReaderTrackOutput(trackID: track.trackID, settings: .passthrough)
        try reader.add(output)
        let adaptor = try AssetReaderOutputCaptionAdaptor(assetReaderTrackOutput: output)
        try reader.startReading()
        let groups = try await adaptor.captionGroups()
        #expect(groups.map { $0.captions.map(\.text) } == [["Hello world"], [], ["bold and\nred"]])
        #expect(groups[1].timeRange == Self.range(1500, 2000))
    }

    @Test func needsAPassthroughOutput() {
        expectReelError(.invalidArgument) {
            try AssetReaderOutputCaptionAdaptor(assetReaderTrackOutput: AssetReaderTrackOutput(trackID: 1, settings: .audioPCM))
        }
    }

    /// A MOV whose `c608` track FFmpeg muxed from an SCC file Reel wrote (pop-on, then roll-up).
    @Test(.requires(.ffmpeg))
    func readsACEA608TrackAsTheSCCItCameFrom() async throws {
        func seconds(_ s: Double, _ e: Double) -> TimeRange {
            TimeRange(start: MediaTime(value: Int64(s * 30) * 1001, timescale: 30000), end: MediaTime(value: Int64(e * 30) * 1001, timescale: 30000))
        }
        let written = [
            Caption("HELLO", timeRange: seconds(1, 2)),
            Caption("ROLL", timeRange: seconds(2.5, 3), animation: .characterReveal),
            Caption("ROLL ON", timeRange: seconds(3, 4), animation: .characterReveal),
        ]
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let scc = folder.appendingPathComponent("in.scc")
        // FFmpeg's SCC demuxer and MOV muxer drop the last line (here the erase at 4 s): a
        // line of padding follows it.
        try (SCC.write(written).data + Data("00:00:04;15\t8080 8080\n\n".utf8)).write(to: scc)
        let mov = folder.appendingPathComponent("c608.mov")
        _ = try TestTools.outputString(
            try #require(TestTools.which("ffmpeg")?.path),
            [
                "-v", "error", "-f", "lavfi", "-i", "color=c=gray:s=64x64:d=5:r=30000/1001", "-i", scc.path,
                "-map", "0", "-map", "1", "-c:v", "mpeg4", "-c:s", "copy", mov.path,
            ])
        let (captions, adaptor, track) = try await Self.read(mov)
        #expect(track.formatDescription.format == "c608")
        #expect(adaptor.warnings.isEmpty)
        let expected = try SCC.read(Data(contentsOf: scc)).captions
        #expect(captions.map(\.text) == expected.map(\.text))
        #expect(captions.map(\.animation) == [.none, .characterReveal, .characterReveal])
        // FFmpeg's SCC demuxer times each line by its label as a clock time, in
        // milliseconds: within a frame of Reel's own reading.
        let frame = MediaTime(value: 1001, timescale: 30000)
        for (a, b) in zip(captions, expected) {
            #expect((a.timeRange.start - b.timeRange.start).magnitude <= frame, "\(a.text)")
            #expect((a.timeRange.end - b.timeRange.end).magnitude <= frame, "\(a.text)")
        }
    }

    @Test(.requires(.ffmpeg))
    func readsTheCEA608CaptionsInH264SEI() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // Load "HI" (frames 0-4), end of caption at frame 5, erase at frame 27.
        let clip = try SEIClip.make(words: SEIClip.hiWords, frames: 40, in: folder)
        let (captions, warnings) = try await Self.seiCaptions(clip)
        let frame = MediaTime(value: 1001, timescale: 30000)
        #expect(captions.map(\.text) == ["HI"])
        #expect(captions.first?.timeRange == TimeRange(start: frame * 5, end: frame * 27))
        #expect(warnings.isEmpty)
    }

    /// The captions of CEA-608 `channel` in the SEI of `clip`'s video track, read through a
    /// 16x16 video output, and the adaptor's warnings.
    static func seiCaptions(_ clip: URL, channel: Int = 1) async throws -> (captions: [Caption], warnings: [CaptionWarning]) {
        let reader = try await AssetReader.open(url: clip)
        let video = try #require(reader.tracks(withMediaType: .video).first)
        let output = AssetReaderTrackOutput(trackID: video.trackID, settings: .video(pixelFormat: .yuv420p, width: 16, height: 16))
        try reader.add(output)
        let adaptor = try AssetReaderOutputCaptionAdaptor(assetReaderTrackOutput: output, closedCaptionChannel: channel)
        #expect(adaptor.closedCaptionChannel == channel)
        try reader.startReading()
        var captions: [Caption] = []
        for try await caption in adaptor { captions.append(caption) }
        return (captions, adaptor.warnings)
    }

    /// Where a caption sits, by name: `top`, `middle` or `bottom` (no region: bottom), and
    /// its alignment.
    static func placement(_ c: Caption) -> String {
        (c.region?.identifier ?? "bottom") + (c.textAlignment.map { " " + $0.rawValue } ?? "")
    }

    static let assScript = """
        [Script Info]
        ScriptType: v4.00+
        PlayResX: 384
        PlayResY: 288

        [V4+ Styles]
        Format: Name, Fontname, Fontsize, PrimaryColour, SecondaryColour, OutlineColour, BackColour, Bold, Italic, Underline, StrikeOut, ScaleX, ScaleY, Spacing, Angle, BorderStyle, Outline, Shadow, Alignment, MarginL, MarginR, MarginV, Encoding
        Style: Default,Arial,16,&Hffffff,&Hffffff,&H0,&H0,0,0,0,0,100,100,0,0,1,1,0,2,10,10,10,0
        Style: Sign,Arial,20,&H00ffff,&Hffffff,&H0,&H0,0,0,0,0,100,100,0,0,1,1,0,8,10,10,10,0

        [Events]
        Format: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text
        Dialogue: 0,0:00:01.00,0:00:02.00,Sign,,0,0,0,,Top
        Dialogue: 0,0:00:02.50,0:00:03.00,Default,,0,0,0,,{\\an1}Bottom left
        Dialogue: 0,0:00:03.50,0:00:04.00,Default,,0,0,0,,{\\a7}Top right
        Dialogue: 0,0:00:04.50,0:00:05.00,Default,,0,0,0,,Plain

        """

    /// The same four cues placed by each format's own means, copied by ffmpeg into Matroska.
    static func placedClip(_ codec: String, in folder: URL) throws -> URL {
        let file: (name: String, text: String)
        switch codec {
        case "subrip":
            file = (
                "in.srt",
                "1\n00:00:01,000 --> 00:00:02,000\n{\\an8}Top\n\n2\n00:00:02,500 --> 00:00:03,000\n{\\an1}Bottom left\n\n"
                    + "3\n00:00:03,500 --> 00:00:04,000\n{\\an9}Top right\n\n4\n00:00:04,500 --> 00:00:05,000\nPlain\n"
            )
        case "webvtt":
            file = (
                "in.vtt",
                "WEBVTT\n\n00:01.000 --> 00:02.000 line:0\nTop\n\n00:02.500 --> 00:03.000 line:-1 align:left\nBottom left\n\n"
                    + "00:03.500 --> 00:04.000 line:10% align:right position:90%\nTop right\n\n00:04.500 --> 00:05.000\nPlain\n"
            )
        default:
            file = ("in.ass", assScript)
        }
        let input = folder.appendingPathComponent(file.name)
        try Data(file.text.utf8).write(to: input)
        let out = folder.appendingPathComponent("placed-\(codec).mkv")
        try TestTools.output(
            "ffmpeg",
            [
                "-v", "error", "-y", "-f", "lavfi", "-i", "color=c=gray:s=64x64:d=5:r=10", "-i", input.path,
                "-map", "0", "-map", "1", "-c:v", "mpeg4", "-c:s", "copy", out.path,
            ])
        return out
    }

    @Test("Matroska caption tracks keep where each caption sits", .requires(.ffmpeg), arguments: ["subrip", "webvtt", "ass"])
    func readsThePlacementOfMatroskaCaptions(codec: String) async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (captions, adaptor, track) = try await Self.read(try Self.placedClip(codec, in: folder))
        #expect(track.formatDescription.codecName == codec)
        #expect(adaptor.warnings.isEmpty)
        #expect(captions.map(\.text) == ["Top", "Bottom left", "Top right", "Plain"])
        // ASS names the default place (bottom centre) through its style; the others leave it unsaid.
        #expect(captions.map(Self.placement) == ["top", "bottom left", "top right", "bottom"])
        if codec != "ass" { #expect(captions.last?.region == nil) }
    }

    /// FFmpeg's mov_text encoder writes the ASS default style (bold, yellow) as the track's
    /// default style and no style records: the default style is the captions' style.
    @Test(.requires(.ffmpeg))
    func aMovTextTracksDefaultStyleStylesItsCaptions() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let ass = folder.appendingPathComponent("in.ass")
        try Data(
            Self.assScript.replacingOccurrences(
                of: "Style: Default,Arial,16,&Hffffff,&Hffffff,&H0,&H0,0,",
                with: "Style: Default,Arial,16,&H00ffff,&Hffffff,&H0,&H0,-1,"
            ).utf8
        ).write(to: ass)
        let mp4 = folder.appendingPathComponent("styled.mp4")
        try TestTools.output(
            "ffmpeg",
            [
                "-v", "error", "-f", "lavfi", "-i", "color=c=gray:s=64x64:d=5:r=10", "-i", ass.path,
                "-map", "0", "-map", "1", "-c:v", "mpeg4", "-c:s", "mov_text", mp4.path,
            ])
        let (captions, _, _) = try await Self.read(mp4)
        let plain = try #require(captions.last)
        #expect(plain.text == "Plain")
        #expect(plain.spans == [Caption.Span("Plain", CaptionStyle(fontWeight: .bold, textColor: .yellow))])
    }

    /// Channel choice: "HI" on CC3 (field 2 of the SEI cc_data) is read on channel 3 only.
    @Test(.requires(.ffmpeg))
    func readsTheChosenChannelOfTheCaptionsInSEI() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let clip = try SEIClip.make(words: SEIClip.hiWords, frames: 40, field: 2, in: folder)
        func captions(channel: Int) async throws -> [Caption] { try await Self.seiCaptions(clip, channel: channel).captions }
        let frame = MediaTime(value: 1001, timescale: 30000)
        let cc3 = try await captions(channel: 3)
        #expect(cc3.map(\.text) == ["HI"])
        #expect(cc3.first?.timeRange == TimeRange(start: frame * 5, end: frame * 27))
        #expect(try await captions(channel: 1).isEmpty)
        #expect(try await captions(channel: 4).isEmpty)
    }

    /// Channel choice on a `c608` track: FFmpeg muxes an SCC file (field 1, CC1) into MOV,
    /// whose samples hold the pairs in `cdat` atoms; renamed `cdt2`, the same pairs are
    /// field 2's, where the same codes are CC3. (FFmpeg 5.1's MOV muxer writes field 1 only,
    /// so the file is made by renaming the atoms.)
    @Test(.requires(.ffmpeg))
    func readsTheChosenChannelOfAC608Track() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let frame = MediaTime(value: 1001, timescale: 30000)
        let written = [Caption("ON THREE", timeRange: TimeRange(start: frame * 30, end: frame * 60))]
        let scc = folder.appendingPathComponent("in.scc")
        try (SCC.write(written).data + Data("00:00:02;15\t8080 8080\n\n".utf8)).write(to: scc)
        let field1 = folder.appendingPathComponent("cc1.mov")
        try TestTools.output("ffmpeg", ["-v", "error", "-i", scc.path, "-map", "0", "-c:s", "copy", field1.path])
        let bytes = try Data(contentsOf: field1)
        let cdat = Data("cdat".utf8)
        var samples = 0, at = bytes.startIndex
        while let hit = bytes[at...].range(of: cdat) { samples += 1; at = hit.upperBound }
        try #require(samples > 1)
        let field2 = folder.appendingPathComponent("cc3.mov")
        var patched = bytes
        at = patched.startIndex
        while let hit = patched[at...].range(of: cdat) {
            patched.replaceSubrange(hit, with: Data("cdt2".utf8))
            at = hit.upperBound
        }
        try patched.write(to: field2)
        func captions(channel: Int) async throws -> [Caption] {
            let reader = try await AssetReader.open(url: field2)
            let track = try #require(reader.tracks.first)
            let output = AssetReaderTrackOutput(trackID: track.trackID, settings: .passthrough)
            try reader.add(output)
            let adaptor = try AssetReaderOutputCaptionAdaptor(assetReaderTrackOutput: output, closedCaptionChannel: channel)
            try reader.startReading()
            var out: [Caption] = []
            for try await caption in adaptor { out.append(caption) }
            return out
        }
        let cc3 = try await captions(channel: 3)
        #expect(cc3.map(\.text) == ["ON THREE"])
        // FFmpeg's SCC demuxer times the lines in milliseconds: within a frame.
        #expect((cc3.first.map { $0.timeRange.start - written[0].timeRange.start }?.magnitude ?? frame) < frame)
        #expect(try await captions(channel: 1).isEmpty)
    }

    @Test func aChannelOutsideOneToFourIsRefused() {
        let output = AssetReaderTrackOutput(trackID: 1, settings: .passthrough)
        expectReelError(.invalidArgument) { _ = try AssetReaderOutputCaptionAdaptor(assetReaderTrackOutput: output, closedCaptionChannel: 5) }
    }

    /// FFmpeg's own reading of the captions in the pictures (the lavfi `movie` source's
    /// `subcc` output, decoded by cc_dec) agrees with Reel's: same texts, same times to the
    /// millisecond SRT holds.
    @Test(.requires(.ffmpeg))
    func theCaptionsInSEIReadAsFFmpegsCCDecoderReadsThem() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let clip = try SEIClip.make(words: SEIClip.hiWords + SEIClip.byeWords, frames: 60, in: folder)
        let reel = try await Self.seiCaptions(clip).captions
        let srt = folder.appendingPathComponent("ffmpeg.srt")
        try TestTools.output("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "movie=\(clip.path)[out+subcc]", "-map", "0:s", srt.path])
        let ffmpeg = try SRT.read(Data(contentsOf: srt)).captions
        #expect(reel.map(\.text) == ["HI", "BYE"])
        #expect(ffmpeg.map(\.text) == reel.map(\.text))
        let ms = MediaTime(value: 1, timescale: 1000)
        for (a, b) in zip(reel, ffmpeg) {
            #expect((a.timeRange.start - b.timeRange.start).magnitude <= ms, "\(a.text) starts")
            #expect((a.timeRange.end - b.timeRange.end).magnitude <= ms, "\(a.text) ends")
        }
    }

    @Test func anAudioOutputIsRefused() throws {
        let output = AssetReaderTrackOutput(trackID: 1, settings: .audioPCM)
        expectReelError(.invalidArgument) { _ = try AssetReaderOutputCaptionAdaptor(assetReaderTrackOutput: output) }
    }
}
