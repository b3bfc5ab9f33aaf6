import Foundation

/// Language codes as containers write them (ISO 639-2, three letters: `eng`, `fra`,
/// `fre`) and as AVFoundation hands them out (BCP 47: `en`, `fr`).
package enum LanguageTag {
    /// The BCP 47 tag for an ISO 639-2 code: its two-letter ISO 639-1 code where it has one
    /// (`fra` and `fre` -> `fr`), else the code itself; nil for `und`, `mis`, `mul`,
    /// `zxx`, an empty code or one that is not letters.
    package static func bcp47(fromISO639_2 code: String) -> String? {
        let lower = code.lowercased()
        guard (2...3).contains(lower.count), lower.allSatisfy({ $0.isASCII && $0.isLetter }),
            !["und", "mis", "mul", "zxx"].contains(lower)
        else { return nil }
        if lower.count == 2 { return lower }
        if let short = Locale.LanguageCode(lower).identifier(.alpha2) { return short }
        return bibliographic[lower] ?? lower
    }

    /// Whether the language of BCP 47 tag `tag` is the language of `preferred` (`fr-CA`
    /// matches `fr`, `fra`, `fr-FR`); regions and scripts are not compared.
    package static func sameLanguage(_ tag: String, _ preferred: String) -> Bool {
        guard let a = primary(tag), let b = primary(preferred) else { return false }
        return a == b
    }

    /// The primary language subtag of a tag, as a two-letter code where it has one.
    static func primary(_ tag: String) -> String? {
        let first = tag.split(whereSeparator: { $0 == "-" || $0 == "_" }).first.map(String.init) ?? ""
        return bcp47(fromISO639_2: first)
    }

    /// ISO 639-2/B codes whose T code differs, for the languages Foundation may know only
    /// by their T code.
    static let bibliographic: [String: String] = [
        "fre": "fr", "ger": "de", "dut": "nl", "chi": "zh", "cze": "cs", "gre": "el", "per": "fa", "rum": "ro",
        "slo": "sk", "wel": "cy", "arm": "hy", "baq": "eu", "bur": "my", "geo": "ka", "ice": "is", "mac": "mk",
        "mao": "mi", "may": "ms", "alb": "sq", "tib": "bo",
    ]

    /// The ISO 639-2/T code of a packed QuickTime/ISO language (three 5-bit letters, each
    /// `letter - 0x60`, ISO/IEC 14496-12 `mdhd`); nil when a letter is out of range.
    package static func iso639_2(packed: UInt16) -> String? {
        let letters = [(packed >> 10) & 0x1F, (packed >> 5) & 0x1F, packed & 0x1F]
        guard letters.allSatisfy({ (1...26).contains($0) }) else { return nil }
        return String(letters.map { Character(UnicodeScalar(UInt8($0 + 0x60))) })
    }
}
