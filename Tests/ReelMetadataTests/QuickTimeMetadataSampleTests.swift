import Foundation
import ReelTestSupport
import Testing

@testable import ReelMetadata

@Suite("QuickTime mebx samples")
struct QuickTimeMetadataSampleTests {
    static func item(_ id: UInt32, _ value: [UInt8]) -> [UInt8] {
        var w = ByteWriter()
        w.u32be(UInt32(8 + value.count))
        w.u32be(id)
        w.append(contentsOf: value)
        return w.bytes
    }

    static let range = TimeRange(start: MediaTime(value: 600, timescale: 600), duration: MediaTime(value: 20, timescale: 600))

    @Test(arguments: [
        (QuickTimeDataType.utf8, Array("héllo".utf8), MetadataValue.string("héllo")),
        (QuickTimeDataType.utf16, [0, 0x68, 0, 0x69], .string("hi")),
        (QuickTimeDataType.signedInteger, [0xFF, 0xFE], .integer(-2)),
        (QuickTimeDataType.signedInteger, [0xFF, 0xFF, 0xFD], .integer(-3)),
        (QuickTimeDataType.unsignedInteger, [0xFF, 0xFE], .integer(65534)),
        (QuickTimeDataType.float32, [0x3F, 0xC0, 0, 0], .double(1.5)),
        (QuickTimeDataType.float64, [0x40, 0x04, 0, 0, 0, 0, 0, 0], .double(2.5)),
        (QuickTimeDataType.int8, [0x80], .integer(-128)),
        (QuickTimeDataType.int16, [0, 6], .integer(6)),
        (QuickTimeDataType.int32, [0xFF, 0xFF, 0xFF, 0xFF], .integer(-1)),
        (QuickTimeDataType.int64, [0, 0, 0, 0, 0, 0, 1, 0], .integer(256)),
        (QuickTimeDataType.uint8, [0xFF], .integer(255)),
        (QuickTimeDataType.uint16, [0xFF, 0xFF], .integer(65535)),
        (QuickTimeDataType.uint32, [0xFF, 0xFF, 0xFF, 0xFF], .integer(4_294_967_295)),
        (QuickTimeDataType.uint64, [0, 0, 0, 0, 0, 0, 0, 7], .integer(7)),
        (QuickTimeDataType.pointF32, [0x3F, 0x80, 0, 0, 0x40, 0, 0, 0], .numbers([1, 2])),
        (QuickTimeDataType.rectF32, [0x3F, 0x80, 0, 0, 0x40, 0, 0, 0, 0x40, 0x40, 0, 0, 0x40, 0x80, 0, 0], .numbers([1, 2, 3, 4])),
        (QuickTimeDataType.jpeg, [0xFF, 0xD8], .data(Data([0xFF, 0xD8]))),
    ])
    func decodesWellKnownTypes(code: UInt32, bytes: [UInt8], expected: MetadataValue) throws {
        let key = QuickTimeMetadataKey(localID: 7, key: "com.example.value", dataType: .wellKnown(code))
        let items = try QuickTimeMetadataSample.items(sample: Data(Self.item(7, bytes)), keys: [key], timeRange: Self.range)
        #expect(items.count == 1)
        #expect(items[0].value == expected)
        #expect(items[0].identifier.rawValue == "mdta/com.example.value")
        #expect(items[0].time == Self.range.start)
        #expect(items[0].duration == Self.range.duration)
    }

    @Test func locationGivesTypedItems() throws {
        let key = QuickTimeMetadataKey(localID: 1, key: "com.apple.quicktime.location.ISO6709", dataType: .wellKnown(QuickTimeDataType.utf8))
        let sample = Data(Self.item(1, Array("+27.1281+100.2508+000.000/".utf8)))
        let group = try QuickTimeMetadataSample.group(sample: sample, keys: [key], timeRange: Self.range)
        let fix = try #require(GPSFix(group))
        #expect(fix.latitude == 27.1281 && fix.longitude == 100.2508 && fix.altitude == 0)
        #expect(group.items.filter { $0.identifier == .quickTimeMetadataLocationISO6709 }.count == 1)
        #expect(group.item(.quickTimeMetadataLocationISO6709)?.stringValue == "+27.1281+100.2508+000.000/")
    }

    @Test func nestedGroupItemsAreDecodedToo() throws {
        let keys = [
            QuickTimeMetadataKey(localID: 1, key: "com.apple.quicktime.detected-face", dataType: .reverseDNS("com.apple.quicktime.detected-face")),
            QuickTimeMetadataKey(
                localID: 2, namespace: "fiel", key: "com.apple.quicktime.detected-face.face-id", dataType: .wellKnown(QuickTimeDataType.uint32)),
            QuickTimeMetadataKey(
                localID: 4, namespace: "fiel", key: "com.apple.quicktime.detected-face.roll-angle", dataType: .wellKnown(QuickTimeDataType.float32)),
        ]
        let face = Self.item(2, [0, 0, 0, 9]) + Self.item(4, [0x42, 0x34, 0, 0])
        let items = try QuickTimeMetadataSample.items(sample: Data(Self.item(1, face) + Self.item(0, [])), keys: keys, timeRange: Self.range)
        #expect(
            items.map(\.key) == [
                "com.apple.quicktime.detected-face", "com.apple.quicktime.detected-face.face-id", "com.apple.quicktime.detected-face.roll-angle",
            ])
        #expect(items[1].value == .integer(9))
        #expect(items[2].value == .double(45))
        #expect(items[1].identifier.keySpace.rawValue == "fiel")
    }

    @Test func errorsNameTheKeyAndOffset() {
        let keys = [QuickTimeMetadataKey(localID: 1, key: "com.example.int", dataType: .wellKnown(QuickTimeDataType.int16))]
        let cases: [([UInt8], String)] = [
            (Self.item(1, [0, 0, 0]), "com.example.int"),  // wrong size for int16
            (Self.item(9, [0, 0]), "key id 9"),  // unknown key
            (Array(Self.item(1, [0, 1]).dropLast()), "claims 10"),  // truncated
            ([0, 0, 0, 4, 0, 0, 0, 1], "less than its 8-byte header"),
        ]
        for (bytes, text) in cases {
            do {
                _ = try QuickTimeMetadataSample.items(sample: Data(bytes), keys: keys, timeRange: Self.range)
                Issue.record("expected an error for \(bytes)")
            } catch {
                #expect(error.message.contains(text), "\(error)")
                #expect(error.message.contains("offset"), "\(error)")
            }
        }
    }

    @Test func damagedSamplesNeverCrash() throws {
        let keys = [
            QuickTimeMetadataKey(localID: 1, key: "com.apple.quicktime.location.ISO6709", dataType: .wellKnown(1)),
            QuickTimeMetadataKey(localID: 2, key: "g", dataType: .reverseDNS("com.example.group")),
            QuickTimeMetadataKey(localID: 3, key: "f", dataType: .wellKnown(QuickTimeDataType.float64)),
        ]
        let good = Self.item(1, Array("+27.1281+100.2508+000.000/".utf8)) + Self.item(2, Self.item(3, [0x40, 0, 0, 0, 0, 0, 0, 0]))
        #expect(try QuickTimeMetadataSample.items(sample: Data(good), keys: keys, timeRange: Self.range).count > 3)
        for cut in 0..<good.count {
            survives { () throws(ReelError) in try QuickTimeMetadataSample.items(sample: Data(good.prefix(cut)), keys: keys, timeRange: Self.range) }
        }
        var rng = SeededGenerator(seed: 11)
        for _ in 0..<3000 {
            var bytes = good
            for _ in 0..<3 { bytes[Int.random(in: 0..<bytes.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng) }
            survives { () throws(ReelError) in try QuickTimeMetadataSample.items(sample: Data(bytes), keys: keys, timeRange: Self.range) }
            let random = rng.bytes(Int.random(in: 0...64, using: &rng))
            survives { () throws(ReelError) in try QuickTimeMetadataSample.items(sample: random, keys: keys, timeRange: Self.range) }
        }
    }
}

@Suite("QuickTimeMetadataSample encoding")
struct QuickTimeMetadataSampleEncodingTests {
    @Test func itemsRoundTripThroughTheKeyTable() throws {
        let location = MetadataItem(identifier: .quickTimeMetadataLocationISO6709, value: .string("+33.126770-117.327344-022.959/"))
        let orientation = MetadataItem(
            identifier: MetadataIdentifier(keySpace: .quickTimeMetadata, key: "com.apple.quicktime.video-orientation"),
            value: .integer(6), dataType: "com.apple.metadata.datatype.int16")
        let speed = MetadataItem(identifier: MetadataIdentifier(keySpace: .quickTimeMetadata, key: "com.example.speed"), value: .double(1.25))
        let point = MetadataItem(
            identifier: MetadataIdentifier(keySpace: .quickTimeMetadata, key: "com.example.point"), value: .numbers([0.5, 0.25]),
            dataType: "com.apple.metadata.datatype.PointF32")
        var table = QuickTimeMetadataKeyTable(keys: [QuickTimeMetadataKey(localID: 4, key: "com.example.old", dataType: .wellKnown(1))])
        let first = try QuickTimeMetadataSample.encode([location, orientation], keys: &table)
        let second = try QuickTimeMetadataSample.encode([speed, orientation, point], keys: &table)
        // Existing ids stay; new keys take the ids after the highest, once each.
        #expect(table.keys.map(\.localID) == [4, 5, 6, 7, 8])
        #expect(table.keys.map(\.dataType) == [.wellKnown(1), .wellKnown(1), .wellKnown(66), .wellKnown(24), .wellKnown(70)])
        let range = TimeRange(start: .zero, duration: MediaTime(value: 1, timescale: 1))
        let a = try QuickTimeMetadataSample.items(sample: first, keys: table.keys, timeRange: range)
        #expect(a.first?.value == .string("+33.126770-117.327344-022.959/"))
        #expect(a.first { $0.identifier == orientation.identifier }?.value == .integer(6))
        #expect(GPSFix(items: a)?.latitude == 33.12677)
        let b = try QuickTimeMetadataSample.items(sample: second, keys: table.keys, timeRange: range)
        #expect(b.map(\.value) == [.double(1.25), .integer(6), .numbers([0.5, 0.25])])
        // [size][id][value]: the int16 is two bytes.
        #expect([UInt8](first).suffix(10) == [0, 0, 0, 10, 0, 0, 0, 6, 0, 6])
    }

    @Test func valuesThatDoNotFitTheirTypeNameTheKey() {
        expectReelError(.metadataFormat) {
            try QuickTimeMetadataSample.encodeValue(.integer(70000), type: .wellKnown(QuickTimeDataType.int16), key: "com.example.k")
        }
        do {
            var table = QuickTimeMetadataKeyTable()
            _ = try QuickTimeMetadataSample.encode(
                [
                    MetadataItem(
                        identifier: MetadataIdentifier(keySpace: .quickTimeMetadata, key: "com.example.n"),
                        value: .numbers([1, 2, 3]))
                ], keys: &table)
            Issue.record("expected an error")
        } catch {
            #expect(error.message.contains("com.example.n"))
        }
        #expect(QuickTimeDataType(typeName: "com.apple.metadata.datatype.UTF-8") == .wellKnown(1))
        #expect(QuickTimeDataType(typeName: "com.apple.quicktime.detected-face") == .reverseDNS("com.apple.quicktime.detected-face"))
        #expect(QuickTimeDataType(typeName: "f") == nil)
    }
}
