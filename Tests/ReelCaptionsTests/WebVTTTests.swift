import Foundation
import Testing

@testable import ReelCaptions

@Suite("WebVTT")
struct WebVTTTests {
    @Test func readsCuesSettingsClassesAndRuby() throws {
        let text = """
            WEBVTT - a title

            NOTE a comment
            spanning lines

            STYLE
            ::cue(.orange) { color: #ff8000; background-color: rgba(0,0,0,128) }

            intro
            00:01.000 --> 00:02.500 line:0 align:left
            <v Speaker>Hi</v> <c.yellow.bg_blue>there</c> <c.orange>you</c>

            01:00:00.000 --> 01:00:01.000
            <ruby>漢字<rt>かんじ</rt></ruby> &lt;3

            """
        let doc = try WebVTT.read(Data(text.utf8))
        #expect(doc.captions.count == 2)
        let first = doc.captions[0]
        #expect(first.text == "Hi there you")
        #expect(first.timeRange == CaptionSamples.range(1000, 2500))
        #expect(first.region == .top)
        #expect(first.textAlignment == .left)
        #expect(first.style(at: 3) == CaptionStyle(textColor: .yellow, backgroundColor: .blue))
        #expect(first.style(at: 9).textColor == CaptionColor(red: 255, green: 128, blue: 0))
        #expect(first.style(at: 9).backgroundColor == CaptionColor(red: 0, green: 0, blue: 0, alpha: 128))
        let second = doc.captions[1]
        #expect(second.text == "漢字 <3")
        #expect(second.timeRange.start == CaptionSamples.ms(3_600_000))
        #expect(second.style(at: 0).ruby == CaptionStyle.Ruby("かんじ"))
        #expect(second.style(at: 2).ruby == nil)
    }

    @Test func writesWhatItReads() throws {
        var captions = CaptionSamples.portable
        captions.append(
            Caption(
                spans: [.init("漢字", CaptionStyle(ruby: .init("かんじ"))), .init(" odd", CaptionStyle(textColor: CaptionColor(red: 1, green: 2, blue: 3)))],
                timeRange: CaptionSamples.range(9000, 9500), textAlignment: .right))
        let data = WebVTT.write(captions)
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.hasPrefix("WEBVTT\n\nSTYLE\n::cue(.c_010203) { color: #010203; }\n\n00:00:01.000 --> 00:00:02.500\nHello <i>world</i>\n"))
        #expect(text.contains("00:00:03.000 --> 00:00:05.000 line:0\n"))
        #expect(text.contains("<c.yellow>Müller</c>"))
        let back = try WebVTT.read(data)
        CaptionSamples.expectSame(back.captions, captions, tolerance: .zero)
        #expect(back.captions[3].textAlignment == .right)
        #expect(back.captions[3].style(at: 0).ruby?.text == "かんじ")
    }

    @Test func aFileWithoutTheHeaderIsAnError() {
        #expect {
            try WebVTT.read(Data("00:01.000 --> 00:02.000\nA\n".utf8))
        } throws: { ($0 as? ReelError)?.field == "line 1" }
    }

    @Test func aMalformedTimingLineNamesItsLine() {
        #expect {
            try WebVTT.read(Data("WEBVTT\n\n00:01.000 --> 00:0x.000\nA\n".utf8))
        } throws: { ($0 as? ReelError)?.field == "line 3" }
    }
}
