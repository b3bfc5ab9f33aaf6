/// Halves a frame in both directions by averaging 2x2 blocks: the prefilter that keeps
/// strong downscaling (a quarter-size picture in picture) from aliasing. The layer is then
/// drawn from the halved frame with its transform adjusted, so bilinear sampling never
/// skips source pixels.
enum BoxDownscale {
    /// The largest scale factor of `transform` along either source axis.
    static func largestScale(of t: Transform2D) -> Double {
        max((t.a * t.a + t.b * t.b).squareRoot(), (t.c * t.c + t.d * t.d).squareRoot())
    }

    /// Halves `source` (into a buffer from `pools`, or a new one) until drawing it with
    /// `transform` scales by at least one half, adjusting `transform` and `crop` to match.
    static func prefilter(
        _ source: PixelBuffer, transform: Transform2D, crop: Rect,
        pools: ConversionPools?
    ) -> (PixelBuffer, Transform2D, Rect) {
        var (buffer, t, c) = (source, transform, crop)
        while largestScale(of: t) < 0.5, buffer.width >= 4, buffer.height >= 4 {
            let half = makeBuffer(width: (buffer.width + 1) / 2, height: (buffer.height + 1) / 2, format: buffer.format, pools: pools)
            halve(buffer, into: half)
            t = Transform2D(scaleX: 2, y: 2).concatenating(t)
            if !c.isInfinite { c = Rect(x: c.minX / 2, y: c.minY / 2, width: c.width / 2, height: c.height / 2) }
            buffer = half
        }
        return (buffer, t, c)
    }

    static func makeBuffer(width: Int, height: Int, format: PixelFormat, pools: ConversionPools?) -> PixelBuffer {
        guard let pools else { return PixelBuffer(width: width, height: height, format: format) }
        return pools.pool("half \(width)x\(height) \(format)") {
            PixelBufferPool(width: width, height: height, format: format, maximumIdleCount: 8)
        }.makeBuffer()
    }

    /// Writes the 2x2 block averages of each plane of `source` into `destination`.
    static func halve(_ source: PixelBuffer, into destination: PixelBuffer) {
        source.withPlaneViews { s in
            destination.withPlaneViews { d in
                for p in 0..<source.planeCount {
                    let (sw, sh) = source.planeSize(p), (dw, dh) = destination.planeSize(p)
                    let ch = source.format.bytesPerPixel(plane: p)
                    for y in 0..<dh {
                        let r0 = s.base[p] + min(2 * y, sh - 1) * s.stride[p]
                        let r1 = s.base[p] + min(2 * y + 1, sh - 1) * s.stride[p]
                        let out = d.base[p] + y * d.stride[p]
                        for x in 0..<dw {
                            let a = min(2 * x, sw - 1) * ch, b = min(2 * x + 1, sw - 1) * ch
                            for c in 0..<ch {
                                let sum = Int(r0[a + c]) + Int(r0[b + c]) + Int(r1[a + c]) + Int(r1[b + c])
                                out[x * ch + c] = UInt8(truncatingIfNeeded: (sum + 2) >> 2)
                            }
                        }
                    }
                }
            }
        }
        destination.colorProperties = source.colorProperties
    }
}
