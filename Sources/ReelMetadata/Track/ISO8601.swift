import Foundation

/// ISO 8601 dates as GPX and CSV carry them, parsed and written without a formatter.
enum ISO8601 {
    /// Parses `YYYY-MM-DDTHH:MM:SS[.fff][Z|±HH:MM]` (no zone means UTC).
    static func date(_ text: String) -> Date? {
        let c = Array(text.trimmingCharacters(in: .whitespaces).utf8)
        var i = 0
        func digits(_ n: Int) -> Int? {
            guard i + n <= c.count else { return nil }
            var v = 0
            for k in 0..<n {
                let d = c[i + k]
                guard (0x30...0x39).contains(d) else { return nil }
                v = v * 10 + Int(d - 0x30)
            }
            i += n
            return v
        }
        func expect(_ ch: Character) -> Bool {
            guard i < c.count, c[i] == ch.asciiValue else { return false }
            i += 1
            return true
        }
        guard let y = digits(4), expect("-"), let mo = digits(2), expect("-"), let d = digits(2) else { return nil }
        guard i < c.count, c[i] == UInt8(ascii: "T") || c[i] == UInt8(ascii: "t") || c[i] == UInt8(ascii: " ") else { return nil }
        i += 1
        guard let h = digits(2), expect(":"), let mi = digits(2), expect(":"), let s = digits(2) else { return nil }
        guard (1...12).contains(mo), (1...31).contains(d), h < 24, mi < 60, s < 61 else { return nil }
        var fraction = 0.0
        if i < c.count, c[i] == UInt8(ascii: ".") || c[i] == UInt8(ascii: ",") {
            i += 1
            var scale = 0.1
            let start = i
            while i < c.count, (0x30...0x39).contains(c[i]) {
                if i - start < 9 { fraction += Double(c[i] - 0x30) * scale; scale /= 10 }
                i += 1
            }
            guard i > start else { return nil }
        }
        var offset = 0
        if i < c.count {
            if c[i] == UInt8(ascii: "Z") || c[i] == UInt8(ascii: "z") {
                i += 1
            } else if c[i] == UInt8(ascii: "+") || c[i] == UInt8(ascii: "-") {
                let sign = c[i] == UInt8(ascii: "-") ? -1 : 1
                i += 1
                guard let oh = digits(2) else { return nil }
                _ = expect(":")
                guard let om = digits(2), oh < 24, om < 60 else { return nil }
                offset = sign * (oh * 3600 + om * 60)
            }
        }
        guard i == c.count else { return nil }
        let days = GPMF.daysFromCivil(year: y, month: mo, day: d)
        return Date(timeIntervalSince1970: Double(days * 86_400 + h * 3600 + mi * 60 + s - offset) + fraction)
    }

    /// `YYYY-MM-DDTHH:MM:SS.sssZ` (UTC, milliseconds).
    static func string(_ date: Date) -> String {
        let totalMillis = Int64((date.timeIntervalSince1970 * 1000).rounded())
        let millis = Int(((totalMillis % 1000) + 1000) % 1000)
        let seconds = (totalMillis - Int64(millis)) / 1000
        let days = Int(GPMF.floorDiv(seconds, 86_400))
        let secs = Int(seconds - Int64(days) * 86_400)
        let (y, m, d) = GPMF.civilFromDays(days)
        func two(_ v: Int) -> String { String(v).leftPadded(to: 2) }
        return String(y).leftPadded(to: 4) + "-" + two(m) + "-" + two(d) + "T" + two(secs / 3600) + ":" + two(secs / 60 % 60) + ":"
            + two(secs % 60) + "." + String(millis).leftPadded(to: 3) + "Z"
    }
}
