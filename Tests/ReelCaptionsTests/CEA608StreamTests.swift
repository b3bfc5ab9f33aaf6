import Foundation
import ReelTestSupport
import Testing

@testable import ReelCaptions

@Suite("CEA608Stream")
struct CEA608StreamTests {
    static func frame(_ n: Int64) -> MediaTime { MediaTime(value: n * 1001, timescale: 30000) }

    /// cc_data triplets of one field (0xFC field 1, 0xFD field 2) from hex words.
    static func triplets(_ words: String, field: UInt8) -> Data {
        Data(
            words.split(separator: " ").flatMap { w -> [UInt8] in
                let v = UInt16(w, radix: 16)!
                return [0xFC | field, UInt8(v >> 8), UInt8(v & 0xFF)]
            })
    }

    @Test func decodesAPopOnCaptionFromTriplets() throws {
        var stream = try CEA608Stream(channel: 1)
        // Load "HI", end of caption at frame 30 + 5; erase at frame 60.
        stream.append(Self.triplets("94ae 94ae 9420 9420 c849 942f 942f", field: 0), at: Self.frame(30))
        #expect(stream.takeCaptions().isEmpty, "the caption shows until the screen changes")
        stream.append(Self.triplets("942c 942c", field: 0), at: Self.frame(60))
        let captions = stream.takeCaptions()
        #expect(captions.map(\.text) == ["HI"])
        #expect(captions.first?.timeRange == TimeRange(start: Self.frame(35), end: Self.frame(60)))
        #expect(stream.takeCaptions().isEmpty)
    }

    @Test func channelThreeReadsFieldTwoWhicheverMiscellaneousCodesItUses() throws {
        for misc in ["15", "94"] {
            var stream = try CEA608Stream(channel: 3)
            let words = "\(misc)ae \(misc)ae \(misc)20 \(misc)20 c849 \(misc)2f \(misc)2f"
            // Field 1 carries other text, interleaved: it is not CC3's.
            var data = Data()
            for (a, b) in zip(Self.triplets(words, field: 1).chunked(3), Self.triplets("9420 9420 d9d9 d9d9 942f 942f 8080", field: 0).chunked(3)) {
                data += b + a
            }
            stream.append(data, at: .zero)
            stream.finish(at: Self.frame(30))
            #expect(stream.takeCaptions().map(\.text) == ["HI"], "misc codes \(misc)xx")
        }
    }

    @Test func parityErrorsAndCutTripletsAreWarnings() throws {
        var stream = try CEA608Stream(channel: 1)
        var data = Self.triplets("94ae 94ae 9420 9420 c849 4849 942f 942f", field: 0)
        data.append(contentsOf: [0xFC, 0x94])
        stream.append(data, at: .zero)
        stream.finish(at: Self.frame(30))
        #expect(stream.warnings.count == 2)
        #expect(stream.warnings.contains { $0.message.contains("not whole triplets") && $0.time == .zero })
        #expect(stream.warnings.contains { $0.message.contains("parity error") && $0.time == Self.frame(5) })
        #expect(stream.takeCaptions().map(\.text) == ["HI"], "the pair with a parity error is left out")
        expectReelError(.invalidArgument) { try CEA608Stream(channel: 5) }
    }
}

private extension Data {
    func chunked(_ n: Int) -> [Data] { stride(from: 0, to: count, by: n).map { Data(self[$0..<Swift.min($0 + n, count)]) } }
}
