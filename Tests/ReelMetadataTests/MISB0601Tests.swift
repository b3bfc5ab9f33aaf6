import Foundation
import Testing
@testable import ReelMetadata
import ReelTestSupport

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
        let fix = GPSFix(latitude: 60.176822967, longitude: 128.426759042, altitude: 14190.7195, speed2D: 140,
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
            .init(tag: 13, value: Data([0x80, 0, 0, 0])),      // out-of-range indicator
            .init(tag: 14, value: Data([0x7F, 0xFF, 0xFF, 0xFF])),
            .init(tag: 15, value: Data([0, 0])),
            .init(tag: 300, value: Data([1, 2])),              // unknown, two-byte BER-OID tag
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
