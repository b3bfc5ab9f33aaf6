import Foundation
import ReelTestSupport
import Testing

@testable import ReelMetadata

@Suite("GPMF: payloads to timed metadata groups")
struct GPMFTests {
    @Test(.requires(.sharedMedia))
    func hero6Payload() throws {
        let groups = try GPMF.groups(payload: TestFiles.sharedMediaData("gpmf-parser_hero6.raw"), timeRange: oneSecond)
        #expect(groups.count == 17)
        let first = try #require(GPSFix(groups[0]))
        #expect(close(first.latitude, 33.1265542))
        #expect(close(first.longitude, -117.3271299))
        #expect(close(first.altitude, -18.172))
        #expect(close(first.speed2D, 1.573))
        #expect(close(first.speed3D, 1.57))
        #expect(first.fix == 0)
        #expect(close(first.dop, 99.99))
        let expected = try Date("2018-01-24T19:28:01.699Z", strategy: .iso8601.year().month().day().time(includingFractionalSeconds: true))
        #expect(close(first.time?.timeIntervalSince1970, expected.timeIntervalSince1970, 1e-6))
        // Groups tile the payload's range.
        #expect(groups[0].timeRange.start == .zero)
        #expect(groups.last?.timeRange.end == MediaTime(value: 1, timescale: 1))
        for (a, b) in zip(groups, groups.dropFirst()) { #expect(a.timeRange.end == b.timeRange.start) }
        // Every accelerometer sample is delivered once, in the group holding its time.
        let accl = groups.flatMap { $0.items.filter { $0.identifier.rawValue == "gpmf/ACCL" } }
        #expect(accl.count == 204)
        #expect(accl[0].unit == "m/s²")
        #expect(accl[0].dataType == "s")
        for g in groups {
            for item in g.items where item.keySpace == .gpmf { #expect(g.timeRange.containsTime(item.time)) }
        }
        if case .numbers(let n) = accl[0].value { #expect(n.count == 3) } else { Issue.record("ACCL should be numbers") }
    }

    @Test(.requires(.sharedMedia))
    func fusionPayload() throws {
        let fixes = try GPMF.fixes(payload: TestFiles.sharedMediaData("gpmf-parser_Fusion.raw"), timeRange: oneSecond)
        #expect(fixes.count == 19)
        #expect(close(fixes[0].fix.latitude, 33.1266299))
        #expect(close(fixes[0].fix.longitude, -117.3274386))
        #expect(close(fixes[0].fix.altitude, -18.524))
        #expect(fixes[0].fix.fix == 3)
        #expect(close(fixes[0].fix.dop, 6.74))
        #expect(fixes[1].time == MediaTime(value: 1, timescale: 19))
        let base = try #require(fixes[0].fix.time)
        #expect(close(fixes[1].fix.time?.timeIntervalSince(base), 1.0 / 19, 1e-6))
    }

    @Test(.requires(.sharedMedia))
    func hero9Stream() throws {
        let payloads = try GPMF.splitStream(TestFiles.sharedMediaData("gopro-dashboard-overlay_rotation-example.gpmd"))
        var total = 0
        for (i, p) in payloads.enumerated() {
            let range = TimeRange(start: MediaTime(value: Int64(i) * 1001, timescale: 1000), duration: MediaTime(value: 1001, timescale: 1000))
            let groups = try GPMF.groups(payload: p, timeRange: range)
            total += groups.filter { GPSFix($0) != nil }.count
            #expect(groups.first?.timeRange.start == range.start)
        }
        #expect(total == 789)
    }

    @Test func gpsuParsingAndFormatting() throws {
        let d = try #require(GPMF.date(fromGPSU: "191118234514.000"))
        #expect(d.timeIntervalSince1970 == 1_574_120_714)
        #expect(GPMF.gpsuString(from: d) == "191118234514.000")
        #expect(GPMF.gpsuString(from: Date(timeIntervalSince1970: 951_782_400.25)) == "000229000000.250")
        #expect(GPMF.date(fromGPSU: "191318234514.000") == nil)
        #expect(GPMF.date(fromGPSU: "19111823451") == nil)
        #expect(GPMF.date(fromGPSU: "1911182345xx") == nil)
    }

    @Test func payloadWithoutGPSGivesOneGroup() throws {
        let accl = GPMFNodeTests.klv("ACCL", 0x73, 2, 3, [0, 1, 0, 2, 0, 3])
        let strm = GPMFNodeTests.klv("STRM", 0, 1, accl.count, accl)
        let groups = try GPMF.groups(payload: Data(GPMFNodeTests.klv("DEVC", 0, 1, strm.count, strm)), timeRange: oneSecond)
        #expect(groups.count == 1)
        #expect(groups[0].items.count == 3)
        #expect(groups[0].items[1].time == MediaTime(value: 1, timescale: 3))
    }

    // MARK: - Sample timing from STMP

    /// A payload with one ACCL stream of three samples, stamped `stmp` microseconds and
    /// counting `tsmp` samples so far.
    static func stampedPayload(stmp: UInt64, tsmp: UInt32 = 3) -> Data {
        let stamp = GPMFNodeTests.klv("STMP", 0x4A, 8, 1, (0..<8).map { UInt8(truncatingIfNeeded: stmp >> (56 - 8 * UInt64($0))) })
        let total = GPMFNodeTests.klv("TSMP", 0x4C, 4, 1, (0..<4).map { UInt8(truncatingIfNeeded: tsmp >> (24 - 8 * UInt32($0))) })
        let accl = GPMFNodeTests.klv("ACCL", 0x73, 2, 3, [0, 1, 0, 2, 0, 3])
        let body = stamp + total + accl
        let strm = GPMFNodeTests.klv("STRM", 0, 1, body.count, body)
        return Data(GPMFNodeTests.klv("DEVC", 0, 1, strm.count, strm))
    }

    @Test func aStreamsSamplesStartAtItsStampAndFillThePayload() throws {
        let series = try GPMF.series(payload: Self.stampedPayload(stmp: 250_000, tsmp: 42))
        #expect(series.first?.firstSampleMicroseconds == 250_000)
        #expect(series.first?.totalSamples == 42)
        let items = try GPMF.groups(payload: Self.stampedPayload(stmp: 250_000), timeRange: oneSecond)[0].items
        #expect(items.map(\.time) == [0.25, 0.5, 0.75].map { MediaTime(seconds: $0, preferredTimescale: 1_000_000) })
        #expect(items.allSatisfy { $0.duration == MediaTime(seconds: 0.25, preferredTimescale: 1_000_000) })
    }

    @Test(arguments: [UInt64(2_500_000), 5_000_000, 400_000])
    func aStampOnAnotherClockIsNotUsed(stmp: UInt64) throws {
        // At or after the payload's end, or more than a payload before it: spread evenly.
        let range = TimeRange(start: MediaTime(value: 1500, timescale: 1000), duration: MediaTime(value: 1000, timescale: 1000))
        let items = try GPMF.groups(payload: Self.stampedPayload(stmp: stmp), timeRange: range)[0].items
        #expect(items.map(\.time) == (0..<3).map { range.start + range.duration.multiplied(byRatio: Int32($0), 3) })
    }

    @Test func aStampJustBeforeThePayloadStartsItsSamplesWithThePayload() throws {
        let range = TimeRange(start: MediaTime(value: 1, timescale: 1), duration: MediaTime(value: 1, timescale: 1))
        let items = try GPMF.groups(payload: Self.stampedPayload(stmp: 900_000), timeRange: range)[0].items
        #expect(items.first?.time == range.start)
    }

    @Test(.requires(.sharedMedia))
    func hero9FixesStartAtTheirStreamsStamp() throws {
        // The HERO9 stream's GPS STMP values (microseconds): 157184, 1147943, 2138816.
        let payloads = try GPMF.splitStream(TestFiles.sharedMediaData("gopro-dashboard-overlay_rotation-example.gpmd"))
        for (i, stamp) in [157_184, 1_147_943, 2_138_816].enumerated() {
            let range = TimeRange(start: MediaTime(value: Int64(i) * 1001, timescale: 1000), duration: MediaTime(value: 1001, timescale: 1000))
            let fixes = try GPMF.fixes(payload: payloads[i], timeRange: range)
            #expect(fixes.first?.time == MediaTime(value: Int64(stamp), timescale: 1_000_000))
            // The fixes are evenly spaced from there to the payload's end.
            let step = (range.end - MediaTime(value: Int64(stamp), timescale: 1_000_000)).seconds / Double(fixes.count)
            #expect(close(fixes.last.map { ($0.time + $0.duration).seconds }, range.end.seconds, 1e-6))
            #expect(close(fixes[1].time.seconds - fixes[0].time.seconds, step, 1e-6))
        }
    }

    @Test func restampingMovesEveryStampAndNothingElse() throws {
        let payload = Self.stampedPayload(stmp: 250_000)
        let moved = try GPMF.restamped(payload, spanning: oneSecond, by: { $0 + MediaTime(value: 5, timescale: 1) })
        #expect(moved.count == payload.count)
        #expect(try GPMF.series(payload: moved).first?.firstSampleMicroseconds == 5_250_000)
        let later = TimeRange(start: MediaTime(value: 5, timescale: 1), duration: oneSecond.duration)
        let before = try GPMF.groups(payload: payload, timeRange: oneSecond)[0].items.map(\.time)
        let after = try GPMF.groups(payload: moved, timeRange: later)[0].items.map(\.time)
        #expect(after == before.map { $0 + MediaTime(value: 5, timescale: 1) })
        // Moved before zero: zero.
        let early = try GPMF.restamped(payload, spanning: oneSecond, by: { $0 - MediaTime(value: 1, timescale: 1) })
        #expect(try GPMF.series(payload: early).first?.firstSampleMicroseconds == 0)
        #expect(try GPMF.restamped(Data(), spanning: oneSecond, by: { $0 }) == Data())
    }

    @Test("a stamp on another clock is not moved: a camera's second chapter keeps its payloads byte for byte")
    func restampingLeavesStampsOnAnotherClock() throws {
        // A second chapter's payload at 2 s of its file, stamped 602.25 s: on the recording's
        // clock, where the chapter's place in the joined recording already is.
        let payload = Self.stampedPayload(stmp: 602_250_000)
        let inFile = TimeRange(start: MediaTime(value: 2, timescale: 1), duration: oneSecond.duration)
        let joined = try GPMF.restamped(payload, spanning: inFile, by: { $0 + MediaTime(value: 600, timescale: 1) })
        #expect(joined == payload)
        // There its stamp is on the track's clock, and places the fixes from it.
        let atJoin = TimeRange(start: MediaTime(value: 602, timescale: 1), duration: oneSecond.duration)
        let times = try GPMF.groups(payload: joined, timeRange: atJoin)[0].items.map(\.time)
        #expect(times.first == MediaTime(value: 602_250_000, timescale: 1_000_000))
        // On the edges of the rule: one payload before the start is the track's clock, the end is not.
        #expect(GPMF.isOnTrackClock(MediaTime(value: 1, timescale: 1), payload: inFile))
        #expect(!GPMF.isOnTrackClock(MediaTime(value: 3, timescale: 1), payload: inFile))
        #expect(!GPMF.isOnTrackClock(MediaTime(value: 999_999, timescale: 1_000_000), payload: inFile))
        #expect(!GPMF.isOnTrackClock(MediaTime(value: 2, timescale: 1), payload: TimeRange(start: MediaTime(value: 2, timescale: 1), duration: .zero)))
    }

    @Test func invalidTimeRangeIsAnArgumentError() {
        expectReelError(.invalidArgument) { try GPMF.groups(payload: Data(), timeRange: .invalid) }
    }
    @Test("a payload of zero bytes only is an error, not an empty payload")
    func zeroFilledPayloadIsAnError() {
        let error = expectReelError(.corruptData) { try GPMF.groups(payload: Data(count: 6208), timeRange: oneSecond) }
        #expect(error?.message.contains("all zero") == true, "\(String(describing: error))")
        #expect((try? GPMF.groups(payload: Data(), timeRange: oneSecond))?.count == 1)
    }
}
