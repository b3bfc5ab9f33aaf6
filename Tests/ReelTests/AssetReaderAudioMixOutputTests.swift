import Foundation
import Reel
import ReelTestSupport
import Testing

/// ``AssetReaderAudioMixOutput``: a reader's audio tracks mixed into PCM; levels measured
/// on what the output gives.
@Suite struct AssetReaderAudioMixOutputTests {
    let tone440 = TestFiles.fixture("counter-320x240.mp4")
    let tone660 = TestFiles.fixture("counter-bars-320x240.mp4")

    /// The 440 Hz clip's video with both clips' sound as tracks 2 (440 Hz) and 3 (660 Hz).
    func twoTrackFile(in folder: URL) throws -> URL {
        let url = folder.appendingPathComponent("two-tracks.mp4")
        try TestTools.output(
            "ffmpeg",
            [
                "-v", "error", "-nostdin", "-i", tone440.path, "-i", tone660.path,
                "-map", "0:v", "-map", "0:a", "-map", "1:a", "-c", "copy", url.path,
            ])
        return url
    }

    /// Everything `output` gives, with its format: float samples laid end to end (each
    /// block checked to start where the one before ended), 16-bit samples as floats.
    func readAll(_ output: AssetReaderAudioMixOutput) async throws -> (samples: [Float], channels: Int, rate: Int, start: MediaTime) {
        var samples: [Float] = []
        var start: MediaTime?
        var next: MediaTime?
        let rate = try #require(output.sampleRate)
        let channels = try #require(output.channelCount)
        for try await sample in output {
            if start == nil { start = sample.presentationTime }
            if let next { #expect(sample.presentationTime == next, "the blocks follow one another") }
            if let audio = sample.audio {
                #expect(audio.sampleRate == rate && audio.channelCount == channels)
                samples += audio.samples
                next = sample.presentationTime + audio.duration
            } else if let buffer = sample.sampleBuffer {
                #expect(buffer.format == "sowt")
                let values = buffer.data.withUnsafeBytes { raw in
                    (0..<(raw.count / 2)).map { Float(Int16(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 2, as: Int16.self))) / 32768 }
                }
                samples += values
                next = sample.presentationTime + buffer.duration
            }
        }
        return (samples, channels, rate, start ?? .invalid)
    }

    @Test(.requires(.ffmpeg))
    func twoTracksMixedWithACrossfadeGiveTheExpectedLevels() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = try twoTrackFile(in: folder)
        let a = try await TestAudio.decode(file, trackID: 2)
        let b = try await TestAudio.decode(file, trackID: 3)
        let levelA = a.tone(440, 0.2, 1.8), levelB = b.tone(660, 0.2, 1.8)

        let reader = try await AssetReader.open(url: file)
        // 44.1 kHz stereo from 48 kHz mono sources.
        let output = AssetReaderAudioMixOutput(
            audioTracks: reader.tracks(withMediaType: .audio),
            audioSettings: .init(sampleRate: 44100, channelCount: 2))
        let fade = TimeRange(start: .ratio(1, 2), end: .ratio(3, 2))
        var out = MutableAudioMixInputParameters(trackID: 2)
        out.setVolumeRamp(fromStartVolume: 1, toEndVolume: 0, timeRange: fade)
        var into = MutableAudioMixInputParameters(trackID: 3)
        // Before its first ramp a track plays at volume 1 (as AVFoundation's): silent until the fade.
        into.setVolume(0, at: .zero)
        into.setVolumeRamp(fromStartVolume: 0, toEndVolume: 1, timeRange: fade)
        output.audioMix = AudioMix(inputParameters: [.init(out), .init(into)])
        try reader.add(output)
        try reader.startReading()
        let (samples, channels, rate, start) = try await readAll(output)
        #expect(rate == 44100 && channels == 2)
        #expect(start == .zero)
        #expect(samples.count == 88200 * 2, "two seconds at 44.1 kHz in two channels")
        #expect(reader.status == .completed)

        let left = TestAudio(samples: stride(from: 0, to: samples.count, by: 2).map { samples[$0] }, sampleRate: rate)
        let right = TestAudio(samples: stride(from: 1, to: samples.count, by: 2).map { samples[$0] }, sampleRate: rate)
        #expect(left.samples == right.samples, "a mono mix goes into both channels alike")
        // libswresample puts mono into each channel of stereo at -3 dB.
        let upmix = 20 * log10(0.5.squareRoot())
        #expect(abs(left.tone(440, 0.1, 0.45) - (levelA + upmix)) < 0.5)
        #expect(left.tone(660, 0.1, 0.45) < levelA - 40, "tone B silent before the fade")
        #expect(abs(left.tone(660, 1.55, 1.9) - (levelB + upmix)) < 0.5)
        #expect(left.tone(440, 1.55, 1.9) < levelB - 40, "tone A silent after the fade")
        // Halfway through the fade both play at half volume (-6 dB).
        #expect(abs(left.tone(440, 0.95, 1.05) - (levelA + upmix - 6.02)) < 1)
        #expect(abs(left.tone(660, 0.95, 1.05) - (levelB + upmix - 6.02)) < 1)
        let faults = left.crossfadeFaults(from: 440, to: 660, over: 0.5, 1.5)
        #expect(faults.isEmpty, "\(faults)")
    }

    @Test func aSingleTrackAtVolumeOneIsTheDecodedTrack() async throws {
        let decoded = try await TestAudio.decode(tone440, trackID: 2)
        for format in [AssetReaderAudioMixOutput.AudioSettings.SampleFormat.float32, .int16] {
            let reader = try await AssetReader.open(url: tone440)
            let output = AssetReaderAudioMixOutput(
                audioTracks: reader.tracks(withMediaType: .audio),
                audioSettings: .init(sampleFormat: format))
            try reader.add(output)
            try reader.startReading()
            let (samples, channels, rate, _) = try await readAll(output)
            #expect(rate == 48000 && channels == 1)
            // The track lasts 2 s; its decoder gives the AAC encoder's padding after that.
            try #require(samples.count == 96000 && decoded.samples.count >= 96000, "\(samples.count) samples, the track decodes to \(decoded.samples.count)")
            let track = decoded.samples.prefix(96000)
            if format == .float32 {
                #expect(samples[...] == track, "the same samples, bit for bit")
            } else {
                let worst = zip(samples, track).map { abs($0 - $1) }.max() ?? 0
                #expect(worst <= 0.5 / 32768 + 1e-7, "16-bit samples round the decoded ones: largest difference \(worst)")
            }
        }
    }

    @Test func theReadersTimeRangeLimitsTheMix() async throws {
        let decoded = try await TestAudio.decode(tone440, trackID: 2)
        let reader = try await AssetReader.open(url: tone440)
        let output = AssetReaderAudioMixOutput(audioTracks: reader.tracks(withMediaType: .audio))
        try reader.add(output)
        reader.timeRange = TimeRange(start: .ratio(1, 2), end: .ratio(1, 1))
        try reader.startReading()
        let (samples, _, _, start) = try await readAll(output)
        #expect(start == .ratio(1, 2))
        try #require(samples.count == 24000)
        // A decoder started after a seek differs from one run from the start by ~1e-5.
        let worst = zip(samples, decoded.samples[24000..<48000]).map { abs($0 - $1) }.max() ?? 1
        #expect(worst < 1e-3, "largest difference \(worst)")
    }

    @Test func aVideoTrackATrackOfAnotherFileAndBadSettingsAreRefused() async throws {
        let reader = try await AssetReader.open(url: tone440)
        let video = try #require(reader.tracks(withMediaType: .video).first)
        let error = expectReelError(.invalidArgument) { try reader.add(AssetReaderAudioMixOutput(audioTracks: [video])) }
        #expect(error?.trackID == video.trackID && error?.path == tone440.path)
        #expect(error?.message.contains("video, not audio") == true, "\(String(describing: error))")

        let other = try await AssetReader.open(url: tone660)
        let foreign = try #require(other.tracks(withMediaType: .audio).first)
        let fromOther = expectReelError(.invalidArgument) { try reader.add(AssetReaderAudioMixOutput(audioTracks: [foreign])) }
        #expect(fromOther?.trackID == foreign.trackID)
        #expect(fromOther?.description.contains("counter-bars-320x240.mp4") == true, "\(String(describing: fromOther))")
        // A track from an Asset of the file itself is the file's.
        let assetTracks = try await Asset(url: tone440).load(.tracks).filter { $0.mediaType == .audio }
        let fromAsset = AssetReaderAudioMixOutput(audioTracks: assetTracks)
        try reader.add(fromAsset)

        let rate = expectReelError(.invalidArgument) {
            try reader.add(AssetReaderAudioMixOutput(audioTracks: reader.tracks(withMediaType: .audio), audioSettings: .init(sampleRate: 1000)))
        }
        #expect(rate?.message.contains("1000 Hz") == true)
        expectReelError(.invalidArgument) {
            try reader.add(AssetReaderAudioMixOutput(audioTracks: reader.tracks(withMediaType: .audio), audioSettings: .init(channelCount: 9)))
        }
        expectReelError(.invalidArgument) { try reader.add(AssetReaderAudioMixOutput(audioTracks: [])) }
    }

    @Test func aMixNamingAnotherTrackOrWithOverlappingRampsIsRefusedWhenReadingStarts() async throws {
        let reader = try await AssetReader.open(url: tone440)
        let output = AssetReaderAudioMixOutput(audioTracks: reader.tracks(withMediaType: .audio))
        output.audioMix = AudioMix(inputParameters: [AudioMixInputParameters(trackID: 1)])
        try reader.add(output)
        let error = expectReelError(.invalidArgument) { try reader.startReading() }
        #expect(error?.trackID == 1)
        #expect(reader.status == .failed)

        let second = try await AssetReader.open(url: tone440)
        let overlapping = AssetReaderAudioMixOutput(audioTracks: second.tracks(withMediaType: .audio))
        overlapping.audioMix = AudioMix(inputParameters: [
            AudioMixInputParameters(
                trackID: 2,
                volumeRamps: [
                    .init(startVolume: 1, endVolume: 0, timeRange: TimeRange(start: .zero, end: .ratio(1, 1))),
                    .init(startVolume: 0, endVolume: 1, timeRange: TimeRange(start: .ratio(1, 2), end: .ratio(3, 2))),
                ])
        ])
        try second.add(overlapping)
        let overlap = expectReelError(.invalidArgument) { try second.startReading() }
        #expect(overlap?.message.contains("overlap") == true, "\(String(describing: overlap))")
    }

    @Test func cancellingTheReaderEndsTheMix() async throws {
        let reader = try await AssetReader.open(url: tone440)
        let output = AssetReaderAudioMixOutput(audioTracks: reader.tracks(withMediaType: .audio))
        try reader.add(output)
        try reader.startReading()
        #expect(try await output.next() != nil)
        reader.cancelReading()
        await expectReelError(.cancelled) { try await output.next() }
        #expect(reader.status == .cancelled)
    }
}
