import ReelCore

/// A ``FontFace`` at one pixel size, with a cache of its rasterised glyphs.
///
/// The first use of a character asks FreeType for its bitmap; every later use reads the
/// cache, so drawing the same digits on every frame costs only the blending. Safe to share
/// between concurrent requests.
public final class Font: Sendable {
    public let face: FontFace
    /// The em size in pixels.
    public let pixelSize: Int
    /// Pixels above the baseline the tallest glyphs reach.
    public let ascender: Int
    /// Pixels below the baseline the deepest glyphs reach (positive).
    public let descender: Int
    /// Baseline-to-baseline distance in pixels.
    public let lineHeight: Int

    private let cache = Lock<[UInt32: Glyph]>([:])

    /// `face` at `pixelSize` pixels (clamped to 1...1000).
    public init(face: FontFace, pixelSize: Int) {
        self.face = face
        self.pixelSize = min(max(pixelSize, 1), 1000)
        let m = face.metrics(pixelSize: self.pixelSize)
        self.ascender = m.ascender
        self.descender = m.descender
        self.lineHeight = m.lineHeight
    }

    /// Opens the font file at `path` at `pixelSize`.
    public convenience init(path: String, pixelSize: Int) throws(ReelError) {
        self.init(face: try FontFace(path: path), pixelSize: pixelSize)
    }

    /// The glyph for `scalar`, from the cache or rasterised once.
    public func glyph(_ scalar: Unicode.Scalar) -> Glyph {
        if let g = cache.withLock({ $0[scalar.value] }) { return g }
        let g = face.rasterize(scalar, pixelSize: pixelSize)
        cache.withLock { $0[scalar.value] = g }
        return g
    }

    /// The glyphs of `text` in order (one per Unicode scalar; no shaping or kerning).
    public func glyphs(_ text: String) -> [Glyph] {
        text.unicodeScalars.map { glyph($0) }
    }

    /// The advance width of `text` in pixels.
    public func width(of text: String) -> Int {
        text.unicodeScalars.reduce(0) { $0 + glyph($1).advance }
    }

    /// How many glyphs the cache holds.
    public var cachedGlyphCount: Int { cache.withLock { $0.count } }
}
