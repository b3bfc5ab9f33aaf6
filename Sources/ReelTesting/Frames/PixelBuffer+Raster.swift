import ReelCore

extension RasterImage {
    /// The visible pixels of a frame as an 8-bit image.
    ///
    /// `bgra` and `rgba` give an RGBA image; `yuv420p` and `nv12` give RGB in the buffer's
    /// `PixelBuffer/ycbcrEncoding` (each chroma sample covers its 2x2 block); `gray8`
    /// gives a gray image of its luma stretched to full range.
    public init(_ buffer: PixelBuffer) {
        let w = buffer.width, h = buffer.height
        let encoding = buffer.ycbcrEncoding
        var out: [UInt8] = []
        switch buffer.format {
        case .bgra, .rgba:
            out = [UInt8](repeating: 0, count: w * h * 4)
            let swap = buffer.format == .bgra
            buffer.withUnsafeBytes(plane: 0) { p in
                out.withUnsafeMutableBufferPointer { dst in
                    for y in 0..<h {
                        let row = y * buffer.bytesPerRow[0]
                        for x in 0..<w {
                            let i = row + 4 * x, o = (y * w + x) * 4
                            dst[o] = swap ? p[i + 2] : p[i]
                            dst[o + 1] = p[i + 1]
                            dst[o + 2] = swap ? p[i] : p[i + 2]
                            dst[o + 3] = p[i + 3]
                        }
                    }
                }
            }
            self.init(width: w, height: h, layout: .rgba, pixels: out)
        case .gray8:
            out.reserveCapacity(w * h)
            buffer.withUnsafeBytes(plane: 0) { p in
                for y in 0..<h {
                    for x in 0..<w {
                        out.append(encoding.grayLevel(y: p[y * buffer.bytesPerRow[0] + x]))
                    }
                }
            }
            self.init(width: w, height: h, layout: .gray, pixels: out)
        case .yuv420p, .nv12:
            out = [UInt8](repeating: 0, count: w * h * 3)
            out.withUnsafeMutableBufferPointer { dst in
                for y in 0..<h {
                    for x in 0..<w {
                        let (luma, cb, cr) = buffer.ycbcr(x: x, y: y)
                        let p = encoding.rgba(y: luma, cb: cb, cr: cr)
                        let i = (y * w + x) * 3
                        dst[i] = p.r; dst[i + 1] = p.g; dst[i + 2] = p.b
                    }
                }
            }
            self.init(width: w, height: h, layout: .rgb, pixels: out)
        }
    }
}

/// Copying a frame, making one from a ``RasterImage``, and reading its pixels.
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
    /// convert in the new buffer's `PixelBuffer/ycbcrEncoding` (limited range, BT.601
    /// below HD and BT.709 from HD up), each chroma sample taken from the average colour of
    /// its 2x2 block; `gray8` keeps limited-range luma. Alpha is dropped for formats
    /// without it.
    public convenience init(_ image: RasterImage, format: PixelFormat) {
        self.init(width: image.width, height: image.height, format: format)
        let w = image.width, h = image.height
        let source = image.converted(to: .rgba)
        let encoding = ycbcrEncoding
        source.pixels.withUnsafeBufferPointer { px in
            switch format {
            case .bgra, .rgba:
                let swap = format == .bgra
                let stride = bytesPerRow[0]
                withUnsafeMutableBytes(plane: 0) { p in
                    for y in 0..<h {
                        for x in 0..<w {
                            let s = (y * w + x) * 4, i = y * stride + 4 * x
                            p[i] = swap ? px[s + 2] : px[s]
                            p[i + 1] = px[s + 1]
                            p[i + 2] = swap ? px[s] : px[s + 2]
                            p[i + 3] = px[s + 3]
                        }
                    }
                }
            case .gray8, .yuv420p, .nv12:
                let stride = bytesPerRow[0]
                withUnsafeMutableBytes(plane: 0) { p in
                    for y in 0..<h {
                        for x in 0..<w {
                            let s = (y * w + x) * 4
                            let v = encoding.ycbcr(red: Double(px[s]), green: Double(px[s + 1]), blue: Double(px[s + 2]))
                            p[y * stride + x] = BT709.clamp(v.y)
                        }
                    }
                }
                guard format != .gray8 else { return }
                let (cw, ch) = planeSize(1)
                let strides = bytesPerRow
                let planes = format == .yuv420p ? [1, 2] : [1]
                withUnsafePlanePointers { pointers in
                    for cy in 0..<ch {
                        for cx in 0..<cw {
                            var r = 0.0, g = 0.0, b = 0.0, n = 0.0
                            for y in (2 * cy)..<min(2 * cy + 2, h) {
                                for x in (2 * cx)..<min(2 * cx + 2, w) {
                                    let s = (y * w + x) * 4
                                    r += Double(px[s]); g += Double(px[s + 1]); b += Double(px[s + 2]); n += 1
                                }
                            }
                            let v = encoding.ycbcr(red: r / n, green: g / n, blue: b / n)
                            let (cb, cr) = (BT709.clamp(v.cb), BT709.clamp(v.cr))
                            if planes.count == 2 {
                                pointers[1].storeBytes(of: cb, toByteOffset: cy * strides[1] + cx, as: UInt8.self)
                                pointers[2].storeBytes(of: cr, toByteOffset: cy * strides[2] + cx, as: UInt8.self)
                            } else {
                                pointers[1].storeBytes(of: cb, toByteOffset: cy * strides[1] + 2 * cx, as: UInt8.self)
                                pointers[1].storeBytes(of: cr, toByteOffset: cy * strides[1] + 2 * cx + 1, as: UInt8.self)
                            }
                        }
                    }
                }
            }
        }
    }

    /// The Y', Cb, Cr samples that cover pixel (`x`, `y`) of a YUV or gray frame (gray
    /// frames report neutral chroma, 128). For RGB frames, the pixel converted in the
    /// buffer's `PixelBuffer/ycbcrEncoding`.
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
            return ycbcrEncoding.ycbcr(rgba(x: x, y: y))
        }
    }

    /// The pixel at (`x`, `y`) as 8-bit RGBA, whatever the format (YUV in the buffer's
    /// `PixelBuffer/ycbcrEncoding`, opaque).
    public func rgba(x: Int, y: Int) -> RGBA {
        switch format {
        case .rgba, .bgra:
            return withUnsafeBytes(plane: 0) { p in
                let i = y * bytesPerRow[0] + 4 * x
                return format == .rgba ? RGBA(p[i], p[i + 1], p[i + 2], p[i + 3]) : RGBA(p[i + 2], p[i + 1], p[i], p[i + 3])
            }
        case .gray8:
            let v = ycbcrEncoding.grayLevel(y: ycbcr(x: x, y: y).y)
            return RGBA(v, v, v, 255)
        case .yuv420p, .nv12:
            let s = ycbcr(x: x, y: y)
            return ycbcrEncoding.rgba(y: s.y, cb: s.cb, cr: s.cr)
        }
    }

    /// How bright pixel (`x`, `y`) is, 0 (black) to 1 (white): luma in the buffer's
    /// `PixelBuffer/ycbcrEncoding`.
    public func normalizedLuma(x: Int, y: Int) -> Double {
        switch format {
        case .rgba, .bgra:
            return ycbcrEncoding.normalizedLuma(rgba(x: x, y: y))
        case .gray8, .yuv420p, .nv12:
            let luma = withUnsafeBytes(plane: 0) { $0[y * bytesPerRow[0] + x] }
            return ycbcrEncoding.normalizedLuma(y: Double(luma))
        }
    }
}
