import Foundation
import ReelCore

/// Reads and writes PNG files in Swift over the system zlib: no FFmpeg, no image library.
///
/// Writing produces 8-bit gray, gray+alpha, RGB or RGBA images, compressed by the system
/// zlib. Reading accepts what common encoders (FFmpeg, ImageMagick, libpng) write at 8 bits
/// per channel: colour types gray, RGB, palette, gray+alpha and RGBA, any IDAT split and
/// all five row filters. Interlaced images and 1, 2, 4 or 16-bit channels are refused with
/// a clear error. Every length and size is checked before it is used.
public enum PNG {
    /// A PNG row filter (PNG specification, section 9).
    public enum Filter: UInt8, Sendable, Hashable, CaseIterable {
        /// Filter types 0 to 4: none (bytes as they are); sub, up and average (each byte less
        /// that of the pixel to the left, of the pixel above, or their mean); paeth (less the
        /// Paeth predictor of left, above and upper left).
        case none = 0, sub, up, average, paeth
    }

    /// Which filter the encoder applies to each row.
    public enum FilterStrategy: Sendable, Hashable {
        /// The same filter on every row.
        case fixed(Filter)
        /// Per row, the filter whose output has the smallest sum of absolute values.
        case adaptive
    }

    /// How the encoder compresses the filtered rows.
    public enum Compression: Sendable, Hashable, CaseIterable {
        /// Stored deflate blocks (no compression).
        case stored
        /// Fixed-Huffman deflate blocks with LZ77 matches.
        case fixedHuffman
        /// zlib's default level and strategy (dynamic Huffman codes): the smallest files.
        case standard
    }

    /// The largest image ``decode(_:name:)`` accepts, in pixels (8192 x 8192).
    public static let maximumPixelCount = 1 << 26

    static let signature: [UInt8] = [137, 80, 78, 71, 13, 10, 26, 10]

    // MARK: Writing

    /// The PNG file that holds `image`.
    public static func encode(
        _ image: RasterImage, filter: FilterStrategy = .adaptive,
        compression: Compression = .standard
    ) -> [UInt8] {
        let bpp = image.layout.channelCount
        let rowBytes = image.width * bpp
        var filtered: [UInt8] = []
        filtered.reserveCapacity(image.height * (rowBytes + 1))
        let zeroRow = [UInt8](repeating: 0, count: rowBytes)
        image.pixels.withUnsafeBufferPointer { px in
            for y in 0..<image.height {
                let row = Array(px[(y * rowBytes)..<((y + 1) * rowBytes)])
                let above = y == 0 ? zeroRow : Array(px[((y - 1) * rowBytes)..<(y * rowBytes)])
                switch filter {
                case .fixed(let f):
                    filtered.append(f.rawValue)
                    filtered += apply(f, row: row, above: above, bpp: bpp)
                case .adaptive:
                    var best: (Filter, [UInt8], Int)? = nil
                    for f in Filter.allCases {
                        let out = apply(f, row: row, above: above, bpp: bpp)
                        let cost = out.reduce(0) { $0 + Int(Int8(bitPattern: $1).magnitude) }
                        if best == nil || cost < best!.2 { best = (f, out, cost) }
                    }
                    if let (f, out, _) = best {
                        filtered.append(f.rawValue)
                        filtered += out
                    }
                }
            }
        }

        var ihdr: [UInt8] = []
        ihdr += bigEndian(UInt32(image.width))
        ihdr += bigEndian(UInt32(image.height))
        let colorType: UInt8 =
            switch image.layout {
            case .gray: 0
            case .rgb: 2
            case .grayAlpha: 4
            case .rgba: 6
            }
        ihdr += [8, colorType, 0, 0, 0]  // depth 8, deflate, adaptive filtering, no interlace

        var file = signature
        appendChunk("IHDR", ihdr, to: &file)
        appendChunk("IDAT", Zlib.compress(filtered, method: compression), to: &file)
        appendChunk("IEND", [], to: &file)
        return file
    }

    /// Writes `image` as a PNG file at `path`, replacing any file there.
    public static func write(_ image: RasterImage, to path: String) throws(ReelError) {
        try AtomicFile.write(Data(encode(image)), to: URL(fileURLWithPath: path), replacing: true)
    }

    static func bigEndian(_ v: UInt32) -> [UInt8] {
        [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
    }

    private static func appendChunk(_ type: String, _ data: [UInt8], to file: inout [UInt8]) {
        let typeBytes = Array(type.utf8)
        file += bigEndian(UInt32(data.count))
        file += typeBytes
        file += data
        var crc = CRC32()
        crc.update(typeBytes)
        crc.update(data)
        file += bigEndian(crc.value)
    }

    /// `row` filtered with `filter`, given the unfiltered row above (zeros for the first).
    static func apply(_ filter: Filter, row: [UInt8], above: [UInt8], bpp: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: row.count)
        for i in 0..<row.count {
            let a = i >= bpp ? row[i - bpp] : 0
            let b = above[i]
            let c = i >= bpp ? above[i - bpp] : 0
            let prediction: UInt8 =
                switch filter {
                case .none: 0
                case .sub: a
                case .up: b
                case .average: UInt8((Int(a) + Int(b)) / 2)
                case .paeth: paeth(a, b, c)
                }
            out[i] = row[i] &- prediction
        }
        return out
    }

    /// The Paeth predictor: whichever of left, above and upper-left is nearest `a + b - c`.
    @inline(__always)
    static func paeth(_ a: UInt8, _ b: UInt8, _ c: UInt8) -> UInt8 {
        let p = Int(a) + Int(b) - Int(c)
        let pa = abs(p - Int(a)), pb = abs(p - Int(b)), pc = abs(p - Int(c))
        if pa <= pb && pa <= pc { return a }
        return pb <= pc ? b : c
    }
}
