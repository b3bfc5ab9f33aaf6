import Foundation

/// What a reader of one `gpmd` track remembers between payloads to place the samples of
/// streams that have a TSMP (samples delivered since the recording started) but no STMP
/// (time stamp).
///
/// Without STMP a payload alone only says how many samples it holds, so they would be
/// spread evenly over the payload: the first at the payload's start, and the spacing off
/// by a sample's worth whenever a payload holds one sample more or less than the rate
/// gives. The TSMP counts of the payloads read so far give the stream's rate (samples
/// delivered since the first payload over the time since) and its phase: every sample
/// counted by a payload was taken before it ended, and the next one after, so the time
/// of the track's first sample lies in an interval each payload narrows; its middle is
/// taken. Sample `c` (counting from 1 over the track) is then at
/// `first + (c - 1) / rate`.
///
/// The first payload of a stream (and one whose count goes back, a new recording, or
/// whose samples would not fall in the payload) keeps the even spread. Feed the payloads
/// of one track in order (``TimedMetadataDecoder`` does): a payload read alone, after a
/// seek, is spread evenly.
public struct GPMFSampleCounts: Sendable {
    struct Count: Sendable {
        /// The payload's TSMP.
        var total: UInt64
        /// When that payload ends: its last counted sample was taken by then.
        var end: MediaTime
    }
    /// Per stream, the counts of the payloads read, in order.
    private var counts: [String: [Count]] = [:]

    public init() {}

    static func key(_ series: GPMFSeries) -> String { "\(series.deviceID ?? 0)/\(series.key)" }

    /// The times of the samples of `series` (no STMP, with TSMP) in a payload spanning
    /// `range`, and how long each lasts; nil when this stream has no earlier payload to
    /// measure from, or the counts do not fit.
    func placement(of series: GPMFSeries, in range: TimeRange) -> (times: [MediaTime], duration: MediaTime)? {
        let n = series.samples.count
        guard series.firstSampleMicroseconds == nil, n > 0, let total = series.totalSamples, let seen = counts[Self.key(series)],
            let first = seen.first, let last = seen.last, total > last.total, range.end > last.end, total >= UInt64(n)
        else { return nil }
        let rate = Double(total - first.total) / (range.end - first.end).seconds
        guard rate.isFinite, rate > 0 else { return nil }
        // Seconds after the first payload's end, where the track's first sample lies:
        // each payload's last counted sample is at or before its end, the next after it.
        var (low, high) = (-Double.infinity, Double.infinity)
        for c in seen + [Count(total: total, end: range.end)] {
            let end = (c.end - first.end).seconds
            low = max(low, end - Double(c.total) / rate)
            high = min(high, end - Double(c.total - 1) / rate)
        }
        let origin = (low + high) / 2
        let times = (0..<n).map { j in
            first.end + MediaTime(seconds: origin + (Double(total) - Double(n) + Double(j)) / rate, preferredTimescale: 1_000_000)
        }
        // The samples must lie in their payload (the first may come up to half a payload
        // early, delivered late); otherwise (a rate that changed, a payload missing its
        // stream) the even spread stands.
        let slack = range.duration.multiplied(byRatio: 1, 2)
        guard let start = times.first, let end = times.last, !(start < range.start - slack), end < range.end else { return nil }
        return (times, MediaTime(seconds: 1 / rate, preferredTimescale: 1_000_000))
    }

    /// Remembers the TSMP of each stream without STMP in a payload spanning `range`.
    mutating func note(_ series: [GPMFSeries], in range: TimeRange) {
        for s in series where s.firstSampleMicroseconds == nil {
            guard let total = s.totalSamples, total > 0, range.end.isNumeric else { continue }
            let key = Self.key(s)
            if let last = counts[key]?.last, total > last.total, range.end > last.end {
                counts[key]!.append(Count(total: total, end: range.end))
            } else {
                // The first payload, or the count went back (a new recording): start again.
                counts[key] = [Count(total: total, end: range.end)]
            }
        }
    }
}
