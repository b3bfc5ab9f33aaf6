import Foundation
import Reel
import ReelTestSupport
import Testing

/// Audio through ``AssetExportSession`` (ExportAudio): mixes, ramps and keeping every track; levels are
/// measured on the decoded output.
@Suite struct ExportAudioTests {
    let tone440 = TestFiles.fixture("counter-320x240.mp4")
    let tone660 = TestFiles.fixture("counter-bars-320x240.mp4")

    func audioTrack(_ url: URL) async throws -> SourceTrackDescription {
        let source = try await SourceDescription(asset: Asset(url: url))
        return try #require(source.tracks(withMediaType: .audio).first)
    }

    func export(_ composition: MutableComposition, mix: AudioMix?, in folder: URL) async throws -> URL {
        let session = AssetExportSession(composition: Composition(composition), preset: .h264(crf: 30, preset: "ultrafast"))
        session.audioMix = mix
        let out = folder.appendingPathComponent("out.mp4")
        try await session.export(to: out, as: .mp4)
        return out
    }

    @Test func twoTonesCrossfadeOverOneSecondWithNoGapAndNoClipping() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var composition = MutableComposition()
        let a = composition.addMutableTrack(withMediaType: .audio)
        let b = composition.addMutableTrack(withMediaType: .audio)
        try composition.insertTimeRange(TimeRange(start: .zero, duration: .ratio(2, 1)), of: try await audioTrack(tone440), intoTrackWithID: a, at: .zero)
        try composition.insertTimeRange(
            TimeRange(start: .zero, duration: .ratio(2, 1)), of: try await audioTrack(tone660), intoTrackWithID: b, at: .ratio(1, 1))
        let fade = TimeRange(start: .ratio(1, 1), duration: .ratio(1, 1))
        var out = MutableAudioMixInputParameters(trackID: a)
        out.setVolumeRamp(fromStartVolume: 1, toEndVolume: 0, timeRange: fade)
        var into = MutableAudioMixInputParameters(trackID: b)
        into.setVolumeRamp(fromStartVolume: 0, toEndVolume: 1, timeRange: fade)
        let file = try await export(composition, mix: AudioMix(inputParameters: [.init(out), .init(into)]), in: folder)

        #expect(try await Asset(url: file).load(.tracks).filter { $0.mediaType == .audio }.count == 1)
        let audio = try await TestAudio.decode(file)
        #expect(abs(audio.duration - 3) < 0.03)
        let full = audio.tone(440, 0.2, 0.8)
        #expect(full > -25)
        #expect(audio.tone(660, 0.2, 0.8) < full - 40, "only tone A before the fade")
        #expect(audio.tone(440, 2.2, 2.8) < full - 40, "only tone B after the fade")
        #expect(abs(audio.tone(660, 2.2, 2.8) - full) < 1)
        // Across the fade A falls and B rises, step by step.
        let faults = audio.crossfadeFaults(from: 440, to: 660, over: 1, 2)
        #expect(faults.isEmpty, "\(faults)")
        // Halfway both play at half volume (-6 dB).
        #expect(abs(audio.tone(440, 1.45, 1.55) - (full - 6)) < 1.5)
        #expect(abs(audio.tone(660, 1.45, 1.55) - (full - 6)) < 1.5)
        // No gap: every 20 ms has sound; no clipping.
        let quiet = audio.quietSpans(0.05, 2.95, below: full - 10)
        #expect(quiet.isEmpty, "gaps at \(quiet) s")
        #expect(audio.peak < 0.5)
    }

    @Test func aRampToZeroEndsInSilence() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var composition = MutableComposition()
        let a = composition.addMutableTrack(withMediaType: .audio)
        try composition.insertTimeRange(TimeRange(start: .zero, duration: .ratio(2, 1)), of: try await audioTrack(tone440), intoTrackWithID: a, at: .zero)
        var ramp = MutableAudioMixInputParameters(trackID: a)
        ramp.setVolumeRamp(fromStartVolume: 1, toEndVolume: 0, timeRange: TimeRange(start: .ratio(1, 1), end: .ratio(19, 10)))
        let audio = try await TestAudio.decode(try await export(composition, mix: AudioMix(inputParameters: [.init(ramp)]), in: folder))
        let full = audio.rms(0.2, 0.8)
        #expect(abs(audio.rms(1.4, 1.5) - (full - 6)) < 1.5, "-6 dB halfway down the ramp")
        #expect(audio.rms(1.9, 2.0) < -50, "below -50 dBFS in the last 100 ms")
        #expect(audio.rms(1.8, 1.9) < full - 20)
    }

    /// A ramp from 1 to 0 over exactly the last second of the 2 s tone, written as 16-bit
    /// PCM (no codec noise). A linear ramp's gain over its last 100 ms goes from 0.1 to 0:
    /// its RMS is 0.1/sqrt(3) = 0.0577 of the tone's (-24.77 dB), over the last 10 ms
    /// 0.01/sqrt(3) (-44.77 dB); the last samples, whose gain times the tone's peak is
    /// below half a 16-bit step, are 0.
    @Test func aRampOverTheLastSecondFallsAsALinearRampDoesAndEndsAtZero() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var composition = MutableComposition()
        let a = composition.addMutableTrack(withMediaType: .audio)
        try composition.insertTimeRange(TimeRange(start: .zero, duration: .ratio(2, 1)), of: try await audioTrack(tone440), intoTrackWithID: a, at: .zero)
        var ramp = MutableAudioMixInputParameters(trackID: a)
        ramp.setVolumeRamp(fromStartVolume: 1, toEndVolume: 0, timeRange: TimeRange(start: .ratio(1, 1), end: .ratio(2, 1)))
        let session = AssetExportSession(composition: Composition(composition), preset: .h264(crf: 30, preset: "ultrafast"))
        session.audioMix = AudioMix(inputParameters: [.init(ramp)])
        session.audioCodec = .pcm16
        let out = folder.appendingPathComponent("out.mov")
        try await session.export(to: out, as: .mov)

        let source = try await TestAudio.decode(tone440)
        let audio = try await TestAudio.decode(out)
        try #require(audio.samples.count == 96000, "\(audio.samples.count) samples")
        let tone = source.rms(0.2, 0.8)
        #expect(abs(audio.rms(0.2, 0.8) - tone) < 0.01, "full volume before the ramp")
        // A gain moving linearly from g0 to g1 scales the RMS by sqrt((g0² + g0 g1 + g1²) / 3).
        func ramped(_ g0: Double, _ g1: Double) -> Double { tone + 10 * log10((g0 * g0 + g0 * g1 + g1 * g1) / 3) }
        #expect(abs(audio.rms(1.5, 1.6) - ramped(0.5, 0.4)) < 0.2, "halfway: \(audio.rms(1.5, 1.6)) dBFS, a linear ramp gives \(ramped(0.5, 0.4))")
        let lastTenth = ramped(0.1, 0)
        #expect(abs(audio.rms(1.9, 2.0) - lastTenth) < 0.2, "last 100 ms: \(audio.rms(1.9, 2.0)) dBFS, a linear ramp gives \(lastTenth)")
        let lastHundredth = ramped(0.01, 0)
        #expect(audio.rms(1.99, 2.0) < -50, "last 10 ms: \(audio.rms(1.99, 2.0)) dBFS")
        #expect(abs(audio.rms(1.99, 2.0) - lastHundredth) < 1, "last 10 ms: \(audio.rms(1.99, 2.0)) dBFS, a linear ramp gives \(lastHundredth)")
        // Sample n (at n/48000 s) has gain (96000 - n)/48000; below half a step it rounds to 0.
        let peak = Double(source.peak)
        let silent = (1...96000).filter { peak * Double($0) / 48000 < 0.5 / 32768 }.count
        try #require(silent >= 1)
        #expect(audio.samples.suffix(silent).allSatisfy { $0 == 0 }, "the last \(silent) samples are 0: \(Array(audio.samples.suffix(silent)))")
    }

    @Test func anEmptyEditIsSilenceAndTheAudioLastsAsLongAsTheVideo() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = try await SourceDescription(asset: Asset(url: tone440))
        var composition = MutableComposition()
        // Video and audio for [0, 1), then only video over [1, 2): the audio track is cut.
        try composition.insertTimeRange(TimeRange(start: .zero, duration: .ratio(2, 1)), of: source, at: .zero)
        let audioID = try #require(composition.tracks(withMediaType: .audio).first?.trackID)
        try composition.modifyTrack(withTrackID: audioID) { (track) throws(ReelError) in
            try track.removeTimeRange(TimeRange(start: .ratio(1, 2), duration: .ratio(1, 2)))
            try track.insertEmptyTimeRange(TimeRange(start: .ratio(1, 2), duration: .ratio(1, 2)))
        }
        let file = try await export(composition, mix: AudioMix(), in: folder)
        let audio = try await TestAudio.decode(file)
        #expect(abs(audio.duration - 2) < 0.03)
        #expect(audio.rms(0.1, 0.45) > -25)
        #expect(audio.slice(0.55, 0.95).allSatisfy { $0 == 0 }, "the empty edit is digital silence")
        #expect(audio.rms(1.05, 1.9) > -25)
    }

    /// One track at volume 1 that stops playing before the video ends (cut short, or with
    /// an empty edit to the end) is not copied short: it is mixed, silent to the end.
    @Test(arguments: [false, true])
    func anAudioTrackThatEndsEarlyLastsAsLongAsTheVideo(trailingEmptyEdit: Bool) async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = try await SourceDescription(asset: Asset(url: tone440))
        var composition = MutableComposition()
        try composition.insertTimeRange(TimeRange(start: .zero, duration: .ratio(2, 1)), of: source, at: .zero)
        let audioID = try #require(composition.tracks(withMediaType: .audio).first?.trackID)
        try composition.modifyTrack(withTrackID: audioID) { (track) throws(ReelError) in
            try track.removeTimeRange(TimeRange(start: .ratio(1, 1), duration: .ratio(1, 1)))
            if trailingEmptyEdit { try track.insertEmptyTimeRange(TimeRange(start: .ratio(1, 1), duration: .ratio(1, 1))) }
        }
        let file = try await export(composition, mix: nil, in: folder)
        let audio = try await TestAudio.decode(file)
        #expect(abs(audio.duration - 2) < 0.03, "the audio lasts \(audio.duration) s under 2 s of video")
        #expect(audio.rms(0.1, 0.9) > -25)
        #expect(audio.duration < 1.95 || audio.slice(1.05, 1.95).allSatisfy { $0 == 0 }, "silence after the track ends")
    }

    /// A track copied from later in its source (its packets moved earlier on the timeline)
    /// keeps each packet's decode time with its presentation time.
    @Test func aTrackCopiedFromLaterInItsSourceIsWritten() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = try await SourceDescription(asset: Asset(url: tone440))
        var composition = MutableComposition()
        try composition.insertTimeRange(TimeRange(start: .ratio(1, 2), duration: .ratio(3, 2)), of: source, at: .zero)
        let file = try await export(composition, mix: nil, in: folder)
        let audio = try await TestAudio.decode(file)
        #expect(abs(audio.duration - 1.5) < 0.03)
        #expect(audio.rms(0.1, 1.4) > -25)
    }

    @Test func anExportKeepsEveryAudioTrackOrMixesThemIntoOne() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let twoTracks = folder.appendingPathComponent("two-tracks.mp4")
        let ffmpeg = Process()
        ffmpeg.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        ffmpeg.arguments = [
            "ffmpeg", "-v", "error", "-nostdin", "-i", tone440.path, "-i", tone660.path,
            "-map", "0:v", "-map", "0:a", "-map", "1:a", "-c", "copy", twoTracks.path,
        ]
        try ffmpeg.run()
        ffmpeg.waitUntilExit()
        try #require(ffmpeg.terminationStatus == 0)

        let kept = folder.appendingPathComponent("kept.mp4")
        try await AssetExportSession(asset: Asset(url: twoTracks), preset: .h264(crf: 30, preset: "ultrafast")).export(to: kept, as: .mp4)
        let keptAudio = try await Asset(url: kept).load(.tracks).filter { $0.mediaType == .audio }
        try #require(keptAudio.count == 2)
        let first = try await TestAudio.decode(kept, trackID: keptAudio[0].trackID)
        let second = try await TestAudio.decode(kept, trackID: keptAudio[1].trackID)
        #expect(first.tone(440, 0.2, 1.8) > first.tone(660, 0.2, 1.8) + 30)
        #expect(second.tone(660, 0.2, 1.8) > second.tone(440, 0.2, 1.8) + 30)

        let mixed = folder.appendingPathComponent("mixed.mp4")
        let session = try await AssetExportSession(asset: Asset(url: twoTracks), preset: .h264(crf: 30, preset: "ultrafast"))
        session.audioMix = AudioMix()
        try await session.export(to: mixed, as: .mp4)
        let mixedAudio = try await Asset(url: mixed).load(.tracks).filter { $0.mediaType == .audio }
        try #require(mixedAudio.count == 1)
        let both = try await TestAudio.decode(mixed)
        #expect(abs(both.tone(440, 0.2, 1.8) - first.tone(440, 0.2, 1.8)) < 1)
        #expect(abs(both.tone(660, 0.2, 1.8) - second.tone(660, 0.2, 1.8)) < 1)
    }

    /// A tone exported as 16-bit or 24-bit PCM into MOV or Matroska decodes to the samples
    /// of the source's AAC, to within the last bit of the depth.
    @Test(arguments: [
        (AudioEncoderSettings.Codec.pcm16, AssetWriter.FileType.mov, "pcm_s16le", 16),
        (.pcm24, .mov, "pcm_s24le", 24), (.pcm16, .mkv, "pcm_s16le", 16), (.pcm24, .mkv, "pcm_s24le", 24),
    ])
    func pcmInMOVAndMatroskaDecodesToTheSameSamples(
        _ codec: AudioEncoderSettings.Codec, _ fileType: AssetWriter.FileType,
        _ codecName: String, _ bits: Int
    ) async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let session = try await AssetExportSession(asset: Asset(url: tone440), preset: .h264(crf: 30, preset: "ultrafast"))
        session.audioCodec = codec
        let out = folder.appendingPathComponent(fileType == .mov ? "pcm.mov" : "pcm.mkv")
        try await session.export(to: out, as: fileType)

        let reader = try await AssetReader.open(url: out)
        let track = try #require(reader.tracks(withMediaType: .audio).first)
        #expect(track.formatDescription.codecName == codecName)
        let source = try await TestAudio.decode(tone440)
        let audio = try await TestAudio.decode(out)
        #expect(abs(audio.duration - 2) < 0.001, "PCM has no priming or padding")
        try #require(audio.samples.count >= 48000 * 2 - 1)
        let step = Float(1) / Float(1 << (bits - 1))
        var worst: Float = 0
        for n in 0..<min(audio.samples.count, source.samples.count) { worst = max(worst, abs(audio.samples[n] - source.samples[n])) }
        #expect(worst <= step, "largest difference \(worst), one step of \(bits) bits is \(step)")
        #expect(abs(audio.tone(440, 0.2, 1.8) - source.tone(440, 0.2, 1.8)) < 0.01)
    }

    @Test func pcmIntoMP4IsRefusedAndNothingIsWritten() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let session = try await AssetExportSession(asset: Asset(url: tone440), preset: .h264(crf: 30, preset: "ultrafast"))
        session.audioCodec = .pcm16
        let out = folder.appendingPathComponent("pcm.mp4")
        let error = await expectReelError(.invalidArgument) { try await session.export(to: out, as: .mp4) }
        #expect(error?.message.contains("MOV or Matroska") == true, "\(String(describing: error))")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
    }
}
