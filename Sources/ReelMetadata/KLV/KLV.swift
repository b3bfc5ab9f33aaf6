import Foundation

/// SMPTE 336 KLV: 16-byte universal label keys, BER lengths and BER-OID tags, the
/// framing MISB metadata (ST 0601, EG 0104) is carried in.
public enum KLV {
    /// One top-level KLV packet: a 16-byte key and its value.
    public struct Packet: Sendable, Hashable {
        /// The 16-byte universal label.
        public var key: [UInt8]
        public var value: Data
        /// Offset of the key in the parsed data.
        public var offset: Int
        /// The whole packet's bytes (key, length, value), for checksums.
        public var bytes: Data

        public init(key: [UInt8], value: Data, offset: Int = 0, bytes: Data = Data()) {
            self.key = key
            self.value = value
            self.offset = offset
            self.bytes = bytes
        }

        /// The key as hex (`060E2B34...`).
        public var keyHex: String { KLV.hex(key) }
    }

    /// Splits data holding KLV packets back to back (one PES payload, or a file of them).
    ///
    /// - Throws: `.corruptData` naming the offset when a length runs past the end or a
    ///   key is cut short; `.metadataFormat` when a key does not start with the SMPTE
    ///   prefix `06 0E 2B 34`.
    public static func packets(in data: Data) throws(ReelError) -> [Packet] {
        let bytes = [UInt8](data)
        var out: [Packet] = []
        var r = ByteReader(bytes, format: "KLV")
        while !r.isAtEnd {
            // Stuffing after the last packet.
            if bytes[r.offset...].allSatisfy({ $0 == 0 || $0 == 0xFF }) { break }
            let start = r.offset
            let key = Array(try r.bytes(16, "16-byte key"))
            guard key.starts(with: smptePrefix) else {
                throw .metadataFormat("KLV", "key \(hex(key)) does not start with the SMPTE prefix 060E2B34", offset: start)
            }
            let length = try berLength(&r)
            let value = try r.bytes(length, "value of key \(hex(key))")
            out.append(Packet(key: key, value: Data(value), offset: start, bytes: Data(bytes[start..<r.offset])))
        }
        return out
    }

    /// The SMPTE universal label prefix.
    public static let smptePrefix: [UInt8] = [0x06, 0x0E, 0x2B, 0x34]

    /// A BER length: short form (one byte below 0x80) or long form (0x80 | n, then n bytes, n <= 8).
    static func berLength(_ r: inout ByteReader) throws(ReelError) -> Int {
        let start = r.offset
        let first = try r.u8("BER length")
        if first < 0x80 { return Int(first) }
        let n = Int(first & 0x7F)
        guard n >= 1, n <= 8 else {
            throw .metadataFormat("KLV", "BER length with \(n) length bytes", offset: start)
        }
        let v = try r.uintBE(n, "BER length bytes")
        guard v <= UInt64(r.remaining) else {
            throw .corrupt("KLV", "BER length \(v) runs past the end (\(r.remaining) bytes left)", offset: start)
        }
        return Int(v)
    }

    /// A BER-OID value: 7 bits per byte, high bit set on all but the last (at most 4 bytes here).
    static func berOID(_ r: inout ByteReader) throws(ReelError) -> Int {
        let start = r.offset
        var v = 0
        for i in 0..<4 {
            let b = try r.u8("BER-OID tag")
            v = v << 7 | Int(b & 0x7F)
            if b & 0x80 == 0 { return v }
            if i == 3 { break }
        }
        throw .metadataFormat("KLV", "BER-OID tag longer than 4 bytes", offset: start)
    }

    /// Encodes a BER length.
    static func berLengthBytes(_ length: Int) -> [UInt8] {
        if length < 0x80 { return [UInt8(length)] }
        var bytes: [UInt8] = []
        var v = length
        while v > 0 { bytes.insert(UInt8(v & 0xFF), at: 0); v >>= 8 }
        return [0x80 | UInt8(bytes.count)] + bytes
    }

    /// Encodes a BER-OID tag.
    static func berOIDBytes(_ tag: Int) -> [UInt8] {
        var bytes = [UInt8(tag & 0x7F)]
        var v = tag >> 7
        while v > 0 { bytes.insert(UInt8(v & 0x7F) | 0x80, at: 0); v >>= 7 }
        return bytes
    }

    static func hex(_ bytes: some Sequence<UInt8>) -> String {
        bytes.map { String($0, radix: 16, uppercase: true).leftPadded(to: 2) }.joined()
    }

    /// Timed groups for a run of KLV packets of any supported kind (ST 0601 local sets
    /// and EG 0104 universal sets), each with its presentation time when the transport
    /// gave one.
    ///
    /// Packets without a time (asynchronous KLV) are placed by their own UNIX time stamp
    /// (ST 0601 tag 2, EG 0104 User Defined Time Stamp), relative to the first packet that
    /// has both, or to media time zero. A group lasts until the next packet's time; the
    /// last one as long as the one before it (or zero). Packets of other kinds are skipped.
    public static func groups(packets: [(data: Data, presentationTime: MediaTime?)]) throws(ReelError) -> [TimedMetadataGroup] {
        struct Decoded { var time: MediaTime?; var unix: Int64?; var items: [MetadataItem] }
        var decoded: [Decoded] = []
        for (data, pts) in packets {
            for packet in try KLV.packets(in: data) {
                let time = pts.flatMap { $0.isNumeric ? $0 : nil }
                if packet.key == MISB0601.universalKey {
                    let set = try MISB0601.decode(packet)
                    decoded.append(Decoded(time: time, unix: set.unixTimeMicroseconds, items: set.metadataItems()))
                } else if EG0104.matches(packet.key) {
                    let set = try EG0104.decode(packet)
                    decoded.append(Decoded(time: time, unix: set.unixTimeMicroseconds, items: set.metadataItems()))
                }
            }
        }
        // Anchor UNIX time to media time.
        var anchor: (unix: Int64, time: MediaTime)?
        if let both = decoded.first(where: { $0.time != nil && $0.unix != nil }) {
            anchor = (both.unix!, both.time!)
        } else if let firstUnix = decoded.first(where: { $0.unix != nil })?.unix {
            anchor = (firstUnix, .zero)
        }
        var times: [MediaTime] = decoded.map { d in
            if let t = d.time { return t }
            if let u = d.unix, let a = anchor {
                let (delta, overflow) = u.subtractingReportingOverflow(a.unix)
                if !overflow { return a.time + MediaTime(value: delta, timescale: 1_000_000) }
            }
            return .invalid
        }
        // Packets with neither time stay invalid; keep order otherwise.
        for i in times.indices where !times[i].isValid { times[i] = i > 0 ? times[i - 1] : .zero }
        var groups: [TimedMetadataGroup] = []
        for (i, d) in decoded.enumerated() {
            let duration: MediaTime
            if i + 1 < times.count, times[i] < times[i + 1] {
                duration = times[i + 1] - times[i]
            } else if i > 0, times[i - 1] < times[i] {
                duration = times[i] - times[i - 1]
            } else {
                duration = .zero
            }
            let items = d.items.map { item in
                var item = item
                item.time = times[i]
                item.duration = duration
                return item
            }
            groups.append(TimedMetadataGroup(timeRange: TimeRange(start: times[i], duration: duration), items: items))
        }
        return groups
    }
}
