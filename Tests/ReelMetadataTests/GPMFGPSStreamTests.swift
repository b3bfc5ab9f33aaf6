import Foundation
import Testing

@testable import ReelMetadata

@Suite("GPMFGPSStream: finding the GPS in any GPMF stream")
struct GPMFGPSStreamTests {
    /// A payload with one stream of `key` holding `rows` as a complex type.
    static func payload(_ key: FourCC, type: String, name: String?, units: [String], scale: [Int64], rows: [[Int64]]) throws -> Data {
        var stream: [GPMFNode] = []
        if let name { stream.append(.string("STNM", name)) }
        stream += [.string("TYPE", type), .strings("UNIT", units), .integers("SCAL", .int32, scale.map { [$0] })]
        stream.append(try .complex(key, layout: GPMFStructLayout(parsing: type), rows: rows))
        return try GPMFNode.nested("DEVC", [.nested("STRM", stream)]).encoded()
    }

    @Test func anyStreamWithNamedLatitudeAndLongitude() throws {
        // Longitude before latitude, as the names say; speed and course by name.
        let data = try Self.payload(
            "XGPS", type: "lllss", name: "Tracker (long, lat, altitude, ground speed, course)",
            units: ["deg", "deg", "m", "m/s", "deg"], scale: [10_000_000, 10_000_000, 100, 100, 10],
            rows: [[65_000_000, 465_000_000, 37_200, 350, 1234], [65_000_100, 465_000_200, 37_300, 360, 1240]])
        let fixes = try GPMF.fixes(payload: data, timeRange: oneSecond)
        #expect(fixes.count == 2)
        #expect(close(fixes[0].fix.latitude, 46.5) && close(fixes[0].fix.longitude, 6.5))
        #expect(close(fixes[1].fix.altitude, 373))
        #expect(close(fixes[1].fix.speed2D, 3.6))
        #expect(close(fixes[0].fix.course, 123.4))
    }

    @Test func unnamedStreamByUnitsInPositionOrder() throws {
        let data = try Self.payload(
            "POSN", type: "Llll", name: nil, units: ["s", "deg", "deg", "m"], scale: [1000, 10_000_000, 10_000_000, 1000],
            rows: [[5000, -338_567_844, 1_512_152_967, 58_300], [5500, -338_567_000, 1_512_153_000, 58_400]])
        let fixes = try GPMF.fixes(payload: data, timeRange: oneSecond)
        #expect(fixes.map(\.fix.latitude) == [-33.8567844, -33.8567])
        #expect(close(fixes[0].fix.altitude, 58.3))
        #expect(fixes[1].time == MediaTime(value: 1, timescale: 2))  // spaced by its seconds element
    }

    @Test func threeAnglesAreNotAPosition() throws {
        let data = try Self.payload(
            "ATTD", type: "sss", name: "Attitude", units: ["deg", "deg", "deg"], scale: [100, 100, 100],
            rows: [[100, 200, 300]])
        #expect(try GPMF.fixes(payload: data, timeRange: oneSecond).isEmpty)
        let named = try Self.payload(
            "ATTD", type: "sss", name: "Attitude (roll, pitch, yaw)", units: ["deg", "deg", "deg"], scale: [1],
            rows: [[1, 2, 3]])
        #expect(try GPMF.fixes(payload: named, timeRange: oneSecond).isEmpty)
    }

    @Test func outOfRangePositionsAreLeftOut() throws {
        let data = try Self.payload(
            "GPRI", type: "JlllSSSSBB", name: nil, units: ["s", "deg", "deg", "m", "m", "m", "m/s", "deg", "", ""],
            scale: [1000, 10_000_000, 10_000_000, 1000, 100, 100, 100, 100, 1, 1],
            rows: [[0, 950_000_000, 0, 0, 0, 0, 0, 0, 3, 9], [250, 10_000_000, 20_000_000, 0, 0, 0, 0, 0, 3, 9]])
        let fixes = try GPMF.fixes(payload: data, timeRange: oneSecond)
        #expect(fixes.map(\.fix.latitude) == [1])
    }

    @Test func elementNamesNeedOnePerElement() {
        #expect(GPMFGPSStream.elementNames("GPS (Lat., Long., Alt.)", count: 3) == ["lat.", "long.", "alt."])
        #expect(GPMFGPSStream.elementNames("GPS (Lat., Long., Alt.)", count: 4) == nil)
        #expect(GPMFGPSStream.elementNames("pos[lat, lon]", count: 2) == ["lat", "lon"])
        #expect(GPMFGPSStream.elementNames(nil, count: 2) == nil)
    }

    @Test func garbledTypeStringsAreErrorsNotCrashes() throws {
        var rng = SeededGenerator(seed: 11)
        let good = try Self.payload(
            "GPRI", type: "JlllSSSSBB", name: "GPS RAW", units: ["s", "deg", "deg", "m", "m", "m", "m/s", "deg", "", ""],
            scale: [1], rows: [[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]])
        let bytes = [UInt8](good)
        let typeAt = try #require(bytes.indices.first { bytes[$0...].starts(with: Array("TYPE".utf8)) }) + 8
        for _ in 0..<500 {
            var copy = bytes
            for k in 0..<10 where Bool.random(using: &rng) { copy[typeAt + k] = UInt8.random(in: 0...255, using: &rng) }
            survives { () throws(ReelError) in try GPMF.groups(payload: Data(copy), timeRange: oneSecond) }
        }
        // Truncated TYPE: the structure size no longer matches.
        let short = try Self.payload("GPRI", type: "JlllSSSSBB", name: nil, units: ["deg"], scale: [1], rows: [[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]])
        var cut = [UInt8](short)
        let at = try #require(cut.indices.first { cut[$0...].starts(with: Array("TYPE".utf8)) })
        cut[at + 7] = 4  // "Jlll"
        #expect(survives { () throws(ReelError) in try GPMF.groups(payload: Data(cut), timeRange: oneSecond) })
    }
}

/// GPRI and GLPI carry more than a position: the device time, a course, accuracies, the
/// satellite count, a relative altitude and a velocity; SYST ties the device clock to UTC.
@Suite("GPMFGPSStream: every GPRI and GLPI field")
struct GPMFDroneFieldsTests {
    /// The first payload of gpmf-parser's samples/karma.mp4 (a HERO5 on a GoPro Karma),
    /// reduced to its GPRI, GLPI and SYST streams with their raw integers, SCAL, TYPE and
    /// UNIT as the camera wrote them.
    static func karmaPayload(syst: [[Int64]]? = [[146_544_283, 1_492_457_278_000]]) throws -> Data {
        func stream(_ key: FourCC, name: String, type: String, units: [String], scale: [Int64], rows: [[Int64]]) throws -> GPMFNode {
            .nested(
                "STRM",
                [
                    .string("STNM", name), .strings("UNIT", units), .string("TYPE", type),
                    .integers("SCAL", .int32, scale.map { [$0] }),
                    try .complex(key, layout: GPMFStructLayout(parsing: type), rows: rows),
                ])
        }
        var streams = [
            try stream(
                "GPRI", name: "GPS RAW", type: "JlllSSSSBB", units: ["s", "deg", "deg", "m", "m", "m", "m/s", "deg", "", ""],
                scale: [1_000_000, 10_000_000, 10_000_000, 1000, 100, 100, 100, 100, 1, 1],
                rows: [
                    [145_911_705, 331_253_680, -1_173_310_641, 15445, 25, 42, 59, 33435, 3, 20],
                    [146_311_595, 331_253_706, -1_173_310_662, 15367, 25, 42, 124, 32564, 3, 20],
                ]),
            try stream(
                "GLPI", name: "Position", type: "LllllsssS", units: ["s", "deg", "deg", "m", "m", "m/s", "m/s", "m/s", "deg"],
                scale: [1000, 10_000_000, 10_000_000, 1000, 1000, 100, 100, 100, 100],
                rows: [
                    [146_071, 331_253_688, -1_173_310_668, 15711, 2003, 88, -75, -8, 33156],
                    [146_323, 331_253_712, -1_173_310_685, 15643, 1935, 150, -103, -3, 33123],
                ]),
        ]
        if let syst {
            streams.append(try stream("SYST", name: "System Time", type: "JJ", units: ["s", "s"], scale: [1_000_000, 1000], rows: syst))
        }
        return try GPMFNode.nested("DEVC", streams).encoded()
    }

    /// exiftool 12.57 (`exiftool -ee -n -G3 karma.mp4`, first payload): GPSDateTimeRaw
    /// 19:27:57.36649 and .76697, GPSDateTime (GLPI) 19:27:57.52602 and .77839. exiftool
    /// interpolates between the SYST of neighbouring payloads; one payload's SYST, on a
    /// clock that counts seconds, gives the same UTC within 1 ms.
    static func exiftoolTime(_ seconds: Double) -> Date { Date(timeIntervalSince1970: 1_492_457_220 + seconds) }

    @Test func gpriGivesTimeCourseAccuraciesAndSatellites() throws {
        let fixes = try GPMF.fixes(payload: Self.karmaPayload(), timeRange: oneSecond, stream: "GPRI")
        try #require(fixes.count == 2)
        let (a, b) = (fixes[0].fix, fixes[1].fix)
        // exiftool: GPSLatitudeRaw 33.125368, GPSLongitudeRaw -117.3310641, GPSAltitudeRaw 15.445,
        // GPRI_Unknown4 0.25, GPRI_Unknown5 0.42, GPSSpeedRaw 0.59, GPSTrackRaw 334.35, 3, 20.
        #expect(close(a.latitude, 33.125368) && close(a.longitude, -117.3310641) && close(a.altitude, 15.445))
        #expect(close(a.horizontalAccuracy, 0.25) && close(a.verticalAccuracy, 0.42))
        #expect(close(a.speed2D, 0.59) && close(a.course, 334.35))
        #expect(a.fix == 3 && a.satellites == 20)
        #expect(close(a.deviceTime, 145.911705))
        #expect(close(b.course, 325.64) && close(b.speed2D, 1.24))
        let t0 = try #require(a.time), t1 = try #require(b.time)
        #expect(abs(t0.timeIntervalSince(Self.exiftoolTime(57.36649))) < 0.002)
        #expect(abs(t1.timeIntervalSince(Self.exiftoolTime(57.76697))) < 0.002)
        // Exactly: SYST's UTC plus the device seconds since SYST's reading.
        #expect(abs(t0.timeIntervalSince1970 - (1_492_457_278 + 145.911705 - 146.544283)) < 1e-6)
        // The fixes are 0.39989 s apart on the device clock, and so on the timeline.
        #expect(close((fixes[1].time - fixes[0].time).seconds, 0.39989, 1e-6))
    }

    @Test func glpiGivesTimeVelocityAndRelativeAltitude() throws {
        let fixes = try GPMF.fixes(payload: Self.karmaPayload(), timeRange: oneSecond)
        try #require(fixes.count == 2)  // GLPI is preferred over GPRI
        let a = fixes[0].fix
        // exiftool: GPSLatitude 33.1253688, GPSLongitude -117.3310668, GPSAltitude 15.711,
        // GLPI_Unknown4 2.003, GPSSpeedX 0.88, GPSSpeedY -0.75, GPSSpeedZ -0.08, GPSTrack 331.56.
        #expect(close(a.latitude, 33.1253688) && close(a.longitude, -117.3310668) && close(a.altitude, 15.711))
        #expect(close(a.relativeAltitude, 2.003))
        #expect(close(a.velocityNorth, 0.88) && close(a.velocityEast, -0.75) && close(a.velocityUp, 0.08))
        #expect(close(a.speed2D, (0.88 * 0.88 + 0.75 * 0.75).squareRoot()))
        #expect(close(a.course, 331.56))
        #expect(close(a.deviceTime, 146.071))
        #expect(a.satellites == nil && a.horizontalAccuracy == nil)
        #expect(abs(try #require(a.time).timeIntervalSince(Self.exiftoolTime(57.52602))) < 0.002)
        #expect(abs(try #require(fixes[1].fix.time).timeIntervalSince(Self.exiftoolTime(57.77839))) < 0.002)
        #expect(close(fixes[1].fix.velocityNorth, 1.5) && close(fixes[1].fix.velocityEast, -1.03))

        // The group carries each field as a typed item with its unit.
        let group = try #require(try GPMF.groups(payload: Self.karmaPayload(), timeRange: oneSecond).first)
        #expect(group.item(.velocityNorth)?.unit == "m/s")
        #expect(group.item(.relativeAltitude)?.value == .double(2.003))
        #expect(group.item(.deviceTime)?.unit == "s")
        #expect(group.item(.gpsTime)?.dateValue == a.time)
        #expect(GPSFix(group) == a)
    }

    @Test func withoutSYSTTheDeviceTimeIsNoUTC() throws {
        let fixes = try GPMF.fixes(payload: Self.karmaPayload(syst: nil), timeRange: oneSecond, stream: "GPRI")
        #expect(fixes.count == 2)
        #expect(fixes.allSatisfy { $0.fix.time == nil && $0.fix.deviceTime != nil })
        // A SYST a day away from the fixes, or before 1970, calibrates nothing.
        for syst: [[Int64]] in [[[146_544_283 + 90_000_000_000, 1_492_457_278_000]], [[146_544_283, 0]]] {
            let far = try GPMF.fixes(payload: Self.karmaPayload(syst: syst), timeRange: oneSecond, stream: "GPRI")
            #expect(far.count == 2 && far.allSatisfy { $0.fix.time == nil }, "\(syst)")
        }
        // A stream that is not in the payload gives no fixes.
        #expect(try GPMF.fixes(payload: Self.karmaPayload(), timeRange: oneSecond, stream: "GPS9").isEmpty)
    }

    @Test func truncatedStructuresAreErrorsNotCrashes() throws {
        let bytes = [UInt8](try Self.karmaPayload())
        // Every cut of the payload either decodes or throws a metadata error.
        for end in stride(from: 0, to: bytes.count, by: 3) {
            survives { () throws(ReelError) in try GPMF.groups(payload: Data(bytes[..<end]), timeRange: oneSecond) }
        }
        // A SYST of one value per sample ("J") is not a calibration: no UTC, no crash.
        let single = try GPMFNode.nested(
            "DEVC",
            [
                .nested("STRM", [.string("TYPE", "J"), try .complex("SYST", layout: GPMFStructLayout(parsing: "J"), rows: [[5]])])
            ]
        ).encoded()
        let glpiOnly = try Self.karmaPayload(syst: nil)
        let fixes = try GPMF.fixes(payload: glpiOnly + single, timeRange: oneSecond)
        #expect(fixes.allSatisfy { $0.fix.time == nil })
    }
}
