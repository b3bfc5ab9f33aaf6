/// Fills a whole frame with one colour (in YUV, in the frame's ``PixelBuffer/ycbcrEncoding``).
enum PixelFill {
    /// Paints every pixel of `buffer` with `color` (alpha kept for BGRA/RGBA; YUV is opaque).
    static func fill(_ buffer: PixelBuffer, with color: Color) {
        let (w, h) = (buffer.width, buffer.height)
        func byte(_ v: Double) -> UInt8 { UInt8((min(max(v, 0), 1) * 255).rounded()) }
        buffer.withPlaneViews { v in
            switch buffer.format {
            case .bgra, .rgba:
                let o = v.rgbOrder
                var pixel: (UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0)
                withUnsafeMutableBytes(of: &pixel) { p in
                    p[o.r] = byte(color.red); p[o.g] = byte(color.green); p[o.b] = byte(color.blue); p[3] = byte(color.alpha)
                }
                let word = withUnsafeBytes(of: pixel) { $0.load(as: UInt32.self) }
                for y in 0..<h {
                    UnsafeMutableRawPointer(v.base[0] + y * v.stride[0]).bindMemory(to: UInt32.self, capacity: w)
                        .update(repeating: word, count: w)
                }
            case .yuv420p, .nv12, .gray8:
                let yuv = ColorMatrix.matrix(for: buffer.ycbcrEncoding).yuv(of: color)
                for y in 0..<h { (v.base[0] + y * v.stride[0]).update(repeating: yuv.y, count: w) }
                guard v.hasChroma else { return }
                for y in 0..<((h + 1) / 2) {
                    for x in 0..<((w + 1) / 2) { v.setChroma(x, y, yuv.u, yuv.v) }
                }
            }
        }
    }
}
