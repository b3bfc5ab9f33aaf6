/// What a `Range` request header asks of a body of some length (RFC 9110, section 14): the
/// whole body, one part of it, or nothing it has.
///
/// One range is served. A header this server does not honour (another unit than `bytes`,
/// several ranges, a syntax error, a last position before the first) is ignored, as the RFC
/// lets a server do: the whole body is sent. A range that starts at or past the end, or a
/// suffix of length 0, cannot be satisfied (416).
public enum ByteRangeRequest: Sendable, Hashable {
    /// The whole body (200).
    case whole
    /// Bytes `first...last` of the body, both inside it (206).
    case part(ClosedRange<Int>)
    /// Nothing of the body is in the range asked for (416).
    case unsatisfiable

    /// The request `header` (the `Range` field's value, nil when absent) makes of a body of
    /// `length` bytes.
    public static func parse(_ header: String?, length: Int) -> ByteRangeRequest {
        guard let header, length >= 0 else { return .whole }
        let text = Substring(header).trimmingWhitespace
        guard let equals = text.firstIndex(of: "="), text[..<equals].trimmingWhitespace.lowercased() == "bytes" else { return .whole }
        let set = text[text.index(after: equals)...].trimmingWhitespace
        guard !set.contains(","), let dash = set.firstIndex(of: "-") else { return .whole }
        let firstText = set[..<dash].trimmingWhitespace, lastText = set[set.index(after: dash)...].trimmingWhitespace
        switch (position(firstText), position(lastText)) {
        case (.some(let first), .some(let last)):
            guard first <= last else { return .whole }
            guard first < length else { return .unsatisfiable }
            return .part(first...min(last, length - 1))
        case (.some(let first), .none):
            guard lastText.isEmpty else { return .whole }
            guard first < length else { return .unsatisfiable }
            return .part(first...(length - 1))
        case (.none, .some(let suffix)):
            guard firstText.isEmpty else { return .whole }
            guard suffix > 0, length > 0 else { return .unsatisfiable }
            return .part(max(0, length - suffix)...(length - 1))
        case (.none, .none):
            return .whole
        }
    }

    /// A position of the header: ASCII digits only, a number too large for `Int` read as
    /// `Int.max` (past any body's end). Nil when not digits.
    private static func position(_ text: Substring) -> Int? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return Int(text) ?? Int.max
    }
}

extension Substring {
    /// Without the spaces and tabs at either end (HTTP's optional whitespace).
    fileprivate var trimmingWhitespace: Substring {
        guard let start = firstIndex(where: { $0 != " " && $0 != "\t" }), let end = lastIndex(where: { $0 != " " && $0 != "\t" }) else {
            return self[endIndex...]
        }
        return self[start...end]
    }
}
