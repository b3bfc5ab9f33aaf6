internal import CFreeType
import Foundation
import ReelCore

/// A font file opened with FreeType: one `FT_Library` and one `FT_Face`, owned here and
/// freed in `deinit` (`FT_Done_Face`, then `FT_Done_FreeType`).
///
/// FreeType objects are not safe to use from several threads at once, so every call into
/// FreeType happens under this face's lock. Rasterising is the only thing done there; a
/// ``Font`` caches what it gets, so in a steady render FreeType is not called at all.
public final class FontFace: @unchecked Sendable {
    // @unchecked: the face is reached only through its lock, and `library` only in init
    // and deinit; neither is reassigned after init.
    private let library: FT_Library
    private let face: Lock<FT_Face>
    /// The file the face was read from.
    public let path: String
    /// The family name the font gives itself, such as `DejaVu Sans`.
    public let familyName: String

    /// The path of DejaVu Sans on Debian (package `fonts-dejavu-core`).
    public static let dejaVuSansPath = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
    /// The path of DejaVu Sans Bold on Debian (package `fonts-dejavu-core`).
    public static let dejaVuSansBoldPath = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"

    /// Opens the first face of the font file at `path` (`FT_Init_FreeType`, `FT_New_Face`,
    /// `FT_Select_Charmap` for Unicode).
    ///
    /// - Throws: `fileNotFound` when there is no such file, `unsupportedFormat` when FreeType
    ///   cannot read it as a font.
    public init(path: String) throws(ReelError) {
        var lib: FT_Library?
        guard FT_Init_FreeType(&lib) == 0, let lib else {
            throw ReelError(.internalError, "FreeType could not be initialised", path: path)
        }
        var f: FT_Face?
        let status = FT_New_Face(lib, path, 0, &f)
        guard status == 0, let f else {
            FT_Done_FreeType(lib)
            if !FileManager.default.fileExists(atPath: path) {
                throw ReelError(.fileNotFound, "no such font file; install fonts-dejavu-core or pass another font", path: path)
            }
            throw ReelError(.unsupportedFormat, "FreeType cannot read this file as a font (FreeType error \(status))", path: path)
        }
        _ = FT_Select_Charmap(f, reel_ft_encoding_unicode())
        self.library = lib
        self.face = Lock(f)
        self.path = path
        self.familyName = f.pointee.family_name.map { String(cString: $0) } ?? "unknown"
    }

    deinit {
        _ = face.withLock { FT_Done_Face($0) }
        FT_Done_FreeType(library)
    }

    /// Vertical metrics at `pixelSize`, in whole pixels: ascender above the baseline
    /// (positive), descender below it (positive), and the line height.
    func metrics(pixelSize: Int) -> (ascender: Int, descender: Int, lineHeight: Int) {
        face.withLock { face in
            FT_Set_Pixel_Sizes(face, 0, FT_UInt(pixelSize))
            guard let size = face.pointee.size else { return (pixelSize, 0, pixelSize) }
            let m = size.pointee.metrics
            let ascender = Int((m.ascender + 63) >> 6)
            let descender = Int((-m.descender + 63) >> 6)
            return (ascender, descender, Int((m.height + 63) >> 6))
        }
    }

    /// The anti-aliased bitmap of the glyph for `scalar` at `pixelSize`
    /// (`FT_Load_Char` with `FT_LOAD_RENDER`, 8-bit grey coverage). A character the font
    /// lacks gives its "missing glyph" (glyph 0), as FreeType does.
    func rasterize(_ scalar: Unicode.Scalar, pixelSize: Int) -> Glyph {
        face.withLock { face in
            FT_Set_Pixel_Sizes(face, 0, FT_UInt(pixelSize))
            let flags = reel_ft_load_render() | reel_ft_load_target_normal()
            guard FT_Load_Char(face, FT_ULong(scalar.value), flags) == 0, let slot = face.pointee.glyph else {
                return Glyph(width: 0, height: 0, left: 0, top: 0, advance: pixelSize / 2, coverage: [])
            }
            let bitmap = slot.pointee.bitmap
            let width = Int(bitmap.width), height = Int(bitmap.rows)
            var coverage = [UInt8](repeating: 0, count: width * height)
            if width > 0, height > 0, Int(bitmap.pixel_mode) == reel_ft_pixel_mode_gray(), let rows = bitmap.buffer {
                let pitch = Int(bitmap.pitch)
                coverage.withUnsafeMutableBufferPointer { out in
                    for y in 0..<height {
                        // A negative pitch means the rows are stored bottom-up.
                        let row = pitch >= 0 ? rows + y * pitch : rows + (height - 1 - y) * (-pitch)
                        for x in 0..<width { out[y * width + x] = row[x] }
                    }
                }
            }
            let advance = Int((slot.pointee.advance.x + 32) >> 6)
            return Glyph(
                width: width, height: height, left: Int(slot.pointee.bitmap_left), top: Int(slot.pointee.bitmap_top),
                advance: advance, coverage: coverage)
        }
    }
}
