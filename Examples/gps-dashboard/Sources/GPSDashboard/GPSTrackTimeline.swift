import Foundation
import Reel

/// The fixes of one metadata track in composition time, and the fix at any time between
/// them, interpolated: a 18 Hz GPS track drawn at 30 or 60 fps moves smoothly instead of
/// stepping at the GPS rate.
public struct GPSTrackTimeline: Sendable {
    /// One fix and the composition time it holds from.
    public struct Entry: Sendable, Hashable {
        public var time: MediaTime
        public var fix: GPSFix
    }

    /// The fixes in time order (groups without a latitude and longitude are skipped).
    public let entries: [Entry]
    /// Where each group ends, to stop interpolating past the last fix's group.
    private let lastEnd: MediaTime

    public init(groups: [TimedMetadataGroup]) {
        var list: [Entry] = []
        for g in groups.sorted(by: { $0.timeRange.start < $1.timeRange.start }) {
            if let fix = GPSFix(g) { list.append(Entry(time: g.timeRange.start, fix: fix)) }
        }
        entries = list
        lastEnd = groups.map(\.timeRange.end).max() ?? .zero
    }

    public var isEmpty: Bool { entries.isEmpty }

    /// The index of the last fix at or before `time`; nil before the first.
    public func index(at time: MediaTime) -> Int? {
        var lo = 0, hi = entries.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if time < entries[mid].time { hi = mid } else { lo = mid + 1 }
        }
        return lo == 0 ? nil : lo - 1
    }

    /// The fix at `time`: between two fixes, each field linearly interpolated between them
    /// (course along the shorter way round, the UTC time too); after the last fix, the last
    /// fix. Nil before the first fix.
    public func fix(at time: MediaTime) -> (fix: GPSFix, index: Int, fraction: Double)? {
        guard let i = index(at: time) else { return nil }
        guard i + 1 < entries.count else { return (entries[i].fix, i, 0) }
        let a = entries[i], b = entries[i + 1]
        let span = (b.time - a.time).seconds
        let f = span > 0 ? min(max((time - a.time).seconds / span, 0), 1) : 0
        return (Self.interpolate(a.fix, b.fix, f), i, f)
    }

    /// `a` moved toward `b` by `f` (0...1).
    public static func interpolate(_ a: GPSFix, _ b: GPSFix, _ f: Double) -> GPSFix {
        func mix(_ x: Double, _ y: Double) -> Double { x + (y - x) * f }
        func mix(_ x: Double?, _ y: Double?) -> Double? {
            guard let x else { return nil }
            guard let y else { return x }
            return x + (y - x) * f
        }
        var out = a
        out.latitude = mix(a.latitude, b.latitude)
        out.longitude = mix(a.longitude, b.longitude)
        out.altitude = mix(a.altitude, b.altitude)
        out.speed2D = mix(a.speed2D, b.speed2D)
        out.speed3D = mix(a.speed3D, b.speed3D)
        if let ca = a.course, let cb = b.course {
            var d = (cb - ca).truncatingRemainder(dividingBy: 360)
            if d > 180 { d -= 360 } else if d < -180 { d += 360 }
            out.course = (ca + d * f + 360).truncatingRemainder(dividingBy: 360)
        }
        if let ta = a.time, let tb = b.time {
            out.time = ta.addingTimeInterval(tb.timeIntervalSince(ta) * f)
        }
        return out
    }
}
