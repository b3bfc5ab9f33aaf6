import Foundation
import ReelTestSupport
import Testing

@testable import ReelCaptions

@Suite("SRT")
struct SRTTests {
    @Test func readsCuesWithMarkupAndPosition() throws {
        let text =
            "\u{FEFF}1\r\n00:00:01,000 --> 00:00:02,500\r\n<b>Bold</b> and <i>italic</i>\r\n<font color=\"#FFFF00\">yellow</font>\r\n\r\n"
            + "2\n00:00:03.250 --> 00:00:04,000 X1:10 X2:20\n{\\an8}On top &amp; <u>under</u>\n"
        let doc = try SRT.read(Data(text.utf8))
        #expect(doc.captions.count == 2)
        #expect(doc.warnings.isEmpty)
        let first = doc.captions[0]
        #expect(first.text == "Bold and italic\nyellow")
        #expect(first.timeRange == CaptionSamples.range(1000, 2500))
        #expect(first.style(at: 0).fontWeight == .bold)
        #expect(first.style(at: 4) == .plain)
        #expect(first.style(at: 9).italic == true)
        #expect(first.style(at: 16).textColor == .yellow)
        let second = doc.captions[1]
        #expect(second.text == "On top & under")
        #expect(second.region == .top)
        #expect(second.timeRange.start == CaptionSamples.ms(3250))
        #expect(second.style(at: 9).underline == true)
    }

    @Test func writesWhatItReads() throws {
        let data = SRT.write(CaptionSamples.portable)
        let text = String(decoding: data, as: UTF8.self)
        #expect(
            text.hasPrefix(
                "1\n00:00:01,000 --> 00:00:02,500\nHello <i>world</i>\n\n2\n00:00:03,000 --> 00:00:05,000\n{\\an8}Second line one\nline <u>two</u>\n\n"))
        #expect(text.contains("<font color=\"#ffff00\">Müller</font>"))
        let back = try SRT.read(data)
        CaptionSamples.expectSame(back.captions, CaptionSamples.portable, tolerance: .zero)
    }

    /// A line of only spaces in a caption's text would end the cue, and what follows it
    /// would be read as the next cue's number or timing line (found by fuzzing).
    @Test(arguments: [CaptionFormat.srt, .webVTT])
    func linesOfOnlySpacesAreNotWritten(_ format: CaptionFormat) throws {
        let caption = Caption(spans: [.init("top\n  \n\tunder\rlast")], timeRange: CaptionSamples.range(1000, 2000))
        let data = try format.write([caption]).data
        let back = try format.read(data)
        #expect(back.captions.count == 1)
        #expect(back.captions.first?.text == "top\n\tunder\nlast")
    }

    @Test func overlappingCuesAreKeptWithAWarningNamingTheLine() throws {
        let text = "1\n00:00:01,000 --> 00:00:03,000\nA\n\n2\n00:00:02,000 --> 00:00:04,000\nB\n"
        let doc = try SRT.read(Data(text.utf8))
        #expect(doc.captions.count == 2)
        #expect(doc.warnings.count == 1)
        #expect(doc.warnings.first?.line == 6)
        #expect(doc.warnings.first?.time == CaptionSamples.ms(2000))
        #expect(doc.warnings.first?.description.hasPrefix("SRT line 6 (at 2 s): ") == true)
    }

    @Test(arguments: [
        ("1\n00:00:01 --> 00:00:02,000\nA\n", 2, "malformed timing line"),
        ("1\n00:00:05,000 --> 00:00:02,000\nA\n", 2, "before it starts"),
        ("1\nHello\n", 2, "expected a timing line"),
        ("1\n00:00:01,000 --> 00:61:02,000\nA\n", 2, "malformed timing line"),
    ])
    func malformedTimingIsAnErrorNamingTheLine(text: String, line: Int, phrase: String) {
        #expect {
            try SRT.read(Data(text.utf8))
        } throws: { error in
            guard let e = error as? ReelError else { return false }
            return e.code == .captionFormat && e.field == "line \(line)" && e.message.contains(phrase)
        }
    }

    @Test func textThatIsNotUTF8IsAnError() {
        expectReelError(.captionFormat) { try SRT.read(Data([0x31, 0x0A, 0xFF, 0xFE, 0xC0])) }
    }
}
