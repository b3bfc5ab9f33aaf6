import Testing

@testable import ReelCore

@Suite("String.xmlEscaped")
struct StringXMLEscapingTests {
    @Test func escapesTheFiveMarkupCharacters() {
        #expect("a<b>&\"c'".xmlEscaped == "a&lt;b&gt;&amp;&quot;c&apos;")
    }

    /// `<` followed by a combining mark is one Character that is not `<`: escaping by
    /// Character let it through, and the iTT document read back as broken XML.
    @Test func escapesMarkupCharactersFollowedByCombiningMarks() {
        #expect("x<\u{30D}t>".xmlEscaped == "x&lt;\u{30D}t&gt;")
        #expect("&\u{301}".xmlEscaped == "&amp;\u{301}")
    }
}
