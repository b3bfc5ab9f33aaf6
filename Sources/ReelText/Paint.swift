import ReelCore

/// A colour ready to blend into a frame: straight-alpha RGB bytes, alpha 0...255, and the
/// same colour as limited-range Y'CbCr in the frame's matrix.
struct Paint: Sendable, Hashable {
    var r: Int, g: Int, b: Int, a: Int
    var y: Int, cb: Int, cr: Int

    /// `color` for frames using `matrix` (BT.709 unless it names BT.601's).
    init(_ color: Color, matrix: String?) {
        func byte(_ v: Double) -> Int { Int((min(max(v, 0), 1) * 255).rounded()) }
        r = byte(color.red)
        g = byte(color.green)
        b = byte(color.blue)
        a = byte(color.alpha)
        let bt601 = ["bt470bg", "smpte170m", "bt601"].contains(matrix ?? "")
        let kr = bt601 ? 0.299 : 0.2126, kb = bt601 ? 0.114 : 0.0722
        let (rr, gg, bb) = (min(max(color.red, 0), 1), min(max(color.green, 0), 1), min(max(color.blue, 0), 1))
        let luma = kr * rr + (1 - kr - kb) * gg + kb * bb
        y = Int((16 + 219 * luma).rounded())
        cb = Int((128 + 224 * (bb - luma) / (2 * (1 - kb))).rounded())
        cr = Int((128 + 224 * (rr - luma) / (2 * (1 - kr))).rounded())
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
