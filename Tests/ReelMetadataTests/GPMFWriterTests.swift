import Foundation
import ReelTestSupport
import Testing

@testable import ReelMetadata

@Suite("GPMFWriter: GPS fixes to GPMF payloads")
struct GPMFWriterTests {
    /// 18 fixes a second for `seconds`, moving north-east, with a UTC time on each.
    static func track(seconds: Int, rate: Int = 18) -> [TimedMetadataGroup] {
        var rng = SeededGenerator(seed: 7)
        let t0 = Date(timeIntervalSince1970: 1_700_000_000.125)
        return (0..<(seconds * rate)).map { i in
            let fix = GPSFix(
                latitude: 33.1 + Double(i) * 1.3e-6 + Double.random(in: -1e-7...1e-7, using: &rng),
                longitude: -117.3 - Double(i) * 2.1e-6, altitude: -22.959 + Double(i) * 0.0123,
                speed2D: 1.046 + Double(i % 7) * 0.1, speed3D: 1.0 + Double(i % 5) * 0.01,
                time: t0.addingTimeInterval(Double(i) / Double(rate)), fix: 3, dop: 1.54)
            let start = MediaTime(value: Int64(i), timescale: Int32(rate))
            return TimedMetadataGroup(
                timeRange: TimeRange(start: start, duration: MediaTime(value: 1, timescale: Int32(rate))),
                items: fix.metadataItems(time: start))
        }
    }

    static func rounded(_ x: Double?, _ scale: Double) -> Double? { x.map { ($0 * scale).rounded() / scale } }

    static func readBack(_ payloads: [(data: Data, timeRange: TimeRange)]) throws -> [(time: MediaTime, duration: MediaTime, fix: GPSFix)] {
        var out: [(time: MediaTime, duration: MediaTime, fix: GPSFix)] = []
        for p in payloads { out += try GPMF.fixes(payload: p.data, timeRange: p.timeRange) }
        return out
    }

    @Test(arguments: GPMFWriter.GPSFormat.allCases)
    func roundTripKeepsFixesToGPMFScaling(format: GPMFWriter.GPSFormat) throws {
        let groups = Self.track(seconds: 3)
        let payloads = try GPMFWriter.payloads(for: groups, payloadDuration: MediaTime(value: 1, timescale: 1), options: .init(format: format))
        #expect(payloads.count == 3)
        #expect(payloads.map(\.timeRange.start) == [MediaTime(value: 0, timescale: 1), MediaTime(value: 1, timescale: 1), MediaTime(value: 2, timescale: 1)])
        let back = try Self.readBack(payloads)
        #expect(back.count == groups.count)
        for (i, (g, b)) in zip(groups, back).enumerated() {
            let original = try #require(GPSFix(g))
            #expect(b.fix.latitude == Self.rounded(original.latitude, 1e7), "fix \(i)")
            #expect(b.fix.longitude == Self.rounded(original.longitude, 1e7), "fix \(i)")
            #expect(b.fix.altitude == Self.rounded(original.altitude, 1000), "fix \(i)")
            #expect(b.fix.speed2D == Self.rounded(original.speed2D, 1000), "fix \(i)")
            #expect(b.fix.speed3D == Self.rounded(original.speed3D, 1000), "fix \(i)")
            #expect(b.fix.fix == 3)
            #expect(b.fix.dop == 1.54)
            // Evenly spread samples land back on the original times here (18 per second).
            #expect(b.time == g.timeRange.start, "fix \(i)")
            if format == .gps9 || i % 18 == 0 {
                #expect(close(b.fix.time?.timeIntervalSince1970, original.time!.timeIntervalSince1970, 0.0006), "fix \(i)")
            }
        }
    }

    @Test func gps9IsPreferredOverGPS5InOnePayload() throws {
        // HERO11 writes GPS5 and GPS9 side by side; the GPS9 stream carries per-sample time.
        let t = Date(timeIntervalSince1970: 1_700_000_000)
        let gps5 = try GPMFNode.parse(GPMFWriter.payload(fixes: [GPSFix(latitude: 1, longitude: 1)]))[0]
        let gps9 = try GPMFNode.parse(
            GPMFWriter.payload(
                fixes: [GPSFix(latitude: 2, longitude: 2, time: t, fix: 2, dop: 3)],
                options: .init(format: .gps9)))[0]
        var devc = gps5
        devc.children.append(gps9.children[2])
        let fixes = try GPMF.fixes(payload: devc.encoded(), timeRange: oneSecond)
        #expect(fixes.count == 1)
        #expect(fixes[0].fix.latitude == 2 && fixes[0].fix.time == t && fixes[0].fix.fix == 2 && fixes[0].fix.dop == 3)
    }

    @Test func payloadLayoutIsGoProLike() throws {
        let data = try GPMFWriter.payload(
            fixes: [
                GPSFix(
                    latitude: 33.12677, longitude: -117.3273436, altitude: -22.959,
                    speed2D: 1.046, speed3D: 1.0, time: Date(timeIntervalSince1970: 1_574_120_714), fix: 3, dop: 1.54)
            ],
            options: .init(deviceName: "Reel Test"))
        #expect(data.count % 4 == 0)
        let tree = try GPMFNode.parse(data)
        #expect(tree.map(\.key) == ["DEVC"])
        #expect(tree[0].children.map(\.key) == ["DVID", "DVNM", "STRM"])
        #expect(tree[0].children[2].children.map(\.key) == ["STNM", "UNIT", "SCAL", "GPSU", "GPSF", "GPSP", "GPS5"])
        let series = try GPMF.series(in: tree)
        #expect(series.first { $0.key == "GPSU" }?.samples == [[.string("191118234514.000")]])
        #expect(series.first { $0.key == "GPSP" }?.samples == [[.uint(154)]])
        let gps5 = try #require(series.first { $0.key == "GPS5" })
        #expect(gps5.deviceName == "Reel Test")
        let expected: [GPMFValue] = [.real(33.12677), .real(-117.3273436), .real(-22.959), .real(1.046), .real(1.0)]
        #expect(gps5.samples == [expected])
    }

    @Test(
        .requires(.sharedMedia),
        arguments: ["gpmf-parser_hero6.raw", "gpmf-parser_Fusion.raw"])
    func treeEncodesBackToTheSameBytes(name: String) throws {
        let data = try TestFiles.sharedMediaData(name)
        let tree = try GPMFNode.parse(data)
        var again = Data()
        for node in tree { again += try node.encoded() }
        #expect(again == data)
    }

    @Test func emptyWindowsStillGetAPayload() throws {
        var groups = Self.track(seconds: 1, rate: 2)
        let late = GPSFix(latitude: 1, longitude: 2)
        groups.append(
            TimedMetadataGroup(
                timeRange: TimeRange(start: MediaTime(value: 3, timescale: 1), duration: MediaTime(value: 1, timescale: 2)),
                items: late.metadataItems()))
        let payloads = try GPMFWriter.payloads(for: groups, payloadDuration: MediaTime(value: 1, timescale: 1))
        #expect(payloads.count == 4)
        #expect(payloads.last?.timeRange == TimeRange(start: MediaTime(value: 3, timescale: 1), duration: MediaTime(value: 1, timescale: 2)))
        #expect(try GPMF.fixes(payload: payloads[1].data, timeRange: payloads[1].timeRange).isEmpty)
        let groupsBack = try GPMF.groups(payload: payloads[1].data, timeRange: payloads[1].timeRange)
        #expect(groupsBack.count == 1)
        #expect(try GPMF.fixes(payload: payloads[3].data, timeRange: payloads[3].timeRange).first?.fix.latitude == 1)
    }

    @Test func badInputIsAnArgumentError() {
        let bad = GPSFix(latitude: 91, longitude: 0)
        expectReelError(.invalidArgument) { try GPMFWriter.payload(fixes: [bad]) }
        expectReelError(.invalidArgument) { try GPMFWriter.payload(fixes: [GPSFix(latitude: .nan, longitude: 0)]) }
        expectReelError(.invalidArgument) { try GPMFWriter.payload(fixes: [GPSFix(latitude: 1, longitude: 2)], options: .init(format: .gps9)) }
        expectReelError(.invalidArgument) { try GPMFWriter.payloads(for: Self.track(seconds: 1), payloadDuration: .zero) }
        do {
            _ = try GPMFWriter.payload(fixes: [GPSFix(latitude: 1, longitude: 2), bad])
        } catch {
            #expect(error.code == .invalidArgument)
            #expect(error.message.contains("group 1") && error.message.contains("latitude"))
        }
    }

    // MARK: - Rebuilding payloads from decoded groups

    /// Decodes `payload`, rebuilds it from its groups, decodes again and compares.
    static func expectRebuildKeepsEverything(_ payload: Data, _ range: TimeRange) throws {
        let before = try GPMF.groups(payload: payload, timeRange: range)
        let rebuilt = try GPMFWriter.payload(groups: before, timeRange: range)
        let after = try GPMF.groups(payload: rebuilt, timeRange: range)
        #expect(after.count == before.count)
        #expect(after.map(\.timeRange) == before.map(\.timeRange))
        #expect(after.map { GPSFix($0) } == before.map { GPSFix($0) })
        let a = before.flatMap(\.items), b = after.flatMap(\.items)
        #expect(a.count == b.count)
        // Item order within a group may differ; each key's items keep their order.
        let pairs = Set(a.map(\.identifier)).flatMap { id in zip(a.filter { $0.identifier == id }, b.filter { $0.identifier == id }) }
        #expect(Set(a.map(\.identifier)) == Set(b.map(\.identifier)))
        for (x, y) in pairs {
            #expect(x.identifier == y.identifier)
            #expect(x.time == y.time)
            #expect(x.unit == y.unit)
            if x.dataType == "f" || x.dataType?.contains("f") == true, case .numbers(let u) = x.value, case .numbers(let v) = y.value {
                // Float data keeps float precision.
                #expect(u.count == v.count && zip(u, v).allSatisfy { abs($0 - $1) <= 1e-6 * max(1, abs($0)) }, "\(x.identifier)")
            } else {
                #expect(x.value == y.value, "\(x.identifier) at \(x.time)")
                #expect(x.dataType == y.dataType, "\(x.identifier)")
            }
        }
    }

    @Test(
        .requires(.sharedMedia),
        arguments: ["gpmf-parser_hero6.raw", "gpmf-parser_Fusion.raw"])
    func rebuiltPayloadKeepsEveryItem(name: String) throws {
        try Self.expectRebuildKeepsEverything(TestFiles.sharedMediaData(name), oneSecond)
    }

    @Test(.requires(.sharedMedia))
    func rebuiltHero9PayloadsKeepEveryItem() throws {
        let payloads = try GPMF.splitStream(TestFiles.sharedMediaData("gopro-dashboard-overlay_rotation-example.gpmd"))
        for (i, p) in payloads.prefix(6).enumerated() {
            let range = TimeRange(start: MediaTime(value: Int64(i) * 1001, timescale: 1000), duration: MediaTime(value: 1001, timescale: 1000))
            try Self.expectRebuildKeepsEverything(p, range)
        }
    }

    @Test(.requires(.sharedMedia))
    func rebuiltCutKeepsFixTimesAndSensorItems() throws {
        // The last 10 fixes of the hero6 payload: GPSU is in the first group only, so the
        // writer makes one from the first kept fix.
        let groups = try GPMF.groups(payload: TestFiles.sharedMediaData("gpmf-parser_hero6.raw"), timeRange: oneSecond)
        let kept = Array(groups.suffix(10))
        let range = TimeRange(start: kept[0].timeRange.start, end: oneSecond.end)
        let data = try GPMFWriter.payload(groups: kept, timeRange: range)
        let back = try GPMF.groups(payload: data, timeRange: range)
        #expect(back.count == 10)
        for (k, b) in zip(kept, back) {
            let x = try #require(GPSFix(k)), y = try #require(GPSFix(b))
            #expect(abs(x.latitude - y.latitude) < 1e-9)
            #expect(abs((x.time?.timeIntervalSince1970 ?? 0) - (y.time?.timeIntervalSince1970 ?? 1)) < 0.002)
        }
        let accl = { (g: [TimedMetadataGroup]) in g.flatMap { $0.items.filter { $0.key == "ACCL" } }.map(\.value) }
        #expect(accl(back) == accl(kept))
        #expect(!accl(back).isEmpty)
    }

    @Test func groupsWithoutGPMFItemsGiveTheirFixes() throws {
        let groups = Self.track(seconds: 1)
        let data = try GPMFWriter.payload(groups: groups, timeRange: oneSecond, options: .init(format: .gps9))
        let fixes = try GPMF.fixes(payload: data, timeRange: oneSecond)
        #expect(fixes.count == groups.count)
        #expect(fixes.map { Self.rounded($0.fix.latitude, 1e7) } == groups.map { Self.rounded(GPSFix($0)?.latitude, 1e7) })
        #expect(
            fixes.map { $0.fix.time.map { ($0.timeIntervalSince1970 * 1000).rounded() } }
                == groups.map { GPSFix($0)?.time.map { ($0.timeIntervalSince1970 * 1000).rounded() } })
    }

    @Test func valuesNoIntegerHoldsAreWrittenAsDoubles() throws {
        let id = MetadataIdentifier(keySpace: .gpmf, key: "TEST")
        let items = [[1.0 / 3, 2], [1e15, 0.1]].enumerated().map { i, v in
            MetadataItem(identifier: id, value: .numbers(v), dataType: "s", unit: "m", time: MediaTime(value: Int64(i), timescale: 2))
        }
        let data = try GPMFWriter.payload(groups: [TimedMetadataGroup(timeRange: oneSecond, items: items)], timeRange: oneSecond)
        let back = try GPMF.groups(payload: data, timeRange: oneSecond).flatMap(\.items)
        #expect(back.map(\.value) == items.map(\.value))
        #expect(back.allSatisfy { $0.dataType == "d" && $0.unit == "m" })
        // Integers that fit keep their type, with the divisor that gives them back.
        let scaled = [MetadataItem(identifier: id, value: .numbers([418.0 / 418, 17.0 / 418, -4000.0 / 418]), dataType: "s", time: .zero)]
        let nodes = try GPMFNode.parse(GPMFWriter.payload(groups: [TimedMetadataGroup(timeRange: oneSecond, items: scaled)], timeRange: oneSecond))
        let strm = try #require(nodes[0].child("STRM"))
        #expect(try strm.child("SCAL")?.values().first?.first?.doubleValue == 418)
        #expect(strm.child("TEST")?.type == .int16)
    }

    @Test func badItemsAreErrorsNamingThem() throws {
        func payload(_ item: MetadataItem) throws(ReelError) -> Data {
            try GPMFWriter.payload(groups: [TimedMetadataGroup(timeRange: oneSecond, items: [item])], timeRange: oneSecond)
        }
        let garbledTypes = ["", "J[", "l[0]", "x", "Jll?", "[3]", "l[999]", "\u{1F600}"]
        for type in garbledTypes {
            let item = MetadataItem(identifier: MetadataIdentifier(keySpace: .gpmf, key: "GPRI"), value: .numbers([1, 2]), dataType: type, time: .zero)
            #expect(survives { () throws(ReelError) in try payload(item) }, "TYPE \(type)")
        }
        let longKey = MetadataItem(identifier: MetadataIdentifier(keySpace: .gpmf, key: "TOOLONG"), value: .numbers([1]), time: .zero)
        expectReelError(.invalidArgument) { try payload(longKey) }
        let wrongCount = MetadataItem(
            identifier: MetadataIdentifier(keySpace: .gpmf, key: "GPRI"), value: .numbers([1, 2, 3]),
            dataType: "JlllSSSSBB", time: .zero)
        expectReelError(.invalidArgument) { try payload(wrongCount) }
    }
    @Test("what the fixes do not hold is not claimed: no GPSF, GPSP, speed or altitude is made up")
    func missingValuesStayMissing() throws {
        // A drone's KLV fix: a position and an altitude, no speed, fix type or DOP.
        let bare = GPSFix(latitude: 38.252336, longitude: -77.366859, altitude: 1054.4)
        let gps5 = try GPMFWriter.payload(fixes: [bare, GPSFix(latitude: 38.25, longitude: -77.36)])
        let strm = try #require(try GPMFNode.parse(gps5).first?.child("STRM"))
        #expect(!strm.children.map(\.key).contains("GPSF") && !strm.children.map(\.key).contains("GPSP"))
        let back = try GPMF.fixes(payload: gps5, timeRange: oneSecond).map(\.fix)
        #expect(back.count == 2)
        #expect(back[0].altitude == 1054.4 && back[1].altitude == nil)
        #expect(back.allSatisfy { $0.speed2D == nil && $0.speed3D == nil && $0.fix == nil && $0.dop == nil }, "\(back)")

        // GPS9 (fixes with times): each fix keeps its own UTC, and still claims nothing else.
        let t = Date(timeIntervalSince1970: 1_221_515_219.356)
        var timed = bare
        timed.time = t
        var later = GPSFix(latitude: 38.25, longitude: -77.36, speed2D: 12.5, time: t.addingTimeInterval(0.04), fix: 3, dop: 1.2)
        later.altitude = nil
        let gps9 = try GPMFWriter.payload(fixes: [timed, later], options: .init(format: .gps9))
        let nine = try GPMF.fixes(payload: gps9, timeRange: oneSecond).map(\.fix)
        #expect(nine.count == 2)
        #expect(nine[0].time == t && nine[0].speed2D == nil && nine[0].fix == nil && nine[0].dop == nil && nine[0].altitude == 1054.4)
        #expect(close(nine[1].time?.timeIntervalSince1970, t.timeIntervalSince1970 + 0.04, 1e-6))
        #expect(nine[1].speed2D == 12.5 && nine[1].speed3D == nil && nine[1].fix == 3 && nine[1].dop == 1.2 && nine[1].altitude == nil)
    }

    @Test("payload(groups:) writes GPS9 (and GPS5) with an STMP when every fix has a time, GPS5 alone otherwise")
    func groupsWithTimedFixesBecomeGPS9() throws {
        let t = Date(timeIntervalSince1970: 1_221_515_219)
        func group(_ k: Int, time: Date?) -> TimedMetadataGroup {
            let start = MediaTime(value: Int64(300 + 33 * k), timescale: 1000)
            let fix = GPSFix(latitude: 38.25 + Double(k) * 1e-5, longitude: -77.36, altitude: 1054.4, time: time?.addingTimeInterval(Double(k) * 0.033))
            return TimedMetadataGroup(
                timeRange: TimeRange(start: start, duration: MediaTime(value: 33, timescale: 1000)), items: fix.metadataItems(time: start))
        }
        let range = TimeRange(start: MediaTime(value: 300, timescale: 1000), duration: MediaTime(value: 990, timescale: 1000))
        let timed = try GPMFWriter.payload(groups: (0..<30).map { group($0, time: t) }, timeRange: range)
        let streams = try #require(try GPMFNode.parse(timed).first).children.filter { $0.key == "STRM" }
        #expect(streams.map { $0.children.first { ["GPS5", "GPS9"].contains($0.key) }?.key } == ["GPS5", "GPS9"])
        #expect(streams.allSatisfy { $0.children.first?.key == "STMP" }, "\(streams.map { $0.children.map(\.key) })")
        let fixes = try GPMF.fixes(payload: timed, timeRange: range)
        #expect(fixes.count == 30)
        for (k, f) in fixes.enumerated() {
            #expect(close(f.fix.time?.timeIntervalSince1970, t.timeIntervalSince1970 + Double(k) * 0.033, 1e-6), "fix \(k)")
            #expect(abs((f.time - MediaTime(value: Int64(300 + 33 * k), timescale: 1000)).seconds) < 0.001, "fix \(k) at \(f.time)")
            #expect(f.fix.speed2D == nil && f.fix.fix == nil && f.fix.dop == nil)
        }
        let untimed = try GPMFWriter.payload(groups: [group(0, time: nil), group(1, time: t)], timeRange: range)
        let keys = try #require(try GPMFNode.parse(untimed).first?.children.first { $0.key == "STRM" }).children.map(\.key)
        #expect(keys.contains("GPS5") && !keys.contains("GPS9"), "\(keys)")
    }
}
