import Foundation

/// The data type of a QuickTime metadata key (`dtyp`): a well-known type code, or a
/// reverse-DNS type name.
public enum QuickTimeDataType: Sendable, Hashable, CustomStringConvertible {
    /// Namespace 0: a code from Apple's "well-known types" table (1 UTF-8, 23 float32, ...).
    case wellKnown(UInt32)
    /// Namespace 1: a reverse-DNS name (`com.apple.quicktime.detected-face`).
    case reverseDNS(String)

    // Well-known codes (QuickTime File Format, "Well-known types").
    public static let reserved: UInt32 = 0
    public static let utf8: UInt32 = 1
    public static let utf16: UInt32 = 2
    public static let shiftJIS: UInt32 = 3
    public static let utf8Sort: UInt32 = 4
    public static let utf16Sort: UInt32 = 5
    public static let gif: UInt32 = 12
    public static let jpeg: UInt32 = 13
    public static let png: UInt32 = 14
    /// Big-endian signed integer of 1, 2, 3, 4 or 8 bytes (the value's size says which).
    public static let signedInteger: UInt32 = 21
    /// Big-endian unsigned integer of 1, 2, 3, 4 or 8 bytes.
    public static let unsignedInteger: UInt32 = 22
    public static let float32: UInt32 = 23
    public static let float64: UInt32 = 24
    public static let bmp: UInt32 = 27
    public static let metadataAtom: UInt32 = 28
    public static let int8: UInt32 = 65
    public static let int16: UInt32 = 66
    public static let int32: UInt32 = 67
    public static let pointF32: UInt32 = 70
    public static let dimensionsF32: UInt32 = 71
    public static let rectF32: UInt32 = 72
    public static let int64: UInt32 = 74
    public static let uint8: UInt32 = 75
    public static let uint16: UInt32 = 76
    public static let uint32: UInt32 = 77
    public static let uint64: UInt32 = 78
    public static let affineTransformF64: UInt32 = 79

    /// The names Core Media gives the well-known codes.
    static let wellKnownNames: [UInt32: String] = [
        0: "raw-data", 1: "UTF-8", 2: "UTF-16", 3: "SJIS", 4: "UTF-8", 5: "UTF-16", 12: "GIF", 13: "JPEG", 14: "PNG",
        21: "signed-integer", 22: "unsigned-integer", 23: "float32", 24: "float64", 27: "BMP", 28: "QuickTimeMetadata",
        65: "int8", 66: "int16", 67: "int32", 70: "PointF32", 71: "DimensionsF32", 72: "RectF32", 74: "int64",
        75: "uint8", 76: "uint16", 77: "uint32", 78: "uint64", 79: "AffineTransformF64",
    ]

    /// The type ``description`` names: a `com.apple.metadata.datatype.` name becomes its
    /// well-known code (the lowest, for names two codes share), any other reverse-DNS name
    /// stays one. Nil for an unknown Core Media name.
    public init?(typeName: String) {
        let prefix = "com.apple.metadata.datatype."
        guard typeName.hasPrefix(prefix) else {
            guard typeName.contains(".") else { return nil }
            self = .reverseDNS(typeName)
            return
        }
        let name = String(typeName.dropFirst(prefix.count))
        if name.hasPrefix("well-known."), let code = UInt32(name.dropFirst("well-known.".count)) {
            self = .wellKnown(code)
            return
        }
        guard let code = Self.wellKnownNames.filter({ $0.value == name }).keys.min() else { return nil }
        self = .wellKnown(code)
    }

    /// The type's name as Core Media spells it (`com.apple.metadata.datatype.UTF-8`), or
    /// the reverse-DNS name itself.
    public var description: String {
        switch self {
        case .reverseDNS(let name): return name
        case .wellKnown(let code):
            return "com.apple.metadata.datatype." + (Self.wellKnownNames[code] ?? "well-known.\(code)")
        }
    }
}

/// One key of a `mebx` sample description: the local id samples use, and what it names.
public struct QuickTimeMetadataKey: Sendable, Hashable {
    /// The id items in a sample refer to (the key box's type, as a u32).
    public var localID: UInt32
    /// `keyd` namespace, usually `mdta`.
    public var namespace: FourCC
    /// `keyd` key (`com.apple.quicktime.location.ISO6709`).
    public var key: String
    /// `dtyp`, when present.
    public var dataType: QuickTimeDataType?

    public init(localID: UInt32, namespace: FourCC = "mdta", key: String, dataType: QuickTimeDataType? = nil) {
        self.localID = localID
        self.namespace = namespace
        self.key = key
        self.dataType = dataType
    }

    /// The identifier items with this key get: `mdta/KEY` for the `mdta` namespace, else `NAMESPACE/KEY`.
    public var identifier: MetadataIdentifier {
        MetadataIdentifier(keySpace: namespace == "mdta" ? .quickTimeMetadata : MetadataKeySpace(rawValue: namespace.description), key: key)
    }

    /// Parses a `mebx` sample entry's `keys` box: one child box per key, whose type is the local id.
    static func parseKeys(_ bytes: [UInt8], box keys: MP4Box, base: Int64, track: String) throws(ReelError) -> [QuickTimeMetadataKey] {
        func local(_ r: Range<Int64>) -> Range<Int> { Int(r.lowerBound - base)..<Int(r.upperBound - base) }
        var out: [QuickTimeMetadataKey] = []
        for keyBox in try MP4Box.parse(bytes, range: local(keys.payloadRange), base: base, parent: "\(track) mebx keys") {
            let localID = keyBox.type.rawValue
            var key = QuickTimeMetadataKey(localID: localID, namespace: "    ", key: "")
            var sawKeyd = false
            for child in try MP4Box.parse(bytes, range: local(keyBox.payloadRange), base: base, parent: "\(track) key \(localID)") {
                var r = ByteReader(bytes, range: local(child.payloadRange), format: "MP4 \(track) key \(localID) '\(child.type)'")
                switch child.type {
                case "keyd":
                    key.namespace = FourCC(rawValue: try r.u32be("key namespace"))
                    key.key = TextDecoding.string(try r.bytes(r.remaining))
                    sawKeyd = true
                case "dtyp":
                    let namespace = try r.u32be("type namespace")
                    if namespace == 0 {
                        key.dataType = .wellKnown(try r.u32be("well-known type"))
                    } else if namespace == 1 {
                        key.dataType = .reverseDNS(TextDecoding.string(try r.bytes(r.remaining)))
                    } else {
                        throw .metadataFormat(
                            "MP4", "\(track) key \(localID): 'dtyp' namespace \(namespace) is neither 0 (well-known) nor 1 (reverse DNS)",
                            offset: Int(child.offset))
                    }
                default:
                    continue
                }
            }
            guard sawKeyd else {
                throw .metadataFormat("MP4", "\(track) key \(localID) has no 'keyd'", offset: Int(keyBox.offset))
            }
            out.append(key)
        }
        return out
    }
}
