import Foundation

/// One GPMF KLV: a FourCC key, a type, a structure size and a repeat count, then either
/// a payload (`structSize * repeatCount` bytes) or, for ``GPMFType/nested``, child KLVs.
///
/// ``parse(_:)`` walks a whole payload into a tree; ``values(layout:)`` decodes a leaf.
/// This is the lower-level view; ``GPMF`` builds streams and timed groups on it.
public struct GPMFNode: Sendable, Hashable {
    public var key: FourCC
    public var type: GPMFType
    /// Bytes per structure (sample), 0...255.
    public var structSize: Int
    /// Number of structures, 0...65535.
    public var repeatCount: Int
    /// Offset of this KLV's 8-byte header in the parsed data.
    public var offset: Int
    /// The payload bytes, without padding; empty for nested KLVs.
    public var payload: Data
    /// The KLVs inside a nested KLV; empty otherwise.
    public var children: [GPMFNode]

    public init(
        key: FourCC, type: GPMFType, structSize: Int, repeatCount: Int, offset: Int = 0,
        payload: Data = Data(), children: [GPMFNode] = []
    ) {
        self.key = key
        self.type = type
        self.structSize = structSize
        self.repeatCount = repeatCount
        self.offset = offset
        self.payload = payload
        self.children = children
    }

    /// Nesting deeper than this is refused: real payloads use three levels (DEVC > STRM > data).
    public static let maximumDepth = 16

    /// Whether this KLV holds child KLVs.
    public var isNested: Bool { type == .nested }

    /// The first child with `key`.
    public func child(_ key: FourCC) -> GPMFNode? { children.first { $0.key == key } }

    /// Walks a GPMF payload into its KLV tree.
    ///
    /// Trailing zero bytes (padding some writers add) end the walk; anything else that
    /// does not form a whole KLV is an error naming the key and offset.
    public static func parse(_ data: Data) throws(ReelError) -> [GPMFNode] {
        let bytes = [UInt8](data)
        return try parse(bytes, range: 0..<bytes.count, depth: 0, path: "")
    }

    /// - Parameter shallow: parse only this level's headers, leaving nested KLVs without children.
    static func parse(_ bytes: [UInt8], range: Range<Int>, depth: Int, path: String, shallow: Bool = false) throws(ReelError) -> [GPMFNode] {
        var nodes: [GPMFNode] = []
        var offset = range.lowerBound
        let end = range.upperBound
        while offset < end {
            let left = end - offset
            if left < 8 || bytes[offset..<(offset + 4)].allSatisfy({ $0 == 0 }) {
                // Zero padding to the end of the parent is allowed; anything else is damage.
                if bytes[offset..<end].allSatisfy({ $0 == 0 }) { break }
                if left < 8 {
                    throw ReelError.truncated("GPMF", "KLV header\(path.isEmpty ? "" : " in \(path)")", offset: offset, needed: 8, available: left)
                }
                throw .metadataFormat("GPMF", "null key\(path.isEmpty ? "" : " in \(path)") followed by data", offset: offset)
            }
            let key = FourCC(bytes: bytes[offset..<(offset + 4)])
            var name: String { path.isEmpty ? key.description : "\(path)/\(key)" }
            guard bytes[offset..<(offset + 4)].allSatisfy(isKeyCharacter) else {
                throw .metadataFormat("GPMF", "key \"\(key)\" is not a FourCC of letters, digits and spaces", offset: offset)
            }
            guard let type = GPMFType(rawValue: bytes[offset + 4]) else {
                let c = bytes[offset + 4]
                let shown = (0x20...0x7E).contains(c) ? "'\(UnicodeScalar(c))'" : "0x" + String(c, radix: 16)
                throw .metadataFormat("GPMF", "\(name): unknown type \(shown)", offset: offset)
            }
            let structSize = Int(bytes[offset + 5])
            let repeatCount = Int(bytes[offset + 6]) << 8 | Int(bytes[offset + 7])
            let length = structSize * repeatCount
            let start = offset + 8
            guard length <= end - start else {
                throw .corrupt(
                    "GPMF", "\(name): \(structSize) x \(repeatCount) = \(length) bytes of payload run past the end of its parent (\(end - start) bytes left)",
                    offset: offset)
            }
            var node = GPMFNode(key: key, type: type, structSize: structSize, repeatCount: repeatCount, offset: offset)
            if type == .nested && shallow {
                // Children are left unparsed.
            } else if type == .nested {
                guard depth < maximumDepth else {
                    throw .metadataFormat("GPMF", "\(name): nested more than \(maximumDepth) levels deep", offset: offset)
                }
                node.children = try parse(bytes, range: start..<(start + length), depth: depth + 1, path: name)
            } else {
                node.payload = Data(bytes[start..<(start + length)])
            }
            nodes.append(node)
            // 32-bit alignment; the last KLV of a parent may omit its padding.
            offset = min(start + (length + 3) & ~3, end)
        }
        return nodes
    }

    private static func isKeyCharacter(_ c: UInt8) -> Bool {
        (0x30...0x39).contains(c) || (0x41...0x5A).contains(c) || (0x61...0x7A).contains(c) || c == 0x20
    }

    /// Decodes a leaf's payload: one array of values per structure.
    ///
    /// - A `c` KLV with a structure size of 1 is one string (`STNM 'c' 1 50`); otherwise each
    ///   structure is one string (`UNIT 'c' 3 5` is five units).
    /// - Numeric types give `structSize / elementSize` values per structure.
    /// - ``GPMFType/complex`` needs the stream's `TYPE` as `layout`, whose size must equal
    ///   the structure size; character arrays in it (`c[4]`) become one string.
    public func values(layout: GPMFStructLayout? = nil) throws(ReelError) -> [[GPMFValue]] {
        let bytes = [UInt8](payload)
        switch type {
        case .nested:
            throw .metadataFormat("GPMF", "\(key) holds nested KLVs, not values", offset: offset)
        case .char:
            if structSize <= 1 { return repeatCount == 0 ? [] : [[.string(TextDecoding.string(bytes))]] }
            return (0..<repeatCount).map { [.string(TextDecoding.string(bytes[($0 * structSize)..<(($0 + 1) * structSize)]))] }
        case .complex:
            guard let layout else {
                throw .metadataFormat("GPMF", "\(key) has complex type '?' but its stream has no TYPE before it", offset: offset)
            }
            guard layout.size == structSize else {
                throw .metadataFormat(
                    "GPMF", "\(key): TYPE \"\(layout)\" describes \(layout.size) bytes but the structure size is \(structSize)", offset: offset)
            }
            var out: [[GPMFValue]] = []
            out.reserveCapacity(repeatCount)
            for r in 0..<repeatCount {
                var o = r * structSize
                var sample: [GPMFValue] = []
                for field in layout.fields {
                    sample += GPMFValue.decode(field.type, count: field.count, in: bytes, at: o)
                    o += (field.type.elementSize ?? 0) * field.count
                }
                out.append(sample)
            }
            return out
        default:
            let size = type.elementSize ?? 1
            guard structSize % size == 0 else {
                throw .metadataFormat("GPMF", "\(key): structure size \(structSize) is not a multiple of type '\(type)' (\(size) bytes)", offset: offset)
            }
            let perStruct = structSize / size
            if perStruct == 0 { return [] }
            return (0..<repeatCount).map { GPMFValue.decode(type, count: perStruct, in: bytes, at: $0 * structSize) }
        }
    }
}
