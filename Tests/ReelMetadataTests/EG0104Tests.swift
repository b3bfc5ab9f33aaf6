import Foundation
import ReelTestSupport
import Testing

@testable import ReelMetadata

@Suite("MISB EG 0104 universal sets")
struct EG0104Tests {
    static func packets() throws -> [TestTransportStream.PES] {
        TestTransportStream.klvPackets(try TestFiles.sharedMediaData("kwiver_aphill_short.ts"))
    }

    @Test(.requires(.sharedMedia))
    func realSynchronousPackets() throws {
        let pes = try Self.packets()
        #expect(pes.count == 48)
        #expect(pes.allSatisfy { $0.pts != nil })
        let set = try EG0104.decode(pes[0].data)
        let fix = try #require(set.deviceFix)
        #expect(close(fix.latitude, 38.252336, 1e-9))
        #expect(close(fix.longitude, -77.366859, 1e-9))
        #expect(close(fix.altitude, 1054.4, 1e-4))
        #expect(set.items.count == 23)
        #expect(try #require(fix.time).timeIntervalSince1970 > 1_199_145_600)  // 2008 or later
        #expect(try #require(fix.time).timeIntervalSince1970 < 1_230_768_000)  // before 2009

        let groups = try KLV.groups(packets: pes.map { ($0.data, $0.pts) })
        #expect(groups.count == 48)
        #expect(groups[0].timeRange.start == pes[0].pts)
        #expect(groups[1].timeRange.start == pes[1].pts)
        let center = groups[0].item(MetadataIdentifier(keySpace: .klv, key: "0104.FrameCenterLatitude"))
        #expect(close(center?.numberValue, 38.245587237812856, 1e-12))
        #expect(center?.unit == "deg")
        let fixes = groups.compactMap(GPSFix.init)
        #expect(fixes.count == 48)
        #expect(fixes.allSatisfy { abs($0.latitude - 38.2) < 0.1 && abs($0.longitude + 77.36) < 0.1 })
    }

    @Test(.requires(.sharedMedia))
    func damagedPacketsNeverCrash() throws {
        let data = try Self.packets()[0].data
        for cut in 0..<data.count {
            survives { () throws(ReelError) in try EG0104.decode(data.prefix(cut)) }
        }
        var rng = SeededGenerator(seed: 104)
        for _ in 0..<2000 {
            var copy = data
            copy[Int.random(in: 0..<copy.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
            survives { () throws(ReelError) in try KLV.groups(packets: [(copy, nil)]) }
        }
    }

    @Test func unknownItemsKeepTheirKey() throws {
        let inner: [UInt8] = [0x06, 0x0E, 0x2B, 0x34, 1, 1, 1, 1, 9, 9, 9, 9, 9, 9, 9, 9, 2, 0xAB, 0xCD]
        let packet = Data(EG0104.universalKey + [UInt8(inner.count)] + inner)
        let items = try EG0104.decode(packet).metadataItems()
        #expect(items.count == 1)
        #expect(items[0].key == "0104.060E2B340101010109090909090909 09".replacingOccurrences(of: " ", with: ""))
        #expect(items[0].value == .data(Data([0xAB, 0xCD])))
    }
}
