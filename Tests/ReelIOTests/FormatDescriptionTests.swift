import Foundation
import ReelCore
import ReelTestSupport
import Testing

@testable import ReelIO

@Suite("FormatDescription")
struct FormatDescriptionTests {
    func descriptions(_ name: String) async throws -> [FormatDescription] {
        try await Asset(url: TestFiles.fixture(name)).load(.tracks).flatMap(\.formatDescriptions)
    }

    @Test("descriptions of the same samples are equal and hash alike, across separate opens")
    func hashable() async throws {
        let first = try await descriptions("counter-320x240.mp4")
        let again = try await descriptions("counter-320x240.mp4")
        try #require(first.count == 2 && again.count == 2)
        #expect(first[0] == again[0] && first[1] == again[1])
        #expect(Set(first + again).count == 2)
        #expect(first[0] != first[1])
        // Same codec and size, other pictures: the same H.264 configuration (extradata).
        let bars = try await descriptions("counter-bars-320x240.mp4")
        #expect(bars[0] == first[0])
        // Other codec configuration (160x120).
        let small = try await descriptions("portrait.mp4")
        #expect(small[0] != first[0])
    }

    /// A format description names the kind of track its samples make as the track does, so a
    /// copied caption track is `.text` or `.subtitle`, never a kind of its own.
    @Test("a description's media type is its track's; caption codecs are told from a chapter list's text")
    func mediaTypeIsTheTracks() async throws {
        var seen: [MediaType: Int] = [:]
        for name in ["selection.mp4", "counter-gps.mp4", "metadata.mov", "chapters.mkv"] {
            for track in try await Asset(url: TestFiles.fixture(name)).load(.tracks) {
                for description in track.formatDescriptions {
                    #expect(description.mediaType == track.mediaType, "\(name) track \(track.trackID)")
                    #expect(AssetWriterInput(settings: .passthrough(description)).mediaType == track.mediaType)
                    #expect(description.isCaptionFormat == (track.mediaType == .subtitle || (track.mediaType == .text && !track.isChapterList)))
                    seen[description.mediaType, default: 0] += 1
                }
            }
        }
        // selection.mp4's two timed-text tracks (mov_text) and its chapter list (text samples).
        #expect(seen[.text] == 3)
        #expect(seen[.video] != nil && seen[.audio] != nil && seen[.metadata] != nil)
    }

    @Test("AAC: 'aac ' with the object type in the flags, 1024 frames per packet, no per-frame sizes")
    func aac() async throws {
        let audio = try #require(try await descriptions("counter-320x240.mp4").last?.audioStreamBasicDescription)
        #expect(
            audio
                == AudioStreamBasicDescription(
                    sampleRate: 48000, formatID: "aac ", formatFlags: AudioFormatFlags(rawValue: 2),
                    bytesPerPacket: 0, framesPerPacket: 1024, bytesPerFrame: 0,
                    channelsPerFrame: 1, bitsPerChannel: 0))
        #expect(!audio.isLinearPCM)
    }

    @Test("16-bit stereo PCM: every field, as CoreAudio fills it")
    func linearPCM() async throws {
        let all = try await descriptions("userdata.mov")
        let audio = try #require(all.compactMap(\.audioStreamBasicDescription).first)
        #expect(audio.isLinearPCM)
        #expect(audio.sampleRate == 8000 && audio.channelsPerFrame == 2 && audio.bitsPerChannel == 16)
        #expect(audio.formatFlags == [.isSignedInteger, .isPacked])
        #expect(audio.bytesPerFrame == 4 && audio.bytesPerPacket == 4 && audio.framesPerPacket == 1)
        #expect(all.first?.audioStreamBasicDescription == nil, "video has no audio description")
    }

    @Test(
        "PCM layouts from FFmpeg's codec names",
        arguments: [
            ("pcm_s16le", PCMLayout?(PCMLayout(isFloat: false, isSigned: true, isBigEndian: false, isPlanar: false))),
            ("pcm_f32be", PCMLayout(isFloat: true, isSigned: false, isBigEndian: true, isPlanar: false)),
            ("pcm_u8", PCMLayout(isFloat: false, isSigned: false, isBigEndian: false, isPlanar: false)),
            ("pcm_s24le_planar", PCMLayout(isFloat: false, isSigned: true, isBigEndian: false, isPlanar: true)),
            ("pcm_mulaw", nil), ("pcm_dvd", nil), ("aac", nil), ("pcm_s16xx", nil),
        ])
    func pcmLayout(name: String, expected: PCMLayout?) {
        #expect(PCMLayout(codecName: name) == expected)
    }
}
