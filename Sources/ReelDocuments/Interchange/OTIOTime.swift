import Foundation
import ReelCore

/// OpenTimelineIO's times (a value at a rate, both floating point) read and written
/// exactly: NTSC rates written as 29.97, 23.976 or 30000/1001 in full are all n*1000/1001,
/// whole rates are whole, and a value is read from its decimal digits.
enum OTIOTime {
    /// The rate as an exact fraction (numerator, denominator), or nil for a rate that is
    /// not positive, not finite or not a decimal of at most 6 places.
    static func exactRate(_ rate: Double) -> (numerator: Int32, denominator: Int32)? {
        guard rate.isFinite, rate > 0, rate < 1_000_000 else { return nil }
        if rate == rate.rounded() { return (Int32(rate), 1) }
        // NTSC: 24000/1001, 30000/1001, 60000/1001, ... written with any number of digits.
        let ntsc = rate * 1.001
        if abs(ntsc - ntsc.rounded()) < 0.0005 * ntsc.rounded() / 30, ntsc.rounded() >= 1 {
            return (Int32(ntsc.rounded()) * 1000, 1001)
        }
        guard let decimal = MediaTime(parsing: shortest(rate)), decimal.isNumeric, decimal.value > 0,
            let numerator = Int32(exactly: decimal.value)
        else { return nil }
        return (numerator, decimal.timescale)
    }

    /// `value` frames at `rate`, exactly; nil when it cannot be held.
    static func mediaTime(value: Double, rate: Double) -> MediaTime? {
        guard value.isFinite, let (n, d) = exactRate(rate) else { return nil }
        let frames: MediaTime
        if value == value.rounded(), abs(value) < 1e15 {
            frames = MediaTime(value: Int64(value), timescale: 1)
        } else {
            guard let parsed = MediaTime(parsing: shortest(value)), parsed.isNumeric else { return nil }
            frames = parsed
        }
        let time = frames.multiplied(byRatio: d, n)
        return time.isNumeric && !time.hasBeenRounded ? time : nil
    }

    /// The decimal text of a double with the fewest digits that read back as it.
    private static func shortest(_ x: Double) -> String {
        let text = "\(x)"
        guard text.contains("e") else { return text }
        return String(format: "%.9f", x)
    }

    /// `time` as an OTIO time at `rate` (a fraction) when it is a whole number of frames
    /// there, else at its own timescale (still exact).
    static func rationalTime(_ time: MediaTime, rate: (numerator: Int32, denominator: Int32)?) -> OTIORationalTime {
        if let (n, d) = rate {
            let frames = time.multiplied(byRatio: n, d)
            if frames.isNumeric, !frames.hasBeenRounded, frames.value % Int64(frames.timescale) == 0 {
                return OTIORationalTime(value: Double(frames.value / Int64(frames.timescale)), rate: Double(n) / Double(d))
            }
        }
        return OTIORationalTime(value: Double(time.value), rate: Double(time.timescale))
    }

    static func timeRange(_ range: TimeRange, rate: (numerator: Int32, denominator: Int32)?) -> OTIOTimeRange {
        OTIOTimeRange(startTime: rationalTime(range.start, rate: rate), duration: rationalTime(range.duration, rate: rate))
    }
}
