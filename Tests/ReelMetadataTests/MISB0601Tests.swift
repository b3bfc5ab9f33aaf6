import Foundation
import ReelTestSupport
import Testing

@testable import ReelMetadata

@Suite("MISB ST 0601 local sets")
struct MISB0601Tests {
    static func packets() throws -> [TestTransportStream.PES] {
        TestTransportStream.klvPackets(try TestFiles.sharedMediaData("kwiver_mpeg2_klv.ts"))
    }

    @Test(.requires(.sharedMedia))
    func realAsynchronousPackets() throws {
        let pes = try Self.packets()
        #expect(pes.count == 30)
        #expect(pes.allSatisfy { $0.pts == nil })
        let set = try MISB0601.decode(pes[0].data)
        #expect(set.version == 17)
        #expect(set.value(3) == .string("MISSION01"))
        #expect(set.value(4) == .string("AF-101"))
        #expect(set.unixTimeMicroseconds == 1_224_807_209_913_000)
        let fix = try #require(set.sensorFix)
        #expect(close(fix.latitude, 60.176822967, 1e-8))
        #expect(close(fix.longitude, 128.426759042, 1e-8))
        #expect(close(fix.altitude, 14190.7195, 1e-3))
        #expect(close(set.number(5), 159.9744, 1e-4))
        #expect(fix.time == Date(timeIntervalSince1970: 1_224_807_209.913))

        let groups = try KLV.groups(packets: pes.map { ($0.data, $0.pts) })
        #expect(groups.count == 30)
        #expect(groups[0].timeRange.start == .zero)
        for (a, b) in zip(groups, groups.dropFirst()) { #expect(a.timeRange.end == b.timeRange.start) }
        #expect(GPSFix(groups[0]) != nil)
        #expect(groups[0].item(MetadataIdentifier(keySpace: .klv, key: "0601.3"))?.stringValue == "MISSION01")
        #expect(groups[0].item(MetadataIdentifier(keySpace: .klv, key: "0601.13"))?.unit == "deg")
        #expect(groups[0].item(MetadataIdentifier(keySpace: .klv, key: "0601.1")) == nil)
    }

    @Test func checksumIsMISBsRunningSum() throws {
        let packet = MISB0601.encode([
            .init(tag: 2, value: Data([0, 4, 0x59, 0xF4, 0xA6, 0xAA, 0x4A, 0xA8])),
            .init(tag: 13, value: Data([0x55, 0x95, 0xB6, 0x6D])),
            .init(tag: 14, value: Data([0x5B, 0x53, 0x60, 0xC4])),
            .init(tag: 15, value: Data([0xC2, 0x21])),
            .init(tag: 65, value: Data([17])),
        ])
        let set = try MISB0601.decode(packet)
        #expect(close(set.sensorFix?.latitude, 60.176822967, 1e-8))
        #expect(MISB0601.checksum([0x01, 0x02, 0x03]) == 0x0402)
        var bad = packet
        bad[bad.count - 1] ^= 0x01
        do {
            _ = try MISB0601.decode(bad)
            Issue.record("expected a checksum error")
        } catch {
            #expect(error.code == .corruptData)
            #expect(error.message.contains("checksum mismatch"))
        }
        // Without a checksum at all.
        var w = MISB0601.universalKey + [4, 65, 1, 17, 0]
        w[16] = 3
        expectReelError(.metadataFormat) { try MISB0601.decode(Data(w.prefix(20))) }
    }

    @Test func encodesAFix() throws {
        let fix = GPSFix(
            latitude: 60.176822967, longitude: 128.426759042, altitude: 14190.7195, speed2D: 140,
            time: Date(timeIntervalSince1970: 1_224_807_209.913))
        let set = try MISB0601.decode(MISB0601.encode(fix: fix))
        let back = try #require(set.sensorFix)
        #expect(close(back.latitude, fix.latitude, 1e-7))
        #expect(close(back.longitude, fix.longitude, 1e-7))
        #expect(close(back.altitude, 14190.7195, 0.2))
        #expect(back.speed2D == 140)
        #expect(set.unixTimeMicroseconds == 1_224_807_209_913_000)
        #expect(set.version == 19)
        expectReelError(.invalidArgument) { try MISB0601.encode(fix: GPSFix(latitude: 1, longitude: 2, altitude: 30_000)) }
    }

    @Test func mappingsAndOutOfRange() throws {
        let packet = MISB0601.encode([
            .init(tag: 13, value: Data([0x80, 0, 0, 0])),  // out-of-range indicator
            .init(tag: 14, value: Data([0x7F, 0xFF, 0xFF, 0xFF])),
            .init(tag: 15, value: Data([0, 0])),
            .init(tag: 300, value: Data([1, 2])),  // unknown, two-byte BER-OID tag
        ])
        let set = try MISB0601.decode(packet)
        #expect(set.value(13) == .data(Data([0x80, 0, 0, 0])))
        #expect(set.sensorFix == nil)
        #expect(close(set.number(14), 180, 1e-12))
        #expect(set.number(15) == -900)
        #expect(set.raw(300) == Data([1, 2]))
        expectReelError(.metadataFormat) { try MISB0601.decode(MISB0601.encode([.init(tag: 13, value: Data([1, 2, 3]))])) }
    }

    @Test(.requires(.sharedMedia))
    func damagedPacketsNeverCrash() throws {
        let data = try Self.packets()[0].data
        for cut in 0..<data.count {
            survives { () throws(ReelError) in try MISB0601.decode(data.prefix(cut)) }
        }
        var rng = SeededGenerator(seed: 601)
        var failures = 0
        for _ in 0..<1000 {
            var copy = data
            copy[Int.random(in: 16..<copy.count, using: &rng)] ^= UInt8.random(in: 1...255, using: &rng)
            if survives({ () throws(ReelError) in try MISB0601.decode(copy) }) { failures += 1 }
        }
        // Any single changed byte is caught (by the checksum if nothing else).
        #expect(failures == 1000)
        for _ in 0..<3000 {
            var bytes = [UInt8](rng.bytes(Int.random(in: 0...200, using: &rng)))
            if Bool.random(using: &rng) { bytes = MISB0601.universalKey + bytes }
            survives { () throws(ReelError) in try KLV.groups(packets: [(Data(bytes), nil)]) }
        }
    }
}

@Suite("MISB ST 0601: attitude, course, velocity and the extended tags")
struct MISB0601PanelFieldsTests {
    static func id(_ tag: Int) -> MetadataIdentifier { MetadataIdentifier(keySpace: .klv, key: "0601.\(tag)") }

    /// KWIVER's test packet sets every tag. Expected values are computed by hand from its
    /// bytes with ST 0601's mappings (exiftool 12.57 finds no KLV in this file):
    /// 5 = 0x71C2 -> 29122 x 360 / 65535; 90 = 0xFF62E2F2 -> x 90 / (2^31 - 1);
    /// 79 = 0x09FB -> 2555 x 327 / 32767; 112 = 0x1F40 -> IMAPB(0, 360, 2) = 8000 / 64;
    /// 113 = 0x05F500 -> IMAPB(-900, 40000, 3) = 390400 / 128 - 900.
    @Test(.requires(.sharedMedia))
    func realPacketGivesAttitudeCourseAndVelocity() throws {
        let pes = try MISB0601Tests.packets()
        let set = try MISB0601.decode(pes[0].data)
        let fix = try #require(set.sensorFix)
        #expect(close(fix.heading, 159.97436484321355, 1e-9))
        #expect(close(fix.pitch, -0.4315251020861441, 1e-9))  // tag 90 (full range), not the short 6
        #expect(close(fix.roll, 3.4058139815022304, 1e-9))
        #expect(fix.airspeed == 147)
        #expect(close(fix.velocityUp, -61.88787499618519, 1e-9))
        #expect(close(fix.velocityNorth, 25.497756889553514, 1e-9) && close(fix.velocityEast, 12.095217749565112, 1e-9))
        #expect(fix.course == 125)
        #expect(fix.satellites == 7)
        #expect(fix.speed2D == 140)
        #expect(close(set.number(6), -0.4315317239906003, 1e-9))
        #expect(set.number(113) == 2150)
        #expect(set.number(110) == 19887)
        #expect(set.value(106) == .string("BLUE"))

        let groups = try KLV.groups(packets: pes.map { ($0.data, $0.pts) })
        #expect(groups[0].item(.heading)?.unit == "deg")
        #expect(groups[0].item(.course)?.value == .double(125))
        #expect(groups[0].item(Self.id(112))?.dataType == "Platform Course Angle")
        #expect(groups[0].item(Self.id(113))?.unit == "m")
        #expect(GPSFix(groups[0]) == fix)
    }

    @Test func aFixWithAttitudeRoundTrips() throws {
        let fix = GPSFix(
            latitude: 60.176822967, longitude: 128.426759042, altitude: 14190.7195, speed2D: 140, course: 125.5,
            time: Date(timeIntervalSince1970: 1_224_807_209.913), satellites: 9, velocityNorth: 25.5, velocityEast: -12.1,
            velocityUp: -3.25, heading: 159.97, pitch: -0.4315, roll: 3.4058, airspeed: 147)
        let packet = try MISB0601.encode(fix: fix)
        let set = try MISB0601.decode(packet)
        #expect(set.items.map(\.tag) == [2, 5, 8, 13, 14, 15, 51, 56, 65, 79, 80, 90, 91, 112, 123, 1])
        let back = try #require(set.sensorFix)
        #expect(close(back.heading, 159.97, 360.0 / 65535))
        #expect(close(back.pitch, -0.4315, 1e-7) && close(back.roll, 3.4058, 1e-7))
        #expect(close(back.velocityNorth, 25.5, 0.01) && close(back.velocityEast, -12.1, 0.01) && close(back.velocityUp, -3.25, 0.006))
        #expect(close(back.course, 125.5, 1.0 / 64))
        #expect(back.satellites == 9 && back.airspeed == 147)
        // Values a tag cannot carry are left out, not an error.
        let odd = GPSFix(latitude: 1, longitude: 2, course: 400, satellites: 300, velocityUp: 500, heading: .nan, pitch: 91)
        #expect(try MISB0601.decode(MISB0601.encode(fix: odd)).items.map(\.tag) == [13, 14, 65, 1])
    }

    @Test func imapbSpecialValuesAndLengths() throws {
        func decode(_ items: [MISB0601.Item]) throws(ReelError) -> MISB0601.LocalSet { try MISB0601.decode(MISB0601.encode(items)) }
        // IMAPB(0, 360) in 1 to 4 bytes; the top of the range (first bit alone) is a value.
        let set = try decode([
            .init(tag: 112, value: Data([0x1F, 0x40])), .init(tag: 113, value: Data([0x05, 0xF5, 0x00])),
            .init(tag: 134, value: Data([0x80, 0x00])),
        ])
        #expect(set.number(112) == 125)
        #expect(set.number(113) == 2150)
        #expect(set.number(134) == 128)  // IMAPB(0, 100, 2): 0x8000 / 256
        // ST 1201's special values (infinity, NaN, below or above the range) are no value.
        for special: [UInt8] in [[0xC8, 0x00], [0xD0, 0x00], [0xE0, 0x00], [0xE1, 0x00], [0x80, 0x01]] {
            let s = try decode([.init(tag: 112, value: Data(special))])
            #expect(s.number(112) == nil, "\(special)")
            #expect(s.value(112) == .data(Data(special)))
        }
        // Wrong lengths name the tag.
        for (tag, bytes) in [(112, 0), (112, 9), (79, 3), (90, 2), (110, 5), (136, 0)] {
            do {
                _ = try decode([.init(tag: tag, value: Data(repeating: 1, count: bytes))])
                Issue.record("expected an error for tag \(tag) with \(bytes) bytes")
            } catch {
                #expect(error.code == .metadataFormat)
                #expect(error.message.contains("tag \(tag)"), "\(error)")
            }
        }
        // Variable-length integers: 110 unsigned, 136 signed.
        let ints = try decode([.init(tag: 110, value: Data([0x01, 0x00])), .init(tag: 136, value: Data([0xFF]))])
        #expect(ints.value(110) == .integer(256) && ints.value(136) == .integer(-1))
    }

    @Test func truncatedPacketsAreErrorsNotCrashes() throws {
        let fix = GPSFix(latitude: 1, longitude: 2, course: 12, satellites: 5, velocityNorth: 1, velocityEast: 2, heading: 3, pitch: 4, roll: 5)
        let packet = [UInt8](try MISB0601.encode(fix: fix))
        for end in 0..<packet.count {
            survives { () throws(ReelError) in try KLV.groups(packets: [(Data(packet[..<end]), nil)]) }
        }
    }
}
