import Foundation
import Testing
@testable import ReelMetadata
import ReelTestSupport

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
        #expect(lines[0] == "time,latitude,longitude,altitude,speed2d,speed3d,fix,dop,gps_time")
        // Each fix at its own time: the first at its stream's STMP (101994 µs).
        #expect(lines[1] == "0.101994,33.12677,-117.3273436,-22.959,1.046,1.0,3,1.54,2019-11-18T23:45:14.000Z")
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
        #expect(out.split(separator: "\n")[1] == "0.5,1.5,2.5,,,,,,")
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
