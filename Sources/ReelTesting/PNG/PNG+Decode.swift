import Foundation
import ReelCore

extension PNG {
    /// Reads the PNG file at `path`.
    public static func read(contentsOf path: String) throws(ReelError) -> RasterImage {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            let missing = !FileManager.default.fileExists(atPath: path)
            throw ReelError(
                missing ? .fileNotFound : .unreadable, missing ? "no such file" : "cannot read file",
                path: path, underlying: error)
        }
        return try decode([UInt8](data), name: path)
    }

    /// The image in a PNG file's bytes.
    ///
    /// - Parameters:
    ///   - bytes: the file's bytes, from its signature on.
    ///   - name: names the data in error messages (a path, or `"expected.png"`).
    /// - Throws: `ReelError` `.corruptData` for damaged data (bad signature, CRC, zlib
    ///   stream, filter type, sizes that do not add up), `.unsupportedFormat` for valid PNG
    ///   features this reader leaves out (interlacing, bit depths other than 8).
    public static func decode(_ bytes: [UInt8], name: String = "PNG data") throws(ReelError) -> RasterImage {
        func corrupt(_ message: String) -> ReelError { ReelError(.corruptData, message, path: name) }
        guard bytes.count >= 8, Array(bytes[0..<8]) == signature else { throw corrupt("not a PNG file (bad signature)") }

        var offset = 8
        var header: (width: Int, height: Int, colorType: UInt8)?
        var palette: [RGBA] = []
        var transparency: [UInt8] = []
        var compressed: [UInt8] = []
        var sawIDAT = false, idatEnded = false, sawIEND = false
        while offset < bytes.count && !sawIEND {
            guard bytes.count - offset >= 12 else { throw corrupt("chunk header at byte \(offset) is cut short") }
            let length = Int(readUInt32(bytes, offset))
            let typeBytes = Array(bytes[(offset + 4)..<(offset + 8)])
            let type = String(decoding: typeBytes, as: UTF8.self)
            guard length <= Int(Int32.max), length <= bytes.count - offset - 12 else {
                throw corrupt("chunk \(type) at byte \(offset) declares \(length) bytes, past the end of the file")
            }
            let body = Array(bytes[(offset + 8)..<(offset + 8 + length)])
            let storedCRC = readUInt32(bytes, offset + 8 + length)
            var crc = CRC32()
            crc.update(typeBytes)
            crc.update(body)
            guard crc.value == storedCRC else { throw corrupt("chunk \(type) at byte \(offset) fails its CRC check") }
            if header == nil && type != "IHDR" { throw corrupt("first chunk is \(type), not IHDR") }
            if sawIDAT && type != "IDAT" { idatEnded = true }

            switch type {
            case "IHDR":
                guard header == nil else { throw corrupt("second IHDR chunk") }
                header = try parseHeader(body, name: name)
            case "PLTE":
                guard body.count % 3 == 0, body.count >= 3, body.count <= 768 else {
                    throw corrupt("PLTE of \(body.count) bytes (must be 3 to 768, a multiple of 3)")
                }
                palette = stride(from: 0, to: body.count, by: 3).map { RGBA(body[$0], body[$0 + 1], body[$0 + 2]) }
            case "tRNS":
                transparency = body
            case "IDAT":
                guard !idatEnded else { throw corrupt("IDAT chunks are not consecutive") }
                sawIDAT = true
                compressed += body
            case "IEND":
                sawIEND = true
            default:
                // Ancillary chunks (first letter lower case) may be skipped; critical ones may not.
                guard let first = typeBytes.first, first & 0x20 != 0 else {
                    throw ReelError(.unsupportedFormat, "unknown critical chunk \(type)", path: name)
                }
            }
            offset += length + 12
        }
        guard let header else { throw corrupt("no IHDR chunk") }
        guard sawIDAT else { throw corrupt("no IDAT chunk") }
        guard sawIEND else { throw corrupt("file ends before the IEND chunk") }

        let channels: Int =
            switch header.colorType {
            case 0, 3: 1
            case 4: 2
            case 2: 3
            default: 4
            }
        let rowBytes = header.width * channels
        let rawCount = header.height * (rowBytes + 1)
        let raw = try Zlib.decompress(compressed, maximumOutputCount: rawCount, context: "\(name) IDAT")
        guard raw.count == rawCount else {
            throw corrupt("image data inflates to \(raw.count) bytes, a \(header.width)x\(header.height) image needs \(rawCount)")
        }
        let pixels = try unfilter(raw, width: header.width, height: header.height, bpp: channels, name: name)

        switch header.colorType {
        case 0: return RasterImage(width: header.width, height: header.height, layout: .gray, pixels: pixels)
        case 4: return RasterImage(width: header.width, height: header.height, layout: .grayAlpha, pixels: pixels)
        case 2: return RasterImage(width: header.width, height: header.height, layout: .rgb, pixels: pixels)
        case 6: return RasterImage(width: header.width, height: header.height, layout: .rgba, pixels: pixels)
        default:
            guard !palette.isEmpty else { throw corrupt("palette image without a PLTE chunk") }
            let hasAlpha = !transparency.isEmpty
            var out: [UInt8] = []
            out.reserveCapacity(pixels.count * (hasAlpha ? 4 : 3))
            for index in pixels {
                guard Int(index) < palette.count else {
                    throw corrupt("pixel uses palette entry \(index), the palette has \(palette.count)")
                }
                let p = palette[Int(index)]
                out += [p.r, p.g, p.b]
                if hasAlpha { out.append(Int(index) < transparency.count ? transparency[Int(index)] : 255) }
            }
            return RasterImage(width: header.width, height: header.height, layout: hasAlpha ? .rgba : .rgb, pixels: out)
        }
    }

    private static func readUInt32(_ b: [UInt8], _ i: Int) -> UInt32 {
        UInt32(b[i]) << 24 | UInt32(b[i + 1]) << 16 | UInt32(b[i + 2]) << 8 | UInt32(b[i + 3])
    }

    private static func parseHeader(_ body: [UInt8], name: String) throws(ReelError) -> (width: Int, height: Int, colorType: UInt8) {
        guard body.count == 13 else { throw ReelError(.corruptData, "IHDR of \(body.count) bytes, not 13", path: name) }
        let width = Int(readUInt32(body, 0)), height = Int(readUInt32(body, 4))
        let depth = body[8], colorType = body[9]
        guard width > 0, height > 0 else { throw ReelError(.corruptData, "image size \(width)x\(height)", path: name) }
        guard width <= maximumPixelCount / height else {
            throw ReelError(.unsupportedFormat, "image of \(width)x\(height) pixels is over the \(maximumPixelCount)-pixel limit", path: name)
        }
        guard [0, 2, 3, 4, 6].contains(colorType) else {
            throw ReelError(.corruptData, "invalid colour type \(colorType)", path: name)
        }
        guard depth == 8 else {
            throw ReelError(.unsupportedFormat, "bit depth \(depth) is not supported (only 8 bits per channel)", path: name)
        }
        guard body[10] == 0, body[11] == 0 else {
            throw ReelError(.corruptData, "unknown compression (\(body[10])) or filter method (\(body[11]))", path: name)
        }
        guard body[12] == 0 else {
            throw ReelError(.unsupportedFormat, "interlaced (Adam7) images are not supported", path: name)
        }
        return (width, height, colorType)
    }

    /// Undoes the row filters: `raw` is `height` rows of one filter byte plus `width * bpp` bytes.
    static func unfilter(_ raw: [UInt8], width: Int, height: Int, bpp: Int, name: String) throws(ReelError) -> [UInt8] {
        let rowBytes = width * bpp
        var out = [UInt8](repeating: 0, count: rowBytes * height)
        for y in 0..<height {
            let src = y * (rowBytes + 1)
            guard let filter = Filter(rawValue: raw[src]) else {
                throw ReelError(.corruptData, "row \(y) has filter type \(raw[src]) (0 to 4 are defined)", path: name)
            }
            let dst = y * rowBytes
            for i in 0..<rowBytes {
                let x = raw[src + 1 + i]
                let a = i >= bpp ? out[dst + i - bpp] : 0
                let b = y > 0 ? out[dst - rowBytes + i] : 0
                let c = (i >= bpp && y > 0) ? out[dst - rowBytes + i - bpp] : 0
                let prediction: UInt8 =
                    switch filter {
                    case .none: 0
                    case .sub: a
                    case .up: b
                    case .average: UInt8((Int(a) + Int(b)) / 2)
                    case .paeth: paeth(a, b, c)
                    }
                out[dst + i] = x &+ prediction
            }
        }
        return out
    }
}
