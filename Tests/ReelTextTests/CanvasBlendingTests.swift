import ReelCore
import Testing

@testable import ReelText

/// The blending arithmetic: rounding without divisions, and the vectorised YUV fill against
/// a plain per-sample statement of what a fill means.
@Suite("Canvas blending")
struct CanvasBlendingTests {
    /// `(d * (255 - a) + s * a) / 255` rounded, computed the long way.
    static func reference(_ d: Int, _ s: Int, _ a: Int) -> Int {
        let t = (s - d) * a
        return d + (t + (t >= 0 ? 127 : -127)) / 255
    }

    @Test func div255RoundsToNearestOverSixteenBits() {
        for x in 0...65535 {
            #expect(Paint.div255(x) == Int((Double(x) / 255).rounded()), "x = \(x)")
        }
    }

    @Test func mixMatchesTheLongForm() {
        var wrong = 0
        for d in 0...255 {
            for a in 0...255 {
                for s in stride(from: 0, through: 255, by: 5) where Int(Paint.mix(UInt8(d), s, a)) != Self.reference(d, s, a) {
                    wrong += 1
                }
            }
        }
        #expect(wrong == 0)
    }

    @Test func rowMixMatchesMix() {
        var row = (0...255).map { UInt8($0) }
        for a in [0, 1, 77, 128, 200, 254, 255] {
            for s in [16, 128, 235] {
                let before = row
                row.withUnsafeMutableBufferPointer { Canvas.mix($0.baseAddress!, count: $0.count, toward: s, alpha: a) }
                #expect(row == before.map { Paint.mix($0, s, a) }, "alpha \(a), value \(s)")
                row = before
            }
        }
    }

    /// A YUV 4:2:0 frame of varied samples.
    static func frame() -> PixelBuffer {
        let b = PixelBuffer(width: 21, height: 13, format: .yuv420p)
        for p in 0..<3 {
            b.withUnsafeMutableBytes(plane: p) { raw in
                for i in raw.indices { raw[i] = UInt8(truncatingIfNeeded: i &* 37 &+ p &* 11) }
            }
        }
        return b
    }

    /// `frame()` with `paint` blended by per-pixel `coverage` (0...255; 0 outside the
    /// frame), each chroma sample by the mean coverage of its four luma pixels.
    static func expected(paint: Paint, coverage: (Int, Int) -> Int) -> PixelBuffer {
        let expected = frame()
        expected.withUnsafeMutableBytes(plane: 0) { raw in
            for py in 0..<13 {
                for px in 0..<21 {
                    let i = py * expected.bytesPerRow[0] + px
                    raw[i] = UInt8(reference(Int(raw[i]), paint.y, (coverage(px, py) * paint.a + 127) / 255))
                }
            }
        }
        for (plane, value) in [(1, paint.cb), (2, paint.cr)] {
            expected.withUnsafeMutableBytes(plane: plane) { raw in
                for cy in 0..<7 {
                    for cx in 0..<11 {
                        let sum = [(0, 0), (1, 0), (0, 1), (1, 1)].map { coverage(2 * cx + $0.0, 2 * cy + $0.1) }.reduce(0, +)
                        let alpha = ((sum + 2) / 4 * paint.a + 127) / 255
                        let i = cy * expected.bytesPerRow[plane] + cx
                        raw[i] = UInt8(reference(Int(raw[i]), value, alpha))
                    }
                }
            }
        }
        return expected
    }

    static func samePlanes(_ a: PixelBuffer, _ b: PixelBuffer) -> Bool {
        (0..<3).allSatisfy { p in a.withUnsafeBytes(plane: p) { Array($0) } == b.withUnsafeBytes(plane: p) { Array($0) } }
    }

    static let color = Color(red: 0.9, green: 0.4, blue: 0.1, alpha: 0.6)

    @Test(arguments: [(0, 0, 21, 13), (1, 1, 5, 4), (2, 3, 6, 6), (3, 2, 1, 1), (4, 4, 1, 3), (-3, 5, 9, 20), (7, 0, 14, 2)])
    func yuvFillIsPerSampleCoverage(x: Int, y: Int, w: Int, h: Int) throws {
        let buffer = Self.frame()
        try Canvas(buffer).fill(x: x, y: y, width: w, height: h, color: Self.color)
        let expected = Self.expected(paint: Paint(Self.color, encoding: Self.frame().ycbcrEncoding)) { px, py in
            px >= max(x, 0) && px < min(x + w, 21) && py >= max(y, 0) && py < min(y + h, 13) ? 255 : 0
        }
        #expect(Self.samePlanes(buffer, expected))
    }

    @Test(arguments: [(0, 0), (5, 3), (-4, -2), (15, 9)])
    func yuvMaskIsPerSampleCoverage(x: Int, y: Int) throws {
        // A mostly empty mask: a small disc off centre, wide empty margins.
        var mask = CoverageMask(width: 12, height: 9)
        mask.fillCircle(center: Point(x: 7.3, y: 4.6), radius: 2.2)
        let buffer = Self.frame()
        try Canvas(buffer).draw(mask, x: x, y: y, color: Self.color)
        let expected = Self.expected(paint: Paint(Self.color, encoding: Self.frame().ycbcrEncoding)) { px, py in
            px < 21 && py < 13 ? Int(mask.value(x: px - x, y: py - y)) : 0
        }
        #expect(Self.samePlanes(buffer, expected))
    }
}
