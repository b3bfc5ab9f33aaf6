import Foundation
import Testing
@testable import ReelCaptions
import ReelTestSupport

@Suite("CaptionSample")
struct CaptionSampleTests {
    @Test func movTextSamplesKeepTextAndFaces() throws {
        let caption = Caption(spans: [.init("Ünïcode "), .init("bold", CaptionStyle(fontWeight: .bold)), .init(" "),
                                      .init("red under", CaptionStyle(underline: true, textColor: .red)), .init("\n🎬 end")],
                              timeRange: CaptionSamples.range(0, 1000))
        let data = CaptionSample.movTextSample(caption)
        // Length, UTF-8 text, then one `styl` box with two records.
        let textLength = caption.text.utf8.count
        #expect(Array(data.prefix(2)) == [UInt8(textLength >> 8), UInt8(textLength & 0xFF)])
        #expect(data.count == 2 + textLength + 10 + 2 * 12)
        #expect(String(decoding: data[(2 + textLength + 4)..<(2 + textLength + 8)], as: UTF8.self) == "styl")
        let spans = try CaptionSample.spans(data, format: "tx3g")
        #expect(Caption(spans: spans, timeRange: caption.timeRange).normalized == caption.normalized)
    }

    @Test func anEmptySampleIsAGap() throws {
        #expect(try CaptionSample.spans(Data([0, 0]), format: "tx3g").isEmpty)
        #expect(try CaptionSample.spans(Data(), format: "tx3g").isEmpty)
    }

    @Test(arguments: [
        (Data([0, 9, 0x41]), "runs past"),
        (Data([0, 1, 0x41, 0, 0, 0, 40]) + Data("styl".utf8), "does not fit"),
        (Data([0, 2, 0xC3, 0x28]), "not UTF-8"),
    ])
    func brokenMovTextSamplesAreErrors(data: Data, phrase: String) {
        #expect {
            try CaptionSample.spans(data, format: "tx3g")
        } throws: { ($0 as? ReelError)?.message.contains(phrase) == true }
    }

    @Test func assEventsGiveTheirTextAndOverrides() throws {
        let spans = try CaptionSample.spans(Data("3,0,Default,,0,0,0,,{\\b1}Bold{\\b0} \\Nand {\\c&H0000FF&}red{\\r}, done".utf8), format: "ass")
        #expect(spans == [.init("Bold", CaptionStyle(fontWeight: .bold)), .init(" \nand ", CaptionStyle(fontWeight: .normal)),
                          .init("red", CaptionStyle(fontWeight: .normal, textColor: .red)), .init(", done")])
    }

    @Test func otherFormatsAreUnsupported() {
        expectReelError(.unsupportedFormat) { try CaptionSample.spans(Data(), format: "dvd_subtitle") }
    }
}
