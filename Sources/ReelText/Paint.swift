import ReelCore

/// A colour ready to blend into a frame: straight-alpha RGB bytes, alpha 0...255, and the
/// same colour as Y'CbCr in the frame's encoding.
struct Paint: Sendable, Hashable {
    var r: Int, g: Int, b: Int, a: Int
    var y: Int, cb: Int, cr: Int

    /// `color` for frames whose samples are in `encoding` (``PixelBuffer/ycbcrEncoding``).
    init(_ color: Color, encoding: YCbCrEncoding) {
        func unit(_ v: Double) -> Double { min(max(v, 0), 1) }
        func byte(_ v: Double) -> Int { Int((unit(v) * 255).rounded()) }
        r = byte(color.red)
        g = byte(color.green)
        b = byte(color.blue)
        a = byte(color.alpha)
        let v = encoding.ycbcr(red: 255 * unit(color.red), green: 255 * unit(color.green), blue: 255 * unit(color.blue))
        func code(_ x: Double) -> Int { min(max(Int(x.rounded()), 0), 255) }
        y = code(v.y)
        cb = code(v.cb)
        cr = code(v.cr)
    }

    /// `x / 255` rounded to nearest, for `0...65535`, without a division. (255 is odd, so
    /// no quotient ends in exactly one half: there are no ties to break.)
    @inline(__always) static func div255(_ x: Int) -> Int { (x &+ 128 &+ ((x &+ 128) &>> 8)) &>> 8 }

    /// `d` moved toward `s` by `alpha`/255: `(d * (255 - alpha) + s * alpha) / 255`, rounded.
    @inline(__always) static func mix(_ d: UInt8, _ s: Int, _ alpha: Int) -> UInt8 {
        UInt8(truncatingIfNeeded: div255(Int(d) &* (255 &- alpha) &+ s &* alpha))
    }

    /// Coverage (0...255) times this paint's alpha, 0...255.
    @inline(__always) func alpha(coverage: Int) -> Int { Paint.div255(coverage &* a) }
}
