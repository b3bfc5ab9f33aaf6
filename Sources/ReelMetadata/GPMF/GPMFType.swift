/// The type character of a GPMF KLV: how its payload's bytes are laid out.
///
/// All values are big-endian. ``nested`` (type 0) holds more KLVs; ``complex`` (`?`) is
/// laid out by the stream's preceding `TYPE` string (see ``GPMFStructLayout``).
public enum GPMFType: UInt8, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case nested = 0
    /// `b`: int8.
    case int8 = 0x62
    /// `B`: uint8.
    case uint8 = 0x42
    /// `c`: Latin-1 characters, a string per structure.
    case char = 0x63
    /// `d`: IEEE 754 double.
    case double = 0x64
    /// `f`: IEEE 754 float.
    case float = 0x66
    /// `F`: a four-character code.
    case fourCC = 0x46
    /// `G`: a 128-bit identifier.
    case guid = 0x47
    /// `j`: int64.
    case int64 = 0x6A
    /// `J`: uint64.
    case uint64 = 0x4A
    /// `l`: int32.
    case int32 = 0x6C
    /// `L`: uint32.
    case uint32 = 0x4C
    /// `q`: Q15.16 fixed point, 32 bits.
    case q15_16 = 0x71
    /// `Q`: Q31.32 fixed point, 64 bits.
    case q31_32 = 0x51
    /// `s`: int16.
    case int16 = 0x73
    /// `S`: uint16.
    case uint16 = 0x53
    /// `U`: 16-character UTC date and time, `yymmddhhmmss.sss`.
    case utcDate = 0x55
    /// `?`: a structure described by the stream's `TYPE`.
    case complex = 0x3F

    /// The size in bytes of one element; nil for ``nested`` and ``complex``.
    public var elementSize: Int? {
        switch self {
        case .int8, .uint8, .char: 1
        case .int16, .uint16: 2
        case .int32, .uint32, .float, .fourCC, .q15_16: 4
        case .int64, .uint64, .double, .q31_32: 8
        case .guid, .utcDate: 16
        case .nested, .complex: nil
        }
    }

    /// The type character (`"s"`, `"?"`), or `"0"` for nested.
    public var character: Character {
        self == .nested ? "0" : Character(UnicodeScalar(rawValue))
    }

    public var description: String { String(character) }
}
