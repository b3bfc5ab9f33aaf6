import Reel

/// `--range START..END`: composition times as seconds (`2.5`) or rationals (`1001/500`);
/// an empty START is the beginning, an empty END the end.
struct RangeArgument: Sendable, Hashable {
    var start: MediaTime?
    var end: MediaTime?

    init?(_ text: String) {
        guard let dots = text.range(of: "..") else { return nil }
        let a = text[..<dots.lowerBound].trimmingCharacters(in: .whitespaces)
        let b = text[dots.upperBound...].trimmingCharacters(in: .whitespaces)
        if a.isEmpty {
            start = nil
        } else {
            guard let t = MediaTime(parsing: a), t.isNumeric, !(t < .zero) else { return nil }
            start = t
        }
        if b.isEmpty {
            end = nil
        } else {
            guard let t = MediaTime(parsing: b), t.isNumeric else { return nil }
            end = t
        }
        if let s = start, let e = end, !(s < e) { return nil }
    }

    /// The range moved onto keyframe boundaries: each end down to a multiple of `gop`
    /// (an end at or past `total`'s end is `total`'s end). Pieces cut at the same times
    /// therefore meet exactly, and each starts with a keyframe.
    func aligned(gop: MediaTime, total: TimeRange) -> TimeRange {
        func down(_ t: MediaTime) -> MediaTime {
            guard gop.isNumeric, gop > .zero, t.isNumeric else { return t }
            // floor(t / gop) exactly: t = a/ta, gop = g/tg.
            let n = Int128(t.value) * Int128(gop.timescale), d = Int128(t.timescale) * Int128(gop.value)
            var k = n / d
            if n % d != 0, n < 0 { k -= 1 }
            return gop * Int32(clamping: k)
        }
        let s = MediaTime.maximum(down(start ?? .zero), total.start)
        let e: MediaTime
        if let end, end < total.end { e = MediaTime.maximum(down(end), s) } else { e = total.end }
        return TimeRange(start: s, end: e)
    }
}
