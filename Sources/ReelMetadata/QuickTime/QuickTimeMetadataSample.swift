import Foundation

/// Decodes the samples of a QuickTime timed-metadata track (`mebx`).
///
/// A sample is a run of items `[u32 size][u32 local key id][value]`; the sample entry's
/// keys (``QuickTimeMetadataKey``) say what each id names and how its value is typed.
/// A key absent from a sample has no value at that time.
public enum QuickTimeMetadataSample {
    /// One raw item of a sample.
    public struct RawItem: Sendable, Hashable {
        public var localID: UInt32
        public var value: Data
        /// Offset of the item's header in the sample.
        public var offset: Int
    }

    /// Splits a sample into its items, without decoding values.
    public static func rawItems(_ sample: Data) throws(ReelError) -> [RawItem] {
        try rawItems([UInt8](sample), range: 0..<sample.count, depth: 0)
    }

    static func rawItems(_ bytes: [UInt8], range: Range<Int>, depth: Int) throws(ReelError) -> [RawItem] {
        var items: [RawItem] = []
        var r = ByteReader(bytes, range: range, format: "mebx sample")
        while !r.isAtEnd {
            let start = r.offset
            let size = Int(try r.u32be("item size"))
            let id = try r.u32be("item key id")
            guard size >= 8 else {
                throw .corrupt("mebx sample", "item with key id \(id) has size \(size), less than its 8-byte header", offset: start)
            }
            guard size - 8 <= r.remaining else {
                throw .corrupt("mebx sample", "item with key id \(id) claims \(size) bytes but only \(r.remaining + 8) remain", offset: start)
            }
            items.append(RawItem(localID: id, value: Data(try r.bytes(size - 8)), offset: start))
        }
        return items
    }

    /// The metadata items of one sample, timed over `timeRange`.
    ///
    /// Values are decoded by their key's well-known type (strings, integers, floats,
    /// points, rectangles, transforms; unknown types stay `.data`). A key whose type is a
    /// reverse-DNS group (`com.apple.quicktime.detected-face`) gives its raw bytes plus
    /// the items nested in it. A `com.apple.quicktime.location.ISO6709` value also gives
    /// the typed location items (`GPSFix/metadataItems(time:duration:)`).
    ///
    /// Items with the reserved local id 0 (an empty sample's filler) are skipped.
    ///
    /// - Throws: `.corruptData` or `.metadataFormat` naming the key and offset, including
    ///   for an item whose key id is not among `keys`.
    public static func items(sample: Data, keys: [QuickTimeMetadataKey], timeRange: TimeRange) throws(ReelError) -> [MetadataItem] {
        let bytes = [UInt8](sample)
        var table: [UInt32: QuickTimeMetadataKey] = [:]
        for k in keys { table[k.localID] = k }
        var out: [MetadataItem] = []
        try decode(bytes, range: 0..<bytes.count, keys: table, timeRange: timeRange, depth: 0, into: &out)
        return out
    }

    /// One timed group for a sample.
    public static func group(sample: Data, keys: [QuickTimeMetadataKey], timeRange: TimeRange) throws(ReelError) -> TimedMetadataGroup {
        TimedMetadataGroup(timeRange: timeRange, items: try items(sample: sample, keys: keys, timeRange: timeRange))
    }

    private static func decode(
        _ bytes: [UInt8], range: Range<Int>, keys: [UInt32: QuickTimeMetadataKey], timeRange: TimeRange,
        depth: Int, into out: inout [MetadataItem]
    ) throws(ReelError) {
        guard depth < 8 else { throw .metadataFormat("mebx sample", "items nested more than 8 deep", offset: range.lowerBound) }
        for raw in try rawItems(bytes, range: range, depth: depth) {
            // Local id 0 is reserved: writers use an empty item with it for "no value".
            if raw.localID == 0 { continue }
            guard let key = keys[raw.localID] else {
                throw .metadataFormat("mebx sample", "item key id \(raw.localID) is not in the track's 'keys'", offset: raw.offset)
            }
            let valueStart = raw.offset + 8
            let valueRange = valueStart..<(valueStart + raw.value.count)
            let value = try decodeValue(raw.value, type: key.dataType, key: key, offset: raw.offset)
            out.append(
                MetadataItem(
                    identifier: key.identifier, value: value, dataType: key.dataType?.description,
                    time: timeRange.start, duration: timeRange.duration))
            if case .reverseDNS? = key.dataType, !raw.value.isEmpty {
                try decode(bytes, range: valueRange, keys: keys, timeRange: timeRange, depth: depth + 1, into: &out)
            }
            if key.key == MetadataIdentifier.quickTimeMetadataLocationISO6709.key, case .string(let text) = value {
                let location = try ISO6709.parse(text)
                out += location.fix.metadataItems(time: timeRange.start, duration: timeRange.duration)
                    .filter { $0.identifier != .quickTimeMetadataLocationISO6709 }
            }
        }
    }

    /// Decodes one value by its key's type.
    public static func decodeValue(_ data: Data, type: QuickTimeDataType?, key: QuickTimeMetadataKey, offset: Int = 0) throws(ReelError) -> MetadataValue {
        guard case .wellKnown(let code)? = type else { return .data(data) }
        let b = [UInt8](data)
        func bad(_ what: String) -> ReelError {
            .metadataFormat("mebx sample", "\(key.key): \(what) (type \(QuickTimeDataType.wellKnown(code)))", offset: offset)
        }
        func fixed(_ size: Int) throws(ReelError) {
            guard b.count == size else { throw bad("value is \(b.count) bytes, expected \(size)") }
        }
        func signed(_ count: Int) -> Int64 {
            let u = ByteReader.uintBE(b, at: 0, count: count)
            let shift = UInt64(64 - 8 * count)
            return Int64(bitPattern: u << shift) >> Int64(shift)
        }
        func floats32(_ n: Int) throws(ReelError) -> [Double] {
            try fixed(4 * n)
            return (0..<n).map { Double(Float(bitPattern: UInt32(ByteReader.uintBE(b, at: 4 * $0, count: 4)))) }
        }
        switch code {
        case QuickTimeDataType.utf8, QuickTimeDataType.utf8Sort:
            guard let s = String(validating: b, as: UTF8.self) else { throw bad("value is not valid UTF-8") }
            return .string(s)
        case QuickTimeDataType.utf16, QuickTimeDataType.utf16Sort:
            guard b.count % 2 == 0 else { throw bad("UTF-16 value has an odd byte count") }
            let units = stride(from: 0, to: b.count, by: 2).map { UInt16(b[$0]) << 8 | UInt16(b[$0 + 1]) }
            guard let s = String(validating: units, as: UTF16.self) else { throw bad("value is not valid UTF-16") }
            return .string(s)
        case QuickTimeDataType.signedInteger:
            guard [1, 2, 3, 4, 8].contains(b.count) else { throw bad("signed integer of \(b.count) bytes") }
            return .integer(signed(b.count))
        case QuickTimeDataType.unsignedInteger:
            guard [1, 2, 3, 4, 8].contains(b.count) else { throw bad("unsigned integer of \(b.count) bytes") }
            let u = ByteReader.uintBE(b, at: 0, count: b.count)
            return u <= UInt64(Int64.max) ? .integer(Int64(u)) : .double(Double(u))
        case QuickTimeDataType.int8: try fixed(1); return .integer(signed(1))
        case QuickTimeDataType.int16: try fixed(2); return .integer(signed(2))
        case QuickTimeDataType.int32: try fixed(4); return .integer(signed(4))
        case QuickTimeDataType.int64: try fixed(8); return .integer(signed(8))
        case QuickTimeDataType.uint8: try fixed(1); return .integer(Int64(b[0]))
        case QuickTimeDataType.uint16: try fixed(2); return .integer(Int64(ByteReader.uintBE(b, at: 0, count: 2)))
        case QuickTimeDataType.uint32: try fixed(4); return .integer(Int64(ByteReader.uintBE(b, at: 0, count: 4)))
        case QuickTimeDataType.uint64:
            try fixed(8)
            let u = ByteReader.uintBE(b, at: 0, count: 8)
            return u <= UInt64(Int64.max) ? .integer(Int64(u)) : .double(Double(u))
        case QuickTimeDataType.float32: return .double(try floats32(1)[0])
        case QuickTimeDataType.float64:
            try fixed(8)
            return .double(Double(bitPattern: ByteReader.uintBE(b, at: 0, count: 8)))
        case QuickTimeDataType.pointF32, QuickTimeDataType.dimensionsF32: return .numbers(try floats32(2))
        case QuickTimeDataType.rectF32: return .numbers(try floats32(4))
        case QuickTimeDataType.affineTransformF64:
            try fixed(72)
            return .numbers((0..<9).map { Double(bitPattern: ByteReader.uintBE(b, at: 8 * $0, count: 8)) })
        default:
            return .data(data)
        }
    }
}

extension QuickTimeMetadataSample {
    /// Encodes items as one sample, adding their keys to `keys` as needed.
    ///
    /// Each item's key is its identifier's namespace (`mdta` for `.quickTimeMetadata`, else
    /// a four-character key space) and key; its type is the item's `MetadataItem/dataType`
    /// when that names a QuickTime type, else the value's natural one (strings UTF-8,
    /// integers signed, doubles float64, dates ISO 8601 strings, data raw).
    ///
    /// - Throws: `.metadataFormat` naming the key when a value does not fit its type, or a
    ///   key space is not four characters.
    public static func encode(_ items: [MetadataItem], keys: inout QuickTimeMetadataKeyTable) throws(ReelError) -> Data {
        var w = ByteWriter()
        for item in items {
            let space = item.identifier.keySpace == .quickTimeMetadata ? "mdta" : item.identifier.keySpace.rawValue
            guard space.utf8.count == 4 else {
                throw .metadataFormat("mebx sample", "\(item.identifier): key space '\(space)' is not four characters")
            }
            let type = try dataType(of: item)
            let value = try encodeValue(item.value, type: type, key: item.identifier.key)
            let id = keys.localID(namespace: FourCC(space), key: item.identifier.key, dataType: type)
            w.u32be(UInt32(8 + value.count))
            w.u32be(id)
            w.append(contentsOf: value)
        }
        return Data(w.bytes)
    }

    /// The QuickTime type an item is written with.
    static func dataType(of item: MetadataItem) throws(ReelError) -> QuickTimeDataType {
        if let name = item.dataType, let type = QuickTimeDataType(typeName: name) { return type }
        switch item.value {
        case .string, .date: return .wellKnown(QuickTimeDataType.utf8)
        case .integer: return .wellKnown(QuickTimeDataType.signedInteger)
        case .double: return .wellKnown(QuickTimeDataType.float64)
        case .data: return .wellKnown(QuickTimeDataType.reserved)
        case .numbers(let numbers):
            switch numbers.count {
            case 1: return .wellKnown(QuickTimeDataType.float64)
            case 9: return .wellKnown(QuickTimeDataType.affineTransformF64)
            default:
                throw .metadataFormat("mebx sample", "\(item.identifier): \(numbers.count) numbers need a data type (PointF32, DimensionsF32, RectF32)")
            }
        }
    }

    /// The bytes of a value written as `type` (the inverse of ``decodeValue(_:type:key:offset:)``).
    public static func encodeValue(_ value: MetadataValue, type: QuickTimeDataType, key: String) throws(ReelError) -> [UInt8] {
        func bad(_ what: String) -> ReelError { .metadataFormat("mebx sample", "\(key): \(what) (type \(type))") }
        guard case .wellKnown(let code) = type else {
            guard case .data(let data) = value else { throw bad("a reverse-DNS type takes raw data") }
            return [UInt8](data)
        }
        var w = ByteWriter()
        func integer() throws(ReelError) -> Int64 {
            switch value {
            case .integer(let v): return v
            case .double(let d) where d.rounded() == d && abs(d) < 9.2e18: return Int64(d)
            default: throw bad("value is not an integer")
            }
        }
        func fixed(_ v: Int64, bytes: Int, signed: Bool) throws(ReelError) {
            let bits = Int64(8 * bytes)
            let fits = bytes == 8 ? (signed || v >= 0) : (signed ? (v >= -(1 << (bits - 1)) && v < 1 << (bits - 1)) : (v >= 0 && v < 1 << bits))
            guard fits else { throw bad("\(v) does not fit in \(bytes) bytes") }
            w.appendBE(UInt64(bitPattern: v), bytes)
        }
        func floats(_ count: Int, wide: Bool) throws(ReelError) {
            let numbers: [Double]
            switch value {
            case .numbers(let n): numbers = n
            case .double(let d): numbers = [d]
            case .integer(let i): numbers = [Double(i)]
            default: throw bad("value is not numeric")
            }
            guard numbers.count == count else { throw bad("\(numbers.count) numbers, expected \(count)") }
            for n in numbers { wide ? w.u64be(n.bitPattern) : w.u32be(Float(n).bitPattern) }
        }
        switch code {
        case QuickTimeDataType.utf8, QuickTimeDataType.utf8Sort, QuickTimeDataType.utf16, QuickTimeDataType.utf16Sort:
            let text: String
            switch value {
            case .string(let s): text = s
            case .date(let d): text = d.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
            default: throw bad("value is not text")
            }
            if code == QuickTimeDataType.utf8 || code == QuickTimeDataType.utf8Sort {
                w.append(contentsOf: text.utf8)
            } else {
                for unit in text.utf16 { w.u16be(unit) }
            }
        case QuickTimeDataType.signedInteger:
            let v = try integer()
            try fixed(v, bytes: Int64(Int32.min)...Int64(Int32.max) ~= v ? 4 : 8, signed: true)
        case QuickTimeDataType.unsignedInteger:
            let v = try integer()
            try fixed(v, bytes: v >= 0 && v <= Int64(UInt32.max) ? 4 : 8, signed: false)
        case QuickTimeDataType.int8: try fixed(try integer(), bytes: 1, signed: true)
        case QuickTimeDataType.int16: try fixed(try integer(), bytes: 2, signed: true)
        case QuickTimeDataType.int32: try fixed(try integer(), bytes: 4, signed: true)
        case QuickTimeDataType.int64: try fixed(try integer(), bytes: 8, signed: true)
        case QuickTimeDataType.uint8: try fixed(try integer(), bytes: 1, signed: false)
        case QuickTimeDataType.uint16: try fixed(try integer(), bytes: 2, signed: false)
        case QuickTimeDataType.uint32: try fixed(try integer(), bytes: 4, signed: false)
        case QuickTimeDataType.uint64: try fixed(try integer(), bytes: 8, signed: false)
        case QuickTimeDataType.float32: try floats(1, wide: false)
        case QuickTimeDataType.float64: try floats(1, wide: true)
        case QuickTimeDataType.pointF32, QuickTimeDataType.dimensionsF32: try floats(2, wide: false)
        case QuickTimeDataType.rectF32: try floats(4, wide: false)
        case QuickTimeDataType.affineTransformF64: try floats(9, wide: true)
        default:
            guard case .data(let data) = value else { throw bad("this type takes raw data") }
            w.append(contentsOf: data)
        }
        return w.bytes
    }
}
