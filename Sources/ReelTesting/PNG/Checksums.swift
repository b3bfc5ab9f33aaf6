/// CRC-32 as PNG chunks use it (ISO 3309 / ITU-T V.42, polynomial 0xEDB88320, reflected).
public struct CRC32: Sendable, Hashable {
    /// The running value, finalised (ready to read after any `update`).
    public private(set) var value: UInt32 = 0

    public init() {}

    /// The checksum of `bytes`.
    public static func checksum<S: Sequence>(_ bytes: S) -> UInt32 where S.Element == UInt8 {
        var crc = CRC32()
        crc.update(bytes)
        return crc.value
    }

    /// Adds `bytes` to the checksum.
    public mutating func update<S: Sequence>(_ bytes: S) where S.Element == UInt8 {
        var c = ~value
        for byte in bytes {
            c = Self.table[Int((c ^ UInt32(byte)) & 0xFF)] ^ (c >> 8)
        }
        value = ~c
    }

    private static let table: [UInt32] = (0..<256).map { n -> UInt32 in
        var c = UInt32(n)
        for _ in 0..<8 {
            c = c & 1 == 1 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1
        }
        return c
    }
}

/// Adler-32, the checksum that ends a zlib stream (RFC 1950).
public struct Adler32: Sendable, Hashable {
    private var a: UInt32 = 1
    private var b: UInt32 = 0

    public init() {}

    /// The checksum so far.
    public var value: UInt32 { (b << 16) | a }

    /// The checksum of `bytes`.
    public static func checksum<S: Sequence>(_ bytes: S) -> UInt32 where S.Element == UInt8 {
        var adler = Adler32()
        adler.update(bytes)
        return adler.value
    }

    /// Adds `bytes` to the checksum.
    public mutating func update<S: Sequence>(_ bytes: S) where S.Element == UInt8 {
        // 5552 is the largest run for which `b` cannot overflow 32 bits before the modulo.
        let modulus: UInt32 = 65521
        var pending = 0
        for byte in bytes {
            a &+= UInt32(byte)
            b &+= a
            pending += 1
            if pending == 5552 {
                a %= modulus
                b %= modulus
                pending = 0
            }
        }
        a %= modulus
        b %= modulus
    }
}
