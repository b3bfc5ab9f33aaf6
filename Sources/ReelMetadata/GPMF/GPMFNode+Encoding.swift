import Foundation

extension GPMFNode {
    /// The KLV as bytes: header, payload (or encoded children), padding to 32 bits.
    ///
    /// A nested KLV's size is written as structure size 1 and a repeat of the byte count,
    /// or as 4 x count/4 when that exceeds 65535 bytes.
    /// - Throws: `.invalidArgument` when the payload does not match `structSize * repeatCount`
    ///   or does not fit GPMF's limits (255-byte structures, 65535 repeats).
    public func encoded() throws(ReelError) -> Data {
        Data(try encodedBytes())
    }

    func encodedBytes() throws(ReelError) -> [UInt8] {
        var body: [UInt8]
        var size = structSize
        var count = repeatCount
        if type == .nested {
            body = []
            for child in children { body += try child.encodedBytes() }
            if body.count <= 65535 {
                (size, count) = (1, body.count)
            } else if body.count <= 4 * 65535 {
                (size, count) = (4, body.count / 4)
            } else {
                throw ReelError(.invalidArgument, "GPMF: \(key) would hold \(body.count) bytes, more than a KLV can (262140)")
            }
        } else {
            body = [UInt8](payload)
            guard (0...255).contains(size), (0...65535).contains(count), body.count == size * count else {
                throw ReelError(.invalidArgument, "GPMF: \(key) has \(body.count) payload bytes for \(size) x \(count)")
            }
        }
        var w = ByteWriter()
        w.u32be(key.rawValue)
        w.u8(type.rawValue)
        w.u8(UInt8(size))
        w.u16be(UInt16(count))
        w.append(contentsOf: body)
        while w.bytes.count % 4 != 0 { w.u8(0) }
        return w.bytes
    }

    /// A `c` KLV holding `text` as one Latin-1 string (`STNM 'c' 1 n`).
    public static func string(_ key: FourCC, _ text: String) -> GPMFNode {
        let bytes = TextDecoding.latin1(text) ?? Array(text.utf8)
        return GPMFNode(key: key, type: .char, structSize: 1, repeatCount: bytes.count, payload: Data(bytes))
    }

    /// A `c` KLV holding one fixed-width string per element (`UNIT 'c' 3 5`), NUL-padded.
    public static func strings(_ key: FourCC, _ texts: [String]) -> GPMFNode {
        let encoded = texts.map { TextDecoding.latin1($0) ?? Array($0.utf8) }
        let width = min(255, encoded.map(\.count).max() ?? 0)
        var payload: [UInt8] = []
        for e in encoded { payload += e.prefix(width) + [UInt8](repeating: 0, count: width - min(width, e.count)) }
        return GPMFNode(key: key, type: .char, structSize: width, repeatCount: texts.count, payload: Data(payload))
    }

    /// A numeric KLV: `rows` structures of `type` (b B s S l L j J), each row one structure.
    public static func integers(_ key: FourCC, _ type: GPMFType, _ rows: [[Int64]]) -> GPMFNode {
        let size = type.elementSize ?? 4
        var w = ByteWriter()
        for row in rows { for v in row { w.appendBE(UInt64(bitPattern: v), size) } }
        return GPMFNode(key: key, type: type, structSize: size * (rows.first?.count ?? 0), repeatCount: rows.count, payload: Data(w.bytes))
    }

    /// A nested KLV.
    public static func nested(_ key: FourCC, _ children: [GPMFNode]) -> GPMFNode {
        GPMFNode(key: key, type: .nested, structSize: 1, repeatCount: 0, children: children)
    }
}

extension GPMFNode {
    /// A complex (`?`) KLV: one structure per row, each row's integers laid out by `layout`
    /// (one integer per element; floats and doubles take the integer's value, Q types
    /// their raw fixed-point bits). Character and 128-bit fields are not supported here.
    ///
    /// - Throws: `.invalidArgument` when a row does not have one integer per element, a
    ///   field has a character, date or id type, or there are more than 65535 rows.
    public static func complex(_ key: FourCC, layout: GPMFStructLayout, rows: [[Int64]]) throws(ReelError) -> GPMFNode {
        let types = layout.fields.flatMap { Array(repeating: $0.type, count: $0.count) }
        guard rows.count <= 65535 else { throw ReelError(.invalidArgument, "GPMF: \(key) has \(rows.count) rows; at most 65535 fit") }
        var w = ByteWriter()
        for (r, row) in rows.enumerated() {
            guard row.count == types.count else {
                throw ReelError(.invalidArgument, "GPMF: \(key) row \(r) has \(row.count) values for TYPE \"\(layout)\" (\(types.count))")
            }
            for (type, v) in zip(types, row) {
                switch type {
                case .float: w.u32be(Float(v).bitPattern)
                case .double: w.u64be(Double(v).bitPattern)
                case .char, .utcDate, .guid, .nested, .complex:
                    throw ReelError(.invalidArgument, "GPMF: \(key): TYPE \"\(layout)\" has a '\(type)' field, which takes no integer")
                default: w.appendBE(UInt64(bitPattern: v), type.elementSize ?? 4)
                }
            }
        }
        return GPMFNode(key: key, type: .complex, structSize: layout.size, repeatCount: rows.count, payload: Data(w.bytes))
    }
}
