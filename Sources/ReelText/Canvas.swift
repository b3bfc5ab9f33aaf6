import ReelCore

/// Draws text, filled rectangles and coverage masks into a frame, blending with straight
/// alpha, directly in the frame's own format: BGRA, RGBA or planar YUV 4:2:0.
///
/// In YUV the luma plane is blended per pixel and each chroma sample by the mean
/// coverage of the four luma pixels it covers, so a dashboard drawn over camera footage
/// never converts the frame to RGB and back: only the pixels under the shapes are touched.
///
/// The canvas writes into its buffer: use it only on a buffer you produce (a render
/// context's new buffer), before handing it on.
public struct Canvas {
    public let buffer: PixelBuffer
    private let matrix: String?

    /// A canvas over `buffer`.
    ///
    /// - Throws: `invalidArgument` for a format it cannot draw into (nv12, gray8).
    public init(_ buffer: PixelBuffer) throws(ReelError) {
        guard [.bgra, .rgba, .yuv420p].contains(buffer.format) else {
            throw ReelError(.invalidArgument, "a canvas draws into bgra, rgba or yuv420p frames, not \(buffer.format)")
        }
        self.buffer = buffer
        self.matrix = buffer.colorProperties.matrix
    }

    public var width: Int { buffer.width }
    public var height: Int { buffer.height }

    // MARK: Shapes

    /// Fills the pixels `x..<x+width`, `y..<y+height` (clipped to the frame) with `color`,
    /// blended by its alpha.
    public func fill(x: Int, y: Int, width w: Int, height h: Int, color: Color) {
        let paint = Paint(color, matrix: matrix)
        let x0 = max(x, 0), y0 = max(y, 0), x1 = min(x + w, width), y1 = min(y + h, height)
        guard x0 < x1, y0 < y1, paint.a > 0 else { return }
        blend(x0: x0, y0: y0, x1: x1, y1: y1, paint: paint) { _, _ in 255 }
    }

    /// Blends `mask` with its top-left corner at `(x, y)`, in `color`.
    public func draw(_ mask: CoverageMask, x: Int, y: Int, color: Color) {
        mask.coverage.withUnsafeBufferPointer { cov in
            blendCoverage(cov.baseAddress!, stride: mask.width, width: mask.width, height: mask.height, x: x, y: y,
                          paint: Paint(color, matrix: matrix))
        }
    }

    // MARK: Text

    /// Draws `text` on one line, its baseline at `baseline`, starting at `x`
    /// (`alignment` `.right` ends at `x`, `.center` centres on it). Returns the advance width.
    @discardableResult
    public func draw(_ text: String, font: Font, x: Int, baseline: Int, color: Color,
                     alignment: TextAlignment = .left) -> Int {
        let paint = Paint(color, matrix: matrix)
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
                    blendCoverage(cov.baseAddress!, stride: g.width, width: g.width, height: g.height,
                                  x: pen + g.left, y: baseline - g.top, paint: paint)
                }
            }
            pen += g.advance
        }
        return total
    }

    // MARK: Blending

    private func blendCoverage(_ cov: UnsafePointer<UInt8>, stride: Int, width w: Int, height h: Int,
                               x: Int, y: Int, paint: Paint) {
        let x0 = max(x, 0), y0 = max(y, 0), x1 = min(x + w, width), y1 = min(y + h, height)
        guard x0 < x1, y0 < y1, paint.a > 0 else { return }
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
                        for cx in cx0..<cx1 {
                            var sum = 0
                            for ly in (2 * cy)...(2 * cy + 1) where ly >= y0 && ly < y1 {
                                for lx in (2 * cx)...(2 * cx + 1) where lx >= x0 && lx < x1 {
                                    sum += coverage(lx, ly)
                                }
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

/// Where a line of text sits relative to the `x` it is drawn at.
public enum TextAlignment: Sendable, Hashable {
    case left, right, center
}
