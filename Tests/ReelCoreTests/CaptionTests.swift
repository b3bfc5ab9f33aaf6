import ReelCore
import Testing

@Suite("Caption")
struct CaptionTests {
    static let range = TimeRange(start: .zero, duration: MediaTime(value: 1, timescale: 1))

    @Test func spansJoinIntoTextAndStyledRanges() {
        let c = Caption(
            spans: [.init("ab"), .init("cd", CaptionStyle(italic: true)), .init("ef", CaptionStyle(italic: true)), .init("g")],
            timeRange: Self.range)
        #expect(c.text == "abcdefg")
        #expect(c.styles == [Caption.StyledRange(2..<6, CaptionStyle(italic: true))])
        #expect(c.spans == [.init("ab"), .init("cdef", CaptionStyle(italic: true)), .init("g")])
    }

    @Test func overlappingRangesMergeLaterWinning() {
        let c = Caption(
            "abcd", timeRange: Self.range,
            styles: [
                .init(0..<3, CaptionStyle(fontWeight: .bold, textColor: .red)),
                .init(2..<4, CaptionStyle(textColor: .blue)),
            ])
        #expect(c.style(at: 0) == CaptionStyle(fontWeight: .bold, textColor: .red))
        #expect(c.style(at: 2) == CaptionStyle(fontWeight: .bold, textColor: .blue))
        #expect(c.style(at: 3) == CaptionStyle(textColor: .blue))
        #expect(c.spans.map(\.text) == ["ab", "c", "d"])
    }

    @Test func normalizedTreatsDefaultsAsUnset() {
        let a = Caption(spans: [.init("x", CaptionStyle(fontWeight: .normal, italic: false, textColor: .white)), .init("y")], timeRange: Self.range)
        let b = Caption("xy", timeRange: Self.range)
        #expect(a != b)
        #expect(a.normalized == b.normalized)
    }

    @Test func linesSplitOnNewlines() {
        #expect(Caption("one\n\ntwo", timeRange: Self.range).lines == ["one", "", "two"])
    }
}
