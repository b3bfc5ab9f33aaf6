/// A four-character code: a GPMF key, an MP4 box type, a sample-entry format.
///
/// Stored as the big-endian `UInt32` of its four bytes; `description` shows the characters
/// (non-printable bytes as `\xNN`).
public struct FourCC: Sendable, Hashable, Comparable, RawRepresentable, ExpressibleByStringLiteral, CustomStringConvertible, Codable {
    public var rawValue: UInt32

    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// The code of the first four bytes of `string` (Latin-1); shorter strings are padded with spaces.
    public init(_ string: String) {
        var v: UInt32 = 0
        var n = 0
        for scalar in string.unicodeScalars.prefix(4) {
            v = v << 8 | (scalar.value & 0xFF)
            n += 1
        }
        while n < 4 {
            v = v << 8 | 0x20
            n += 1
        }
        self.rawValue = v
    }

    public init(stringLiteral value: String) { self.init(value) }

    /// The code of four bytes.
    public init(bytes: some Collection<UInt8>) {
        self.rawValue = bytes.prefix(4).reduce(0) { $0 << 8 | UInt32($1) }
    }

    /// The four bytes, most significant first.
    public var bytes: [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: rawValue >> (24 - 8 * UInt32($0))) } }

    /// Whether all four bytes are printable ASCII (space through tilde).
    public var isPrintable: Bool { bytes.allSatisfy { (0x20...0x7E).contains($0) } }

    /// The four characters; non-printable bytes as `\xNN`.
    public var description: String {
        bytes.map { (0x20...0x7E).contains($0) ? String(UnicodeScalar($0)) : "\\x" + String($0, radix: 16, uppercase: true).leftPadded(to: 2) }.joined()
    }

    public static func < (lhs: FourCC, rhs: FourCC) -> Bool { lhs.rawValue < rhs.rawValue }

    public init(from decoder: any Decoder) throws {
        self.init(try decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(description)
    }
}

extension String {
    func leftPadded(to width: Int, with pad: Character = "0") -> String {
        count >= width ? self : String(repeating: pad, count: width - count) + self
    }
}
