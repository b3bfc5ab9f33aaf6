/// Draws one layer (a source frame with a transform, crop rectangle and opacity) over a
/// frame of the same pixel format: the pixel work of the built-in compositor.
///
/// Per plane, the kernels pick the cheapest path that is exact for the layer:
/// - integer translation, full opacity, opaque source: row copies;
/// - integer translation otherwise: a blend, no resampling;
/// - scale and translation: separable bilinear, a vertical pass then a horizontal one,
///   the kernel widened along an axis that shrinks (an anti-aliased downscale);
/// - any other affine transform: bilinear along each row with incremental coordinates.
/// Coordinates are fixed point (16 fractional bits) and weights 8-bit: no floating point
/// per pixel. BGRA/RGBA blend with straight alpha ("over"); YUV planes blend by opacity.
enum LayerCompositing {
    /// Draws `source` over `destination` (same format): source pixel coordinates are mapped
    /// to destination pixels by `transform`, only the part inside `crop` (source pixels) is
    /// drawn, with `opacity` 0...1.
    ///
    /// `destinationOpaque` promises that every destination pixel has alpha 255 (an opaque
    /// background), which lets an opaque source blend channel by channel.
    static func draw(
        _ source: PixelBuffer, onto destination: PixelBuffer, transform: Transform2D,
        crop: Rect = .infinite, opacity: Double = 1, destinationOpaque: Bool = false
    ) {
        precondition(source.format == destination.format, "a layer is drawn in the destination's format")
        guard opacity.isFinite else { return }
        let op = Int((min(max(opacity, 0), 1) * 256).rounded())
        guard op > 0 else { return }
        render(source, destination, transform: transform, crop: crop, op: op, replace: false, destinationOpaque: destinationOpaque)
    }

    /// Scales `source` to fill `destination` (same format), replacing its pixels.
    static func resize(_ source: PixelBuffer, into destination: PixelBuffer) {
        precondition(source.format == destination.format, "resizing keeps the format")
        let t = Transform2D(
            scaleX: Double(destination.width) / Double(source.width),
            y: Double(destination.height) / Double(source.height))
        render(source, destination, transform: t, crop: .infinite, op: 256, replace: true, destinationOpaque: false)
    }

    /// Whether every pixel of a BGRA/RGBA buffer has alpha 255 (always true without alpha).
    static func isOpaque(_ buffer: PixelBuffer) -> Bool {
        guard buffer.format.hasAlpha else { return true }
        let (w, h) = (buffer.width, buffer.height), stride = buffer.bytesPerRow[0]
        return buffer.withUnsafeBytes(plane: 0) { raw -> Bool in
            guard let base = raw.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return false }
            for y in 0..<h {
                let row = base + y * stride
                var all: UInt8 = 255
                for x in 0..<w { all &= row[4 * x + 3] }
                if all != 255 { return false }
            }
            return true
        }
    }

    private static func render(
        _ source: PixelBuffer, _ destination: PixelBuffer, transform: Transform2D,
        crop: Rect, op: Int, replace: Bool, destinationOpaque: Bool
    ) {
        let format = source.format
        let sourceOpaque = replace || isOpaque(source)
        source.withPlaneViews { s in
            destination.withPlaneViews { d in
                for p in 0..<format.planeCount {
                    let (sw, sh) = source.planeSize(p), (dw, dh) = destination.planeSize(p)
                    let factor = p == 0 ? 1.0 : 2.0
                    // Plane coordinates: chroma pixels cover 2x2 luma pixels.
                    let planeTransform =
                        factor == 1
                        ? transform
                        : Transform2D(scaleX: factor, y: factor).concatenating(transform).concatenating(Transform2D(scaleX: 1 / factor, y: 1 / factor))
                    var cover = Rect(x: 0, y: 0, width: Double(sw), height: Double(sh))
                    if !crop.isInfinite {
                        cover = cover.intersection(
                            Rect(
                                x: crop.minX / factor, y: crop.minY / factor,
                                width: crop.width / factor, height: crop.height / factor))
                    }
                    guard !cover.isEmpty, [cover.minX, cover.minY, cover.maxX, cover.maxY].allSatisfy(\.isFinite),
                        let inverse = planeTransform.inverted(),
                        [inverse.a, inverse.b, inverse.c, inverse.d, inverse.tx, inverse.ty].allSatisfy(\.isFinite)
                    else { continue }
                    let plane = PlaneJob(
                        src: s.base[p], srcStride: s.stride[p], srcWidth: sw, srcHeight: sh,
                        dst: d.base[p], dstStride: d.stride[p], dstWidth: dw, dstHeight: dh,
                        channels: format.bytesPerPixel(plane: p), hasAlpha: format.hasAlpha,
                        forward: planeTransform, inverse: inverse, cover: cover, op: op, replace: replace,
                        sourceOpaque: sourceOpaque, uniform: !format.hasAlpha || (sourceOpaque && destinationOpaque))
                    plane.run()
                }
            }
        }
    }
}

/// One plane of one layer: geometry resolved, ready to run a kernel.
struct PlaneJob {
    let src: UnsafeMutablePointer<UInt8>, srcStride: Int, srcWidth: Int, srcHeight: Int
    let dst: UnsafeMutablePointer<UInt8>, dstStride: Int, dstWidth: Int, dstHeight: Int
    let channels: Int
    let hasAlpha: Bool
    let forward: Transform2D
    let inverse: Transform2D
    /// The drawn part of the source, in source plane pixels.
    let cover: Rect
    /// Opacity, 0...256.
    let op: Int
    /// Write samples instead of blending (resizing).
    let replace: Bool
    /// Every source alpha is 255 (or there is no alpha).
    let sourceOpaque: Bool
    /// Blend every channel alike by opacity: no alpha, or opaque source over opaque destination.
    let uniform: Bool

    static let one = 1 << 16

    /// `x` as an Int, clamped to +/- 2^40 so that no geometry, however wild, traps.
    @inline(__always) static func int(_ x: Double) -> Int {
        let limit = 1_099_511_627_776.0
        return x.isNaN ? 0 : Int(min(max(x, -limit), limit))
    }

    /// Destination pixels the layer can touch: the cover's bounding box, clipped.
    var region: (x0: Int, y0: Int, x1: Int, y1: Int)? {
        let box = cover.applying(forward)
        guard box.minX.isFinite, box.maxX.isFinite, box.minY.isFinite, box.maxY.isFinite else { return nil }
        let x0 = max(0, Self.int(box.minX.rounded(.down))), y0 = max(0, Self.int(box.minY.rounded(.down)))
        let x1 = min(dstWidth, Self.int(box.maxX.rounded(.up))), y1 = min(dstHeight, Self.int(box.maxY.rounded(.up)))
        return x0 < x1 && y0 < y1 ? (x0, y0, x1, y1) : nil
    }

    func run() {
        guard let region else { return }
        let f = forward
        if f.a == 1, f.b == 0, f.c == 0, f.d == 1, f.tx == f.tx.rounded(), f.ty == f.ty.rounded(),
            abs(f.tx) < 1e9, abs(f.ty) < 1e9
        {
            translate(dx: Int(f.tx), dy: Int(f.ty))
        } else if f.b == 0, f.c == 0, abs(f.a) < 1 || abs(f.d) < 1 {
            switch channels {
            case 1: shrinking(region, ch: 1)
            case 2: shrinking(region, ch: 2)
            default: shrinking(region, ch: 4)
            }
        } else if f.b == 0, f.c == 0 {
            switch channels {
            case 1: separable(region, ch: 1)
            case 2: separable(region, ch: 2)
            default: separable(region, ch: 4)
            }
        } else {
            switch channels {
            case 1: affine(region, ch: 1)
            case 2: affine(region, ch: 2)
            default: affine(region, ch: 4)
            }
        }
    }

    // MARK: Integer translation

    private func translate(dx: Int, dy: Int) {
        // Covered source pixels: centres inside the cover rectangle.
        let sx0 = max(0, Self.int((cover.minX - 0.5).rounded(.up))), sx1 = min(srcWidth, Self.int((cover.maxX - 0.5).rounded(.up)))
        let sy0 = max(0, Self.int((cover.minY - 0.5).rounded(.up))), sy1 = min(srcHeight, Self.int((cover.maxY - 0.5).rounded(.up)))
        let x0 = max(sx0 + dx, 0), x1 = min(sx1 + dx, dstWidth)
        let y0 = max(sy0 + dy, 0), y1 = min(sy1 + dy, dstHeight)
        guard x0 < x1, y0 < y1 else { return }
        let ch = channels, n = x1 - x0
        if replace || (op == 256 && sourceOpaque) {
            for y in y0..<y1 {
                (dst + y * dstStride + x0 * ch).update(from: src + (y - dy) * srcStride + (x0 - dx) * ch, count: n * ch)
            }
            return
        }
        for y in y0..<y1 {
            let s = src + (y - dy) * srcStride + (x0 - dx) * ch, d = dst + y * dstStride + x0 * ch
            if uniform {
                // 255 * 256 + 128 fits in 16 bits: the loop vectorises.
                let keep = UInt16(256 - op), weight = UInt16(op)
                for i in 0..<(n * ch) {
                    d[i] = UInt8(truncatingIfNeeded: (UInt16(d[i]) &* keep &+ UInt16(s[i]) &* weight &+ 128) &>> 8)
                }
            } else {
                for i in 0..<n { Blend.over4(s + i * 4, d + i * 4, op: op) }
            }
        }
    }

    // MARK: Scale and translation

    /// Two passes per destination row, exact to the four-tap formula of ``put``: the two
    /// source rows are first mixed vertically into 16-bit sums (a loop the compiler
    /// vectorises), then each destination pixel mixes two of those sums horizontally.
    @inline(__always)
    private func separable(_ r: (x0: Int, y0: Int, x1: Int, y1: Int), ch: Int) {
        let inv = inverse
        // Per-column source offsets and weights (computed once per layer, not per pixel).
        var columns: [(o0: Int32, o1: Int32, w: Int32)] = []
        columns.reserveCapacity(r.x1 - r.x0)
        var cx0 = r.x1, cx1 = r.x0
        for i in r.x0..<r.x1 {
            let u = inv.a * (Double(i) + 0.5) + inv.tx
            if u >= cover.minX && u < cover.maxX { cx0 = min(cx0, i); cx1 = max(cx1, i + 1) }
            let (a, b, w) = Self.tap(u - 0.5, size: srcWidth)
            columns.append((Int32(a * ch), Int32(b * ch), Int32(w)))
        }
        guard cx0 < cx1 else { return }
        // The source bytes the drawn columns read.
        var lo = Int.max, hi = 0
        for c in columns[(cx0 - r.x0)..<(cx1 - r.x0)] { lo = min(lo, Int(c.o0)); hi = max(hi, Int(c.o1) + ch) }
        let span = hi - lo
        let mix = UnsafeMutablePointer<UInt16>.allocate(capacity: span)
        defer { mix.deallocate() }
        // Samples written as they are (for one or two channels, blending at full opacity
        // gives the same bytes).
        let direct = replace || op == 256
        columns.withUnsafeBufferPointer { table in
            for j in r.y0..<r.y1 {
                let v = inv.d * (Double(j) + 0.5) + inv.ty
                guard v >= cover.minY && v < cover.maxY else { continue }
                let (y0, y1, fy) = Self.tap(v - 0.5, size: srcHeight)
                Self.mixRows(src + y0 * srcStride + lo, src + y1 * srcStride + lo, weight: fy, into: mix, count: span)
                let m = mix - lo, drow = dst + j * dstStride
                for i in cx0..<cx1 {
                    let c = table[i - r.x0]
                    let fx = Int(c.w), gx = 256 - fx
                    let a = m + Int(c.o0), b = m + Int(c.o1), d = drow + i * ch
                    switch ch {
                    case 1:
                        let s = (Int(a[0]) &* gx &+ Int(b[0]) &* fx &+ 32768) &>> 16
                        d[0] = direct ? UInt8(truncatingIfNeeded: s) : blend(d[0], s)
                    case 2:
                        let s0 = (Int(a[0]) &* gx &+ Int(b[0]) &* fx &+ 32768) &>> 16
                        let s1 = (Int(a[1]) &* gx &+ Int(b[1]) &* fx &+ 32768) &>> 16
                        d[0] = direct ? UInt8(truncatingIfNeeded: s0) : blend(d[0], s0)
                        d[1] = direct ? UInt8(truncatingIfNeeded: s1) : blend(d[1], s1)
                    default:
                        let s0 = (Int(a[0]) &* gx &+ Int(b[0]) &* fx &+ 32768) &>> 16
                        let s1 = (Int(a[1]) &* gx &+ Int(b[1]) &* fx &+ 32768) &>> 16
                        let s2 = (Int(a[2]) &* gx &+ Int(b[2]) &* fx &+ 32768) &>> 16
                        let s3 = (Int(a[3]) &* gx &+ Int(b[3]) &* fx &+ 32768) &>> 16
                        store4(d, (s0, s1, s2, s3))
                    }
                }
            }
        }
    }

    // MARK: Shrinking

    /// A layer drawn smaller along at least one axis: the same two passes as
    /// ``separable(_:ch:)`` with more taps. Along a shrinking axis each destination sample
    /// takes the triangle (bilinear) kernel widened by the inverse of the scale, as
    /// libswscale's bilinear filter does, so that every source sample under it counts:
    /// sampling the two nearest only (a 2x2 mean at exactly half size) lets grain and fine
    /// detail alias into the smaller picture, which shows and costs bits. An axis that keeps
    /// or grows its size samples bilinearly, exactly as ``separable(_:ch:)`` does.
    /// (``BoxDownscale`` halves a source first while the scale is under one half, so an axis
    /// here has at most five taps.)
    @inline(__always)
    private func shrinking(_ r: (x0: Int, y0: Int, x1: Int, y1: Int), ch: Int) {
        let inv = inverse
        let scaleX = abs(forward.a), scaleY = abs(forward.d)
        let nx = Self.tapCount(scale: scaleX), ny = Self.tapCount(scale: scaleY)
        // Per-column source byte offsets and weights, `nx` each (computed once per layer).
        var offsets = [Int32](repeating: 0, count: (r.x1 - r.x0) * nx)
        var weights = [Int32](repeating: 0, count: (r.x1 - r.x0) * nx)
        var cx0 = r.x1, cx1 = r.x0
        var index = [Int32](repeating: 0, count: max(nx, ny)), weight = [Int32](repeating: 0, count: max(nx, ny))
        for i in r.x0..<r.x1 {
            let u = inv.a * (Double(i) + 0.5) + inv.tx
            if u >= cover.minX && u < cover.maxX { cx0 = min(cx0, i); cx1 = max(cx1, i + 1) }
            Self.taps(u - 0.5, scale: scaleX, size: srcWidth, count: nx, index: &index, weight: &weight)
            for t in 0..<nx {
                offsets[(i - r.x0) * nx + t] = index[t] * Int32(ch)
                weights[(i - r.x0) * nx + t] = weight[t]
            }
        }
        guard cx0 < cx1 else { return }
        var lo = Int.max, hi = 0
        for k in ((cx0 - r.x0) * nx)..<((cx1 - r.x0) * nx) {
            lo = min(lo, Int(offsets[k])); hi = max(hi, Int(offsets[k]) + ch)
        }
        guard lo < hi else { return }
        let span = hi - lo
        // Weights sum to 256 and are never negative: a vertical sum is at most 255 * 256.
        let mix = UnsafeMutablePointer<UInt16>.allocate(capacity: span)
        defer { mix.deallocate() }
        let direct = replace || op == 256
        let halving = ch == 1 ? Self.halvingRun(offsets: offsets, weights: weights, taps: nx, columns: cx0 - r.x0..<cx1 - r.x0) : nil
        // The destination columns the halving loop writes; the general loop does the rest.
        let halved = halving.map { r.x0 + $0.columns.lowerBound..<r.x0 + $0.columns.upperBound } ?? cx0..<cx0
        offsets.withUnsafeBufferPointer { offsetTable in
            weights.withUnsafeBufferPointer { weightTable in
                for j in r.y0..<r.y1 {
                    let v = inv.d * (Double(j) + 0.5) + inv.ty
                    guard v >= cover.minY && v < cover.maxY else { continue }
                    Self.taps(v - 0.5, scale: scaleY, size: srcHeight, count: ny, index: &index, weight: &weight)
                    mix.initialize(repeating: 0, count: span)
                    for t in 0..<ny where weight[t] != 0 {
                        let row = src + Int(index[t]) * srcStride + lo, w = UInt16(weight[t])
                        for k in 0..<span { mix[k] = mix[k] &+ UInt16(row[k]) &* w }
                    }
                    let m = mix - lo, drow = dst + j * dstStride
                    if let halving {
                        // The columns whose taps are the regular halving pattern.
                        Self.halve(
                            UnsafePointer(m + halving.firstOffset), into: drow + r.x0 + halving.columns.lowerBound,
                            count: halving.columns.count, direct: direct, opacity: op)
                    }
                    var i = cx0
                    while i < cx1 {
                        if i == halved.lowerBound, !halved.isEmpty { i = halved.upperBound; continue }
                        defer { i += 1 }
                        let base = (i - r.x0) * nx, d = drow + i * ch
                        var s0 = 32768, s1 = 32768, s2 = 32768, s3 = 32768
                        for t in 0..<nx {
                            let w = Int(weightTable[base + t]), a = m + Int(offsetTable[base + t])
                            s0 = s0 &+ Int(a[0]) &* w
                            if ch > 1 { s1 = s1 &+ Int(a[1]) &* w }
                            if ch > 2 { s2 = s2 &+ Int(a[2]) &* w; s3 = s3 &+ Int(a[3]) &* w }
                        }
                        switch ch {
                        case 1:
                            d[0] = direct ? UInt8(truncatingIfNeeded: s0 &>> 16) : blend(d[0], s0 &>> 16)
                        case 2:
                            d[0] = direct ? UInt8(truncatingIfNeeded: s0 &>> 16) : blend(d[0], s0 &>> 16)
                            d[1] = direct ? UInt8(truncatingIfNeeded: s1 &>> 16) : blend(d[1], s1 &>> 16)
                        default:
                            store4(d, (s0 &>> 16, s1 &>> 16, s2 &>> 16, s3 &>> 16))
                        }
                    }
                }
            }
        }
    }

    /// The widest run of columns (indices into the tables, inside `columns`) whose taps are
    /// exactly halving's: four source samples from two past the previous column's first,
    /// weighted 32, 96, 96, 32 (the triangle at scale 1/2), the rest of the taps 0. These
    /// the horizontal pass computes in one regular loop (``halve(_:into:count:direct:opacity:)``),
    /// to the same bytes as the general one. Nil for a run shorter than 16 columns.
    static func halvingRun(offsets: [Int32], weights: [Int32], taps n: Int, columns: Range<Int>) -> (columns: Range<Int>, firstOffset: Int)? {
        guard n >= 4 else { return nil }
        func regular(_ c: Int) -> Bool {
            let b = c * n
            guard weights[b] == 32, weights[b + 1] == 96, weights[b + 2] == 96, weights[b + 3] == 32 else { return false }
            for t in 4..<n where weights[b + t] != 0 { return false }
            return offsets[b + 1] == offsets[b] + 1 && offsets[b + 2] == offsets[b] + 2 && offsets[b + 3] == offsets[b] + 3
        }
        var best: Range<Int> = columns.lowerBound..<columns.lowerBound
        var c = columns.lowerBound
        while c < columns.upperBound {
            guard regular(c) else { c += 1; continue }
            var end = c + 1
            while end < columns.upperBound, regular(end), offsets[end * n] == offsets[(end - 1) * n] + 2 { end += 1 }
            if end - c > best.count { best = c..<end }
            c = end
        }
        guard best.count >= 16 else { return nil }
        return (best, Int(offsets[best.lowerBound * n]))
    }

    /// One row of halving's horizontal pass: `out[i]` from `mix[2i ..< 2i + 4]` (vertical
    /// sums, at most 255 * 256) weighted 32, 96, 96, 32, written or blended at `opacity`.
    @inline(__always)
    static func halve(_ mix: UnsafePointer<UInt16>, into out: UnsafeMutablePointer<UInt8>, count: Int, direct: Bool, opacity: Int) {
        if direct {
            for i in 0..<count {
                let a = UInt32(mix[2 &* i]), b = UInt32(mix[2 &* i &+ 1]), c = UInt32(mix[2 &* i &+ 2]), d = UInt32(mix[2 &* i &+ 3])
                out[i] = UInt8(truncatingIfNeeded: (32768 &+ 32 &* (a &+ d) &+ 96 &* (b &+ c)) &>> 16)
            }
        } else {
            for i in 0..<count {
                let a = UInt32(mix[2 &* i]), b = UInt32(mix[2 &* i &+ 1]), c = UInt32(mix[2 &* i &+ 2]), d = UInt32(mix[2 &* i &+ 3])
                let s = Int((32768 &+ 32 &* (a &+ d) &+ 96 &* (b &+ c)) &>> 16)
                out[i] = UInt8(truncatingIfNeeded: (Int(out[i]) &* (256 &- opacity) &+ s &* opacity &+ 128) &>> 8)
            }
        }
    }

    /// How many taps an axis scaled by `scale` reads per destination sample: two when it
    /// keeps or grows its size, else every sample the widened triangle reaches.
    static func tapCount(scale: Double) -> Int {
        scale >= 1 || !(scale > 0) ? 2 : Int(min(2 / scale, 64)) + 1
    }

    /// The source samples a destination sample at source position `p` (pixel-index space)
    /// reads along an axis scaled by `scale`, and their 8-bit weights, which sum to 256:
    /// the two neighbours, bilinearly (as ``tap(_:size:)``), for a scale of 1 or more; for a
    /// smaller one the triangle `1 - |x - p| * scale`, normalised. Indices are clamped to
    /// the plane; unused taps have weight 0.
    static func taps(_ p: Double, scale: Double, size: Int, count n: Int, index: inout [Int32], weight: inout [Int32]) {
        for t in 0..<n { index[t] = 0; weight[t] = 0 }
        guard scale < 1, scale > 0 else {
            let (a, b, w) = tap(p, size: size)
            index[0] = Int32(a); weight[0] = Int32(256 - w)
            index[1] = Int32(b); weight[1] = Int32(w)
            return
        }
        let first = int((p - 1 / scale).rounded(.down)) + 1
        @inline(__always) func triangle(_ t: Int) -> Double { max(0, 1 - abs(Double(first + t) - p) * scale) }
        var sum = 0.0
        for t in 0..<n { sum += triangle(t) }
        var total: Int32 = 0, largest = 0
        for t in 0..<n {
            index[t] = Int32(min(max(first + t, 0), size - 1))
            weight[t] = Int32((triangle(t) / sum * 256).rounded())
            total += weight[t]
            if weight[t] > weight[largest] { largest = t }
        }
        weight[largest] += 256 - total
    }

    /// `out[k] = top[k] * (256 - weight) + bottom[k] * weight`: at most 255 * 256, so
    /// 16 bits hold it.
    @inline(__always)
    static func mixRows(
        _ top: UnsafePointer<UInt8>, _ bottom: UnsafePointer<UInt8>, weight: Int,
        into out: UnsafeMutablePointer<UInt16>, count: Int
    ) {
        let w = UInt16(weight), g = UInt16(256 - weight)
        for k in 0..<count { out[k] = UInt16(top[k]) &* g &+ UInt16(bottom[k]) &* w }
    }

    // MARK: General affine

    @inline(__always)
    private func affine(_ r: (x0: Int, y0: Int, x1: Int, y1: Int), ch: Int) {
        let inv = inverse, one = Double(Self.one)
        let du = Self.int((inv.a * one).rounded()), dv = Self.int((inv.b * one).rounded())
        let minU = Self.int((cover.minX * one).rounded(.up)), maxU = Self.int((cover.maxX * one).rounded(.up))
        let minV = Self.int((cover.minY * one).rounded(.up)), maxV = Self.int((cover.maxY * one).rounded(.up))
        let half = Self.one / 2, lastX = srcWidth - 1, lastY = srcHeight - 1
        for j in r.y0..<r.y1 {
            let px = Double(r.x0) + 0.5, py = Double(j) + 0.5
            let u0 = inv.a * px + inv.c * py + inv.tx, v0 = inv.b * px + inv.d * py + inv.ty
            // The columns whose centres map inside the cover, widened by one for rounding.
            guard let (lo, hi) = Self.span(u0, inv.a, cover.minX, cover.maxX, r.x0, r.x1),
                let (lo2, hi2) = Self.span(v0, inv.b, cover.minY, cover.maxY, r.x0, r.x1)
            else { continue }
            let first = max(lo, lo2), last = min(hi, hi2)
            guard first < last else { continue }
            var u = Self.int(((u0 + inv.a * Double(first - r.x0)) * one).rounded())
            var v = Self.int(((v0 + inv.b * Double(first - r.x0)) * one).rounded())
            let drow = dst + j * dstStride
            for i in first..<last {
                defer { u += du; v += dv }
                guard u >= minU && u < maxU && v >= minV && v < maxV else { continue }
                let sx = u - half, sy = v - half
                var x0 = sx >> 16, y0 = sy >> 16
                let fx = (sx >> 8) & 255, fy = (sy >> 8) & 255
                var x1 = x0 + 1, y1 = y0 + 1
                if x0 < 0 { x0 = 0; x1 = 0 } else if x0 >= lastX { x0 = lastX; x1 = lastX }
                if y0 < 0 { y0 = 0; y1 = 0 } else if y0 >= lastY { y0 = lastY; y1 = lastY }
                let row0 = src + y0 * srcStride, row1 = src + y1 * srcStride
                put(drow + i * ch, row0 + x0 * ch, row0 + x1 * ch, row1 + x0 * ch, row1 + x1 * ch, fx: fx, fy: fy, ch: ch)
            }
        }
    }

    /// The columns `i` in `x0..<x1` (widened by one each side) for which
    /// `start + step * (i - x0)` lies in `[low, high)`; nil when none do.
    static func span(_ start: Double, _ step: Double, _ low: Double, _ high: Double, _ x0: Int, _ x1: Int) -> (Int, Int)? {
        if step == 0 { return start >= low && start < high ? (x0, x1) : nil }
        let a = (low - start) / step, b = (high - start) / step
        let limit = 1e9
        let from = min(max(min(a, b), -limit), limit), to = min(max(max(a, b), -limit), limit)
        guard from.isFinite, to.isFinite else { return (x0, x1) }
        let lo = max(x0, x0 + int(from.rounded(.down)) - 1), hi = min(x1, x0 + int(to.rounded(.up)) + 1)
        return lo < hi ? (lo, hi) : nil
    }

    /// The two source indices around position `p` (pixel-index space) and the 8-bit weight
    /// of the second, clamped at the edges.
    @inline(__always)
    static func tap(_ p: Double, size: Int) -> (Int, Int, Int) {
        let fixed = int((p * 256).rounded(.down))
        var i0 = fixed >> 8
        let w = fixed & 255
        if i0 < 0 { return (0, 0, 0) }
        if i0 >= size - 1 { i0 = size - 1; return (i0, i0, 0) }
        return (i0, i0 + 1, w)
    }

    /// Samples bilinearly from the four neighbours and writes or blends into `d`.
    @inline(__always)
    private func put(
        _ d: UnsafeMutablePointer<UInt8>, _ p00: UnsafeMutablePointer<UInt8>, _ p01: UnsafeMutablePointer<UInt8>,
        _ p10: UnsafeMutablePointer<UInt8>, _ p11: UnsafeMutablePointer<UInt8>, fx: Int, fy: Int, ch: Int
    ) {
        let gx = 256 - fx, gy = 256 - fy
        @inline(__always) func sample(_ c: Int) -> Int {
            ((Int(p00[c]) &* gx &+ Int(p01[c]) &* fx) &* gy &+ (Int(p10[c]) &* gx &+ Int(p11[c]) &* fx) &* fy &+ 32768) &>> 16
        }
        if ch == 4 {
            store4(d, (sample(0), sample(1), sample(2), sample(3)))
        } else {
            for c in 0..<ch { store(d + c, sample(c)) }
        }
    }

    /// Writes or blends one sample of a 1- or 2-channel plane.
    @inline(__always)
    private func store(_ d: UnsafeMutablePointer<UInt8>, _ s: Int) {
        d[0] = replace ? UInt8(truncatingIfNeeded: s) : blend(d[0], s)
    }

    /// `s` over `d` at the layer's opacity.
    @inline(__always)
    private func blend(_ d: UInt8, _ s: Int) -> UInt8 {
        UInt8(truncatingIfNeeded: (Int(d) &* (256 &- op) &+ s &* op &+ 128) &>> 8)
    }

    /// Writes or blends one 4-channel pixel (alpha last).
    @inline(__always)
    private func store4(_ d: UnsafeMutablePointer<UInt8>, _ s: (Int, Int, Int, Int)) {
        if replace || (uniform && op == 256) {
            d[0] = UInt8(truncatingIfNeeded: s.0); d[1] = UInt8(truncatingIfNeeded: s.1)
            d[2] = UInt8(truncatingIfNeeded: s.2); d[3] = UInt8(truncatingIfNeeded: s.3)
        } else if uniform {
            let keep = 256 - op
            d[0] = UInt8(truncatingIfNeeded: (Int(d[0]) &* keep &+ s.0 &* op &+ 128) &>> 8)
            d[1] = UInt8(truncatingIfNeeded: (Int(d[1]) &* keep &+ s.1 &* op &+ 128) &>> 8)
            d[2] = UInt8(truncatingIfNeeded: (Int(d[2]) &* keep &+ s.2 &* op &+ 128) &>> 8)
            d[3] = UInt8(truncatingIfNeeded: (Int(d[3]) &* keep &+ s.3 &* op &+ 128) &>> 8)
        } else {
            Blend.over4(s, d, op: op)
        }
    }
}

/// Straight-alpha "over" for 4-channel pixels (alpha last), integer only.
enum Blend {
    /// x / 255, rounded, for 0 <= x <= 255 * 255.
    @inline(__always) static func div255(_ x: Int) -> Int { (x + 128 + ((x + 128) >> 8)) >> 8 }

    @inline(__always)
    static func over4(_ s: UnsafeMutablePointer<UInt8>, _ d: UnsafeMutablePointer<UInt8>, op: Int) {
        over4((Int(s[0]), Int(s[1]), Int(s[2]), Int(s[3])), d, op: op)
    }

    @inline(__always)
    static func over4(_ s: (Int, Int, Int, Int), _ d: UnsafeMutablePointer<UInt8>, op: Int) {
        let a = (s.3 * op + 128) >> 8
        if a == 0 { return }
        let da = Int(d[3])
        if da == 255 {
            let k = 255 - a
            d[0] = UInt8(truncatingIfNeeded: div255(Int(d[0]) * k + s.0 * a))
            d[1] = UInt8(truncatingIfNeeded: div255(Int(d[1]) * k + s.1 * a))
            d[2] = UInt8(truncatingIfNeeded: div255(Int(d[2]) * k + s.2 * a))
            return
        }
        // General case: out alpha (scaled by 255) = a*255 + da*(255-a).
        let outA = a * 255 + da * (255 - a)
        let wd = da * (255 - a), ws = a * 255, halfOut = outA / 2
        d[0] = UInt8(truncatingIfNeeded: (s.0 * ws + Int(d[0]) * wd + halfOut) / outA)
        d[1] = UInt8(truncatingIfNeeded: (s.1 * ws + Int(d[1]) * wd + halfOut) / outA)
        d[2] = UInt8(truncatingIfNeeded: (s.2 * ws + Int(d[2]) * wd + halfOut) / outA)
        d[3] = UInt8(truncatingIfNeeded: (outA + 127) / 255)
    }
}
