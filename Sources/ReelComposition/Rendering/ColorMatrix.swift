/// Conversion between 8-bit RGB and 8-bit Y'CbCr in fixed point (16 fractional bits), for
/// one ``YCbCrEncoding`` (BT.601, BT.709 or BT.2020; limited or full range). The tables are
/// computed once per encoding from Kr and Kb; the per-pixel work is integer only.
struct ColorMatrix: Sendable {
    // RGB -> YCbCr, scaled by 65536.
    let yR: Int, yG: Int, yB: Int
    let uR: Int, uG: Int, uB: Int
    let vR: Int, vG: Int, vB: Int
    let yOffset: Int
    // YCbCr -> RGB, scaled by 65536.
    let rgbY: Int, rV: Int, gU: Int, gV: Int, bU: Int

    /// One table per matrix and range, made once: limited then full range, in
    /// ``YCbCrMatrix/allCases`` order.
    private static let tables: [ColorMatrix] = YCbCrMatrix.allCases.flatMap { m in
        [false, true].map { ColorMatrix(kr: m.kr, kb: m.kb, fullRange: $0) }
    }

    /// The table for `encoding`.
    static func matrix(for encoding: YCbCrEncoding) -> ColorMatrix {
        let index = YCbCrMatrix.allCases.firstIndex(of: encoding.matrix)!
        return tables[2 * index + (encoding.fullRange ? 1 : 0)]
    }

    private init(kr: Double, kb: Double, fullRange: Bool) {
        let kg = 1 - kr - kb
        let ys = fullRange ? 1.0 : 219.0 / 255.0
        let cs = fullRange ? 1.0 : 224.0 / 255.0
        func fx(_ v: Double) -> Int { Int((v * 65536).rounded()) }
        yR = fx(kr * ys); yG = fx(kg * ys); yB = fx(kb * ys)
        let cbDen = 2 * (1 - kb), crDen = 2 * (1 - kr)
        uR = fx(-kr / cbDen * cs); uG = fx(-kg / cbDen * cs); uB = fx(0.5 * cs)
        vR = fx(0.5 * cs); vG = fx(-kg / crDen * cs); vB = fx(-kb / crDen * cs)
        yOffset = fullRange ? 0 : 16
        rgbY = fx(1 / ys)
        rV = fx(crDen / cs)
        bU = fx(cbDen / cs)
        gU = fx(kb * cbDen / (kg * cs))
        gV = fx(kr * crDen / (kg * cs))
    }

    @inline(__always) static func clamp8(_ v: Int) -> UInt8 { UInt8(truncatingIfNeeded: v < 0 ? 0 : (v > 255 ? 255 : v)) }

    @inline(__always) func luma(r: Int, g: Int, b: Int) -> UInt8 {
        ColorMatrix.clamp8(((yR * r + yG * g + yB * b + 32768) >> 16) + yOffset)
    }

    @inline(__always) func chroma(r: Int, g: Int, b: Int) -> (u: UInt8, v: UInt8) {
        (
            ColorMatrix.clamp8(((uR * r + uG * g + uB * b + 32768) >> 16) + 128),
            ColorMatrix.clamp8(((vR * r + vG * g + vB * b + 32768) >> 16) + 128)
        )
    }

    @inline(__always) func rgb(y: Int, u: Int, v: Int) -> (r: UInt8, g: UInt8, b: UInt8) {
        let c = rgbY * (y - yOffset) + 32768
        let d = u - 128, e = v - 128
        return (
            ColorMatrix.clamp8((c + rV * e) >> 16),
            ColorMatrix.clamp8((c - gU * d - gV * e) >> 16),
            ColorMatrix.clamp8((c + bU * d) >> 16)
        )
    }

    /// The Y, Cb, Cr of an opaque colour.
    func yuv(of color: Color) -> (y: UInt8, u: UInt8, v: UInt8) {
        let r = Int((min(max(color.red, 0), 1) * 255).rounded())
        let g = Int((min(max(color.green, 0), 1) * 255).rounded())
        let b = Int((min(max(color.blue, 0), 1) * 255).rounded())
        let c = chroma(r: r, g: g, b: b)
        return (luma(r: r, g: g, b: b), c.u, c.v)
    }
}
