import Foundation

/// ISO 8601 dates as GPX and CSV carry them, through Foundation's `Date.ISO8601FormatStyle`.
enum ISO8601 {
    /// A date with a zone (`Z` or an offset), with or without fractional seconds.
    private static let zoned = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
    /// A date without a zone, read as UTC.
    private static let utc = Date.ISO8601FormatStyle(timeZone: .gmt).year().month().day().time(includingFractionalSeconds: true)

    /// Parses `YYYY-MM-DDTHH:MM:SS[.fff][Z|±HH[:MM]]` (no zone means UTC); RFC 3339's space or
    /// lower-case `t` between date and time, its lower-case `z` and ISO 8601's decimal comma
    /// are accepted too. Nil unless the whole text is a date.
    static func date(_ text: String) -> Date? {
        var bytes = Array(text.trimmingCharacters(in: .whitespaces).utf8)
        if bytes.count > 10, bytes[10] == UInt8(ascii: " ") || bytes[10] == UInt8(ascii: "t") { bytes[10] = UInt8(ascii: "T") }
        if bytes.count > 19, bytes[19] == UInt8(ascii: ",") { bytes[19] = UInt8(ascii: ".") }
        if bytes.last == UInt8(ascii: "z") { bytes[bytes.count - 1] = UInt8(ascii: "Z") }
        let s = String(decoding: bytes, as: UTF8.self)
        for style in [zoned, utc] {
            if let (end, date) = try? style.consuming(s, startingAt: s.startIndex, in: s.startIndex..<s.endIndex), end == s.endIndex {
                return date
            }
        }
        return nil
    }

    /// `YYYY-MM-DDTHH:MM:SS.sssZ` (UTC), to the nearest millisecond.
    static func string(_ date: Date) -> String {
        // The style truncates to the millisecond: format the middle of the nearest one.
        let millis = (date.timeIntervalSince1970 * 1000).rounded()
        return zoned.format(Date(timeIntervalSince1970: millis / 1000 + 0.0005))
    }
}
