import ReelCore

extension RasterImage {
    /// The visible pixels of a frame as an 8-bit image.
    ///
    /// `bgra` and `rgba` give an RGBA image; `yuv420p` and `nv12` give RGB through
    /// ``BT709`` (each chroma sample covers its 2x2 block); `gray8` gives a gray image of
    /// its luma stretched to full range. YUV range follows the buffer's
    /// `colorProperties.fullRange`.
    public init(_ buffer: PixelBuffer) {
        let w = buffer.width, h = buffer.height
        let full = buffer.colorProperties.fullRange
        var out: [UInt8] = []
        switch buffer.format {
        case .bgra, .rgba:
            out.reserveCapacity(w * h * 4)
            let swap = buffer.format == .bgra
            buffer.withUnsafeBytes(plane: 0) { p in
                for y in 0..<h {
                    let row = y * buffer.bytesPerRow[0]
                    for x in 0..<w {
                        let i = row + 4 * x
                        out += swap ? [p[i + 2], p[i + 1], p[i], p[i + 3]] : [p[i], p[i + 1], p[i + 2], p[i + 3]]
                    }
                }
            }
            self.init(width: w, height: h, layout: .rgba, pixels: out)
        case .gray8:
            out.reserveCapacity(w * h)
            buffer.withUnsafeBytes(plane: 0) { p in
                for y in 0..<h {
                    for x in 0..<w {
                        let luma = BT709.normalizedLuma(y: p[y * buffer.bytesPerRow[0] + x], fullRange: full)
                        out.append(BT709.clamp(luma * 255))
                    }
                }
            }
            self.init(width: w, height: h, layout: .gray, pixels: out)
        case .yuv420p, .nv12:
            out.reserveCapacity(w * h * 3)
            for y in 0..<h {
                for x in 0..<w {
                    let (luma, cb, cr) = buffer.ycbcr(x: x, y: y)
                    let p = BT709.rgb(y: luma, cb: cb, cr: cr, fullRange: full)
                    out += [p.r, p.g, p.b]
                }
            }
            self.init(width: w, height: h, layout: .rgb, pixels: out)
        }
    }
}

extension PixelBuffer {
    /// A new buffer (its own memory) with the same size, format, colour properties and pixels.
    public func copy() -> PixelBuffer {
        let out = PixelBuffer(width: width, height: height, format: format)
        out.colorProperties = colorProperties
        for plane in 0..<planeCount {
            withUnsafeBytes(plane: plane) { src in
                out.withUnsafeMutableBytes(plane: plane) { dst in
                    let rows = planeSize(plane).height
                    let rowBytes = planeSize(plane).width * format.bytesPerPixel(plane: plane)
                    for y in 0..<rows {
                        let from = src.baseAddress! + y * bytesPerRow[plane]
                        (dst.baseAddress! + y * out.bytesPerRow[plane]).copyMemory(from: from, byteCount: rowBytes)
                    }
                }
            }
        }
        return out
    }

    /// A frame of `format` holding `image` (its own memory, not pooled).
    ///
    /// RGB(A) formats copy the pixels (opaque when the image has no alpha); YUV formats
    /// convert with limited-range ``BT709``, each chroma sample taken from the average
    /// colour of its 2x2 block; `gray8` keeps limited-range luma. Alpha is dropped for
    /// formats without it.
    public convenience init(_ image: RasterImage, format: PixelFormat) {
        self.init(width: image.width, height: image.height, format: format)
        let w = image.width, h = image.height
        switch format {
        case .bgra, .rgba:
            let swap = format == .bgra
            withUnsafeMutableBytes(plane: 0) { p in
                for y in 0..<h {
                    for x in 0..<w {
                        let c = image.rgba(x: x, y: y)
                        let i = y * bytesPerRow[0] + 4 * x
                        p[i] = swap ? c.b : c.r
                        p[i + 1] = c.g
                        p[i + 2] = swap ? c.r : c.b
                        p[i + 3] = c.a
                    }
                }
            }
        case .gray8, .yuv420p, .nv12:
            withUnsafeMutableBytes(plane: 0) { p in
                for y in 0..<h {
                    for x in 0..<w {
                        p[y * bytesPerRow[0] + x] = BT709.ycbcr(image.rgba(x: x, y: y)).y
                    }
                }
            }
            guard format != .gray8 else { return }
            let (cw, ch) = planeSize(1)
            var cbPlane = [UInt8](repeating: 128, count: cw * ch), crPlane = cbPlane
            for cy in 0..<ch {
                for cx in 0..<cw {
                    var r = 0.0, g = 0.0, b = 0.0, n = 0.0
                    for y in (2 * cy)..<min(2 * cy + 2, h) {
                        for x in (2 * cx)..<min(2 * cx + 2, w) {
                            let c = image.rgba(x: x, y: y)
                            r += Double(c.r); g += Double(c.g); b += Double(c.b); n += 1
                        }
                    }
                    let v = BT709.ycbcr(red: r / n, green: g / n, blue: b / n)
                    cbPlane[cy * cw + cx] = BT709.clamp(v.cb)
                    crPlane[cy * cw + cx] = BT709.clamp(v.cr)
                }
            }
            if format == .yuv420p {
                withUnsafeMutableBytes(plane: 1) { p in
                    for cy in 0..<ch { for cx in 0..<cw { p[cy * bytesPerRow[1] + cx] = cbPlane[cy * cw + cx] } }
                }
                withUnsafeMutableBytes(plane: 2) { p in
                    for cy in 0..<ch { for cx in 0..<cw { p[cy * bytesPerRow[2] + cx] = crPlane[cy * cw + cx] } }
                }
            } else {
                withUnsafeMutableBytes(plane: 1) { p in
                    for cy in 0..<ch {
                        for cx in 0..<cw {
                            p[cy * bytesPerRow[1] + 2 * cx] = cbPlane[cy * cw + cx]
                            p[cy * bytesPerRow[1] + 2 * cx + 1] = crPlane[cy * cw + cx]
                        }
                    }
                }
            }
        }
    }

    /// The Y', Cb, Cr samples that cover pixel (`x`, `y`) of a YUV or gray frame (gray
    /// frames report neutral chroma, 128). For RGB frames, the BT.709 conversion of the pixel.
    public func ycbcr(x: Int, y: Int) -> (y: UInt8, cb: UInt8, cr: UInt8) {
        switch format {
        case .gray8:
            return (withUnsafeBytes(plane: 0) { $0[y * bytesPerRow[0] + x] }, 128, 128)
        case .yuv420p:
            let luma = withUnsafeBytes(plane: 0) { $0[y * bytesPerRow[0] + x] }
            let cb = withUnsafeBytes(plane: 1) { $0[(y / 2) * bytesPerRow[1] + x / 2] }
            let cr = withUnsafeBytes(plane: 2) { $0[(y / 2) * bytesPerRow[2] + x / 2] }
            return (luma, cb, cr)
        case .nv12:
            let luma = withUnsafeBytes(plane: 0) { $0[y * bytesPerRow[0] + x] }
            let (cb, cr) = withUnsafeBytes(plane: 1) { p in
                (p[(y / 2) * bytesPerRow[1] + 2 * (x / 2)], p[(y / 2) * bytesPerRow[1] + 2 * (x / 2) + 1])
            }
            return (luma, cb, cr)
        case .bgra, .rgba:
            return BT709.ycbcr(rgba(x: x, y: y), fullRange: colorProperties.fullRange)
        }
    }

    /// The pixel at (`x`, `y`) as 8-bit RGBA, whatever the format (YUV through ``BT709``,
    /// opaque).
    public func rgba(x: Int, y: Int) -> RGBA {
        switch format {
        case .rgba, .bgra:
            return withUnsafeBytes(plane: 0) { p in
                let i = y * bytesPerRow[0] + 4 * x
                return format == .rgba ? RGBA(p[i], p[i + 1], p[i + 2], p[i + 3]) : RGBA(p[i + 2], p[i + 1], p[i], p[i + 3])
            }
        case .gray8:
            let v = BT709.clamp(BT709.normalizedLuma(y: ycbcr(x: x, y: y).y, fullRange: colorProperties.fullRange) * 255)
            return RGBA(v, v, v, 255)
        case .yuv420p, .nv12:
            let s = ycbcr(x: x, y: y)
            return BT709.rgb(y: s.y, cb: s.cb, cr: s.cr, fullRange: colorProperties.fullRange)
        }
    }

    /// How bright pixel (`x`, `y`) is, 0 (black) to 1 (white): BT.709 luma.
    public func normalizedLuma(x: Int, y: Int) -> Double {
        switch format {
        case .rgba, .bgra:
            let c = rgba(x: x, y: y)
            let luma: Double = BT709.kr * Double(c.r) + BT709.kg * Double(c.g) + BT709.kb * Double(c.b)
            return luma / 255
        case .gray8, .yuv420p, .nv12:
            let luma = withUnsafeBytes(plane: 0) { $0[y * bytesPerRow[0] + x] }
            return BT709.normalizedLuma(y: luma, fullRange: colorProperties.fullRange)
        }
    }
}
