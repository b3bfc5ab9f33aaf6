import ReelCore

/// BT.709 conversion between 8-bit RGB and Y'CbCr, limited (video) or full (JPEG) range:
/// `YCbCrEncoding`'s 8-bit reference with the matrix fixed to BT.709.
///
/// Frames are converted in their own `PixelBuffer/ycbcrEncoding` (BT.601 for untagged
/// SD frames); use this where a test means BT.709 whatever the frame size. Limited range
/// puts white at (235, 128, 128) and black at (16, 128, 128).
public enum BT709 {
    /// The weight of red in luma, 0.2126.
    public static let kr = YCbCrMatrix.bt709.kr
    /// The weight of blue in luma, 0.0722.
    public static let kb = YCbCrMatrix.bt709.kb
    /// The weight of green in luma, 0.7152 (`1 - kr - kb`).
    public static let kg = YCbCrMatrix.bt709.kg

    private static func encoding(_ fullRange: Bool) -> YCbCrEncoding { YCbCrEncoding(matrix: .bt709, fullRange: fullRange) }

    /// Y', Cb, Cr as exact (unrounded) values for R, G, B in 0...255.
    public static func ycbcr(red: Double, green: Double, blue: Double, fullRange: Bool = false) -> (y: Double, cb: Double, cr: Double) {
        encoding(fullRange).ycbcr(red: red, green: green, blue: blue)
    }

    /// The 8-bit Y', Cb, Cr of an RGB pixel (alpha ignored).
    public static func ycbcr(_ pixel: RGBA, fullRange: Bool = false) -> (y: UInt8, cb: UInt8, cr: UInt8) {
        encoding(fullRange).ycbcr(pixel)
    }

    /// The RGB pixel (opaque) of 8-bit Y', Cb, Cr.
    public static func rgb(y: UInt8, cb: UInt8, cr: UInt8, fullRange: Bool = false) -> RGBA {
        encoding(fullRange).rgba(y: y, cb: cb, cr: cr)
    }

    /// Luma as a fraction 0...1 of the range between black and white.
    public static func normalizedLuma(y: UInt8, fullRange: Bool = false) -> Double {
        encoding(fullRange).normalizedLuma(y: Double(y))
    }

    /// The 8-bit Y' of a luma fraction 0...1.
    public static func y(normalizedLuma: Double, fullRange: Bool = false) -> UInt8 {
        let e = encoding(fullRange)
        return clamp(e.blackLevel + e.lumaScale * normalizedLuma)
    }

    @inline(__always)
    static func clamp(_ v: Double) -> UInt8 {
        UInt8(min(max(v.rounded(), 0), 255))
    }
}

/// The 8-bit conversions a test checks frames with: RGB pixels to Y'CbCr and back, luma
/// and gray levels.
extension YCbCrEncoding {
    /// The 8-bit Y', Cb, Cr of an RGB pixel (alpha ignored), rounded to nearest and clamped:
    /// the reference a test compares converted frames with.
    public func ycbcr(_ pixel: RGBA) -> (y: UInt8, cb: UInt8, cr: UInt8) {
        let v = ycbcr(red: Double(pixel.r), green: Double(pixel.g), blue: Double(pixel.b))
        return (BT709.clamp(v.y), BT709.clamp(v.cb), BT709.clamp(v.cr))
    }

    /// The RGB pixel (opaque) of 8-bit Y', Cb, Cr, rounded to nearest and clamped.
    public func rgba(y: UInt8, cb: UInt8, cr: UInt8) -> RGBA {
        let c = rgb(y: Double(y), cb: Double(cb), cr: Double(cr))
        return RGBA(BT709.clamp(c.red), BT709.clamp(c.green), BT709.clamp(c.blue), 255)
    }

    /// The 8-bit gray level (0 black, 255 white) of luma `y`.
    public func grayLevel(y: UInt8) -> UInt8 { BT709.clamp(normalizedLuma(y: Double(y)) * 255) }

    /// How bright an RGB pixel is, 0 (black) to 1 (white), by this matrix's luma weights.
    public func normalizedLuma(_ pixel: RGBA) -> Double {
        (matrix.kr * Double(pixel.r) + matrix.kg * Double(pixel.g) + matrix.kb * Double(pixel.b)) / 255
    }
}
