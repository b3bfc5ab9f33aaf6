import ReelCore
import Testing

@Suite("CaptionStyle and CaptionColor")
struct CaptionStyleTests {
    @Test(arguments: [
        ("#ff8000", CaptionColor(red: 255, green: 128, blue: 0)),
        ("#FF800080", CaptionColor(red: 255, green: 128, blue: 0, alpha: 128)),
        ("#f80", CaptionColor(red: 255, green: 136, blue: 0)),
        ("rgba(1, 2, 3, 4)", CaptionColor(red: 1, green: 2, blue: 3, alpha: 4)),
        ("rgb(1,2,3)", CaptionColor(red: 1, green: 2, blue: 3)),
        ("Yellow", .yellow), ("lime", .green), ("transparent", CaptionColor(red: 0, green: 0, blue: 0, alpha: 0)),
    ])
    func parsesColours(text: String, color: CaptionColor) {
        #expect(CaptionColor(text) == color)
    }

    @Test(arguments: ["", "#12", "#gg0000", "rgb(1,2)", "rgb(300,0,0)", "chartreuse-ish"])
    func refusesWhatIsNotAColour(text: String) {
        #expect(CaptionColor(text) == nil)
    }

    @Test func writesHexAndNames() {
        #expect(CaptionColor(red: 1, green: 2, blue: 255).hexString == "#0102ff")
        #expect(CaptionColor(red: 1, green: 2, blue: 255, alpha: 16).hexString == "#0102ff10")
        #expect(CaptionColor.yellow.description == "yellow")
    }

    @Test func attributesListWhatDiffersFromTheDefault() {
        let s = CaptionStyle(fontWeight: .bold, italic: false, textColor: .white, fontSizePercent: 120, ruby: .init("x"))
        #expect(s.attributes == [.bold, .fontSize, .ruby])
        #expect(s.attributes.description == "bold, font size, ruby")
        #expect(CaptionStyle(italic: true).merging(CaptionStyle(italic: false, underline: true)) == CaptionStyle(italic: false, underline: true))
    }
}
