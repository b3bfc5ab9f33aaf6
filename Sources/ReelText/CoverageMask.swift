import ReelCore

/// An 8-bit coverage image (0 empty ... 255 covered) to build a shape in before blending it
/// once into a frame with ``Canvas/draw(_:x:y:color:)``: overlapping strokes then do not
/// darken where they meet.
public struct CoverageMask: Sendable, Hashable {
    public let width: Int
    public let height: Int
    /// `width * height` coverage bytes, row by row.
    public private(set) var coverage: [UInt8]

    /// An empty mask; sizes below 1 are taken as 1.
    public init(width: Int, height: Int) {
        self.width = max(width, 1)
        self.height = max(height, 1)
        self.coverage = [UInt8](repeating: 0, count: self.width * self.height)
    }

    /// Clears every pixel.
    public mutating func clear() {
        coverage.withUnsafeMutableBufferPointer { $0.update(repeating: 0) }
    }

    /// The coverage at `(x, y)`, 0 outside.
    public func value(x: Int, y: Int) -> UInt8 {
        guard x >= 0, y >= 0, x < width, y < height else { return 0 }
        return coverage[y * width + x]
    }

    /// Strokes the polyline through `points` (mask pixel coordinates, pixel centres at
    /// `+0.5`) with an anti-aliased line `lineWidth` pixels wide and round joins.
    public mutating func strokePolyline(_ points: [Point], lineWidth: Double) {
        guard let first = points.first else { return }
        if points.count == 1 {
            fillCircle(center: first, radius: lineWidth / 2)
            return
        }
        for (a, b) in zip(points, points.dropFirst()) {
            strokeSegment(a, b, halfWidth: max(lineWidth, 0.5) / 2)
        }
    }

    /// Fills an anti-aliased disc.
    public mutating func fillCircle(center: Point, radius: Double) {
        strokeSegment(center, center, halfWidth: max(radius, 0.5))
    }

    /// Coverage of a capsule around segment `a`-`b`: full within `halfWidth`, falling to
    /// zero over one pixel; each pixel keeps the larger of its old and new coverage.
    private mutating func strokeSegment(_ a: Point, _ b: Point, halfWidth hw: Double) {
        guard a.x.isFinite, a.y.isFinite, b.x.isFinite, b.y.isFinite else { return }
        let x0 = max(Int((min(a.x, b.x) - hw - 1).rounded(.down)), 0)
        let x1 = min(Int((max(a.x, b.x) + hw + 1).rounded(.up)), width - 1)
        let y0 = max(Int((min(a.y, b.y) - hw - 1).rounded(.down)), 0)
        let y1 = min(Int((max(a.y, b.y) + hw + 1).rounded(.up)), height - 1)
        guard x0 <= x1, y0 <= y1 else { return }
        let dx = b.x - a.x, dy = b.y - a.y
        let lengthSquared = dx * dx + dy * dy
        let w = width
        coverage.withUnsafeMutableBufferPointer { out in
            for y in y0...y1 {
                let py = Double(y) + 0.5
                for x in x0...x1 {
                    let px = Double(x) + 0.5
                    var t = lengthSquared > 0 ? ((px - a.x) * dx + (py - a.y) * dy) / lengthSquared : 0
                    t = min(max(t, 0), 1)
                    let ex = px - (a.x + t * dx), ey = py - (a.y + t * dy)
                    let d = (ex * ex + ey * ey).squareRoot()
                    let c = min(max(hw + 0.5 - d, 0), 1)
                    guard c > 0 else { continue }
                    let v = UInt8((c * 255).rounded())
                    if v > out[y * w + x] { out[y * w + x] = v }
                }
            }
        }
    }
}
