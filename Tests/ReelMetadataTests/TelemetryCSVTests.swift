import Foundation
import ReelTestSupport
import Testing

@testable import ReelMetadata

@Suite("Telemetry CSV import and export")
struct TelemetryCSVTests {
    static func maxGroups() throws -> [TimedMetadataGroup] {
        let file = try MP4File(contentsOf: TestFiles.sharedMedia("gpmf-parser_max-heromode.mp4"))
        let gpmd = try #require(try file.tracks().first { $0.format == "gpmd" })
        var groups: [TimedMetadataGroup] = []
        for s in try gpmd.samples().prefix(2) { groups += try GPMF.groups(payload: file.data(of: s), timeRange: s.timeRange) }
        return groups
    }

    @Test(.requires(.sharedMedia))
    func exportsTheExactHeaderAndValues() throws {
        let csv = TelemetryCSV.document(for: try Self.maxGroups())
        let lines = csv.split(separator: "\n")
        #expect(
            lines[0] == "time,latitude,longitude,altitude,speed2d,speed3d,fix,dop,gps_time,course,velocity_north,velocity_east,"
                + "velocity_up,horizontal_accuracy,vertical_accuracy,speed_accuracy,satellites,relative_altitude,device_time,heading,"
                + "pitch,roll,airspeed")
        // Each fix at its own time: the first at its stream's STMP (101994 µs). GPS5 has
        // none of the fields after gps_time.
        #expect(lines[1] == "0.101994,33.12677,-117.3273436,-22.959,1.046,1.0,3,1.54,2019-11-18T23:45:14.000Z" + String(repeating: ",", count: 14))
        #expect(lines[2].hasPrefix("0.154877,33.1267696,-117.3273433,-22.941,"))
        #expect(lines.count == 1 + 17 + 18)
    }

    @Test(.requires(.sharedMedia))
    func importRoundTripsTheValues() throws {
        let groups = try Self.maxGroups()
        let back = try TelemetryCSV.groups(from: Data(TelemetryCSV.document(for: groups).utf8))
        #expect(back.count == groups.count)
        for (a, b) in zip(groups, back) {
            let fa = try #require(GPSFix(a)), fb = try #require(GPSFix(b))
            #expect(fa.latitude == fb.latitude && fa.longitude == fb.longitude && fa.altitude == fb.altitude)
            #expect(fa.speed2D == fb.speed2D && fa.speed3D == fb.speed3D && fa.fix == fb.fix && fa.dop == fb.dop)
            #expect(close(fa.time?.timeIntervalSince1970, fb.time!.timeIntervalSince1970, 0.0005))
            #expect(abs(GPSFix.time(in: a).seconds - b.timeRange.start.seconds) < 0.000001)
        }
    }

    @Test func emptyFieldsAndColumnOrder() throws {
        let csv = "latitude,time,longitude\n1.5,0.5,2.5\n-1,1,-2\n"
        let groups = try TelemetryCSV.groups(from: Data(csv.utf8))
        #expect(groups.count == 2)
        #expect(groups[0].timeRange == TimeRange(start: MediaTime(value: 1, timescale: 2), duration: MediaTime(value: 1, timescale: 2)))
        let fix = try #require(GPSFix(groups[0]))
        #expect(fix.altitude == nil && fix.time == nil && fix.fix == nil)
        let out = TelemetryCSV.document(for: groups)
        #expect(out.split(separator: "\n")[1] == "0.5,1.5,2.5" + String(repeating: ",", count: 20))
    }

    @Test(arguments: [
        ("", "no header"),
        ("time,lat\n", "unknown column"),
        ("time,latitude\n", "no \"longitude\""),
        ("time,latitude,longitude\nx,1,2\n", "line 2, column time"),
        ("time,latitude,longitude\n0,abc,2\n", "line 2, column latitude"),
        ("time,latitude,longitude,fix\n0,1,2,3d\n", "column fix"),
        ("time,latitude,longitude,gps_time\n0,1,2,today\n", "column gps_time"),
        ("time,latitude,longitude\n0,95,2\n", "out of range"),
        ("time,latitude,longitude\n0,,2\n", "required"),
    ])
    func errors(text: String, expected: String) {
        do {
            _ = try TelemetryCSV.groups(from: Data(text.utf8))
            Issue.record("\(text) should not import")
        } catch {
            #expect(error.code == .metadataFormat)
            #expect(error.message.contains(expected), "\(error)")
        }
    }

    @Test func randomInputNeverCrashes() {
        var rng = SeededGenerator(seed: 55)
        let alphabet = Array("0123456789.,-+:TZ\n\"e time,latitude,longitude")
        for _ in 0..<3000 {
            let body = String((0..<Int.random(in: 0...80, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! })
            survives { () throws(ReelError) in try TelemetryCSV.groups(from: Data((TelemetryCSV.header + "\n" + body).utf8)) }
            survives { () throws(ReelError) in try TelemetryCSV.groups(from: rng.bytes(40)) }
        }
    }
}

@Suite("Telemetry CSV: the columns after gps_time")
struct TelemetryCSVFieldsTests {
    static let fix = GPSFix(
        latitude: 33.1253688, longitude: -117.3310668, altitude: 15.711, speed2D: 1.1573, course: 331.56,
        time: Date(timeIntervalSince1970: 1_492_457_277.526), fix: 3, horizontalAccuracy: 0.25, verticalAccuracy: 0.42,
        speedAccuracy: 0.5, satellites: 20, deviceTime: 146.071, velocityNorth: 0.88, velocityEast: -0.75,
        velocityUp: 0.08, relativeAltitude: 2.003, heading: 330, pitch: -1.5, roll: 2.25, airspeed: 3)

    @Test func everyFieldHasItsColumnAndRoundTrips() throws {
        let time = MediaTime(value: 1, timescale: 4)
        let group = TimedMetadataGroup(timeRange: TimeRange(start: time, duration: time), items: Self.fix.metadataItems(time: time, duration: time))
        let csv = TelemetryCSV.document(for: [group])
        let lines = csv.split(separator: "\n").map(String.init)
        let row = Dictionary(
            uniqueKeysWithValues: zip(
                lines[0].split(separator: ",").map(String.init),
                lines[1].split(separator: ",", omittingEmptySubsequences: false).map(String.init)))
        #expect(row["course"] == "331.56" && row["velocity_north"] == "0.88" && row["velocity_east"] == "-0.75" && row["velocity_up"] == "0.08")
        #expect(row["horizontal_accuracy"] == "0.25" && row["vertical_accuracy"] == "0.42" && row["speed_accuracy"] == "0.5")
        #expect(row["satellites"] == "20" && row["relative_altitude"] == "2.003" && row["device_time"] == "146.071")
        #expect(row["heading"] == "330.0" && row["pitch"] == "-1.5" && row["roll"] == "2.25" && row["airspeed"] == "3.0")
        let back = try #require(try TelemetryCSV.groups(from: Data(csv.utf8)).first)
        #expect(GPSFix(back) == Self.fix)
    }

    @Test func theNineOldColumnsStillImportAndBadValuesNameTheColumn() throws {
        let old = "time,latitude,longitude,altitude,speed2d,speed3d,fix,dop,gps_time\n0,1,2,3,4,5,3,1.5,2020-01-01T00:00:00.000Z\n"
        let group = try #require(try TelemetryCSV.groups(from: Data(old.utf8)).first)
        let fix = try #require(GPSFix(group))
        #expect(fix.course == nil && fix.satellites == nil && fix.altitude == 3)
        for (body, column) in [
            ("time,latitude,longitude,course\n0,1,2,east\n", "column course"),
            ("time,latitude,longitude,satellites\n0,1,2,-3\n", "column satellites"),
            ("time,latitude,longitude,satellites\n0,1,2,7.5\n", "column satellites"),
        ] {
            do {
                _ = try TelemetryCSV.groups(from: Data(body.utf8))
                Issue.record("expected an error for \(column)")
            } catch {
                #expect(error.code == .metadataFormat && error.message.contains(column), "\(error)")
            }
        }
    }
}
