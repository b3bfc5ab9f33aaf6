/// A box being rewritten or built: raw payload bytes, child boxes, or a chunk-offset
/// table whose offsets are fixed only when the file's layout is known.
indirect enum MP4BoxNode: Sendable {
    /// A box whose payload is kept as it is.
    case leaf(FourCC, [UInt8])
    /// A box whose payload is only child boxes.
    case container(FourCC, [MP4BoxNode])
    /// An existing track's `stco`/`co64`: offsets in the source file, moved with the
    /// bytes they point into; written as `stco` while they fit in 32 bits, else `co64`.
    case sourceChunkOffsets([UInt64])
    /// A new track's `co64`: offsets from the start of the appended `mdat`'s payload.
    case appendedChunkOffsets([UInt64])

    var type: FourCC {
        switch self {
        case .leaf(let type, _), .container(let type, _): type
        case .sourceChunkOffsets: "stco"
        case .appendedChunkOffsets: "co64"
        }
    }

    /// A full box (version 0, flags) of `payload`.
    static func full(_ type: FourCC, version: UInt8 = 0, flags: UInt32 = 0, _ payload: [UInt8]) -> MP4BoxNode {
        .leaf(type, [version, UInt8(truncatingIfNeeded: flags >> 16), UInt8(truncatingIfNeeded: flags >> 8), UInt8(truncatingIfNeeded: flags)] + payload)
    }

    /// Parses `box` out of `bytes` (which start at file offset `base`), descending into
    /// the boxes on the way to the chunk-offset tables; everything else stays raw.
    static func parse(_ bytes: [UInt8], box: MP4Box, base: Int64, path: String) throws(ReelError) -> MP4BoxNode {
        let payload = Int(box.payloadRange.lowerBound - base)..<Int(box.payloadRange.upperBound - base)
        switch box.type {
        case "moov", "trak", "mdia", "minf", "stbl":
            guard box.userType == nil else { return .leaf(box.type, Array(bytes[payload])) }
            let name = path + "/" + box.type.description
            var children: [MP4BoxNode] = []
            for child in try MP4Box.parse(bytes, range: payload, base: base, parent: name) {
                children.append(try parse(bytes, box: child, base: base, path: name))
            }
            return .container(box.type, children)
        case "stco", "co64":
            let wide = box.type == "co64"
            var r = ByteReader(bytes, range: payload, format: "MP4 \(path) '\(box.type)'")
            try r.skip(4, "version and flags")
            let count = Int(try r.u32be("entry count"))
            let size = wide ? 8 : 4
            guard count <= r.remaining / size else {
                throw .corrupt("MP4", "\(path) '\(box.type)' says \(count) entries but has room for \(r.remaining / size)", offset: Int(box.offset))
            }
            var offsets: [UInt64] = []
            offsets.reserveCapacity(count)
            for _ in 0..<count { offsets.append(wide ? try r.u64be() : UInt64(try r.u32be())) }
            return .sourceChunkOffsets(offsets)
        default:
            guard box.userType == nil else {
                // Keep the extended type: it is part of what the header says.
                return .leaf(box.type, box.userType! + Array(bytes[payload]))
            }
            return .leaf(box.type, Array(bytes[payload]))
        }
    }

    /// The box's bytes. `move` maps a source file offset to where that byte lands in the
    /// new file; `appendedBase` is the new file offset of the appended samples.
    func serialized(move: (UInt64) throws(ReelError) -> UInt64, appendedBase: UInt64) throws(ReelError) -> [UInt8] {
        var payload: [UInt8]
        var type = self.type
        switch self {
        case .leaf(_, let bytes):
            payload = bytes
        case .container(_, let children):
            payload = []
            for child in children { payload += try child.serialized(move: move, appendedBase: appendedBase) }
        case .sourceChunkOffsets(let offsets):
            var moved: [UInt64] = []
            moved.reserveCapacity(offsets.count)
            for offset in offsets { moved.append(try move(offset)) }
            let wide = moved.contains { $0 > UInt64(UInt32.max) }
            type = wide ? "co64" : "stco"
            payload = Self.offsetTable(moved, wide: wide)
        case .appendedChunkOffsets(let offsets):
            payload = Self.offsetTable(offsets.map { appendedBase + $0 }, wide: true)
        }
        return Self.header(type, payloadSize: payload.count) + payload
    }

    private static func offsetTable(_ offsets: [UInt64], wide: Bool) -> [UInt8] {
        var w = ByteWriter()
        w.u32be(0)
        w.u32be(UInt32(offsets.count))
        for offset in offsets { wide ? w.u64be(offset) : w.u32be(UInt32(offset)) }
        return w.bytes
    }

    /// A box header: 8 bytes, or 16 with a 64-bit size when the box is 4 GiB or more.
    static func header(_ type: FourCC, payloadSize: Int) -> [UInt8] {
        var w = ByteWriter()
        if payloadSize + 8 <= Int(UInt32.max) {
            w.u32be(UInt32(payloadSize + 8))
            w.append(contentsOf: type.bytes)
        } else {
            w.u32be(1)
            w.append(contentsOf: type.bytes)
            w.u64be(UInt64(payloadSize + 16))
        }
        return w.bytes
    }

    /// The children of a container (empty for other boxes).
    var children: [MP4BoxNode] {
        if case .container(_, let children) = self { return children }
        return []
    }

    /// The container with `children` in place of its own.
    func with(children: [MP4BoxNode]) -> MP4BoxNode {
        .container(type, children)
    }

    /// The payload of a leaf.
    var payload: [UInt8]? {
        if case .leaf(_, let bytes) = self { return bytes }
        return nil
    }
}
