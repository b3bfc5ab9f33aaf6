import Foundation

enum TextDecoding {
    /// Text from bytes that are ASCII with Latin-1 extras (GPMF's `°`, `²`, `µ`), or UTF-8.
    ///
    /// Trailing NULs are dropped and the text stops at the first NUL. Valid UTF-8 with
    /// multi-byte characters is read as UTF-8; anything else byte by byte as Latin-1.
    static func string<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
        var scalars = Array(bytes)
        if let nul = scalars.firstIndex(of: 0) { scalars.removeSubrange(nul...) }
        if scalars.contains(where: { $0 >= 0x80 }), let utf8 = String(validating: scalars, as: UTF8.self) {
            return utf8
        }
        return String(String.UnicodeScalarView(scalars.map { UnicodeScalar($0) }))
    }

    /// Latin-1 bytes of `string`, or nil when a character is outside Latin-1.
    static func latin1(_ string: String) -> [UInt8]? {
        var out: [UInt8] = []
        for s in string.unicodeScalars {
            guard s.value <= 0xFF else { return nil }
            out.append(UInt8(s.value))
        }
        return out
    }
}
