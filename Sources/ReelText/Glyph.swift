/// One rasterised glyph: 8-bit coverage (0 empty ... 255 covered) and where it sits.
///
/// Drawn at pen position `(x, baseline)`, the bitmap's top-left pixel goes to
/// `(x + left, baseline - top)`; the pen then moves right by `advance` pixels.
public struct Glyph: Sendable, Hashable {
    public var width: Int
    public var height: Int
    /// Pixels from the pen position to the bitmap's left edge.
    public var left: Int
    /// Pixels from the baseline up to the bitmap's top edge.
    public var top: Int
    /// How far the pen moves after this glyph, in whole pixels.
    public var advance: Int
    /// `width * height` coverage bytes, row by row.
    public var coverage: [UInt8]

    public init(width: Int, height: Int, left: Int, top: Int, advance: Int, coverage: [UInt8]) {
        self.width = width
        self.height = height
        self.left = left
        self.top = top
        self.advance = advance
        self.coverage = coverage
    }
}
