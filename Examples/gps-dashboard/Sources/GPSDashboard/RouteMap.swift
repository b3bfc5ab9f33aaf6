import Foundation
import Reel
import ReelText

/// A track's route fitted into a square box of `size` pixels: the projected points, and the
/// whole route already stroked (drawn faint under the route so far on every frame).
final class RouteMap: Sendable {
    let size: Int
    let lineWidth: Double
    /// One point per fix, in box pixels.
    let points: [Point]
    /// The whole route, stroked once.
    let fullRoute: CoverageMask

    init(timeline: GPSTrackTimeline, size: Int, lineWidth: Double) {
        self.size = max(size, 8)
        self.lineWidth = lineWidth
        let fixes = timeline.entries.map(\.fix)
        let lats = fixes.map(\.latitude), lons = fixes.map(\.longitude)
        let minLat = lats.min() ?? 0, maxLat = lats.max() ?? 0, minLon = lons.min() ?? 0, maxLon = lons.max() ?? 0
        // Equirectangular projection around the middle latitude: fine over a few kilometres.
        let k = cos((minLat + maxLat) / 2 * .pi / 180)
        let spanX = (maxLon - minLon) * k, spanY = maxLat - minLat
        let inner = Double(self.size) - 2 * (lineWidth + 4)
        let scale = max(spanX, spanY) > 0 ? inner / max(spanX, spanY) : 0
        let offsetX = (Double(self.size) - spanX * scale) / 2, offsetY = (Double(self.size) - spanY * scale) / 2
        points = fixes.map { f in
            Point(x: offsetX + (f.longitude - minLon) * k * scale, y: offsetY + (maxLat - f.latitude) * scale)
        }
        var mask = CoverageMask(width: self.size, height: self.size)
        mask.strokePolyline(points, lineWidth: lineWidth)
        fullRoute = mask
    }

    /// The point between fix `index` and the next, `fraction` of the way.
    func position(index: Int, fraction: Double) -> Point {
        guard index >= 0, index < points.count else { return points.last ?? Point(x: Double(size) / 2, y: Double(size) / 2) }
        guard index + 1 < points.count else { return points[index] }
        let a = points[index], b = points[index + 1]
        return Point(x: a.x + (b.x - a.x) * fraction, y: a.y + (b.y - a.y) * fraction)
    }

    /// The route from the first fix to the current position, stroked.
    func routeSoFar(index: Int, fraction: Double) -> CoverageMask {
        var mask = CoverageMask(width: size, height: size)
        guard !points.isEmpty else { return mask }
        let upTo = min(max(index, 0), points.count - 1)
        mask.strokePolyline(Array(points[0...upTo]) + [position(index: index, fraction: fraction)], lineWidth: lineWidth)
        return mask
    }
}
