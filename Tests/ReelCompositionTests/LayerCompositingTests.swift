import Testing

@testable import ReelComposition

/// The scale-and-translate kernels against a plain per-pixel statement of their sampling
/// (bilinear, its triangle widened along a shrinking axis): the kernels' two passes must
/// give exactly these bytes.
@Suite struct LayerCompositingTests {
    /// A buffer of pseudo-random bytes (alpha 255 where there is alpha).
    static func noise(width: Int, height: Int, format: PixelFormat, seed: UInt64) -> PixelBuffer {
        let buffer = PixelBuffer(width: width, height: height, format: format)
        var state = seed
        buffer.withPlaneViews { v in
            for p in 0..<format.planeCount {
                let (w, h) = buffer.planeSize(p), ch = format.bytesPerPixel(plane: p)
                for y in 0..<h {
                    for x in 0..<(w * ch) {
                        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                        let opaque = format.hasAlpha && x % 4 == 3
                        v.base[p][y * v.stride[p] + x] = opaque ? 255 : UInt8(truncatingIfNeeded: state >> 56)
                    }
                }
            }
        }
        return buffer
    }

    /// Bytes of every plane, row padding left out.
    static func bytes(_ b: PixelBuffer) -> [[UInt8]] {
        b.withPlaneViews { v in
            (0..<b.format.planeCount).map { p in
                let (w, h) = b.planeSize(p), ch = b.format.bytesPerPixel(plane: p)
                return (0..<h).flatMap { y in (0..<(w * ch)).map { v.base[p][y * v.stride[p] + $0] } }
            }
        }
    }

    /// The two neighbours of position `p` and the 8-bit weight of the second, clamped at
    /// the edges.
    static func taps(_ p: Double, _ size: Int) -> (Int, Int, Int) {
        let fixed = Int((p * 256).rounded(.down))
        let i = fixed >> 8
        if i < 0 { return (0, 0, 0) }
        if i >= size - 1 { return (size - 1, size - 1, 0) }
        return (i, i + 1, fixed & 255)
    }

    /// The source samples and 8-bit weights (summing to 256) one destination sample at
    /// source position `p` takes along an axis scaled by `scale`: the two neighbours when
    /// the axis keeps or grows its size; when it shrinks, every sample the triangle
    /// `1 - |x - p| * scale` reaches, its weights normalised, the remainder of the rounding
    /// on the first largest.
    static func weights(_ p: Double, scale: Double, size: Int) -> [(index: Int, weight: Int)] {
        if scale >= 1 {
            let (a, b, w) = taps(p, size)
            return [(a, 256 - w), (b, w)]
        }
        let reach = Int((p - 1 / scale).rounded(.down))...Int((p + 1 / scale).rounded(.up))
        let raw = reach.map { max(0, 1 - abs(Double($0) - p) * scale) }
        let sum = raw.reduce(0, +)
        var w = raw.map { Int(($0 / sum * 256).rounded()) }
        var largest = 0
        for k in w.indices where w[k] > w[largest] { largest = k }
        w[largest] += 256 - w.reduce(0, +)
        return zip(reach, w).map { (min(max($0, 0), size - 1), $1) }
    }

    /// `source` drawn over `destination` by `transform` at opacity `op` (0...256), pixel by
    /// pixel: every destination pixel whose centre maps inside the source takes the
    /// weighted sum of the source pixels ``weights(_:scale:size:)`` gives along each axis
    /// (bilinear, from the four around that point, for a layer that does not shrink).
    static func reference(_ source: PixelBuffer, over destination: PixelBuffer, transform: Transform2D, op: Int) -> [[UInt8]] {
        var out = bytes(destination)
        let src = bytes(source)
        for p in 0..<source.format.planeCount {
            let (sw, sh) = source.planeSize(p), (dw, dh) = destination.planeSize(p)
            let ch = source.format.bytesPerPixel(plane: p)
            let t =
                p == 0
                ? transform
                : Transform2D(scaleX: 2, y: 2).concatenating(transform).concatenating(Transform2D(scaleX: 0.5, y: 0.5))
            let inv = t.inverted()!
            for j in 0..<dh {
                for i in 0..<dw {
                    let u = inv.a * (Double(i) + 0.5) + inv.tx, v = inv.d * (Double(j) + 0.5) + inv.ty
                    guard u >= 0, u < Double(sw), v >= 0, v < Double(sh) else { continue }
                    let across = weights(u - 0.5, scale: abs(t.a), size: sw), down = weights(v - 0.5, scale: abs(t.d), size: sh)
                    for c in 0..<ch {
                        func s(_ x: Int, _ y: Int) -> Int { Int(src[p][(y * sw + x) * ch + c]) }
                        var sum = 0
                        for (y, wy) in down { for (x, wx) in across { sum += s(x, y) * wx * wy } }
                        let sample = (sum + 32768) >> 16
                        let k = (j * dw + i) * ch + c
                        out[p][k] = UInt8((Int(out[p][k]) * (256 - op) + sample * op + 128) >> 8)
                    }
                }
            }
        }
        return out
    }

    /// Where two buffers' bytes first differ, or nil.
    static func firstDifference(_ got: [[UInt8]], _ expected: [[UInt8]]) -> String? {
        for (p, (g, e)) in zip(got, expected).enumerated() {
            if let k = g.indices.first(where: { g[$0] != e[$0] }) { return "plane \(p), byte \(k): \(g[k]), expected \(e[k])" }
        }
        return nil
    }

    static let transforms: [Transform2D] = [
        Transform2D(scaleX: 0.5, y: 0.5).concatenating(Transform2D(translationX: 10, y: 6)),  // halving
        Transform2D(scaleX: 0.5, y: 0.5).concatenating(Transform2D(translationX: 3.5, y: 1.25)),  // half, off the grid
        Transform2D(scaleX: 0.75, y: 0.6).concatenating(Transform2D(translationX: 2, y: 3)),
        Transform2D(scaleX: 1.6, y: 1.3).concatenating(Transform2D(translationX: -7, y: -4)),  // larger, clipped
        Transform2D(scaleX: 0.55, y: 1.2).concatenating(Transform2D(translationX: 1, y: -2)),  // narrower, taller
        Transform2D(scaleX: -0.7, y: 0.9).concatenating(Transform2D(translationX: 30, y: 0.5)),  // mirrored
    ]

    @Test("a layer drawn at half size keeps little of the source's pixel-to-pixel noise (no 2x2 mean's aliasing)")
    func halvingFiltersNoise() {
        let source = Self.noise(width: 256, height: 256, format: .gray8, seed: 3)
        let destination = PixelBuffer(width: 128, height: 128, format: .gray8)
        LayerCompositing.draw(source, onto: destination, transform: Transform2D(scaleX: 0.5, y: 0.5))
        func variance(_ b: [UInt8], margin: Int, width: Int) -> Double {
            let inner = b.indices.filter { ($0 % width) >= margin && ($0 % width) < width - margin && $0 / width >= margin && $0 / width < width - margin }
            let mean = inner.reduce(0.0) { $0 + Double(b[$1]) } / Double(inner.count)
            return inner.reduce(0.0) { $0 + (Double(b[$1]) - mean) * (Double(b[$1]) - mean) } / Double(inner.count)
        }
        let before = variance(Self.bytes(source)[0], margin: 4, width: 256)
        let after = variance(Self.bytes(destination)[0], margin: 2, width: 128)
        // White noise through a 2x2 mean keeps a quarter of its variance; through the
        // triangle widened to two source pixels ([1, 3, 3, 1] / 8 each way) about a tenth.
        #expect(after / before < 0.15, "kept \(after / before) of the variance")
    }

    @Test(
        "halving's regular loop (wide layers, whole columns, clipped or not) gives the per-pixel statement's bytes",
        arguments: [PixelFormat.gray8, .yuv420p, .nv12, .bgra], [1.0, 0.6])
    func halvingWideLayersMatchThePerPixelStatement(format: PixelFormat, opacity: Double) {
        let moves: [(Double, Double)] = [(10, 6), (3, 1), (0, 0), (-9, 2), (41, -3)]
        for (n, move) in moves.enumerated() {
            let transform = Transform2D(scaleX: 0.5, y: 0.5).concatenating(Transform2D(translationX: move.0, y: move.1))
            let source = Self.noise(width: 160, height: 44, format: format, seed: 5)
            let destination = Self.noise(width: 96, height: 30, format: format, seed: 13)
            let expected = Self.reference(source, over: destination, transform: transform, op: Int((opacity * 256).rounded()))
            LayerCompositing.draw(source, onto: destination, transform: transform, opacity: opacity, destinationOpaque: true)
            #expect(Self.firstDifference(Self.bytes(destination), expected) == nil, "move \(n)")
        }
        // The loop is taken: a run of regular columns is found in a wide layer's tables.
        var index = [Int32](repeating: 0, count: 5), weight = [Int32](repeating: 0, count: 5)
        var offsets: [Int32] = [], weights: [Int32] = []
        for i in 0..<80 {
            PlaneJob.taps(2 * Double(i) + 0.5, scale: 0.5, size: 160, count: 5, index: &index, weight: &weight)
            offsets += index; weights += weight
        }
        let run = PlaneJob.halvingRun(offsets: offsets, weights: weights, taps: 5, columns: 0..<80)
        #expect(run?.columns == 1..<79)
    }

    @Test(arguments: [PixelFormat.gray8, .bgra, .yuv420p, .nv12], [1.0, 0.6])
    func scaledLayersMatchThePerPixelStatement(format: PixelFormat, opacity: Double) {
        for (n, transform) in Self.transforms.enumerated() {
            let source = Self.noise(width: 38, height: 24, format: format, seed: 7)
            let destination = Self.noise(width: 40, height: 30, format: format, seed: 11)
            let expected = Self.reference(source, over: destination, transform: transform, op: Int((opacity * 256).rounded()))
            LayerCompositing.draw(source, onto: destination, transform: transform, opacity: opacity, destinationOpaque: true)
            #expect(Self.firstDifference(Self.bytes(destination), expected) == nil, "transform \(n)")
        }
    }
}
