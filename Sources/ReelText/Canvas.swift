import ReelCore

/// Draws text, filled rectangles and coverage masks into a frame, blending with straight
/// alpha, directly in the frame's own format: BGRA, RGBA or planar YUV 4:2:0 (colours in
/// the frame's `PixelBuffer/ycbcrEncoding`, the matrix and range the writer tags).
///
/// In YUV the luma plane is blended per pixel and each chroma sample by the mean
/// coverage of the four luma pixels it covers, so a dashboard drawn over camera footage
/// never converts the frame to RGB and back: only the pixels under the shapes are touched.
///
/// The canvas writes into its buffer: use it only on a buffer you produce (a render
/// context's new buffer), before handing it on.
public struct Canvas {
    public let buffer: PixelBuffer
    private let encoding: YCbCrEncoding

    /// A canvas over `buffer`.
    ///
    /// - Throws: `invalidArgument` for a format it cannot draw into (nv12, gray8).
    public init(_ buffer: PixelBuffer) throws(ReelError) {
        guard [.bgra, .rgba, .yuv420p].contains(buffer.format) else {
            throw ReelError(.invalidArgument, "a canvas draws into bgra, rgba or yuv420p frames, not \(buffer.format)")
        }
        self.buffer = buffer
        self.encoding = buffer.ycbcrEncoding
    }

    public var width: Int { buffer.width }
    public var height: Int { buffer.height }

    // MARK: Shapes

    /// Fills the pixels `x..<x+width`, `y..<y+height` (clipped to the frame) with `color`,
    /// blended by its alpha.
    public func fill(x: Int, y: Int, width w: Int, height h: Int, color: Color) {
        let paint = Paint(color, encoding: encoding)
        let x0 = max(x, 0), y0 = max(y, 0), x1 = min(x + w, width), y1 = min(y + h, height)
        guard x0 < x1, y0 < y1, paint.a > 0 else { return }
        if buffer.format == .yuv420p {
            fillYUV(x0: x0, y0: y0, x1: x1, y1: y1, paint: paint)
        } else {
            blend(x0: x0, y0: y0, x1: x1, y1: y1, paint: paint) { _, _ in 255 }
        }
    }

    /// Blends `mask` with its top-left corner at `(x, y)`, in `color`.
    public func draw(_ mask: CoverageMask, x: Int, y: Int, color: Color) {
        mask.coverage.withUnsafeBufferPointer { cov in
            blendCoverage(
                cov.baseAddress!, stride: mask.width, width: mask.width, height: mask.height, x: x, y: y,
                paint: Paint(color, encoding: encoding))
        }
    }

    // MARK: Text

    /// Draws `text` on one line, its baseline at `baseline`, starting at `x`
    /// (`alignment` `.right` ends at `x`, `.center` centres on it). Returns the advance width.
    @discardableResult
    public func draw(
        _ text: String, font: Font, x: Int, baseline: Int, color: Color,
        alignment: TextAlignment = .left
    ) -> Int {
        let paint = Paint(color, encoding: encoding)
        let glyphs = font.glyphs(text)
        let total = glyphs.reduce(0) { $0 + $1.advance }
        var pen: Int
        switch alignment {
        case .left: pen = x
        case .right: pen = x - total
        case .center: pen = x - total / 2
        }
        for g in glyphs {
            if g.width > 0, g.height > 0 {
                g.coverage.withUnsafeBufferPointer { cov in
                    blendCoverage(
                        cov.baseAddress!, stride: g.width, width: g.width, height: g.height,
                        x: pen + g.left, y: baseline - g.top, paint: paint)
                }
            }
            pen += g.advance
        }
        return total
    }

    // MARK: Blending

    private func blendCoverage(
        _ cov: UnsafePointer<UInt8>, stride: Int, width w: Int, height h: Int,
        x: Int, y: Int, paint: Paint
    ) {
        var x0 = max(x, 0), y0 = max(y, 0), x1 = min(x + w, width), y1 = min(y + h, height)
        guard x0 < x1, y0 < y1, paint.a > 0 else { return }
        // Blend only the mask's covered box: a route on a map or a glyph's bitmap is mostly
        // empty, and empty coverage changes nothing.
        func rowEmpty(_ py: Int) -> Bool { UnsafeBufferPointer(start: cov + (py - y) * stride + (x0 - x), count: x1 - x0).allSatisfy { $0 == 0 } }
        while y0 < y1 && rowEmpty(y0) { y0 += 1 }
        while y1 > y0 && rowEmpty(y1 - 1) { y1 -= 1 }
        guard y0 < y1 else { return }
        func columnEmpty(_ px: Int) -> Bool { (y0..<y1).allSatisfy { cov[($0 - y) * stride + (px - x)] == 0 } }
        while x0 < x1 && columnEmpty(x0) { x0 += 1 }
        while x1 > x0 && columnEmpty(x1 - 1) { x1 -= 1 }
        blend(x0: x0, y0: y0, x1: x1, y1: y1, paint: paint) { px, py in Int(cov[(py - y) * stride + (px - x)]) }
    }

    /// Blends `paint` over the rectangle `[x0, x1) x [y0, y1)` (already clipped), with the
    /// coverage of frame pixel `(x, y)` given by `coverage`.
    @inline(__always)
    private func blend(x0: Int, y0: Int, x1: Int, y1: Int, paint: Paint, coverage: (Int, Int) -> Int) {
        switch buffer.format {
        case .bgra, .rgba:
            let (c0, c2) = buffer.format == .bgra ? (paint.b, paint.r) : (paint.r, paint.b)
            let stride = buffer.bytesPerRow[0]
            buffer.withUnsafeMutableBytes(plane: 0) { raw in
                let base = raw.baseAddress!.assumingMemoryBound(to: UInt8.self)
                for py in y0..<y1 {
                    let row = base + py * stride
                    for px in x0..<x1 {
                        let a = paint.alpha(coverage: coverage(px, py))
                        guard a > 0 else { continue }
                        let p = row + px * 4
                        p[0] = Paint.mix(p[0], c0, a)
                        p[1] = Paint.mix(p[1], paint.g, a)
                        p[2] = Paint.mix(p[2], c2, a)
                        p[3] = Paint.mix(p[3], 255, a)
                    }
                }
            }
        case .yuv420p:
            let ys = buffer.bytesPerRow[0]
            buffer.withUnsafeMutableBytes(plane: 0) { raw in
                let base = raw.baseAddress!.assumingMemoryBound(to: UInt8.self)
                for py in y0..<y1 {
                    let row = base + py * ys
                    for px in x0..<x1 {
                        let a = paint.alpha(coverage: coverage(px, py))
                        if a > 0 { row[px] = Paint.mix(row[px], paint.y, a) }
                    }
                }
            }
            // Chroma: each sample covers luma (2cx...2cx+1, 2cy...2cy+1); pixels outside the
            // rectangle count as uncovered.
            let cx0 = x0 / 2, cx1 = (x1 + 1) / 2, cy0 = y0 / 2, cy1 = (y1 + 1) / 2
            let us = buffer.bytesPerRow[1], vs = buffer.bytesPerRow[2]
            buffer.withUnsafeMutableBytes(plane: 1) { uRaw in
                buffer.withUnsafeMutableBytes(plane: 2) { vRaw in
                    let u = uRaw.baseAddress!.assumingMemoryBound(to: UInt8.self)
                    let v = vRaw.baseAddress!.assumingMemoryBound(to: UInt8.self)
                    for cy in cy0..<cy1 {
                        let top = 2 * cy, bottom = top + 1
                        let hasTop = top >= y0, hasBottom = bottom < y1
                        for cx in cx0..<cx1 {
                            let left = 2 * cx, right = left + 1
                            let hasLeft = left >= x0, hasRight = right < x1
                            var sum = 0
                            if hasTop {
                                if hasLeft { sum += coverage(left, top) }
                                if hasRight { sum += coverage(right, top) }
                            }
                            if hasBottom {
                                if hasLeft { sum += coverage(left, bottom) }
                                if hasRight { sum += coverage(right, bottom) }
                            }
                            let a = paint.alpha(coverage: (sum + 2) / 4)
                            guard a > 0 else { continue }
                            u[cy * us + cx] = Paint.mix(u[cy * us + cx], paint.cb, a)
                            v[cy * vs + cx] = Paint.mix(v[cy * vs + cx], paint.cr, a)
                        }
                    }
                }
            }
        default:
            break
        }
    }
}

extension Canvas {
    /// ``fill(x:y:width:height:color:)`` in planar YUV: the same bytes as blending a mask of
    /// full coverage, with one alpha per row (a chroma sample half inside the rectangle
    /// takes half the coverage) in loops the compiler vectorises.
    func fillYUV(x0: Int, y0: Int, x1: Int, y1: Int, paint: Paint) {
        buffer.withUnsafeMutableBytes(plane: 0) { raw in
            let base = raw.baseAddress!.assumingMemoryBound(to: UInt8.self), stride = buffer.bytesPerRow[0]
            for py in y0..<y1 { Self.mix(base + py * stride + x0, count: x1 - x0, toward: paint.y, alpha: paint.a) }
        }
        let cx0 = x0 / 2, cx1 = (x1 + 1) / 2, cy0 = y0 / 2, cy1 = (y1 + 1) / 2
        for (plane, value) in [(1, paint.cb), (2, paint.cr)] {
            buffer.withUnsafeMutableBytes(plane: plane) { raw in
                let base = raw.baseAddress!.assumingMemoryBound(to: UInt8.self), stride = buffer.bytesPerRow[plane]
                for cy in cy0..<cy1 {
                    // How many of the sample's two luma rows and two columns are inside.
                    let rows = (2 * cy >= y0 ? 1 : 0) + (2 * cy + 1 < y1 ? 1 : 0)
                    func alpha(columns: Int) -> Int { paint.alpha(coverage: (255 * rows * columns + 2) / 4) }
                    let row = base + cy * stride
                    var from = cx0, to = cx1
                    if 2 * cx0 < x0 {
                        row[cx0] = Paint.mix(row[cx0], value, alpha(columns: 1))
                        from += 1
                    }
                    if to - 1 >= from && 2 * (to - 1) + 1 >= x1 {
                        row[to - 1] = Paint.mix(row[to - 1], value, alpha(columns: 1))
                        to -= 1
                    }
                    if from < to { Self.mix(row + from, count: to - from, toward: value, alpha: alpha(columns: 2)) }
                }
            }
        }
    }

    /// ``Paint/mix(_:_:_:)`` over `count` bytes with one value and alpha, in 16-bit lanes
    /// (`d * (255 - a) + s * a + 128` is at most 65153).
    @inline(__always)
    static func mix(_ row: UnsafeMutablePointer<UInt8>, count: Int, toward value: Int, alpha: Int) {
        guard alpha > 0 else { return }
        let keep = UInt16(255 - alpha), s = UInt16(value) &* UInt16(alpha) &+ 128
        for i in 0..<count {
            let x = UInt16(row[i]) &* keep &+ s
            row[i] = UInt8(truncatingIfNeeded: (x &+ (x &>> 8)) &>> 8)
        }
    }
}

/// Where a line of text sits relative to the `x` it is drawn at.
public enum TextAlignment: Sendable, Hashable {
    case left, right, center
}
