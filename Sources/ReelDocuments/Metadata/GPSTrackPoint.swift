import Foundation
import Reel

/// One fix of a GPS track file (GPX, CSV) on its way into a video: the fix, and, for
/// CSV, its time in media seconds.
struct GPSTrackPoint: Sendable, Hashable {
    var fix: GPSFix
    /// Seconds from the start of the media (CSV `time`); nil when the file does not say.
    var mediaTime: Double?
    /// Which point of its file this is (`trkpt 3`, `row 3`), for error messages.
    var label: String

    /// Speeds the file does not give, from each point to the next (the last from the one
    /// before): 2D from the ground distance, 3D from the 2D speed and the climb rate.
    /// `times` are the points' times in seconds, in order; a point at the same time as
    /// its neighbour keeps no speed.
    static func fillingSpeeds(_ points: [GPSTrackPoint], times: [Double]) -> [GPSTrackPoint] {
        guard points.count > 1, times.count == points.count else { return points }
        var out = points
        for i in points.indices where points[i].fix.speed2D == nil || points[i].fix.speed3D == nil {
            let (a, b) = i + 1 < points.count ? (i, i + 1) : (i - 1, i)
            let dt = times[b] - times[a]
            guard dt > 0 else { continue }
            let ground = out[i].fix.speed2D ?? distance(points[a].fix, points[b].fix) / dt
            out[i].fix.speed2D = ground
            if out[i].fix.speed3D == nil, let za = points[a].fix.altitude, let zb = points[b].fix.altitude {
                let climb = (zb - za) / dt
                out[i].fix.speed3D = (ground * ground + climb * climb).squareRoot()
            }
        }
        return out
    }

    /// Great-circle distance in metres (haversine, mean Earth radius).
    static func distance(_ a: GPSFix, _ b: GPSFix) -> Double {
        let r = 6_371_008.8
        let (p1, p2) = (a.latitude * .pi / 180, b.latitude * .pi / 180)
        let dp = p2 - p1, dl = (b.longitude - a.longitude) * .pi / 180
        let h = sin(dp / 2) * sin(dp / 2) + cos(p1) * cos(p2) * sin(dl / 2) * sin(dl / 2)
        return 2 * r * asin(min(1, h.squareRoot()))
    }
}
