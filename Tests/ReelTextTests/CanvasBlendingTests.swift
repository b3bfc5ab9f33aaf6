import Testing
import ReelCore
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

    @Test(arguments: [(0, 0, 21, 13), (1, 1, 5, 4), (2, 3, 6, 6), (3, 2, 1, 1), (4, 4, 1, 3), (-3, 5, 9, 20), (7, 0, 14, 2)])
    func yuvFillIsPerSampleCoverage(x: Int, y: Int, w: Int, h: Int) throws {
        let color = Color(red: 0.9, green: 0.4, blue: 0.1, alpha: 0.6)
        let buffer = Self.frame(), expected = Self.frame()
        try Canvas(buffer).fill(x: x, y: y, width: w, height: h, color: color)
        let paint = Paint(color, matrix: nil)
        let x0 = max(x, 0), y0 = max(y, 0), x1 = min(x + w, 21), y1 = min(y + h, 13)
        func inside(_ px: Int, _ py: Int) -> Bool { px >= x0 && px < x1 && py >= y0 && py < y1 }
        expected.withUnsafeMutableBytes(plane: 0) { raw in
            for py in y0..<y1 {
                for px in x0..<x1 {
                    let i = py * expected.bytesPerRow[0] + px
                    raw[i] = UInt8(Self.reference(Int(raw[i]), paint.y, paint.a))
                }
            }
        }
        for (plane, value) in [(1, paint.cb), (2, paint.cr)] {
            expected.withUnsafeMutableBytes(plane: plane) { raw in
                for cy in 0..<7 {
                    for cx in 0..<11 {
                        let n = [(0, 0), (1, 0), (0, 1), (1, 1)].filter { inside(2 * cx + $0.0, 2 * cy + $0.1) }.count
                        let alpha = ((255 * n + 2) / 4 * paint.a + 127) / 255
                        let i = cy * expected.bytesPerRow[plane] + cx
                        raw[i] = UInt8(Self.reference(Int(raw[i]), value, alpha))
                    }
                }
            }
        }
        for p in 0..<3 {
            let got = buffer.withUnsafeBytes(plane: p) { Array($0) }, want = expected.withUnsafeBytes(plane: p) { Array($0) }
            #expect(got == want, "plane \(p)")
        }
    }
}
