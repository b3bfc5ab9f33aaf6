internal import CZlib

/// CRC-32 as PNG chunks use it (ISO 3309 / ITU-T V.42, polynomial 0xEDB88320, reflected),
/// computed by the system zlib.
public struct CRC32: Sendable, Hashable {
    /// The running value, finalised (ready to read after any `update`).
    public private(set) var value: UInt32 = 0

    /// The checksum of no bytes yet (value 0).
    public init() {}

    /// The checksum of `bytes`.
    public static func checksum<S: Sequence>(_ bytes: S) -> UInt32 where S.Element == UInt8 {
        var crc = CRC32()
        crc.update(bytes)
        return crc.value
    }

    /// Adds `bytes` to the checksum.
    public mutating func update<S: Sequence>(_ bytes: S) where S.Element == UInt8 {
        value = withContiguousBytes(bytes) { UInt32(crc32_z(uLong(value), $0.baseAddress, z_size_t($0.count))) }
    }
}

/// Adler-32, the checksum that ends a zlib stream (RFC 1950), computed by the system zlib.
public struct Adler32: Sendable, Hashable {
    /// The checksum so far.
    public private(set) var value: UInt32 = 1

    /// The checksum of no bytes yet (value 1).
    public init() {}

    /// The checksum of `bytes`.
    public static func checksum<S: Sequence>(_ bytes: S) -> UInt32 where S.Element == UInt8 {
        var adler = Adler32()
        adler.update(bytes)
        return adler.value
    }

    /// Adds `bytes` to the checksum.
    public mutating func update<S: Sequence>(_ bytes: S) where S.Element == UInt8 {
        value = withContiguousBytes(bytes) { UInt32(adler32_z(uLong(value), $0.baseAddress, z_size_t($0.count))) }
    }
}

/// Calls `body` with `bytes` in contiguous memory, copying only when the sequence has none.
private func withContiguousBytes<S: Sequence>(_ bytes: S, _ body: (UnsafeBufferPointer<UInt8>) -> UInt32) -> UInt32 where S.Element == UInt8 {
    if let result = bytes.withContiguousStorageIfAvailable(body) { return result }
    return Array(bytes).withUnsafeBufferPointer(body)
}
