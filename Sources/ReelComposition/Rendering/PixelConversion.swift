/// Converts a frame to another pixel format of the same size, in Swift (the composition
/// layer has no libswscale): BGRA/RGBA swaps, RGB <-> Y'CbCr in the YUV side's
/// ``PixelBuffer/ycbcrEncoding`` (the matrix and range libswscale would use), planar <->
/// semi-planar chroma, luma only. Chroma is subsampled by averaging each 2x2 block.
enum PixelConversion {
    /// Writes `source` into `destination`, converting the format; both must have the same size.
    static func convert(_ source: PixelBuffer, into destination: PixelBuffer) {
        precondition(source.width == destination.width && source.height == destination.height, "conversion keeps the size")
        let encoding = source.format.isYUV ? source.ycbcrEncoding : destination.ycbcrEncoding
        let matrix = ColorMatrix.matrix(for: encoding)
        let from = source.format, to = destination.format
        if from == to {
            source.copyPixels(into: destination)
        } else if !from.isYUV && !to.isYUV {
            source.withPlaneViews { s in destination.withPlaneViews { d in rgbToRGB(s, d, source.width, source.height) } }
        } else if from.isYUV && to.isYUV {
            source.withPlaneViews { s in destination.withPlaneViews { d in yuvToYUV(s, d, source.width, source.height) } }
        } else if from.isYUV {
            source.withPlaneViews { s in destination.withPlaneViews { d in yuvToRGB(s, d, source.width, source.height, matrix) } }
        } else {
            source.withPlaneViews { s in destination.withPlaneViews { d in rgbToYUV(s, d, source.width, source.height, matrix) } }
        }
        // The destination says which encoding its samples (or the YUV made from them) use,
        // whatever its size: a later scale must not change what they mean. RGB is not ranged.
        destination.colorProperties = source.colorProperties.tagged(to.isYUV ? encoding : YCbCrEncoding(matrix: encoding.matrix))
    }

    private static func rgbToRGB(_ s: PlaneViews, _ d: PlaneViews, _ w: Int, _ h: Int) {
        let so = s.rgbOrder, dO = d.rgbOrder
        for y in 0..<h {
            let sr = s.base[0] + y * s.stride[0], dr = d.base[0] + y * d.stride[0]
            for x in 0..<w {
                let sp = sr + 4 * x, dp = dr + 4 * x
                let r = sp[so.r], g = sp[so.g], b = sp[so.b], a = sp[3]
                dp[dO.r] = r; dp[dO.g] = g; dp[dO.b] = b; dp[3] = a
            }
        }
    }

    private static func yuvToYUV(_ s: PlaneViews, _ d: PlaneViews, _ w: Int, _ h: Int) {
        for y in 0..<h {
            (d.base[0] + y * d.stride[0]).update(from: s.base[0] + y * s.stride[0], count: w)
        }
        guard d.hasChroma else { return }
        let cw = (w + 1) / 2, ch = (h + 1) / 2
        for y in 0..<ch {
            for x in 0..<cw {
                let u: UInt8 = s.hasChroma ? s.u(x, y) : 128
                let v: UInt8 = s.hasChroma ? s.v(x, y) : 128
                d.setChroma(x, y, u, v)
            }
        }
    }

    private static func yuvToRGB(_ s: PlaneViews, _ d: PlaneViews, _ w: Int, _ h: Int, _ m: ColorMatrix) {
        let o = d.rgbOrder
        var grey: (UInt8, UInt8) = (128, 128)
        withUnsafeMutableBytes(of: &grey) { neutral in
            let mid = neutral.baseAddress!.assumingMemoryBound(to: UInt8.self)
            for y in 0..<h {
                let sr = s.base[0] + y * s.stride[0], dr = d.base[0] + y * d.stride[0]
                // Chroma row pointers and the step between samples (2 for interleaved nv12);
                // luma only reads a constant neutral pair.
                let (uRow, vRow, step) = s.chromaRow(y >> 1) ?? (mid, mid, 0)
                for x in 0..<w {
                    let c = x >> 1
                    let rgb = m.rgb(y: Int(sr[x]), u: Int(uRow[c * step]), v: Int(vRow[c * step]))
                    let dp = dr + 4 * x
                    dp[o.r] = rgb.r; dp[o.g] = rgb.g; dp[o.b] = rgb.b; dp[3] = 255
                }
            }
        }
    }

    private static func rgbToYUV(_ s: PlaneViews, _ d: PlaneViews, _ w: Int, _ h: Int, _ m: ColorMatrix) {
        let o = s.rgbOrder
        for y in 0..<h {
            let sr = s.base[0] + y * s.stride[0], dr = d.base[0] + y * d.stride[0]
            for x in 0..<w {
                let sp = sr + 4 * x
                dr[x] = m.luma(r: Int(sp[o.r]), g: Int(sp[o.g]), b: Int(sp[o.b]))
            }
        }
        guard d.hasChroma else { return }
        for cy in 0..<((h + 1) / 2) {
            let y0 = 2 * cy, y1 = min(2 * cy + 1, h - 1)
            let r0 = s.base[0] + y0 * s.stride[0], r1 = s.base[0] + y1 * s.stride[0]
            for cx in 0..<((w + 1) / 2) {
                let x0 = 2 * cx, x1 = min(2 * cx + 1, w - 1)
                let a = r0 + 4 * x0, b1 = r0 + 4 * x1, c = r1 + 4 * x0, e = r1 + 4 * x1
                let r = Int(a[o.r]) + Int(b1[o.r]) + Int(c[o.r]) + Int(e[o.r])
                let g = Int(a[o.g]) + Int(b1[o.g]) + Int(c[o.g]) + Int(e[o.g])
                let b = Int(a[o.b]) + Int(b1[o.b]) + Int(c[o.b]) + Int(e[o.b])
                let uv = m.chroma(r: (r + 2) >> 2, g: (g + 2) >> 2, b: (b + 2) >> 2)
                d.setChroma(cx, cy, uv.u, uv.v)
            }
        }
    }
}

/// Raw pointers to a buffer's planes with what is needed to address pixels: strides, the
/// byte order of packed RGB, and where Cb and Cr are for the YUV layouts.
struct PlaneViews {
    var base: [UnsafeMutablePointer<UInt8>]
    var stride: [Int]
    var format: PixelFormat

    var rgbOrder: (r: Int, g: Int, b: Int) { format == .rgba ? (0, 1, 2) : (2, 1, 0) }
    var hasChroma: Bool { format == .yuv420p || format == .nv12 }

    /// The Cb and Cr sample pointers of chroma row `y` and the step between samples; nil
    /// for luma-only formats.
    @inline(__always) func chromaRow(_ y: Int) -> (UnsafeMutablePointer<UInt8>, UnsafeMutablePointer<UInt8>, Int)? {
        switch format {
        case .nv12: return (base[1] + y * stride[1], base[1] + y * stride[1] + 1, 2)
        case .yuv420p: return (base[1] + y * stride[1], base[2] + y * stride[2], 1)
        default: return nil
        }
    }

    @inline(__always) func u(_ x: Int, _ y: Int) -> UInt8 {
        format == .nv12 ? base[1][y * stride[1] + 2 * x] : base[1][y * stride[1] + x]
    }

    @inline(__always) func v(_ x: Int, _ y: Int) -> UInt8 {
        format == .nv12 ? base[1][y * stride[1] + 2 * x + 1] : base[2][y * stride[2] + x]
    }

    @inline(__always) func setChroma(_ x: Int, _ y: Int, _ u: UInt8, _ v: UInt8) {
        if format == .nv12 {
            base[1][y * stride[1] + 2 * x] = u
            base[1][y * stride[1] + 2 * x + 1] = v
        } else {
            base[1][y * stride[1] + x] = u
            base[2][y * stride[2] + x] = v
        }
    }
}

extension PixelBuffer {
    /// Lends the planes as ``PlaneViews``; the pointers are valid only inside `body`.
    func withPlaneViews<R>(_ body: (PlaneViews) -> R) -> R {
        withUnsafePlanePointers { pointers in
            body(PlaneViews(base: pointers.map { $0.assumingMemoryBound(to: UInt8.self) }, stride: bytesPerRow, format: format))
        }
    }
}
