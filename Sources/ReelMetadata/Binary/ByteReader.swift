import Foundation

/// A bounded cursor over bytes: every read checks the end first, so a length field can never
/// make it read (or allocate) past the data it was given.
///
/// Big-endian and little-endian reads are both offered: GPMF, MP4 and KLV are big-endian,
/// CAMM is little-endian. Offsets in errors are absolute offsets in `bytes`.
struct ByteReader {
    let bytes: [UInt8]
    /// The next byte to read.
    private(set) var offset: Int
    /// One past the last byte this reader may read.
    let end: Int
    /// The format name used in error messages (`GPMF`, `MP4`, ...).
    let format: String

    init(_ bytes: [UInt8], range: Range<Int>? = nil, format: String) {
        self.bytes = bytes
        let r = range ?? 0..<bytes.count
        self.offset = max(0, min(r.lowerBound, bytes.count))
        self.end = max(self.offset, min(r.upperBound, bytes.count))
        self.format = format
    }

    init(_ data: Data, format: String) {
        self.init([UInt8](data), format: format)
    }

    var remaining: Int { end - offset }
    var isAtEnd: Bool { offset >= end }

    /// Fails unless `count` more bytes are there.
    func require(_ count: Int, _ what: @autoclosure () -> String) throws(ReelError) {
        guard count >= 0, count <= remaining else {
            throw ReelError.truncated(format, what(), offset: offset, needed: count, available: remaining)
        }
    }

    mutating func skip(_ count: Int, _ what: @autoclosure () -> String = "data") throws(ReelError) {
        try require(count, what())
        offset += count
    }

    mutating func seek(to newOffset: Int) throws(ReelError) {
        guard newOffset >= 0, newOffset <= end else {
            throw ReelError(.corruptData, "\(format): offset \(newOffset) is outside the data (0..<\(end))")
        }
        offset = newOffset
    }

    mutating func u8(_ what: @autoclosure () -> String = "byte") throws(ReelError) -> UInt8 {
        try require(1, what())
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func bytes(_ count: Int, _ what: @autoclosure () -> String = "bytes") throws(ReelError) -> ArraySlice<UInt8> {
        try require(count, what())
        defer { offset += count }
        return bytes[offset..<(offset + count)]
    }

    mutating func u16be(_ what: @autoclosure () -> String = "16-bit value") throws(ReelError) -> UInt16 { UInt16(try uintBE(2, what())) }
    mutating func u32be(_ what: @autoclosure () -> String = "32-bit value") throws(ReelError) -> UInt32 { UInt32(try uintBE(4, what())) }
    mutating func u64be(_ what: @autoclosure () -> String = "64-bit value") throws(ReelError) -> UInt64 { try uintBE(8, what()) }
    mutating func u16le(_ what: @autoclosure () -> String = "16-bit value") throws(ReelError) -> UInt16 { UInt16(try uintLE(2, what())) }
    mutating func u32le(_ what: @autoclosure () -> String = "32-bit value") throws(ReelError) -> UInt32 { UInt32(try uintLE(4, what())) }
    mutating func u64le(_ what: @autoclosure () -> String = "64-bit value") throws(ReelError) -> UInt64 { try uintLE(8, what()) }

    /// A big-endian unsigned integer of `count` (1...8) bytes.
    mutating func uintBE(_ count: Int, _ what: @autoclosure () -> String = "integer") throws(ReelError) -> UInt64 {
        try require(count, what())
        defer { offset += count }
        return Self.uintBE(bytes, at: offset, count: count)
    }

    /// A little-endian unsigned integer of `count` (1...8) bytes.
    mutating func uintLE(_ count: Int, _ what: @autoclosure () -> String = "integer") throws(ReelError) -> UInt64 {
        try require(count, what())
        defer { offset += count }
        return Self.uintLE(bytes, at: offset, count: count)
    }

    /// Reads without checking: callers check the bounds first.
    static func uintBE(_ bytes: [UInt8], at offset: Int, count: Int) -> UInt64 {
        var v: UInt64 = 0
        for i in 0..<count { v = v << 8 | UInt64(bytes[offset + i]) }
        return v
    }

    /// Reads without checking: callers check the bounds first.
    static func uintLE(_ bytes: [UInt8], at offset: Int, count: Int) -> UInt64 {
        var v: UInt64 = 0
        for i in stride(from: count - 1, through: 0, by: -1) { v = v << 8 | UInt64(bytes[offset + i]) }
        return v
    }
}

/// Appends big-endian and little-endian values to a byte buffer.
struct ByteWriter {
    var bytes: [UInt8] = []

    mutating func u8(_ v: UInt8) { bytes.append(v) }
    mutating func u16be(_ v: UInt16) { appendBE(UInt64(v), 2) }
    mutating func u32be(_ v: UInt32) { appendBE(UInt64(v), 4) }
    mutating func u64be(_ v: UInt64) { appendBE(v, 8) }
    mutating func u16le(_ v: UInt16) { appendLE(UInt64(v), 2) }
    mutating func u32le(_ v: UInt32) { appendLE(UInt64(v), 4) }
    mutating func u64le(_ v: UInt64) { appendLE(v, 8) }
    mutating func append<S: Sequence>(contentsOf s: S) where S.Element == UInt8 { bytes.append(contentsOf: s) }

    mutating func appendBE(_ v: UInt64, _ count: Int) {
        for i in stride(from: count - 1, through: 0, by: -1) { bytes.append(UInt8(truncatingIfNeeded: v >> (8 * UInt64(i)))) }
    }

    mutating func appendLE(_ v: UInt64, _ count: Int) {
        for i in 0..<count { bytes.append(UInt8(truncatingIfNeeded: v >> (8 * UInt64(i)))) }
    }
}

extension ReelError {
    /// Bytes ended before a field did.
    static func truncated(_ format: String, _ what: String, offset: Int, needed: Int, available: Int) -> ReelError {
        ReelError(.corruptData, "\(format): \(what) at offset \(offset) needs \(needed) bytes but only \(available) remain")
    }

    /// A payload breaks its format's rules.
    static func metadataFormat(_ format: String, _ message: String, offset: Int? = nil) -> ReelError {
        ReelError(.metadataFormat, "\(format): \(message)" + (offset.map { " (at offset \($0))" } ?? ""))
    }

    /// A payload's structure is damaged (sizes that do not fit, checksums that do not match).
    static func corrupt(_ format: String, _ message: String, offset: Int? = nil) -> ReelError {
        ReelError(.corruptData, "\(format): \(message)" + (offset.map { " (at offset \($0))" } ?? ""))
    }
}
