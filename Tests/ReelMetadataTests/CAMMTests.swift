import Foundation
import ReelTestSupport
import Testing

@testable import ReelMetadata

@Suite("Google CAMM records")
struct CAMMTests {
    static let gps = CAMM.GPS(
        timeGPSEpoch: 1_577_836_800 - 315_964_800 + 18, fixType: 3, latitude: 37.422, longitude: -122.084,
        altitude: 12.5, horizontalAccuracy: 3, verticalAccuracy: 5, velocityEast: 3, velocityNorth: 4,
        velocityUp: 0, speedAccuracy: 0.5)
    static let all: [CAMM.Record] = [
        .angleAxis(x: 0.1, y: 0.2, z: 0.3), .exposure(pixelExposureTime: 1_000_000, rollingShutterSkewTime: -5),
        .gyro(x: 1, y: 2, z: 3), .acceleration(x: 0, y: 9.81, z: 0), .position(x: 1, y: 1, z: 1),
        .location(latitude: 48.8584, longitude: 2.2945, altitude: 35), .gps(gps), .magneticField(x: 20, y: -5, z: 40),
    ]

    @Test func everyTypeHasItsSizeAndRoundTrips() throws {
        for record in Self.all {
            #expect(CAMM.encode([record]).count == CAMM.recordSizes[record.type], "type \(record.type)")
        }
        let sample = CAMM.encode(Self.all)
        #expect(try CAMM.records(sample: sample) == Self.all)
        #expect(sample.count == CAMM.recordSizes.reduce(0, +))
    }

    @Test func gpsRecordGivesATypedFix() throws {
        let range = TimeRange(start: MediaTime(value: 2, timescale: 1), duration: MediaTime(value: 1, timescale: 10))
        let group = try CAMM.group(sample: CAMM.encode([.gps(Self.gps)]), timeRange: range)
        let fix = try #require(GPSFix(group))
        #expect(fix.latitude == 37.422 && fix.longitude == -122.084 && fix.altitude == 12.5)
        #expect(fix.speed2D == 5 && fix.speed3D == 5)
        #expect(close(fix.course, 36.86989764584402, 1e-9))
        #expect(fix.fix == 3)
        #expect(fix.time == Date(timeIntervalSince1970: 1_577_836_800))  // 2020-01-01 UTC: GPS is 18 s ahead
        #expect(group.item(MetadataIdentifier(keySpace: .camm, key: "6"))?.value == .numbers(CAMM.Record.gps(Self.gps).numbers))
        #expect(group.timeRange == range)
    }

    @Test func locationRecordGivesAFixAndOthersItems() throws {
        let items = try CAMM.items(
            sample: CAMM.encode([.gyro(x: 1, y: 2, z: 3), .location(latitude: 48.8584, longitude: 2.2945, altitude: 35)]),
            timeRange: .zero)
        #expect(items.first?.identifier.rawValue == "camm/2")
        #expect(items.first?.unit == "rad/s")
        #expect(items.first?.value == .numbers([1, 2, 3]))
        let fix = try #require(GPSFix(items: items))
        #expect(fix.latitude == 48.8584 && fix.altitude == 35)
    }

    @Test func leapSeconds() {
        #expect(CAMM.leapSeconds(atGPSTime: 315_964_800) == 0)
        #expect(CAMM.leapSeconds(atGPSTime: 1_483_228_800 + 18) == 18)
        #expect(CAMM.leapSeconds(atGPSTime: 1_483_228_800 + 16) == 17)
        let utc2017 = GPMF.daysFromCivil(year: 2017, month: 1, day: 1) * 86_400
        #expect(utc2017 == 1_483_228_800)
        #expect(GPMF.daysFromCivil(year: 1980, month: 1, day: 6) * 86_400 == Int(CAMM.gpsEpoch))
    }

    @Test func errorsNameTheOffset() {
        let good = CAMM.encode([.gyro(x: 1, y: 2, z: 3)])
        let cases: [(Data, String)] = [
            (good + Data([1, 0, 2, 0]), "reserved"),
            (good + Data([0, 0, 8, 0]), "unknown record type 8"),
            (good.prefix(10), "type 2 record"),
            (good + Data([0, 0]), "record type"),
        ]
        for (data, text) in cases {
            do {
                _ = try CAMM.records(sample: data)
                Issue.record("expected an error for \(text)")
            } catch {
                #expect(error.message.contains(text), "\(error)")
                #expect(error.message.contains("offset"), "\(error)")
            }
        }
    }

    @Test func damagedSamplesNeverCrash() {
        let sample = CAMM.encode(Self.all)
        for cut in 0..<sample.count {
            survives { () throws(ReelError) in try CAMM.items(sample: sample.prefix(cut), timeRange: .zero) }
        }
        var rng = SeededGenerator(seed: 77)
        for _ in 0..<3000 {
            var copy = sample
            copy[Int.random(in: 0..<copy.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
            survives { () throws(ReelError) in try CAMM.items(sample: copy, timeRange: .zero) }
            survives { () throws(ReelError) in try CAMM.items(sample: rng.bytes(Int.random(in: 0...64, using: &rng)), timeRange: .zero) }
        }
    }
}

@Suite("CAMM records from fixes")
struct CAMMRecordFromFixTests {
    @Test func timedFixBecomesTypeSixAndUntimedTypeFive() throws {
        let time = Date(timeIntervalSince1970: 1_574_120_714.25)
        let fix = GPSFix(latitude: 33.12677, longitude: -117.3273436, altitude: -22.959, speed2D: 2, course: 90, time: time)
        guard case .gps(let gps) = CAMM.record(fix: fix) else { Issue.record("expected type 6"); return }
        // 2019 is 18 leap seconds after the GPS epoch.
        #expect(gps.timeGPSEpoch == 1_574_120_714.25 + 18 - CAMM.gpsEpoch)
        #expect(gps.date == time)
        #expect(gps.fixType == 3)
        #expect(abs(gps.velocityEast - 2) < 1e-6 && abs(gps.velocityNorth) < 1e-6)
        // No vertical speed in the fix: NaN, not 0 (NaN is not equal to itself, so the
        // bytes are compared).
        #expect(gps.velocityUp.isNaN)
        let bytes = CAMM.encode([CAMM.record(fix: fix)])
        #expect(try CAMM.encode(CAMM.records(sample: bytes)) == bytes)
        let back = gps.fix
        #expect(back.speed2D == 2 && back.speed3D == nil && back.altitude.map { abs($0 + 22.959) < 1e-4 } == true)
        #expect(CAMM.record(fix: GPSFix(latitude: 1, longitude: 2)) == .location(latitude: 1, longitude: 2, altitude: 0))
    }

    @Test("what the fix does not give is written as NaN and read back as missing, not as 0")
    func missingValuesStayMissing() throws {
        let time = Date(timeIntervalSince1970: 1_574_120_714.25)
        // A speed without a course cannot be split east and north.
        for fix in [GPSFix(latitude: 33, longitude: -117, time: time), GPSFix(latitude: 33, longitude: -117, speed2D: 1.046, time: time)] {
            guard case .gps(let gps) = CAMM.record(fix: fix) else { Issue.record("expected type 6"); return }
            let decoded = try CAMM.records(sample: CAMM.encode([.gps(gps)]))
            guard case .gps(let read)? = decoded.first else { Issue.record("expected type 6 back"); return }
            let back = read.fix
            #expect(back.speed2D == nil && back.speed3D == nil && back.course == nil && back.altitude == nil, "\(back)")
        }
    }
}

@Suite("CAMM: every field of a GPS record")
struct CAMMGPSFieldsTests {
    @Test func velocityAndAccuraciesAreTypedItems() throws {
        // CAMMTests.gps: velocity east 3, north 4, up 0 m/s; accuracies 3 m, 5 m, 0.5 m/s.
        let group = try CAMM.group(sample: CAMM.encode([.gps(CAMMTests.gps)]), timeRange: .zero)
        let fix = try #require(GPSFix(group))
        #expect(fix.velocityEast == 3 && fix.velocityNorth == 4 && fix.velocityUp == 0)
        #expect(fix.horizontalAccuracy == 3 && fix.verticalAccuracy == 5 && fix.speedAccuracy == 0.5)
        #expect(group.item(.velocityEast)?.unit == "m/s")
        #expect(group.item(.gpsHorizontalAccuracy)?.unit == "m")
        #expect(group.item(.gpsSpeedAccuracy)?.value == .double(0.5))
        // An accuracy of 0 (what writers put when they have none) or NaN is no accuracy.
        var unknown = CAMMTests.gps
        (unknown.horizontalAccuracy, unknown.verticalAccuracy, unknown.speedAccuracy) = (0, .nan, -1)
        let none = unknown.fix
        #expect(none.horizontalAccuracy == nil && none.verticalAccuracy == nil && none.speedAccuracy == nil)
    }

    @Test func aFixWithVelocityAndAccuraciesRoundTrips() throws {
        let time = Date(timeIntervalSince1970: 1_574_120_714.25)
        let fix = GPSFix(
            latitude: 33.12677, longitude: -117.3273436, altitude: -22.959, speed2D: 5, speed3D: 5.0990195135927845,
            course: 36.86989764584402, time: time, fix: 3, horizontalAccuracy: 2.5, verticalAccuracy: 4, speedAccuracy: 0.25,
            velocityNorth: 4, velocityEast: 3, velocityUp: -1)
        let sample = CAMM.encode([CAMM.record(fix: fix)])
        let back = try #require(GPSFix(try CAMM.group(sample: sample, timeRange: .zero)))
        #expect(back.velocityNorth == 4 && back.velocityEast == 3 && back.velocityUp == -1)
        #expect(back.horizontalAccuracy == 2.5 && back.verticalAccuracy == 4 && back.speedAccuracy == 0.25)
        #expect(close(back.speed2D, 5, 1e-6) && close(back.speed3D, 5.0990195135927845, 1e-6) && close(back.course, fix.course ?? 0, 1e-4))
        #expect(back.time == time && back.fix == 3)
        // A fix type too large for the record's int32 is clamped, not a crash.
        guard case .gps(let big) = CAMM.record(fix: GPSFix(latitude: 1, longitude: 2, time: time, fix: Int.max)) else {
            Issue.record("expected type 6"); return
        }
        #expect(big.fixType == Int32.max)
    }

    @Test func aTruncatedGPSRecordIsAnError() {
        let sample = CAMM.encode([.gps(CAMMTests.gps)])
        for cut in [4, 12, 32, 59] {
            expectReelError(.corruptData) { try CAMM.records(sample: sample.prefix(cut)) }
        }
    }
}
