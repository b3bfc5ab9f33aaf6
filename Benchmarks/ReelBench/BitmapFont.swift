import Reel

/// A 5x7 bitmap font for the characters a GPS read-out needs, drawn straight into the luma
/// plane of a YUV frame at an integer scale (no rasteriser, no allocation).
enum BitmapFont {
    static let width = 5, height = 7

    /// Rows top to bottom, bit 4 the leftmost column.
    static func rows(_ c: Character) -> [UInt8] {
        switch c {
        case "0": [0x0E, 0x11, 0x13, 0x15, 0x19, 0x11, 0x0E]
        case "1": [0x04, 0x0C, 0x04, 0x04, 0x04, 0x04, 0x0E]
        case "2": [0x0E, 0x11, 0x01, 0x02, 0x04, 0x08, 0x1F]
        case "3": [0x1F, 0x02, 0x04, 0x02, 0x01, 0x11, 0x0E]
        case "4": [0x02, 0x06, 0x0A, 0x12, 0x1F, 0x02, 0x02]
        case "5": [0x1F, 0x10, 0x1E, 0x01, 0x01, 0x11, 0x0E]
        case "6": [0x06, 0x08, 0x10, 0x1E, 0x11, 0x11, 0x0E]
        case "7": [0x1F, 0x01, 0x02, 0x04, 0x08, 0x08, 0x08]
        case "8": [0x0E, 0x11, 0x11, 0x0E, 0x11, 0x11, 0x0E]
        case "9": [0x0E, 0x11, 0x11, 0x0F, 0x01, 0x02, 0x0C]
        case ".": [0, 0, 0, 0, 0, 0x0C, 0x0C]
        case ",": [0, 0, 0, 0, 0x0C, 0x04, 0x08]
        case ":": [0, 0x0C, 0x0C, 0, 0x0C, 0x0C, 0]
        case "-": [0, 0, 0, 0x1F, 0, 0, 0]
        case "/": [0x01, 0x01, 0x02, 0x04, 0x08, 0x10, 0x10]
        case "k": [0x10, 0x10, 0x12, 0x14, 0x18, 0x14, 0x12]
        case "m": [0, 0, 0x1A, 0x15, 0x15, 0x11, 0x11]
        case "h": [0x10, 0x10, 0x16, 0x19, 0x11, 0x11, 0x11]
        case "N": [0x11, 0x11, 0x19, 0x15, 0x13, 0x11, 0x11]
        case "E": [0x1F, 0x10, 0x10, 0x1E, 0x10, 0x10, 0x1F]
        case "S": [0x0F, 0x10, 0x10, 0x0E, 0x01, 0x01, 0x1E]
        case "W": [0x11, 0x11, 0x11, 0x15, 0x15, 0x15, 0x0A]
        case "A": [0x0E, 0x11, 0x11, 0x1F, 0x11, 0x11, 0x11]
        case "L": [0x10, 0x10, 0x10, 0x10, 0x10, 0x10, 0x1F]
        case "T": [0x1F, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04]
        case "U": [0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0E]
        case "Z": [0x1F, 0x01, 0x02, 0x04, 0x08, 0x10, 0x1F]
        default: [0, 0, 0, 0, 0, 0, 0]
        }
    }

    /// Glyph rows for every byte, looked up once.
    static let table: [[UInt8]] = (0..<128).map { rows(Character(Unicode.Scalar(UInt8($0)))) }

    /// The size of `text` drawn at `scale`.
    static func size(of text: String, scale: Int) -> (width: Int, height: Int) {
        (text.utf8.count * (width + 1) * scale, height * scale)
    }

    /// Draws `text` with its top-left corner at (`x`, `y`) in luma value `luma`, over a box
    /// of luma `boxLuma` one glyph-pixel wider on every side (chroma set neutral in the box).
    static func draw(_ text: String, x: Int, y: Int, scale: Int, into frame: PixelBuffer, luma: UInt8 = 235, boxLuma: UInt8 = 16) {
        let (w, h) = size(of: text, scale: scale)
        let x0 = max(0, x - scale) & ~1, y0 = max(0, y - scale) & ~1
        let x1 = min(frame.width, x + w + scale), y1 = min(frame.height, y + h + scale)
        guard x0 < x1, y0 < y1 else { return }
        frame.withUnsafeMutableBytes(plane: 0) { plane in
            let stride = frame.bytesPerRow[0]
            for row in y0..<y1 {
                let base = row * stride
                for col in x0..<x1 { plane[base + col] = boxLuma }
            }
            var penX = x
            for byte in text.utf8 {
                let glyph = table[Int(byte & 0x7F)]
                for gy in 0..<height {
                    let bits = glyph[gy]
                    guard bits != 0 else { continue }
                    for gx in 0..<width where bits & (0x10 >> UInt8(gx)) != 0 {
                        let px = penX + gx * scale, py = y + gy * scale
                        for dy in 0..<scale where py + dy < y1 {
                            let base = (py + dy) * stride
                            for dx in 0..<scale where px + dx < x1 { plane[base + px + dx] = luma }
                        }
                    }
                }
                penX += (width + 1) * scale
            }
        }
        for p in 1..<frame.planeCount {
            frame.withUnsafeMutableBytes(plane: p) { plane in
                let stride = frame.bytesPerRow[p]
                for row in (y0 / 2)..<((y1 + 1) / 2) {
                    let base = row * stride
                    for col in (x0 / 2)..<((x1 + 1) / 2) { plane[base + col] = 128 }
                }
            }
        }
    }
}
