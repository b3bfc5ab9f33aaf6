import Foundation

/// MISB ST 0601, the UAS Datalink Local Set: a KLV packet whose value is a run of
/// tag (BER-OID) / length (BER) / value items.
///
/// ``decode(_:)-(KLV.Packet)`` verifies the checksum (tag 1, MISB's running 16-bit sum),
/// decodes the known tags (``tags``) to their real-world values (mapped integers to
/// degrees and metres), and keeps every other tag as raw bytes. Its items are
/// `klv/0601.N`, plus the normalised GPS items of the sensor position.
public enum MISB0601 {
    /// The local set's universal label.
    public static let universalKey: [UInt8] = [0x06, 0x0E, 0x2B, 0x34, 0x02, 0x0B, 0x01, 0x01, 0x0E, 0x01, 0x03, 0x01, 0x01, 0x00, 0x00, 0x00]

    /// One item of a local set.
    public struct Item: Sendable, Hashable {
        public var tag: Int
        public var value: Data
        /// Offset of the item's tag in the packet.
        public var offset: Int

        public init(tag: Int, value: Data, offset: Int = 0) {
            self.tag = tag
            self.value = value
            self.offset = offset
        }
    }

    /// A decoded local set.
    public struct LocalSet: Sendable, Hashable {
        public var items: [Item]

        public init(items: [Item]) { self.items = items }

        /// The raw bytes of `tag`.
        public func raw(_ tag: Int) -> Data? { items.first { $0.tag == tag }?.value }

        /// The decoded value of `tag`: a string, date, number or raw bytes. Nil when the tag
        /// is absent or holds MISB's "out of range" indicator.
        public func value(_ tag: Int) -> MetadataValue? {
            guard let item = items.first(where: { $0.tag == tag }) else { return nil }
            return try? MISB0601.decodeValue(item)
        }

        /// Tag 2: microseconds since 1970 (UTC).
        public var unixTimeMicroseconds: Int64? {
            guard let d = raw(2), d.count == 8 else { return nil }
            let v = ByteReader.uintBE([UInt8](d), at: 0, count: 8)
            return v <= UInt64(Int64.max) ? Int64(v) : nil
        }

        /// Tag 2 as a date.
        public var date: Date? { unixTimeMicroseconds.map { Date(timeIntervalSince1970: Double($0) / 1_000_000) } }

        /// Tag 65: the ST 0601 version.
        public var version: Int? { raw(65).flatMap { $0.count == 1 ? Int($0[$0.startIndex]) : nil } }

        func number(_ tag: Int) -> Double? {
            if case .double(let d)? = value(tag) { return d }
            if case .integer(let i)? = value(tag) { return Double(i) }
            return nil
        }

        /// The sensor position (13, 14, 15), with the time (2), the platform's ground speed
        /// (56), course (112), heading (5), pitch and roll (90 and 91, else the short 6 and
        /// 7), true airspeed (8), vertical speed (51), the sensor's velocity north and east
        /// (79, 80) and the satellites in view (123), where the packet has them.
        public var sensorFix: GPSFix? {
            guard let lat = number(13), let lon = number(14) else { return nil }
            var fix = GPSFix(latitude: lat, longitude: lon, altitude: number(15), speed2D: number(56), course: number(112), time: date)
            fix.heading = number(5)
            fix.pitch = number(90) ?? number(6)
            fix.roll = number(91) ?? number(7)
            fix.airspeed = number(8)
            fix.velocityUp = number(51)
            fix.velocityNorth = number(79)
            fix.velocityEast = number(80)
            fix.satellites = number(123).map { Int($0) }
            return fix
        }

        /// `klv/0601.N` items for every tag but the checksum, then the sensor position's
        /// normalised GPS items. Items are untimed: ``KLV/groups(packets:)`` times them.
        public func metadataItems(time: MediaTime = .invalid, duration: MediaTime = .invalid) -> [MetadataItem] {
            var out: [MetadataItem] = []
            for item in items where item.tag != 1 {
                let spec = MISB0601.tags[item.tag]
                let value = (try? MISB0601.decodeValue(item)) ?? .data(item.value)
                out.append(
                    MetadataItem(
                        identifier: MetadataIdentifier(keySpace: .klv, key: "0601.\(item.tag)"), value: value,
                        dataType: spec?.name, unit: spec?.unit, time: time, duration: duration))
            }
            if let fix = sensorFix { out += fix.metadataItems(time: time, duration: duration) }
            return out
        }
    }

    /// How a tag's value is stored.
    public enum Kind: Sendable, Hashable {
        case string
        /// Microseconds since 1970 in 8 bytes.
        case time
        /// An unsigned integer of that many bytes, taken as it is.
        case unsigned(Int)
        /// A signed integer of that many bytes, taken as it is.
        case signed(Int)
        /// An unsigned integer of `bytes` bytes mapped linearly onto `min...max`.
        case mappedUnsigned(bytes: Int, min: Double, max: Double)
        /// A signed integer of `bytes` bytes mapped onto `-range...range`; the most negative
        /// value means "out of range".
        case mappedSigned(bytes: Int, range: Double)
        /// An unsigned integer of 1 to `maxBytes` bytes, taken as it is.
        case unsignedVariable(maxBytes: Int)
        /// A signed integer of 1 to `maxBytes` bytes, taken as it is.
        case signedVariable(maxBytes: Int)
        /// MISB ST 1201 IMAPB: a value of 1 to 8 bytes mapped onto `min...max`; a value whose
        /// first bit is set (and is not the top of the range) is one of ST 1201's special
        /// values (infinity, NaN, below or above the range) and reads as no value.
        case imapb(min: Double, max: Double)
        case raw
    }

    /// A tag's name, storage and unit.
    public struct TagSpec: Sendable, Hashable {
        public var name: String
        public var kind: Kind
        public var unit: String?
    }

    /// Decodes one packet; its key must be ``universalKey``.
    public static func decode(_ packet: KLV.Packet) throws(ReelError) -> LocalSet {
        guard packet.key == universalKey else {
            throw .metadataFormat("MISB ST 0601", "key \(packet.keyHex) is not the UAS Datalink Local Set key", offset: packet.offset)
        }
        let bytes = [UInt8](packet.bytes)
        let valueStart = bytes.count - packet.value.count
        var r = ByteReader(bytes, range: valueStart..<bytes.count, format: "MISB ST 0601")
        var items: [Item] = []
        var checksumAt: Int?
        while !r.isAtEnd {
            let start = r.offset
            let tag = try KLV.berOID(&r)
            let length = try KLV.berLength(&r)
            let valueOffset = r.offset
            let value = Data(try r.bytes(length, "value of tag \(tag)"))
            guard tag > 0 else { throw .metadataFormat("MISB ST 0601", "tag 0 is not a valid tag", offset: packet.offset + start) }
            if tag == 1 {
                guard length == 2 else {
                    throw .metadataFormat("MISB ST 0601", "checksum (tag 1) has \(length) bytes, expected 2", offset: packet.offset + start)
                }
                checksumAt = valueOffset
            }
            items.append(Item(tag: tag, value: value, offset: packet.offset + start))
        }
        guard let checksumAt else {
            throw .metadataFormat("MISB ST 0601", "packet has no checksum (tag 1)", offset: packet.offset)
        }
        let stored = UInt16(bytes[checksumAt]) << 8 | UInt16(bytes[checksumAt + 1])
        let computed = checksum(bytes[0..<checksumAt])
        guard stored == computed else {
            throw .corrupt(
                "MISB ST 0601",
                "checksum mismatch: the packet says 0x\(String(stored, radix: 16, uppercase: true)), its bytes sum to 0x\(String(computed, radix: 16, uppercase: true))",
                offset: packet.offset)
        }
        let set = LocalSet(items: items)
        for item in items where tags[item.tag] != nil {
            _ = try decodeValue(item)
        }
        return set
    }

    /// Decodes data holding exactly one local set packet.
    public static func decode(_ data: Data) throws(ReelError) -> LocalSet {
        let packets = try KLV.packets(in: data)
        guard packets.count == 1 else {
            throw .metadataFormat("MISB ST 0601", "expected one KLV packet, found \(packets.count)")
        }
        return try decode(packets[0])
    }

    /// MISB's checksum: a running 16-bit sum of every byte from the key up to and
    /// including the checksum's tag and length, each byte added to the high half when its
    /// index is even and the low half when odd.
    public static func checksum(_ bytes: some Collection<UInt8>) -> UInt16 {
        var sum: UInt16 = 0
        for (i, b) in bytes.enumerated() { sum &+= UInt16(b) << (i % 2 == 0 ? 8 : 0) }
        return sum
    }

    /// Encodes a local set packet with these items (any tag 1 among them is dropped) and a
    /// checksum as the last item.
    public static func encode(_ items: [Item]) -> Data {
        var value: [UInt8] = []
        for item in items where item.tag != 1 {
            value += KLV.berOIDBytes(item.tag) + KLV.berLengthBytes(item.value.count) + [UInt8](item.value)
        }
        value += [0x01, 0x02]
        var packet = universalKey + KLV.berLengthBytes(value.count + 2) + value
        let sum = checksum(packet)
        packet += [UInt8(sum >> 8), UInt8(sum & 0xFF)]
        return Data(packet)
    }

    /// Decodes an item by its tag's spec; tags without one stay `.data`.
    static func decodeValue(_ item: Item) throws(ReelError) -> MetadataValue {
        guard let spec = tags[item.tag] else { return .data(item.value) }
        let b = [UInt8](item.value)
        func size(_ n: Int) throws(ReelError) {
            guard b.count == n else {
                throw .metadataFormat("MISB ST 0601", "tag \(item.tag) (\(spec.name)) has \(b.count) bytes, expected \(n)", offset: item.offset)
            }
        }
        switch spec.kind {
        case .string:
            return .string(TextDecoding.string(b))
        case .raw:
            return .data(item.value)
        case .time:
            try size(8)
            let v = ByteReader.uintBE(b, at: 0, count: 8)
            return .date(Date(timeIntervalSince1970: Double(v) / 1_000_000))
        case .unsigned(let n):
            try size(n)
            let v = ByteReader.uintBE(b, at: 0, count: n)
            return v <= UInt64(Int64.max) ? .integer(Int64(v)) : .double(Double(v))
        case .signed(let n):
            try size(n)
            let shift = UInt64(64 - 8 * n)
            return .integer(Int64(bitPattern: ByteReader.uintBE(b, at: 0, count: n) << shift) >> Int64(shift))
        case .mappedUnsigned(let n, let lo, let hi):
            try size(n)
            let v = Double(ByteReader.uintBE(b, at: 0, count: n))
            let full = n == 8 ? Double(UInt64.max) : Double((UInt64(1) << UInt64(8 * n)) - 1)
            return .double(lo + v * (hi - lo) / full)
        case .mappedSigned(let n, let range):
            try size(n)
            let shift = UInt64(64 - 8 * n)
            let v = Int64(bitPattern: ByteReader.uintBE(b, at: 0, count: n) << shift) >> Int64(shift)
            let minimum = -(Int64(1) << Int64(8 * n - 1))
            if v == minimum { return .data(item.value) }  // "out of range" indicator
            let span = Double((UInt64(1) << UInt64(8 * n)) - 2)
            return .double(Double(v) * 2 * range / span)
        case .unsignedVariable(let maxBytes):
            try sizeUpTo(maxBytes)
            return .integer(Int64(ByteReader.uintBE(b, at: 0, count: b.count)))
        case .signedVariable(let maxBytes):
            try sizeUpTo(maxBytes)
            let shift = UInt64(64 - 8 * b.count)
            return .integer(Int64(bitPattern: ByteReader.uintBE(b, at: 0, count: b.count) << shift) >> Int64(shift))
        case .imapb(let lo, let hi):
            try sizeUpTo(8)
            let raw = ByteReader.uintBE(b, at: 0, count: b.count)
            let top = UInt64(1) << UInt64(8 * b.count - 1)
            if raw & top != 0, raw != top { return .data(item.value) }  // ST 1201 special value
            return .double(IMAPB(min: lo, max: hi, bytes: b.count).value(raw))
        }
        func sizeUpTo(_ maxBytes: Int) throws(ReelError) {
            guard (1...maxBytes).contains(b.count) else {
                throw .metadataFormat("MISB ST 0601", "tag \(item.tag) (\(spec.name)) has \(b.count) bytes, expected 1 to \(maxBytes)", offset: item.offset)
            }
        }
    }

    /// MISB ST 1201's IMAPB mapping of `min...max` onto an integer of `bytes` bytes.
    struct IMAPB {
        var min: Double
        var bytes: Int
        /// Scale to the integer and back, and the offset that puts zero on an integer.
        var forward: Double, reverse: Double, zeroOffset: Double

        init(min: Double, max: Double, bytes: Int) {
            self.min = min
            self.bytes = bytes
            let bPow = (Foundation.log2(max - min)).rounded(.up)
            let dPow = Double(8 * bytes - 1)
            forward = Foundation.pow(2, dPow - bPow)
            reverse = Foundation.pow(2, bPow - dPow)
            zeroOffset = min < 0 && max > 0 ? forward * min - (forward * min).rounded(.down) : 0
        }

        func value(_ raw: UInt64) -> Double { reverse * (Double(raw) - zeroOffset) + min }

        /// The integer for `value`, which must lie in the range.
        func raw(_ value: Double) -> UInt64 { UInt64((forward * (value - min) + zeroOffset).rounded(.down)) }
    }
}

extension MISB0601 {
    /// A local set packet for one fix: precision time stamp (2, when the fix has a time),
    /// sensor latitude, longitude and true altitude (13, 14, 15), platform ground speed
    /// (56, whole m/s) and the LS version (65, 19), then the checksum; and, when the fix
    /// has them, platform heading (5), true airspeed (8, whole m/s), vertical speed (51),
    /// sensor velocity north and east (79, 80), pitch and roll (90, 91, full range),
    /// course (112, 2 bytes) and satellites (123). Those last fields are left out when
    /// they lie outside what their tag can carry.
    /// - Throws: `.invalidArgument` when a position, altitude or time is outside what ST
    ///   0601 can carry.
    public static func encode(fix: GPSFix, version: UInt8 = 19) throws(ReelError) -> Data {
        func bytes(_ v: UInt64, _ n: Int) -> Data {
            var w = ByteWriter()
            w.appendBE(v, n)
            return Data(w.bytes)
        }
        func mappedSigned(_ value: Double, range: Double, _ n: Int, _ name: String) throws(ReelError) -> Data {
            guard value.isFinite, abs(value) <= range else { throw ReelError(.invalidArgument, "MISB ST 0601: \(name) \(value) is outside ±\(range)") }
            let span = Double((UInt64(1) << UInt64(8 * n)) - 2)
            let raw = Int64((value * span / (2 * range)).rounded())
            return bytes(UInt64(bitPattern: raw), n)
        }
        var items: [Item] = []
        if let time = fix.time {
            let micros = (time.timeIntervalSince1970 * 1_000_000).rounded()
            guard micros >= 0, micros < 9.2e18 else { throw ReelError(.invalidArgument, "MISB ST 0601: time \(time) is before 1970") }
            items.append(Item(tag: 2, value: bytes(UInt64(micros), 8)))
        }
        items.append(Item(tag: 13, value: try mappedSigned(fix.latitude, range: 90, 4, "latitude")))
        items.append(Item(tag: 14, value: try mappedSigned(fix.longitude, range: 180, 4, "longitude")))
        if let alt = fix.altitude {
            guard alt.isFinite, (-900...19000).contains(alt) else {
                throw ReelError(.invalidArgument, "MISB ST 0601: altitude \(alt) m is outside -900...19000")
            }
            items.append(Item(tag: 15, value: bytes(UInt64(((alt + 900) * 65535 / 19900).rounded()), 2)))
        }
        if let speed = fix.speed2D, speed.isFinite, speed >= 0 {
            items.append(Item(tag: 56, value: bytes(UInt64(min(255, speed.rounded())), 1)))
        }
        items.append(Item(tag: 65, value: Data([version])))
        /// A value in `-range...range` as a signed integer of `n` bytes, nil outside it.
        func optionalSigned(_ value: Double?, range: Double, _ n: Int) -> Data? {
            guard let value, value.isFinite, abs(value) <= range else { return nil }
            return try? mappedSigned(value, range: range, n, "")
        }
        if let heading = fix.heading, heading.isFinite, (0...360).contains(heading) {
            items.append(Item(tag: 5, value: bytes(UInt64((heading * 65535 / 360).rounded()), 2)))
        }
        if let v = fix.airspeed, v.isFinite, v >= 0, v < 255.5 { items.append(Item(tag: 8, value: bytes(UInt64(v.rounded()), 1))) }
        if let v = optionalSigned(fix.velocityUp, range: 180, 2) { items.append(Item(tag: 51, value: v)) }
        if let v = optionalSigned(fix.velocityNorth, range: 327, 2) { items.append(Item(tag: 79, value: v)) }
        if let v = optionalSigned(fix.velocityEast, range: 327, 2) { items.append(Item(tag: 80, value: v)) }
        if let v = optionalSigned(fix.pitch, range: 90, 4) { items.append(Item(tag: 90, value: v)) }
        if let v = optionalSigned(fix.roll, range: 90, 4) { items.append(Item(tag: 91, value: v)) }
        if let course = fix.course, course.isFinite, (0...360).contains(course) {
            items.append(Item(tag: 112, value: bytes(IMAPB(min: 0, max: 360, bytes: 2).raw(course), 2)))
        }
        if let n = fix.satellites, (0...255).contains(n) { items.append(Item(tag: 123, value: Data([UInt8(n)]))) }
        return encode(items.sorted { $0.tag < $1.tag })
    }
}
