import Foundation
import Testing
@testable import Reel

/// Reel's GPS CSV: the exact columns written, and what reading accepts and refuses.
@Suite("GPS track CSV")
struct MetadataGPSTrackCSVTests {
    static let header = "time,latitude,longitude,altitude,speed2d,speed3d,fix,dop,gps_time"

    @Test("writes the header and one row per fix; empty where there is no value")
    func text() {
        let full = GPSFix(latitude: 33.12677, longitude: -117.3273436, altitude: -22.959, speed2D: 1.046, speed3D: 1,
                          time: Date(timeIntervalSince1970: 1_574_120_714), fix: 3, dop: 1.54)
        let bare = GPSFix(latitude: -0.000001, longitude: 180)
        let text = GPSTrackCSV.text([(MediaTime(value: 1001, timescale: 30000), full), (.invalid, bare)])
        #expect(text == Self.header + "\n"
            + "0.033367,33.12677,-117.3273436,-22.959,1.046,1,3,1.54,2019-11-18T23:45:14.000Z\n"
            + ",-0.000001,180,,,,,,\n")
    }

    @Test("reads what it writes")
    func roundTrip() throws {
        let fixes = (0..<5).map { i in
            (MediaTime(value: Int64(i), timescale: 4),
             GPSFix(latitude: 46.2 + Double(i) * 1e-5, longitude: 6.14, altitude: 374.25, speed2D: 7.5, speed3D: 7.504,
                    time: Date(timeIntervalSince1970: 1_704_067_200 + Double(i) * 0.25), fix: 3, dop: 1.2))
        }
        let points = try GPSTrackCSV.points(Data(GPSTrackCSV.text(fixes).utf8), path: "t.csv")
        #expect(points.map(\.fix) == fixes.map(\.1))
        #expect(points.map(\.mediaTime) == [0, 0.25, 0.5, 0.75, 1])
        #expect(points.map(\.line) == [2, 3, 4, 5, 6])
    }

    @Test("columns in any order, extra columns, CRLF, quoted fields, blank lines")
    func lenient() throws {
        let text = "note,Longitude,latitude,time\r\n\"a, b\",6.5,46.25,1.5\r\n\r\n\"say \"\"hi\"\"\",6.6,46.26,2\r\n"
        let points = try GPSTrackCSV.points(Data(text.utf8), path: "t.csv")
        #expect(points.map(\.fix.latitude) == [46.25, 46.26])
        #expect(points.map(\.fix.longitude) == [6.5, 6.6])
        #expect(points.map(\.mediaTime) == [1.5, 2])
        #expect(points.allSatisfy { $0.fix.altitude == nil && $0.fix.time == nil })
        #expect(GPSTrackCSV.split("\"say \"\"hi\"\"\",x,") == ["say \"hi\"", "x", ""])
    }

    @Test("refuses bad files, naming the line", arguments: [
        ("", "empty", nil),
        ("time,lat,lon\n0,1,2\n", "latitude and longitude columns", "line 1"),
        ("latitude,longitude\n1,2\n", "time or gps_time column", "line 1"),
        ("time,latitude,longitude\n0,1,2\n0.2,1\n", "2 fields where the header has 3", "line 3"),
        ("time,latitude,longitude\n0,north,2\n", "latitude \"north\" is not a number", "line 2"),
        ("time,latitude,longitude\n0,91,2\n", "not a position on Earth", "line 2"),
        ("time,latitude,longitude,gps_time\n,1,2,\n", "needs a time or a gps_time", "line 2"),
        ("time,latitude,longitude,gps_time\n0,1,2,yesterday\n", "not an ISO 8601 time", "line 2"),
    ] as [(String, String, String?)])
    func refuses(_ text: String, _ words: String, _ field: String?) {
        #expect {
            _ = try GPSTrackCSV.points(Data(text.utf8), path: "bad.csv")
        } throws: { error in
            guard let error = error as? ReelError else { return false }
            return error.code == .metadataFormat && error.path == "bad.csv" && error.field == field && error.message.contains(words)
        }
    }
}
