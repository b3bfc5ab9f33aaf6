import Foundation

/// MISB EG 0104, the older Predator UAV Basic Universal Metadata Set: a KLV packet whose
/// value is a run of full KLV items (16-byte SMPTE key, BER length, value), with IEEE
/// floats and doubles.
///
/// Items are matched on the last 8 bytes of their key (the registry version byte varies
/// between files). Known items become `klv/0104.NAME` (``knownItems``); others keep
/// their full hex key (`klv/0104.060E2B34...`) and raw bytes.
public enum EG0104 {
    /// The set's universal label.
    public static let universalKey: [UInt8] = [0x06, 0x0E, 0x2B, 0x34, 0x02, 0x01, 0x01, 0x01, 0x0E, 0x01, 0x01, 0x02, 0x01, 0x01, 0x00, 0x00]

    /// How an item's value is stored.
    public enum Kind: Sendable, Hashable {
        case string, float32, float64, time, raw
    }

    /// A known item: its name, storage and unit.
    public struct ItemSpec: Sendable, Hashable {
        public var name: String
        public var kind: Kind
        public var unit: String?
    }

    /// One item of a universal set.
    public struct Item: Sendable, Hashable {
        public var key: [UInt8]
        public var value: Data
        public var offset: Int

        /// The known spec of this item, matched on the key's last 8 bytes.
        public var spec: ItemSpec? { EG0104.knownItems[KLV.hex(key.suffix(8))] }
    }

    /// A decoded universal set.
    public struct UniversalSet: Sendable, Hashable {
        public var items: [Item]

        func item(_ name: String) -> Item? { items.first { $0.spec?.name == name } }

        func number(_ name: String) -> Double? {
            guard let item = item(name), case .double(let d)? = try? EG0104.decodeValue(item) else { return nil }
            return d
        }

        /// User Defined Time Stamp: microseconds since 1970 (UTC).
        public var unixTimeMicroseconds: Int64? {
            guard let d = item("UserDefinedTimeStamp")?.value, d.count == 8 else { return nil }
            let v = ByteReader.uintBE([UInt8](d), at: 0, count: 8)
            return v <= UInt64(Int64.max) ? Int64(v) : nil
        }

        public var date: Date? { unixTimeMicroseconds.map { Date(timeIntervalSince1970: Double($0) / 1_000_000) } }

        /// The device (sensor) position, with the time.
        public var deviceFix: GPSFix? {
            guard let lat = number("DeviceLatitude"), let lon = number("DeviceLongitude"),
                abs(lat) <= 90, abs(lon) <= 180
            else { return nil }
            return GPSFix(latitude: lat, longitude: lon, altitude: number("DeviceAltitude"), time: date)
        }

        /// `klv/0104.NAME` items (or the hex key for unknown items), then the device
        /// position's normalised GPS items.
        public func metadataItems(time: MediaTime = .invalid, duration: MediaTime = .invalid) -> [MetadataItem] {
            var out: [MetadataItem] = []
            for item in items {
                let key = "0104." + (item.spec?.name ?? KLV.hex(item.key))
                let value = (try? EG0104.decodeValue(item)) ?? .data(item.value)
                out.append(
                    MetadataItem(
                        identifier: MetadataIdentifier(keySpace: .klv, key: key), value: value,
                        dataType: item.spec.map { "\($0.kind)" }, unit: item.spec?.unit, time: time, duration: duration))
            }
            if let fix = deviceFix { out += fix.metadataItems(time: time, duration: duration) }
            return out
        }
    }

    /// Whether `key` is this set's universal label.
    public static func matches(_ key: [UInt8]) -> Bool { key == universalKey }

    /// Decodes one packet; its key must be ``universalKey``.
    public static func decode(_ packet: KLV.Packet) throws(ReelError) -> UniversalSet {
        guard matches(packet.key) else {
            throw .metadataFormat("MISB EG 0104", "key \(packet.keyHex) is not the UAV Basic Universal Set key", offset: packet.offset)
        }
        var items: [Item] = []
        let base = packet.offset + packet.bytes.count - packet.value.count
        for inner in try KLV.packets(in: packet.value) {
            let item = Item(key: inner.key, value: inner.value, offset: base + inner.offset)
            if item.spec != nil { _ = try decodeValue(item) }
            items.append(item)
        }
        return UniversalSet(items: items)
    }

    /// Decodes data holding exactly one universal set packet.
    public static func decode(_ data: Data) throws(ReelError) -> UniversalSet {
        let packets = try KLV.packets(in: data)
        guard packets.count == 1 else { throw .metadataFormat("MISB EG 0104", "expected one KLV packet, found \(packets.count)") }
        return try decode(packets[0])
    }

    static func decodeValue(_ item: Item) throws(ReelError) -> MetadataValue {
        guard let spec = item.spec else { return .data(item.value) }
        let b = [UInt8](item.value)
        func size(_ n: Int) throws(ReelError) {
            guard b.count == n else {
                throw .metadataFormat("MISB EG 0104", "\(spec.name) has \(b.count) bytes, expected \(n)", offset: item.offset)
            }
        }
        switch spec.kind {
        case .string: return .string(TextDecoding.string(b))
        case .raw: return .data(item.value)
        case .float32:
            try size(4)
            return .double(Double(Float(bitPattern: UInt32(ByteReader.uintBE(b, at: 0, count: 4)))))
        case .float64:
            try size(8)
            return .double(Double(bitPattern: ByteReader.uintBE(b, at: 0, count: 8)))
        case .time:
            try size(8)
            return .date(Date(timeIntervalSince1970: Double(ByteReader.uintBE(b, at: 0, count: 8)) / 1_000_000))
        }
    }

    /// Known items by the hex of their key's last 8 bytes (SMPTE RP 210 / EG 0104 names).
    public static let knownItems: [String: ItemSpec] = {
        func spec(_ name: String, _ kind: Kind, _ unit: String? = nil) -> ItemSpec { ItemSpec(name: name, kind: kind, unit: unit) }
        return [
            "0101200100000000": spec("DeviceDesignation", .string),
            "0702010101050000": spec("UserDefinedTimeStamp", .time),
            "0701020102040200": spec("DeviceLatitude", .float64, "deg"),
            "0701020102060200": spec("DeviceLongitude", .float64, "deg"),
            "0701020102020000": spec("DeviceAltitude", .float32, "m"),
            "0701100104000000": spec("PlatformRollAngle", .float32, "deg"),
            "0701100105000000": spec("PlatformPitchAngle", .float32, "deg"),
            "0701100106000000": spec("PlatformHeadingAngle", .float32, "deg"),
            "0420020101080000": spec("FieldOfViewHorizontal", .float32, "deg"),
            "04200201010A0100": spec("FieldOfViewVertical", .float32, "deg"),
            "0701080101000000": spec("SlantRange", .float32, "m"),
            "0701100102000000": spec("SensorRelativeAzimuthAngle", .float32, "deg"),
            "0701100103000000": spec("SensorRelativeElevationAngle", .float32, "deg"),
            "0701100101000000": spec("SensorRelativeRollAngle", .float32, "deg"),
            "0701020103020000": spec("FrameCenterLatitude", .float64, "deg"),
            "0701020103040000": spec("FrameCenterLongitude", .float64, "deg"),
            "0701020103070100": spec("CornerLatitudePoint1", .float64, "deg"),
            "0701020103080100": spec("CornerLatitudePoint2", .float64, "deg"),
            "0701020103090100": spec("CornerLatitudePoint3", .float64, "deg"),
            "07010201030A0100": spec("CornerLatitudePoint4", .float64, "deg"),
            "07010201030B0100": spec("CornerLongitudePoint1", .float64, "deg"),
            "07010201030C0100": spec("CornerLongitudePoint2", .float64, "deg"),
            "07010201030D0100": spec("CornerLongitudePoint3", .float64, "deg"),
            "07010201030E0100": spec("CornerLongitudePoint4", .float64, "deg"),
            "0420010201010000": spec("ImageSourceDevice", .string),
            "0701010100000000": spec("ImageCoordinateSystem", .string),
            "0702010201010000": spec("StartDateTimeUTC", .string),
            "0701090201000000": spec("TargetWidth", .float32, "m"),
        ]
    }()
}
