import Testing

@testable import ReelCore

@Suite("LanguageTag")
struct LanguageTagTests {
    @Test(
        "ISO 639-2 codes to BCP 47",
        arguments: [
            ("eng", "en"), ("fra", "fr"), ("fre", "fr"), ("deu", "de"), ("ger", "de"), ("en", "en"), ("ENG", "en"),
            ("und", nil), ("zxx", nil), ("", nil), ("e1g", nil), ("english", nil),
        ] as [(String, String?)])
    func bcp47(code: String, expected: String?) {
        #expect(LanguageTag.bcp47(fromISO639_2: code) == expected)
    }

    @Test("languages compare by their primary subtag")
    func sameLanguage() {
        #expect(LanguageTag.sameLanguage("fr", "fr-CA"))
        #expect(LanguageTag.sameLanguage("en-GB", "en_US"))
        #expect(LanguageTag.sameLanguage("fra", "fr"))
        #expect(!LanguageTag.sameLanguage("fr", "en"))
        #expect(!LanguageTag.sameLanguage("und", "und"))
    }

    @Test("packed ISO/IEC 14496-12 language codes")
    func packed() {
        // 'e' 'n' 'g' -> 5, 14, 7.
        #expect(LanguageTag.iso639_2(packed: 5 << 10 | 14 << 5 | 7) == "eng")
        #expect(LanguageTag.iso639_2(packed: 0) == nil)
        #expect(LanguageTag.iso639_2(packed: 0x7FFF) == nil)
    }
}
