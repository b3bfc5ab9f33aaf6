import Foundation

/// One decoded GPMF element.
public enum GPMFValue: Sendable, Hashable, CustomStringConvertible {
    /// `b`, `s`, `l`, `j`.
    case int(Int64)
    /// `B`, `S`, `L`, `J`.
    case uint(UInt64)
    /// `f`, `d`, `q`, `Q`, and any number after SCAL.
    case real(Double)
    /// `c` (one string per structure, or per character array in a complex type) and `U`.
    case string(String)
    /// `F`.
    case fourCC(FourCC)
    /// `G`: 16 raw bytes.
    case bytes(Data)

    /// The value as a number, when it is one.
    public var doubleValue: Double? {
        switch self {
        case .int(let v): Double(v)
        case .uint(let v): Double(v)
        case .real(let v): v
        case .string, .fourCC, .bytes: nil
        }
    }

    public var isNumber: Bool { doubleValue != nil }

    public var description: String {
        switch self {
        case .int(let v): String(v)
        case .uint(let v): String(v)
        case .real(let v): String(v)
        case .string(let s): s
        case .fourCC(let f): f.description
        case .bytes(let d): d.map { String($0, radix: 16).leftPadded(to: 2) }.joined()
        }
    }

    /// Decodes `count` elements of `type` at `offset`; bounds are checked by the caller.
    /// A `c` run becomes one string.
    static func decode(_ type: GPMFType, count: Int, in bytes: [UInt8], at offset: Int) -> [GPMFValue] {
        if type == .char {
            return [.string(TextDecoding.string(bytes[offset..<(offset + count)]))]
        }
        guard let size = type.elementSize else { return [] }
        var out: [GPMFValue] = []
        out.reserveCapacity(count)
        for k in 0..<count {
            let o = offset + k * size
            let u = size <= 8 ? ByteReader.uintBE(bytes, at: o, count: size) : 0
            switch type {
            case .int8: out.append(.int(Int64(Int8(truncatingIfNeeded: u))))
            case .int16: out.append(.int(Int64(Int16(truncatingIfNeeded: u))))
            case .int32: out.append(.int(Int64(Int32(truncatingIfNeeded: u))))
            case .int64: out.append(.int(Int64(bitPattern: u)))
            case .uint8, .uint16, .uint32, .uint64: out.append(.uint(u))
            case .float: out.append(.real(Double(Float(bitPattern: UInt32(truncatingIfNeeded: u)))))
            case .double: out.append(.real(Double(bitPattern: u)))
            case .q15_16: out.append(.real(Double(Int32(truncatingIfNeeded: u)) / 65536))
            case .q31_32: out.append(.real(Double(Int64(bitPattern: u)) / 4_294_967_296))
            case .fourCC: out.append(.fourCC(FourCC(rawValue: UInt32(truncatingIfNeeded: u))))
            case .guid: out.append(.bytes(Data(bytes[o..<(o + 16)])))
            case .utcDate: out.append(.string(TextDecoding.string(bytes[o..<(o + 16)])))
            case .char, .nested, .complex: break
            }
        }
        return out
    }
}
