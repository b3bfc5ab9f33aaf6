import Foundation

extension MediaTime: Codable {
    /// Decodes a time written as text (see ``init(parsing:)``), or as a JSON number of
    /// seconds, which is read exactly from its decimal digits (`0.1` is `1/10`).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let text = try? container.decode(String.self) {
            guard let time = MediaTime(parsing: text) else {
                throw DecodingError.dataCorrupted(
                    .init(
                        codingPath: decoder.codingPath,
                        debugDescription: "expected a time such as \"1001/30000\" or \"2.5\", got \"\(text)\""))
            }
            self = time
            return
        }
        if let whole = try? container.decode(Int64.self) {
            self.init(value: whole, timescale: 1)
            return
        }
        // A JSON number with a fraction: Decimal keeps its digits exactly.
        let decimal: Decimal
        do {
            decimal = try container.decode(Decimal.self)
        } catch {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: decoder.codingPath,
                    debugDescription: "expected a time as a string such as \"1001/30000\" or a number of seconds", underlyingError: error))
        }
        guard let time = MediaTime(parsing: "\(decimal)") else {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: decoder.codingPath,
                    debugDescription: "the number \(decimal) is not a time in seconds with at most 9 decimals"))
        }
        self = time
    }

    /// Encodes as text: `"value/timescale"` (with `@epoch` when the epoch is not zero), or
    /// `invalid`, `indefinite`, `+infinity`, `-infinity`. The value and timescale are kept
    /// exactly; the rounded mark is not kept.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(encodedText)
    }

    /// The text ``encode(to:)`` writes.
    var encodedText: String {
        guard isNumeric else { return description }
        return epoch == 0 ? "\(value)/\(timescale)" : "\(value)/\(timescale)@\(epoch)"
    }

    /// Parses a time written as text.
    ///
    /// Accepts `"value/timescale"` (`"1001/30000"`, optionally followed by `@epoch`), a
    /// decimal number of seconds kept exact (`"2.5"` is `25/10`, `"-0.001"` is
    /// `-1/1000`; at most 9 decimals), or `invalid`, `indefinite`, `+infinity`
    /// (or `infinity`), `-infinity`. Surrounding spaces are ignored. Returns nil for
    /// anything else, including a timescale of zero or less and values out of range.
    public init?(parsing text: String) {
        let s = text.trimmingCharacters(in: .whitespaces)
        switch s {
        case "invalid": self = .invalid; return
        case "indefinite": self = .indefinite; return
        case "+infinity", "infinity": self = .positiveInfinity; return
        case "-infinity": self = .negativeInfinity; return
        default: break
        }
        if let slash = s.firstIndex(of: "/") {
            var rest = s[s.index(after: slash)...]
            var epoch: Int64 = 0
            if let at = rest.firstIndex(of: "@") {
                guard let e = Int64(rest[rest.index(after: at)...]) else { return nil }
                epoch = e
                rest = rest[..<at]
            }
            guard let v = Int64(s[..<slash]), let t = Int32(rest), t > 0 else { return nil }
            self.init(value: v, timescale: t, epoch: epoch)
            return
        }
        guard let time = Self.parseDecimal(Substring(s)) else { return nil }
        self = time
    }

    /// `[+-]digits[.digits]` as an exact time whose timescale is a power of ten.
    private static func parseDecimal(_ text: Substring) -> MediaTime? {
        var digits = text
        var negative = false
        if digits.first == "-" { negative = true; digits.removeFirst() } else if digits.first == "+" { digits.removeFirst() }
        let parts = digits.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let whole = parts[0]
        let fraction = parts.count == 2 ? parts[1] : ""
        func isDigits(_ part: Substring) -> Bool { part.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") } }
        guard !(whole.isEmpty && fraction.isEmpty), isDigits(whole), isDigits(fraction), fraction.count <= 9 else { return nil }
        // Magnitudes are accumulated negatively so that Int64.min itself parses.
        var value: Int64 = 0
        var scale: Int32 = 1
        for c in [whole.utf8, fraction.utf8].joined() {
            let (shifted, o1) = value.multipliedReportingOverflow(by: 10)
            let (next, o2) = shifted.subtractingReportingOverflow(Int64(c - UInt8(ascii: "0")))
            guard !o1, !o2 else { return nil }
            value = next
        }
        for _ in 0..<fraction.count { scale *= 10 }
        if !negative {
            guard value != .min else { return nil }
            value = -value
        }
        return MediaTime(value: value, timescale: scale)
    }
}
