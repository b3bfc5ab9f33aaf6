/// The `HH:MM:SS,mmm` (SRT) and `[HH:]MM:SS.mmm` (WebVTT) clock times of cue timing lines,
/// as milliseconds.
enum CueClock {
    /// Milliseconds of `text`, or nil when it is not a clock time. Hours may have any number
    /// of digits; minutes and seconds are two digits below 60; the fraction is 1-3 digits
    /// after one of `separators`.
    static func milliseconds(_ text: Substring, separators: Set<Character>, hoursOptional: Bool) -> Int64? {
        var fields = text.split(separator: ":", omittingEmptySubsequences: false)
        guard fields.count == 3 || (hoursOptional && fields.count == 2) else { return nil }
        if fields.count == 2 { fields.insert("0", at: 0) }
        let last = fields[2]
        guard let sep = last.firstIndex(where: { separators.contains($0) }) else { return nil }
        let secText = last[..<sep], fracText = last[last.index(after: sep)...]
        guard fields[0].count <= 9, !fields[0].isEmpty, fields[0].allSatisfy(\.isASCIIDigit),
            fields[1].count == 2, fields[1].allSatisfy(\.isASCIIDigit),
            secText.count == 2, secText.allSatisfy(\.isASCIIDigit),
            (1...3).contains(fracText.count), fracText.allSatisfy(\.isASCIIDigit),
            let h = Int64(fields[0]), let m = Int64(fields[1]), let s = Int64(secText), m < 60, s < 60,
            var f = Int64(fracText)
        else { return nil }
        for _ in fracText.count..<3 { f *= 10 }
        return ((h * 60 + m) * 60 + s) * 1000 + f
    }

    /// `HH:MM:SS<separator>mmm` for a time in milliseconds (negative times write as zero).
    static func string(milliseconds ms: Int64, separator: Character) -> String {
        let v = max(0, ms)
        let h = v / 3_600_000, m = v / 60_000 % 60, s = v / 1000 % 60, f = v % 1000
        return pad(h, 2) + ":" + pad(m, 2) + ":" + pad(s, 2) + String(separator) + pad(f, 3)
    }

    static func pad(_ v: Int64, _ width: Int) -> String {
        let s = String(v)
        return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
    }

    /// A time in milliseconds as a `MediaTime` at timescale 1000.
    static func time(_ ms: Int64) -> MediaTime { MediaTime(value: ms, timescale: 1000) }

    /// A time rounded to whole milliseconds.
    static func milliseconds(_ time: MediaTime) -> Int64 {
        time.isNumeric ? time.convertScale(1000, method: .roundHalfAwayFromZero).value : 0
    }
}

extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}
