/// One box (atom) of an MP4 or QuickTime file: its type and where its bytes are.
public struct MP4Box: Sendable, Hashable, CustomStringConvertible {
    public var type: FourCC
    /// Offset of the box's header in the file.
    public var offset: Int64
    /// Size of the whole box, header included.
    public var size: Int64
    /// 8, 16 (64-bit size), plus 16 for a `uuid` box.
    public var headerSize: Int
    /// The extended type of a `uuid` box.
    public var userType: [UInt8]?

    public init(type: FourCC, offset: Int64, size: Int64, headerSize: Int, userType: [UInt8]? = nil) {
        self.type = type
        self.offset = offset
        self.size = size
        self.headerSize = headerSize
        self.userType = userType
    }

    /// The bytes after the header.
    public var payloadRange: Range<Int64> { (offset + Int64(headerSize))..<(offset + size) }
    public var end: Int64 { offset + size }

    public var description: String { "'\(type)' at \(offset) (\(size) bytes)" }

    /// Box types whose payload is only child boxes.
    public static let containerTypes: Set<FourCC> = [
        "moov", "trak", "mdia", "minf", "stbl", "edts", "dinf", "udta", "tref", "mvex", "moof", "traf", "gmhd", "mfra",
    ]

    /// Reads the box headers in `range` of `bytes`, whose first byte is at file offset `base`.
    ///
    /// A size of 0 means "to the end of the parent"; a size of 1 means a 64-bit size
    /// follows. No box may end past `range`. Trailing bytes too short for a header are
    /// refused unless they are zero.
    static func parse(_ bytes: [UInt8], range: Range<Int>, base: Int64, parent: String) throws(ReelError) -> [MP4Box] {
        var boxes: [MP4Box] = []
        var offset = range.lowerBound
        let end = range.upperBound
        while offset < end {
            let left = end - offset
            guard left >= 8 else {
                if bytes[offset..<end].allSatisfy({ $0 == 0 }) { break }
                throw ReelError.truncated("MP4", "box header in \(parent)", offset: Int(base) + offset, needed: 8, available: left)
            }
            var size = Int64(ByteReader.uintBE(bytes, at: offset, count: 4))
            let type = FourCC(bytes: bytes[(offset + 4)..<(offset + 8)])
            var header = 8
            if size == 1 {
                guard left >= 16 else {
                    throw ReelError.truncated("MP4", "64-bit size of '\(type)' in \(parent)", offset: Int(base) + offset, needed: 16, available: left)
                }
                let large = ByteReader.uintBE(bytes, at: offset + 8, count: 8)
                guard large <= UInt64(Int64.max) else {
                    throw ReelError.corrupt("MP4", "'\(type)' in \(parent) has a 64-bit size \(large) past any file", offset: Int(base) + offset)
                }
                size = Int64(large)
                header = 16
            } else if size == 0 {
                size = Int64(left)
            }
            var userType: [UInt8]?
            if type == "uuid" {
                guard left >= header + 16 else {
                    throw ReelError.truncated("MP4", "uuid of a 'uuid' box in \(parent)", offset: Int(base) + offset, needed: header + 16, available: left)
                }
                userType = Array(bytes[(offset + header)..<(offset + header + 16)])
                header += 16
            }
            guard size >= Int64(header) else {
                throw ReelError.corrupt("MP4", "'\(type)' in \(parent) claims \(size) bytes, less than its \(header)-byte header", offset: Int(base) + offset)
            }
            guard size <= Int64(left) else {
                throw ReelError.corrupt("MP4", "'\(type)' in \(parent) claims \(size) bytes but only \(left) remain in its parent", offset: Int(base) + offset)
            }
            boxes.append(MP4Box(type: type, offset: base + Int64(offset), size: size, headerSize: header, userType: userType))
            offset += Int(size)
        }
        return boxes
    }
}
