import Foundation

/// The static metadata of an MP4 or QuickTime movie, read from its own boxes, each item
/// in the key space its box belongs to (FFmpeg folds them all into one set of names):
///
/// - `moov/udta/©xxx`: QuickTime user data (`MetadataKeySpace/quickTimeUserData`), a
///   list of texts, each with its language (QuickTime File Format, "User data atoms").
/// - `moov/udta/cprt`: ISO copyright (`MetadataKeySpace/isoUserData`, ISO/IEC 14496-12
///   8.10.2); `titl`, `dscp`, `perf`, `auth`, `gnre`, `albm`, `yrrc`: 3GPP asset
///   information (3GPP TS 26.244 8.2), in the user-data key space as AVFoundation has them.
/// - `moov/udta/meta` with handler `mdir`: iTunes items (`ilst`, `MetadataKeySpace/iTunes`).
/// - `moov/meta` (or `udta/meta`) with handler `mdta`: QuickTime metadata, keys from
///   `keys`, values from `ilst` (`MetadataKeySpace/quickTimeMetadata`).
///
/// Values in `data` boxes are decoded by their well-known type (UTF-8, UTF-16, integers,
/// floats; pictures and raw bytes stay data, with the type named in
/// `MetadataItem/dataType`). Boxes of other kinds are skipped.
public enum MP4MovieMetadata {
    /// The items of a `moov` box whose bytes (header included) are `moov`.
    public static func items(moov: [UInt8]) throws(ReelError) -> [MetadataItem] {
        let boxes = try MP4Box.parse(moov, range: 0..<moov.count, base: 0, parent: "the movie")
        guard let box = boxes.first, box.type == "moov" else {
            throw ReelError.metadataFormat("MP4", "the bytes do not start with a 'moov' box")
        }
        return try items(moov, box: box, base: 0)
    }

    /// The items of `box` (a `moov`) in `bytes`, whose first byte is at file offset `base`.
    static func items(_ bytes: [UInt8], box: MP4Box, base: Int64) throws(ReelError) -> [MetadataItem] {
        let reader = BoxReader(bytes: bytes, base: base)
        var items: [MetadataItem] = []
        for child in try reader.children(of: box, "moov") {
            switch child.type {
            case "udta": items += try userData(reader, child)
            case "meta": items += try meta(reader, child, "moov/meta")
            default: continue
            }
        }
        return items
    }

    // MARK: User data

    static let isoCopyright: FourCC = "cprt"
    /// 3GPP asset information boxes: language-tagged text.
    static let threeGPPText: Set<FourCC> = ["titl", "dscp", "perf", "auth", "gnre", "albm"]

    static func userData(_ reader: BoxReader, _ udta: MP4Box) throws(ReelError) -> [MetadataItem] {
        var items: [MetadataItem] = []
        for child in try reader.children(of: udta, "moov/udta") {
            let path = "moov/udta/'\(key(child.type))'"
            if child.type.bytes[0] == 0xA9 {
                if reader.childType(of: child) == "data" {
                    items += try listItem(reader, child, keySpace: .quickTimeUserData, key: key(child.type), path: path)
                } else {
                    items += try quickTimeText(reader, child, path: path)
                }
                continue
            }
            switch child.type {
            case "meta":
                items += try meta(reader, child, "moov/udta/meta")
            case isoCopyright:
                items += try isoText(reader, child, keySpace: .isoUserData, path: path)
            case "yrrc":
                var r = reader.payload(child, path)
                try r.skip(4, "version and flags")
                let year = try r.u16be("recording year")
                items.append(
                    MetadataItem(
                        identifier: MetadataIdentifier(keySpace: .quickTimeUserData, key: "yrrc"),
                        value: .integer(Int64(year)), dataType: "com.apple.metadata.datatype.uint16"))
            default:
                if threeGPPText.contains(child.type) {
                    items += try isoText(reader, child, keySpace: .quickTimeUserData, path: path)
                }
            }
        }
        return items
    }

    /// A QuickTime user-data text list: entries of a 16-bit size, a 16-bit language and
    /// the text.
    static func quickTimeText(_ reader: BoxReader, _ box: MP4Box, path: String) throws(ReelError) -> [MetadataItem] {
        var r = reader.payload(box, path)
        var items: [MetadataItem] = []
        while r.remaining > 0 {
            let size = Int(try r.u16be("text size"))
            let language = try r.u16be("text language")
            guard size <= r.remaining else {
                throw ReelError.corrupt("MP4", "\(path) says its text is \(size) bytes but only \(r.remaining) remain", offset: Int(box.offset))
            }
            let text = TextDecoding.string(try r.bytes(size))
            items.append(
                MetadataItem(
                    identifier: MetadataIdentifier(keySpace: .quickTimeUserData, key: key(box.type)),
                    value: .string(text), dataType: "com.apple.metadata.datatype.UTF-8",
                    extendedLanguageTag: languageTag(language)))
        }
        return items
    }

    /// An ISO/3GPP text box: version and flags, a packed language, a NUL-terminated UTF-8
    /// string or a UTF-16 one that starts with a byte-order mark.
    static func isoText(_ reader: BoxReader, _ box: MP4Box, keySpace: MetadataKeySpace, path: String) throws(ReelError) -> [MetadataItem] {
        var r = reader.payload(box, path)
        try r.skip(4, "version and flags")
        let language = try r.u16be("language")
        let rest = Array(try r.bytes(r.remaining))
        let text: String
        if rest.count >= 2, rest[0] == 0xFE, rest[1] == 0xFF {
            var units: [UInt16] = []
            var i = 2
            while i + 1 < rest.count {
                let unit = UInt16(rest[i]) << 8 | UInt16(rest[i + 1])
                if unit == 0 { break }
                units.append(unit)
                i += 2
            }
            guard let decoded = String(validating: units, as: UTF16.self) else {
                throw ReelError.metadataFormat("MP4", "\(path) is not valid UTF-16", offset: Int(box.offset))
            }
            text = decoded
        } else {
            text = TextDecoding.string(rest)
        }
        return [
            MetadataItem(
                identifier: MetadataIdentifier(keySpace: keySpace, key: key(box.type)), value: .string(text),
                dataType: "com.apple.metadata.datatype.UTF-8", extendedLanguageTag: languageTag(language & 0x7FFF))
        ]
    }

    // MARK: meta, keys, ilst

    /// A `meta` box: its handler says how to read its `ilst`. Full box in MP4, plain in
    /// QuickTime: told apart by where the `hdlr` header lies.
    static func meta(_ reader: BoxReader, _ box: MP4Box, _ path: String) throws(ReelError) -> [MetadataItem] {
        let payload = reader.local(box.payloadRange)
        let plain = payload.count >= 8 && FourCC(bytes: reader.bytes[(payload.lowerBound + 4)..<(payload.lowerBound + 8)]) == "hdlr"
        guard plain || payload.count >= 4 else {
            throw ReelError.truncated("MP4", "\(path) version and flags", offset: Int(box.offset), needed: 4, available: payload.count)
        }
        let children = try MP4Box.parse(
            reader.bytes, range: (payload.lowerBound + (plain ? 0 : 4))..<payload.upperBound,
            base: reader.base, parent: path)
        var handler: FourCC = "    "
        if let hdlr = children.first(where: { $0.type == "hdlr" }) {
            var r = reader.payload(hdlr, "\(path)/hdlr")
            try r.skip(8, "hdlr version, flags and pre-defined")
            handler = FourCC(rawValue: try r.u32be("handler type"))
        }
        var keys: [Int: MetadataIdentifier] = [:]
        if let keysBox = children.first(where: { $0.type == "keys" }) {
            keys = try self.keys(reader, keysBox, "\(path)/keys")
        }
        guard let ilst = children.first(where: { $0.type == "ilst" }) else { return [] }
        var items: [MetadataItem] = []
        for entry in try reader.children(of: ilst, "\(path)/ilst") {
            if handler == "mdta" {
                guard let identifier = keys[Int(entry.type.rawValue)] else {
                    throw ReelError.metadataFormat(
                        "MP4", "\(path)/ilst has an item for key \(entry.type.rawValue), which 'keys' does not list",
                        offset: Int(entry.offset))
                }
                items += try listItem(reader, entry, keySpace: identifier.keySpace, key: identifier.key, path: "\(path)/ilst/\(identifier.key)")
            } else {
                let name = entry.type == "----" ? try freeformName(reader, entry, path) : key(entry.type)
                items += try listItem(reader, entry, keySpace: .iTunes, key: name, path: "\(path)/ilst/'\(name)'")
            }
        }
        return items
    }

    /// The `keys` box of QuickTime metadata: numbered from 1, each a namespace and a name.
    static func keys(_ reader: BoxReader, _ box: MP4Box, _ path: String) throws(ReelError) -> [Int: MetadataIdentifier] {
        var r = reader.payload(box, path)
        try r.skip(4, "version and flags")
        let count = Int(try r.u32be("key count"))
        guard count <= r.remaining / 8 else {
            throw ReelError.corrupt("MP4", "\(path) says \(count) keys but has room for \(r.remaining / 8)", offset: Int(box.offset))
        }
        var keys: [Int: MetadataIdentifier] = [:]
        for index in stride(from: 1, through: count, by: 1) {
            let size = Int(try r.u32be("key size"))
            guard size >= 8, size - 4 <= r.remaining else {
                throw ReelError.corrupt("MP4", "\(path) key \(index) claims \(size) bytes; \(r.remaining + 4) remain", offset: Int(box.offset))
            }
            let namespace = FourCC(rawValue: try r.u32be("key namespace"))
            guard namespace.isPrintable, !namespace.bytes.contains(UInt8(ascii: "/")) else {
                throw ReelError.metadataFormat(
                    "MP4", "\(path) key \(index) has the namespace '\(namespace)', not a four-character code",
                    offset: Int(box.offset))
            }
            let name = TextDecoding.string(try r.bytes(size - 8))
            let space: MetadataKeySpace = namespace == "mdta" ? .quickTimeMetadata : MetadataKeySpace(rawValue: key(namespace))
            keys[index] = MetadataIdentifier(keySpace: space, key: name)
        }
        return keys
    }

    /// `----:MEAN:NAME` for an iTunes free-form item.
    static func freeformName(_ reader: BoxReader, _ entry: MP4Box, _ path: String) throws(ReelError) -> String {
        var mean = "", name = ""
        for child in try reader.children(of: entry, "\(path)/ilst/----") where child.type == "mean" || child.type == "name" {
            var r = reader.payload(child, "\(path)/ilst/----/\(child.type)")
            try r.skip(4, "version and flags")
            let text = TextDecoding.string(try r.bytes(r.remaining))
            if child.type == "mean" { mean = text } else { name = text }
        }
        return "----:\(mean):\(name)"
    }

    /// The `data` boxes of one list item, each an item: a type (well-known set 0), a
    /// locale (country, language) and the value.
    static func listItem(
        _ reader: BoxReader, _ entry: MP4Box, keySpace: MetadataKeySpace, key name: String,
        path: String
    ) throws(ReelError) -> [MetadataItem] {
        var items: [MetadataItem] = []
        for data in try reader.children(of: entry, path) where data.type == "data" {
            var r = reader.payload(data, "\(path)/data")
            let indicator = try r.u32be("data type")
            _ = try r.u16be("data country")
            let language = try r.u16be("data language")
            let bytes = Data(try r.bytes(r.remaining))
            let type: QuickTimeDataType = indicator >> 24 == 0 ? .wellKnown(indicator & 0xFF_FFFF) : .wellKnown(0)
            let value: MetadataValue
            do {
                value = try QuickTimeMetadataSample.decodeValue(
                    bytes, type: type, key: QuickTimeMetadataKey(localID: 0, key: name),
                    offset: Int(data.offset))
            } catch {
                throw ReelError.metadataFormat("MP4", "\(path): \(error.message)", offset: Int(data.offset))
            }
            items.append(
                MetadataItem(
                    identifier: MetadataIdentifier(keySpace: keySpace, key: name), value: value,
                    dataType: type.description, extendedLanguageTag: language == 0 ? nil : languageTag(language)))
        }
        return items
    }

    // MARK: Keys and languages

    /// A box type as a key: its four bytes as Latin-1 (`©nam`).
    static func key(_ type: FourCC) -> String {
        String(String.UnicodeScalarView(type.bytes.map { UnicodeScalar($0) }))
    }

    /// The BCP 47 tag of a QuickTime language: a Macintosh language code below 0x400
    /// (0 English, 1 French, ...), else a packed ISO 639-2/T code; nil for "unspecified"
    /// (0x7FFF), `und` and codes out of range.
    static func languageTag(_ code: UInt16) -> String? {
        if code < 0x400 { return macintoshLanguages[code] }
        return LanguageTag.iso639_2(packed: code).flatMap(LanguageTag.bcp47(fromISO639_2:))
    }

    /// The Macintosh language codes QuickTime user data uses (Inside Macintosh: Text, "Language codes").
    static let macintoshLanguages: [UInt16: String] = [
        0: "en", 1: "fr", 2: "de", 3: "it", 4: "nl", 5: "sv", 6: "es", 7: "da", 8: "pt", 9: "nb", 10: "he", 11: "ja",
        12: "ar", 13: "fi", 14: "el", 15: "is", 16: "mt", 17: "tr", 18: "hr", 19: "zh-Hant", 20: "ur", 21: "hi",
        22: "th", 23: "ko", 24: "lt", 25: "pl", 26: "hu", 27: "et", 28: "lv", 30: "fo", 31: "fa", 32: "ru",
        33: "zh-Hans", 34: "nl-BE", 35: "ga", 36: "sq", 37: "ro", 38: "cs", 39: "sk", 40: "sl", 41: "yi", 42: "sr",
        43: "mk", 44: "bg", 45: "uk", 46: "be",
    ]
}

/// Box access over a loaded `moov`: children checked against their parent, payload readers.
struct BoxReader {
    let bytes: [UInt8]
    /// The file offset of `bytes[0]`.
    let base: Int64

    func local(_ range: Range<Int64>) -> Range<Int> { Int(range.lowerBound - base)..<Int(range.upperBound - base) }

    func children(of box: MP4Box, _ path: String) throws(ReelError) -> [MP4Box] {
        try MP4Box.parse(bytes, range: local(box.payloadRange), base: base, parent: path)
    }

    func payload(_ box: MP4Box, _ path: String) -> ByteReader {
        ByteReader(bytes, range: local(box.payloadRange), format: "MP4 \(path)")
    }

    /// The type of the first child box when the payload starts like one, else nil.
    func childType(of box: MP4Box) -> FourCC? {
        let payload = local(box.payloadRange)
        guard payload.count >= 8 else { return nil }
        return FourCC(bytes: bytes[(payload.lowerBound + 4)..<(payload.lowerBound + 8)])
    }
}

extension MP4File {
    /// The movie's static metadata from its own boxes (see ``MP4MovieMetadata``).
    public func movieMetadata() throws(ReelError) -> [MetadataItem] {
        let (box, bytes) = try moov()
        do {
            return try MP4MovieMetadata.items(bytes, box: box, base: box.offset)
        } catch {
            throw ReelError(error.code, error.message, path: path)
        }
    }
}
