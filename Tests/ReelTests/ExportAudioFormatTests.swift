import Foundation
import Reel
import ReelTestSupport
import Testing

/// The rate, channels and codec of an export's sound (``AssetExportSession/audioSampleRate``,
/// ``AssetExportSession/audioChannelCount``, ALAC): what ffprobe reads from the file, and
/// the level of the decoded sound.
@Suite struct ExportAudioFormatTests {
    let tone440 = TestFiles.fixture("counter-320x240.mp4")

    /// ffprobe's codec, sample rate and channel count of the file's first audio stream.
    func probe(_ url: URL) throws -> (codec: String, rate: Int, channels: Int) {
        let text = try TestTools.outputString(
            "ffprobe",
            [
                "-v", "error", "-select_streams", "a:0", "-show_entries",
                "stream=codec_name,sample_rate,channels", "-of", "csv=p=0", url.path,
            ])
        let fields = text.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ",").map(String.init)
        guard fields.count == 3, let rate = Int(fields[1]), let channels = Int(fields[2]) else {
            throw TestTools.ToolFailed(description: "ffprobe said \(text)")
        }
        return (fields[0], rate, channels)
    }

    @Test(.requires(.ffprobe), arguments: ["out.mov", "out.m4a"])
    func alacAtAnotherRateAndChannelCount(_ name: String) async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let session = try await AssetExportSession(asset: Asset(url: tone440), preset: .h264(crf: 30, preset: "ultrafast"))
        session.audioCodec = .alac
        session.audioSampleRate = 44100
        session.audioChannelCount = 2
        let out = folder.appendingPathComponent(name)
        try await session.export(to: out, as: name.hasSuffix(".mov") ? .mov : .mp4)

        let probed = try probe(out)
        #expect(probed.codec == "alac" && probed.rate == 44100 && probed.channels == 2, "\(probed)")
        let source = try await TestAudio.decode(tone440)
        let audio = try await TestAudio.decode(out)
        #expect(audio.sampleRate == 44100)
        #expect(abs(audio.duration - 2) < 0.001, "ALAC has no priming or padding: \(audio.duration) s")
        // Mono into each channel of stereo at -3 dB (libswresample's standard matrix).
        let expected = source.tone(440, 0.2, 1.8) + 20 * log10(0.5.squareRoot())
        #expect(abs(audio.tone(440, 0.2, 1.8) - expected) < 0.2, "\(audio.tone(440, 0.2, 1.8)) dB, expected \(expected)")
        #expect(abs(audio.rms(0.2, 1.8) - audio.tone(440, 0.2, 1.8)) < 0.2, "nothing but the tone")
    }

    @Test(.requires(.ffprobe))
    func alacIsLosslessAtTheSourcesFormat() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let session = try await AssetExportSession(asset: Asset(url: tone440), preset: .h264(crf: 30, preset: "ultrafast"))
        session.audioCodec = .alac
        let out = folder.appendingPathComponent("out.mov")
        try await session.export(to: out, as: .mov)
        let probed = try probe(out)
        #expect(probed.codec == "alac" && probed.rate == 48000 && probed.channels == 1, "\(probed)")
        let source = try await TestAudio.decode(tone440)
        let audio = try await TestAudio.decode(out)
        // The source decodes past its 2 s (the AAC encoder's padding); the export holds 2 s.
        try #require(audio.samples.count == 96000 && source.samples.count >= 96000, "\(audio.samples.count), \(source.samples.count)")
        let worst = zip(audio.samples, source.samples.prefix(96000)).map { abs($0 - $1) }.max() ?? 1
        #expect(worst <= 0.5 / 32768 + 1e-7, "the source's samples to within 16-bit rounding: \(worst)")
    }

    @Test(.requires(.ffprobe))
    func aacAtAnotherRateIsEncodedNotCopied() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let session = try await AssetExportSession(asset: Asset(url: tone440), preset: .h264(crf: 30, preset: "ultrafast"))
        session.audioSampleRate = 32000
        session.audioChannelCount = 1
        let out = folder.appendingPathComponent("out.mp4")
        try await session.export(to: out, as: .mp4)
        let probed = try probe(out)
        #expect(probed.codec == "aac" && probed.rate == 32000 && probed.channels == 1, "\(probed)")
        let source = try await TestAudio.decode(tone440)
        let audio = try await TestAudio.decode(out)
        #expect(abs(audio.tone(440, 0.2, 1.8) - source.tone(440, 0.2, 1.8)) < 0.5)
    }

    @Test(arguments: [AssetWriter.FileType.mkv, .mpegts])
    func alacIntoMatroskaOrMPEGTSAndAnOutOfRangeFormatAreRefusedBeforeAnythingIsWritten(_ fileType: AssetWriter.FileType) async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let other = try await AssetExportSession(asset: Asset(url: tone440), preset: .h264(crf: 30, preset: "ultrafast"))
        other.audioCodec = .alac
        let refused = await expectReelError(.invalidArgument) {
            try await other.export(to: folder.appendingPathComponent(fileType == .mkv ? "out.mkv" : "out.ts"), as: fileType)
        }
        #expect(refused?.message.contains("ALAC") == true, "\(String(describing: refused))")
        let rate = try await AssetExportSession(asset: Asset(url: tone440), preset: .h264(crf: 30, preset: "ultrafast"))
        rate.audioSampleRate = 1000
        await expectReelError(.invalidArgument) { try await rate.export(to: folder.appendingPathComponent("out.mp4"), as: .mp4) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
    }
}
