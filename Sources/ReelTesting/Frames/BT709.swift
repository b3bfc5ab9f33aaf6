/// BT.709 conversion between 8-bit RGB and Y'CbCr, limited (video) or full (JPEG) range.
///
/// Limited range puts Y' in 16...235 and Cb, Cr in 16...240 around 128; full range uses
/// 0...255 for all three. The weights are BT.709's (Kr 0.2126, Kb 0.0722); RGB values are
/// treated as already gamma-encoded, as in every 8-bit video pipeline. Results are
/// rounded to nearest and clamped, so white is (235, 128, 128) and black (16, 128, 128)
/// in limited range.
public enum BT709 {
    public static let kr = 0.2126
    public static let kb = 0.0722
    public static let kg = 1 - kr - kb

    /// Y', Cb, Cr as exact (unrounded) values for R, G, B in 0...255.
    public static func ycbcr(red: Double, green: Double, blue: Double, fullRange: Bool = false) -> (y: Double, cb: Double, cr: Double) {
        let r = red / 255, g = green / 255, b = blue / 255
        let luma = kr * r + kg * g + kb * b
        let pb = (b - luma) / (2 * (1 - kb))
        let pr = (r - luma) / (2 * (1 - kr))
        if fullRange {
            return (255 * luma, 128 + 255 * pb, 128 + 255 * pr)
        }
        return (16 + 219 * luma, 128 + 224 * pb, 128 + 224 * pr)
    }

    /// The 8-bit Y', Cb, Cr of an RGB pixel (alpha ignored).
    public static func ycbcr(_ pixel: RGBA, fullRange: Bool = false) -> (y: UInt8, cb: UInt8, cr: UInt8) {
        let v = ycbcr(red: Double(pixel.r), green: Double(pixel.g), blue: Double(pixel.b), fullRange: fullRange)
        return (clamp(v.y), clamp(v.cb), clamp(v.cr))
    }

    /// The RGB pixel (opaque) of 8-bit Y', Cb, Cr.
    public static func rgb(y: UInt8, cb: UInt8, cr: UInt8, fullRange: Bool = false) -> RGBA {
        let luma: Double, pb: Double, pr: Double
        if fullRange {
            luma = Double(y) / 255
            pb = (Double(cb) - 128) / 255
            pr = (Double(cr) - 128) / 255
        } else {
            luma = (Double(y) - 16) / 219
            pb = (Double(cb) - 128) / 224
            pr = (Double(cr) - 128) / 224
        }
        let r = luma + 2 * (1 - kr) * pr
        let b = luma + 2 * (1 - kb) * pb
        let g = (luma - kr * r - kb * b) / kg
        return RGBA(clamp(255 * r), clamp(255 * g), clamp(255 * b), 255)
    }

    /// Luma as a fraction 0...1 of the range between black and white.
    public static func normalizedLuma(y: UInt8, fullRange: Bool = false) -> Double {
        fullRange ? Double(y) / 255 : (Double(y) - 16) / 219
    }

    /// The 8-bit Y' of a luma fraction 0...1.
    public static func y(normalizedLuma: Double, fullRange: Bool = false) -> UInt8 {
        clamp(fullRange ? normalizedLuma * 255 : 16 + 219 * normalizedLuma)
    }

    @inline(__always)
    static func clamp(_ v: Double) -> UInt8 {
        UInt8(min(max(v.rounded(), 0), 255))
    }
}
