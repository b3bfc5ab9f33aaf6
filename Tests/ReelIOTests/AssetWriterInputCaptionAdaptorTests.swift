import Foundation
import ReelCaptions
import ReelCore
import ReelIO
import ReelTestSupport
import Testing

@Suite("AssetWriterInputCaptionAdaptor")
struct AssetWriterInputCaptionAdaptorTests {
    static let captions = AssetReaderOutputCaptionAdaptorTests.captions

    /// Writes `captions` as a caption track of `format` into a new file of `fileType`.
    static func write(_ captions: [Caption], format: CaptionFormat, fileType: AssetWriter.FileType) async throws -> URL {
        let url = try TestFiles.scratchFolder().appendingPathComponent("captions.\(fileType == .mkv ? "mkv" : fileType.rawValue)")
        let writer = try AssetWriter(outputURL: url, fileType: fileType)
        let input = AssetWriterInput(settings: .captions(format))
        try writer.add(input)
        let adaptor = try AssetWriterInputCaptionAdaptor(assetWriterInput: input)
        try await writer.start()
        writer.startSession(atSourceTime: .zero)
        for caption in captions { try await adaptor.append(caption) }
        input.markAsFinished()
        try await writer.finishWriting()
        return url
    }

    /// FFmpeg reads the track Reel wrote back to the same cues.
    @Test(
        "ffmpeg reads the same cues", .requires(.ffmpeg),
        arguments: [(CaptionFormat.movText, AssetWriter.FileType.mp4), (.movText, .mov), (.srt, .mkv), (.webVTT, .mkv)])
    func ffmpegReadsTheTrack(format: CaptionFormat, fileType: AssetWriter.FileType) async throws {
        let url = try await Self.write(Self.captions, format: format, fileType: fileType)
        let srt = url.deletingLastPathComponent().appendingPathComponent("out.srt")
        _ = try TestTools.outputString(try #require(TestTools.which("ffmpeg")?.path), ["-v", "error", "-y", "-i", url.path, srt.path])
        let theirs = try SRT.read(Data(contentsOf: srt)).captions
        #expect(theirs.map(\.text) == Self.captions.map(\.text))
        #expect(theirs.map(\.timeRange) == Self.captions.map(\.timeRange))
        #expect(theirs.first?.style(at: 6).italic == true)
        #expect(theirs.last?.style(at: 0).fontWeight == .bold)
    }

    /// FFmpeg's prober names the track Reel writes into MP4 and MOV 3GPP timed text,
    /// sample entry `tx3g`.
    @Test(.requires(.ffmpeg), arguments: [AssetWriter.FileType.mp4, .mov])
    func ffprobeSeesAMovTextTrack(fileType: AssetWriter.FileType) async throws {
        let url = try await Self.write(Self.captions, format: .movText, fileType: fileType)
        let probed = try TestTools.outputString(
            "ffprobe",
            [
                "-v", "error", "-select_streams", "s:0", "-show_entries", "stream=codec_type,codec_name,codec_tag_string",
                "-of", "default=noprint_wrappers=1", url.path,
            ])
        #expect(probed.split(separator: "\n").sorted() == ["codec_name=mov_text", "codec_tag_string=tx3g", "codec_type=subtitle"])
    }

    /// A caption's region and alignment are written where the track's format holds them:
    /// an `{\anN}` tag in a SubRip cue, cue settings beside a WebVTT cue. FFmpeg copies
    /// them out to a file, and Reel reads them back.
    @Test(.requires(.ffmpeg), arguments: [CaptionFormat.srt, .webVTT])
    func placementIsWrittenWhereTheFormatHoldsIt(format: CaptionFormat) async throws {
        let placed = [
            Caption("top", timeRange: AssetReaderOutputCaptionAdaptorTests.range(0, 1000), region: .top),
            Caption("left", timeRange: AssetReaderOutputCaptionAdaptorTests.range(1000, 2000), textAlignment: .left),
            Caption("plain", timeRange: AssetReaderOutputCaptionAdaptorTests.range(2000, 3000)),
        ]
        let url = try await Self.write(placed, format: format, fileType: .mkv)
        let file = url.deletingLastPathComponent().appendingPathComponent("copied.\(format.fileExtension)")
        try TestTools.output("ffmpeg", ["-v", "error", "-i", url.path, "-c", "copy", file.path])
        let text = try String(contentsOf: file, encoding: .utf8)
        if format == .srt {
            #expect(text.contains("{\\an8}top") && text.contains("{\\an1}left") && text.contains("\nplain\n"))
        } else {
            #expect(
                text.contains("00:00.000 --> 00:01.000 line:0\ntop") && text.contains("00:01.000 --> 00:02.000 align:left\nleft")
                    && text.contains("00:02.000 --> 00:03.000\nplain"))
        }
        let back = try await AssetReaderOutputCaptionAdaptorTests.read(url).captions
        #expect(back.map(AssetReaderOutputCaptionAdaptorTests.placement) == ["top", "bottom left", "bottom"])
    }

    /// A mov_text track read back, converted to WebVTT and written again gives the same
    /// captions: text, times to the millisecond, styles.
    @Test func movTextToWebVTTToMovText() async throws {
        let first = try await Self.write(Self.captions, format: .movText, fileType: .mp4)
        let read = try await AssetReaderOutputCaptionAdaptorTests.read(first).captions
        let vtt = try WebVTT.read(WebVTT.write(read)).captions
        let second = try await Self.write(vtt, format: .movText, fileType: .mp4)
        let back = try await AssetReaderOutputCaptionAdaptorTests.read(second).captions
        #expect(back.map(\.normalized) == Self.captions.map(\.normalized))
    }

    @Test func overlappingCaptionsAreRefusedNamingTheTime() async throws {
        let url = try TestFiles.scratchFolder().appendingPathComponent("o.mp4")
        let writer = try AssetWriter(outputURL: url, fileType: .mp4)
        let input = AssetWriterInput(settings: .captions(.movText))
        try writer.add(input)
        let adaptor = try AssetWriterInputCaptionAdaptor(assetWriterInput: input)
        try await writer.start()
        writer.startSession(atSourceTime: .zero)
        try await adaptor.append(Caption("one", timeRange: AssetReaderOutputCaptionAdaptorTests.range(0, 2000)))
        await #expect {
            try await adaptor.append(Caption("two", timeRange: AssetReaderOutputCaptionAdaptorTests.range(1000, 3000)))
        } throws: { ($0 as? ReelError)?.time == MediaTime(value: 1000, timescale: 1000) }
        await writer.cancel()
    }

    @Test func captionTracksGoOnlyWhereTheContainerHoldsThem() throws {
        let folder = try TestFiles.scratchFolder()
        let mkv = try AssetWriter(outputURL: folder.appendingPathComponent("a.mkv"), fileType: .mkv)
        #expect(!mkv.canAdd(AssetWriterInput(settings: .captions(.movText))))
        #expect(mkv.canAdd(AssetWriterInput(settings: .captions(.srt))))
        let mp4 = try AssetWriter(outputURL: folder.appendingPathComponent("a.mp4"), fileType: .mp4)
        #expect(!mp4.canAdd(AssetWriterInput(settings: .captions(.webVTT))))
        #expect(!mp4.canAdd(AssetWriterInput(settings: .captions(.scc))))
        expectReelError(.invalidArgument) { try AssetWriterInputCaptionAdaptor(assetWriterInput: AssetWriterInput(settings: .metadata(format: .gpmd))) }
    }
}
