import Foundation

/// ISO 8601 UTC timestamps as GPX and Reel's CSV write them (`2019-11-18T23:45:14.000Z`),
/// and the forms they accept back.
enum UTCTimestamp {
    private static let utc: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? TimeZone(secondsFromGMT: 0) ?? calendar.timeZone
        return calendar
    }()

    /// `yyyy-MM-ddTHH:mm:ss.SSSZ`, rounded to the millisecond.
    static func string(from date: Date) -> String {
        let totalMillis = (date.timeIntervalSince1970 * 1000).rounded()
        guard totalMillis.isFinite, abs(totalMillis) < 1e15 else { return "" }
        let millis = Int64(totalMillis)
        let ms = Int(((millis % 1000) + 1000) % 1000)
        let seconds = Date(timeIntervalSince1970: TimeInterval((millis - Int64(ms)) / 1000))
        let c = utc.dateComponents([.year, .month, .day, .hour, .minute, .second], from: seconds)
        func pad(_ v: Int?, _ width: Int) -> String {
            let s = String(v ?? 0)
            return String(repeating: "0", count: max(0, width - s.count)) + s
        }
        return "\(pad(c.year, 4))-\(pad(c.month, 2))-\(pad(c.day, 2))T\(pad(c.hour, 2)):\(pad(c.minute, 2)):\(pad(c.second, 2)).\(pad(ms, 3))Z"
    }

    /// Parses `yyyy-MM-ddTHH:mm:ss[.fraction][Z|±HH:MM|±HHMM]` (a space may stand for the
    /// `T`; no zone means UTC). Nil when the text is not such a time.
    static func date(from text: String) -> Date? {
        let chars = Array(text.trimmingCharacters(in: .whitespaces).utf8)
        guard chars.count >= 19 else { return nil }
        func digits(_ range: Range<Int>) -> Int? {
            var v = 0
            for i in range {
                guard (0x30...0x39).contains(chars[i]) else { return nil }
                v = v * 10 + Int(chars[i] - 0x30)
            }
            return v
        }
        guard chars[4] == 0x2D, chars[7] == 0x2D, chars[10] == 0x54 || chars[10] == 0x20 || chars[10] == 0x74,
              chars[13] == 0x3A, chars[16] == 0x3A,
              let year = digits(0..<4), let month = digits(5..<7), let day = digits(8..<10),
              let hour = digits(11..<13), let minute = digits(14..<16), let second = digits(17..<19),
              (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61 else { return nil }
        var i = 19
        var fraction = 0.0
        if i < chars.count, chars[i] == 0x2E || chars[i] == 0x2C {
            i += 1
            var scale = 0.1
            let start = i
            while i < chars.count, (0x30...0x39).contains(chars[i]) {
                fraction += Double(chars[i] - 0x30) * scale
                scale /= 10
                i += 1
            }
            guard i > start else { return nil }
        }
        var offset = 0
        if i < chars.count {
            switch chars[i] {
            case 0x5A, 0x7A:
                i += 1
            case 0x2B, 0x2D:
                let sign = chars[i] == 0x2D ? -1 : 1
                let rest = Array(chars[(i + 1)...].filter { $0 != 0x3A })
                guard rest.count == 4 || rest.count == 2, rest.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
                let hh = Int(rest[0] - 0x30) * 10 + Int(rest[1] - 0x30)
                let mm = rest.count == 4 ? Int(rest[2] - 0x30) * 10 + Int(rest[3] - 0x30) : 0
                guard hh < 24, mm < 60 else { return nil }
                offset = sign * (hh * 3600 + mm * 60)
                i = chars.count
            default:
                return nil
            }
        }
        guard i == chars.count else { return nil }
        let components = DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        guard let whole = utc.date(from: components) else { return nil }
        return whole.addingTimeInterval(fraction - TimeInterval(offset))
    }
}

/// Numbers as Reel's text formats write them: the shortest form that reads back as the
/// same Double, without an exponent.
enum DecimalText {
    static func string(_ value: Double) -> String {
        guard value.isFinite else { return "" }
        let shortest = String(value)
        guard shortest.contains("e") || shortest.contains("E") else {
            return shortest.hasSuffix(".0") ? String(shortest.dropLast(2)) : shortest
        }
        var s = String(format: "%.12f", value)
        while s.hasSuffix("0") { s.removeLast() }
        if s.hasSuffix(".") { s.removeLast() }
        return s == "-0" ? "0" : s
    }

    /// Seconds with at most six decimals (microseconds), trailing zeros trimmed.
    static func seconds(_ value: Double) -> String {
        guard value.isFinite else { return "" }
        var s = String(format: "%.6f", value)
        while s.hasSuffix("0") { s.removeLast() }
        if s.hasSuffix(".") { s.removeLast() }
        return s == "-0" ? "0" : s
    }
}
