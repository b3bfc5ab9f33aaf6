import Foundation
import Reel
import ReelDocuments
import ReelTestSupport
import Testing

@Suite("CompositionFile audio")
struct CompositionFileAudioTests {
    static let seconds = TimeRange(start: .zero, duration: MediaTime(value: 4, timescale: 1))

    static func source(_ name: String) -> SourceDescription {
        SourceDescription(
            identifier: name,
            tracks: [
                SourceTrackDescription(
                    reference: SourceTrackReference(sourceIdentifier: name, trackID: 1), mediaType: .video, timeRange: seconds,
                    naturalSize: Size(width: 64, height: 36), nominalFrameDuration: MediaTime(value: 1, timescale: 30)),
                SourceTrackDescription(reference: SourceTrackReference(sourceIdentifier: name, trackID: 2), mediaType: .audio, timeRange: seconds),
            ])
    }

    static func file(_ extra: String) throws -> CompositionFile {
        try CompositionFile.decode(
            Data(
                """
                {"version": 1, "sources": [{"name": "a", "path": "a.mp4"}, {"name": "b", "path": "b.mp4"}],
                 "tracks": [{"trackID": 1, "mediaType": "video", "segments": [{"source": "a", "duration": 1}, {"source": "b", "duration": 1}, {"source": "a", "sourceStart": 2, "duration": 1}]}],
                 "instructions": [{"timeRange": {"start": 0, "end": "end"}, "layerInstructions": [{"trackID": 1}]}]\(extra)}
                """.utf8))
    }

    @Test func theFirstSourcesSoundPlaysUnderItsPicture() throws {
        let file = try Self.file("")
        let sources = ["a": Self.source("a"), "b": Self.source("b")]
        let composition = try file.addingSourceAudio(to: file.makeComposition(sources: sources), sources: sources)
        let audio = try #require(composition.tracks(withMediaType: .audio).first)
        #expect(audio.trackID == 2)
        #expect(audio.segments.map(\.isEmpty) == [false, true, false])
        #expect(audio.segments[2].timeMapping.source.start == MediaTime(value: 2, timescale: 1))
        #expect(audio.segments[0].sourceTrack == SourceTrackReference(sourceIdentifier: "a", trackID: 2))
        #expect(try file.makeAudioMix(for: composition)?.inputParameters.isEmpty == true)
    }

    @Test func outputAudioFalseMeansNoSound() throws {
        let file = try Self.file(#", "output": {"audio": false}"#)
        let sources = ["a": Self.source("a"), "b": Self.source("b")]
        let composition = try file.addingSourceAudio(to: file.makeComposition(sources: sources), sources: sources)
        #expect(composition.tracks(withMediaType: .audio).isEmpty)
        #expect(try file.makeAudioMix(for: composition) == nil)
    }

    @Test func anAudioMixBecomesVolumes() throws {
        let file = try Self.file(
            #", "audioMix": [{"trackID": 2, "volume": 0.3, "volumeRamps": [{"from": 0.3, "to": 1, "timeRange": {"start": 2, "end": 3}}]}]"#)
        let sources = ["a": Self.source("a"), "b": Self.source("b")]
        let composition = try file.addingSourceAudio(to: file.makeComposition(sources: sources), sources: sources)
        let mix = try #require(try file.makeAudioMix(for: composition))
        let volume = mix.inputParameters(forTrackID: 2)
        #expect(volume.volume(at: MediaTime(value: 1, timescale: 1)) == Float(0.3))
        #expect(volume.volume(at: MediaTime(value: 5, timescale: 2)) == Float(0.65))
        #expect(volume.volume(at: MediaTime(value: 4, timescale: 1)) == 1)
    }

    @Test func outputAudioCodecIsAACByDefaultAndPCMInMOVOrMatroska() throws {
        let none = try Self.file("")
        #expect(try (none.output ?? CompositionFile.Output()).audioEncoderCodec(for: .mp4) == .aac)
        let pcm = try #require(try Self.file(#", "output": {"audioCodec": "pcm"}"#).output)
        #expect(try pcm.audioEncoderCodec(for: .mov) == .pcm16)
        #expect(try pcm.audioEncoderCodec(for: .mkv) == .pcm16)
        #expect(try #require(try Self.file(#", "output": {"audioCodec": "pcm24"}"#).output).audioEncoderCodec(for: .mov) == .pcm24)
        #expect(try #require(try Self.file(#", "output": {"audioCodec": "AAC"}"#).output).audioEncoderCodec(for: .mpegts) == .aac)

        let intoMP4 = expectReelError(.invalidComposition) { try pcm.audioEncoderCodec(for: .mp4) }
        #expect(intoMP4?.field == "output.audioCodec")
        #expect(intoMP4?.message.contains("MOV or Matroska") == true)
        let unknown = expectReelError(.invalidComposition) {
            try #require(try Self.file(#", "output": {"audioCodec": "mp3"}"#).output).audioEncoderCodec(for: .mov)
        }
        #expect(unknown?.field == "output.audioCodec")
        #expect(unknown?.message.contains("\"mp3\"") == true)
    }

    @Test func outputALACGoesIntoMOVAndMP4Only() throws {
        let alac = try #require(try Self.file(#", "output": {"audioCodec": "alac"}"#).output)
        for fileType in [AssetWriter.FileType.mov, .mp4] { #expect(try alac.audioEncoderCodec(for: fileType) == .alac) }
        for fileType in [AssetWriter.FileType.mkv, .mpegts] {
            let refused = expectReelError(.invalidComposition) { try alac.audioEncoderCodec(for: fileType) }
            #expect(refused?.field == "output.audioCodec")
            #expect(refused?.message.contains(fileType.rawValue) == true)
        }
    }

    @Test func outputAudioSampleRateAndChannelsAreCheckedAndNameTheirField() throws {
        let fine = try #require(try Self.file(#", "output": {"audioSampleRate": 44100, "audioChannels": 2}"#).output)
        #expect(fine.audioSampleRate == 44100 && fine.audioChannels == 2)
        #expect(try fine.audioEncoderCodec(for: .mp4) == .aac)
        let rate = expectReelError(.invalidComposition) {
            try #require(try Self.file(#", "output": {"audioSampleRate": 1000}"#).output).audioEncoderCodec(for: .mp4)
        }
        #expect(rate?.field == "output.audioSampleRate")
        let channels = expectReelError(.invalidComposition) {
            try #require(try Self.file(#", "output": {"audioChannels": 0}"#).output).audioEncoderCodec(for: .mp4)
        }
        #expect(channels?.field == "output.audioChannels")
    }
}
