import Foundation
import ReelTestSupport
import Testing

@testable import ReelCaptions

@Suite("CaptionSample")
struct CaptionSampleTests {
    @Test func movTextSamplesKeepTextAndFaces() throws {
        let caption = Caption(
            spans: [
                .init("Ünïcode "), .init("bold", CaptionStyle(fontWeight: .bold)), .init(" "),
                .init("red under", CaptionStyle(underline: true, textColor: .red)), .init("\n🎬 end"),
            ],
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
        #expect(
            spans == [
                .init("Bold", CaptionStyle(fontWeight: .bold)), .init(" \nand ", CaptionStyle(fontWeight: .normal)),
                .init("red", CaptionStyle(fontWeight: .normal, textColor: .red)), .init(", done"),
            ])
    }

    static let second = TimeRange(start: .zero, end: MediaTime(value: 1, timescale: 1))

    static func placement(_ c: Caption?) -> String {
        guard let c else { return "none" }
        return (c.region?.identifier ?? "bottom") + (c.textAlignment.map { " " + $0.rawValue } ?? "")
    }

    @Test(arguments: [
        ("{\\an7}a", "top left"), ("{\\an5}a", "middle"), ("{\\an3}a", "bottom right"), ("{\\a10}a", "middle"),
        ("{\\an8\\b1}a", "top"), ("{\\an0}a", "bottom"), ("a", "bottom"),
    ])
    func subRipSamplesArePlacedByTheirTags(text: String, expected: String) throws {
        let decoder = try CaptionSampleDecoder(format: "subrip")
        let caption = try decoder.caption(Data(text.utf8), timeRange: Self.second)
        #expect(caption?.text == "a")
        #expect(Self.placement(caption) == expected)
    }

    @Test func assEventsArePlacedByOverridesElseByTheirStyle() throws {
        let header = "[Script Info]\nScriptType: v4.00+\n\n[V4+ Styles]\nFormat: Name, Fontsize, Alignment\nStyle: Default,16,2\nStyle: Sign,20,9\n"
        let decoder = try CaptionSampleDecoder(format: "ass", trackHeader: Data(header.utf8))
        func place(_ event: String) throws -> String { Self.placement(try decoder.caption(Data(event.utf8), timeRange: Self.second)) }
        #expect(try place("0,0,Sign,,0,0,0,,top right") == "top right")
        #expect(try place("0,0,Sign,,0,0,0,,{\\an4}moved") == "middle left")
        #expect(try place("0,0,Default,,0,0,0,,plain") == "bottom")
        #expect(try place("0,0,Unknown,,0,0,0,,plain") == "bottom")
        // SSA's [V4 Styles] number alignments the old way (6: top centre).
        let ssa = try CaptionSampleDecoder(format: "ssa", trackHeader: Data("[V4 Styles]\nFormat: Name, Alignment\nStyle: Top,6\n".utf8))
        #expect(Self.placement(try ssa.caption(Data("0,0,Top,,0,0,0,,x".utf8), timeRange: Self.second)) == "top")
    }

    @Test func webVTTSamplesArePlacedByTheirCueSettings() throws {
        let decoder = try CaptionSampleDecoder(format: "webvtt")
        #expect(Self.placement(try decoder.caption(Data("a".utf8), timeRange: Self.second, cueSettings: "line:0 align:end")) == "top end")
        #expect(Self.placement(try decoder.caption(Data("a".utf8), timeRange: Self.second, cueSettings: "line:80%")) == "bottom")
        #expect(try decoder.caption(Data("a".utf8), timeRange: Self.second)?.region == nil)
    }

    /// A 3GPP sample entry with top, left justification and a bold, green default style of
    /// size 20; a style record of size 30 (150%) and italic over the second word.
    @Test func movTextSamplesTakeTheSampleEntrysPlaceAndStyle() throws {
        var entry = Data([0, 0, 0, 0, 0x00, 0x00, 0, 0, 0, 0]) + Data(count: 8)
        entry += Data([0, 0, 0, 0, 0, 1, 0x01, 20, 0, 255, 0, 255])
        let decoder = try CaptionSampleDecoder(format: "tx3g", trackHeader: entry)
        let sample =
            Data([0, 7]) + Data("one two".utf8) + Data([0, 0, 0, 22]) + Data("styl".utf8) + Data([0, 1, 0, 4, 0, 7, 0, 1, 0x02, 30, 255, 255, 255, 255])
        let caption = try #require(try decoder.caption(sample, timeRange: Self.second))
        #expect(Self.placement(caption) == "top left")
        #expect(
            caption.spans == [
                .init("one ", CaptionStyle(fontWeight: .bold, textColor: .green)),
                .init("two", CaptionStyle(italic: true, fontSizePercent: 150)),
            ])
        // Bottom centre, the default place, is no region.
        entry[4] = 1
        entry[5] = 0xFF
        #expect(Self.placement(try CaptionSampleDecoder(format: "tx3g", trackHeader: entry).caption(sample, timeRange: Self.second)) == "bottom")
    }

    @Test func subRipSamplesAreWrittenWithTheirPlace() throws {
        let top = Caption("a", timeRange: Self.second, region: .top, textAlignment: .right)
        #expect(String(decoding: try CaptionSample.data(for: top, format: .srt), as: UTF8.self) == "{\\an9}a")
        #expect(String(decoding: try CaptionSample.data(for: Caption("a", timeRange: Self.second), format: .srt), as: UTF8.self) == "a")
        #expect(CaptionSample.cueSettings(for: top, format: .webVTT) == "line:0 align:right")
        #expect(CaptionSample.cueSettings(for: top, format: .srt) == nil)
    }

    @Test func otherFormatsAreUnsupported() {
        expectReelError(.unsupportedFormat) { try CaptionSample.spans(Data(), format: "dvd_subtitle") }
    }
}
