import Foundation
import Reel
import ReelTestSupport
import Testing

/// `reel metadata export` run as a user runs it: the built binary, its output, exit status.
@Suite("reel metadata export")
struct MetadataExportCommandTests {
    typealias Support = MetadataTestSupport

    /// The GoPro MAX sample holds 191 GPS5 samples in 11 payloads (17, 18, 19, 18, 18, 19,
    /// 18, 18, 18, 18, 10). exiftool also lists one `[Main]` position (the file's static
    /// udta location): that one is not a fix.
    static let maxFixCount = 191

    @Test(
        "GoPro MAX: CSV header, one row per GPS5 sample, the known first fixes",
        .requires(.sharedMedia))
    func maxCSV() async throws {
        let text = await Support.reelOK(["metadata", "export", Support.maxSample.path, "--format", "csv"])
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.first?.hasPrefix("time,latitude,longitude,altitude,speed2d,speed3d,fix,dop,gps_time,course,") == true)
        #expect(text.hasSuffix("\n"))
        let (_, rows) = Support.csvRows(text)
        #expect(rows.count == Self.maxFixCount)
        let first = try #require(rows.first)
        #expect(first["time"] == "0.101994")  // the GPS stream's STMP
        #expect(first["latitude"] == "33.12677")
        #expect(first["longitude"] == "-117.3273436")
        #expect(first["altitude"] == "-22.959")
        #expect(first["speed2d"] == "1.046")
        #expect(first["speed3d"].flatMap(Double.init) == 1)
        #expect(first["fix"] == "3")
        #expect(first["dop"] == "1.54")
        #expect(first["gps_time"] == "2019-11-18T23:45:14.000Z")
        let second = try #require(rows.dropFirst().first)
        #expect(second["latitude"] == "33.1267696")
        #expect(second["longitude"] == "-117.3273433")
        #expect(second["altitude"] == "-22.941")
        // Times increase and stay within the 10.51 s clip.
        let times = rows.compactMap { $0["time"].flatMap(Double.init) }
        #expect(times.count == rows.count)
        #expect(zip(times, times.dropFirst()).allSatisfy { $0 < $1 })
        #expect((times.last ?? 0) < 10.51)
    }

    @Test(
        "GoPro MAX: every fix agrees with exiftool -ee",
        .requires(.sharedMedia),
        .requires(.exiftool))
    func maxAgreesWithExifTool() async throws {
        let (_, rows) = await Support.csvRows(Support.reelOK(["metadata", "export", Support.maxSample.path, "--format", "csv"]))
        let exif = try Support.exiftoolFixes(Support.maxSample)
        #expect(exif.count == Self.maxFixCount)
        try #require(rows.count == exif.count, "reel \(rows.count) fixes, exiftool \(exif.count)")
        for (i, (row, theirs)) in zip(rows, exif).enumerated() {
            func value(_ key: String) -> Double? { row[key].flatMap(Double.init) }
            #expect(value("latitude") == theirs.latitude, "fix \(i): latitude")
            #expect(value("longitude") == theirs.longitude, "fix \(i): longitude")
            #expect(value("altitude") == theirs.altitude, "fix \(i): altitude")
            #expect(value("speed2d") == theirs.speed, "fix \(i): 2D speed")
            #expect(value("speed3d") == theirs.speed3D, "fix \(i): 3D speed")
            #expect(value("fix").map { Int($0) } == theirs.measureMode, "fix \(i): fix type")
            #expect(value("dop") == theirs.positioningError, "fix \(i): DOP")
            if theirs.indexInDocument == 0, let time = theirs.documentTime {
                #expect(row["gps_time"] == Support.isoTime(fromExifTool: time), "fix \(i): first GPS time of \(theirs.document)")
            }
        }
    }

    @Test(
        "GoPro MAX: JSON names the track and holds one group per fix",
        .requires(.sharedMedia))
    func maxJSON() async throws {
        let text = await Support.reelOK(["metadata", "export", Support.maxSample.path, "--format", "json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(object["file"] as? String == "gpmf-parser_max-heromode.mp4")
        #expect(object["fixCount"] as? Int == Self.maxFixCount)
        let track = try #require(object["track"] as? [String: Any])
        #expect(track["format"] as? String == "gpmd")
        let groups = try #require(object["groups"] as? [[String: Any]])
        #expect(groups.count == Self.maxFixCount)
        let first = try #require(groups.first)
        #expect(first["start"] as? Double == 0)
        #expect(first["startExact"] as? String != nil)
        let fix = try #require(first["fix"] as? [String: Any])
        #expect(fix["latitude"] as? Double == 33.12677)
        #expect(fix["gpsTime"] as? String == "2019-11-18T23:45:14.000Z")
        let items = try #require(first["items"] as? [[String: Any]])
        let ids = Set(items.compactMap { $0["identifier"] as? String })
        #expect(ids.contains("reel/location.latitude"))
        #expect(ids.contains("mdta/com.apple.quicktime.location.ISO6709"))
        #expect(ids.contains("gpmf/ACCL"), "the other GPMF streams are in the groups too")
        // --track with the ID the default chose gives the same document.
        let trackID = try #require(track["trackID"] as? Int)
        let again = await Support.reelOK(["metadata", "export", Support.maxSample.path, "--format", "json", "--track", String(trackID)])
        #expect(again == text)
    }

    @Test(
        "GoPro MAX: GPX 1.1 with one track point per fix, to a file with -o",
        .requires(.sharedMedia))
    func maxGPX() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let stdout = await Support.reelOK(["metadata", "export", Support.maxSample.path, "--format", "gpx", "-o", "max.gpx"], in: folder)
        #expect(stdout.isEmpty)
        let text = try String(contentsOf: folder.appendingPathComponent("max.gpx"), encoding: .utf8)
        #expect(text.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<gpx version=\"1.1\""))
        #expect(text.contains("xmlns=\"http://www.topografix.com/GPX/1/1\""))
        let points = Support.gpxPoints(text)
        #expect(points.count == Self.maxFixCount)
        #expect(
            points.first
                == Support.GPXPoint(
                    lat: "33.12677", lon: "-117.3273436", ele: "-22.959",
                    time: "2019-11-18T23:45:14.000Z", speed: "1.046"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["max.gpx"], "no partial file left")
    }

    @Test(
        "MPEG-TS KLV: MISB ST 0601 (asynchronous) and EG 0104 sensor positions, one row per packet",
        .requires(.sharedMedia),
        arguments: [("kwiver_mpeg2_klv.ts", 30), ("kwiver_aphill_short.ts", 48)])
    func klv(_ name: String, _ count: Int) async throws {
        let file = TestFiles.sharedMedia.appendingPathComponent(name)
        let (_, rows) = await Support.csvRows(Support.reelOK(["metadata", "export", file.path, "--format", "csv"]))
        #expect(rows.count == count)
        let times = rows.compactMap { $0["time"].flatMap(Double.init) }
        #expect(times.count == count)
        #expect(zip(times, times.dropFirst()).allSatisfy { $0 < $1 }, "\(times)")
        #expect(rows.allSatisfy { !($0["gps_time"] ?? "").isEmpty })
        if name == "kwiver_aphill_short.ts" {
            // Fort A.P. Hill, Virginia.
            let lat = rows.compactMap { $0["latitude"].flatMap(Double.init) }, lon = rows.compactMap { $0["longitude"].flatMap(Double.init) }
            #expect(lat.allSatisfy { (38.0...38.5).contains($0) })
            #expect(lon.allSatisfy { (-77.5 ... -77.2).contains($0) })
            #expect(rows.first?["gps_time"]?.hasPrefix("2008-") == true)
        }
        let json = await Support.reelOK(["metadata", "export", file.path, "--format", "json"])
        #expect(json.contains("\"format\" : \"klv\""))
    }

    @Test(
        "iPhone mebx without timed GPS: JSON has the decoded orientation; CSV gives the static location with a note",
        .requires(.sharedMedia))
    func mebxWithoutGPS() async throws {
        let file = TestFiles.sharedMedia.appendingPathComponent("nom-exif_meta.mov")
        let json = await Support.reelOK(["metadata", "export", file.path, "--format", "json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        #expect((object["track"] as? [String: Any])?["format"] as? String == "mebx")
        #expect(object["fixCount"] as? Int == 0)
        #expect(json.contains("\"identifier\" : \"mdta/com.apple.quicktime.video-orientation\""))
        let groups = try #require(object["groups"] as? [[String: Any]])
        let items = groups.flatMap { ($0["items"] as? [[String: Any]]) ?? [] }
        #expect(items.contains { $0["value"] as? Int == 6 })
        let location = try #require(object["staticLocation"] as? [String: Any])
        #expect(location["latitude"] as? Double == 27.1281)
        #expect(location["longitude"] as? Double == 100.2508)

        let csv = await ReelProcess.reel(["metadata", "export", file.path, "--format", "csv"])
        #expect(csv.status == 0)
        let (_, rows) = Support.csvRows(csv.stdout)
        #expect(rows.count == 1)
        #expect(rows.first?["latitude"].flatMap(Double.init) == 27.1281)
        #expect(rows.first?["longitude"].flatMap(Double.init) == 100.2508)
        #expect(csv.stderr.hasPrefix("reel: note: \(file.path): "), "stderr: \(csv.stderr)")
        #expect(csv.stderr.contains("static location"))
        #expect(csv.stderr.split(separator: "\n").count == 1)
    }

    @Test("a file with no metadata track but a udta location exports that one point", .requires(.ffmpeg))
    func staticLocationOnly() async throws {
        let file = try TestFiles.scratchFolder().appendingPathComponent("located.mp4")
        _ = try TestTools.run(
            try #require(TestTools.which("ffmpeg")),
            ["-v", "error", "-y", "-i", Support.counter.path, "-c", "copy", "-metadata", "location=+46.2044+006.1432/", file.path])
        for format in ["gpx", "json"] {
            let result = await ReelProcess.reel(["metadata", "export", file.path, "--format", format])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            #expect(result.stdout.contains("46.2044"))
            #expect(result.stdout.contains("6.1432"))
            if format == "gpx" {
                #expect(result.stdout.components(separatedBy: "<trkpt").count == 2)
                #expect(result.stderr.hasPrefix("reel: note: "), "stderr: \(result.stderr)")
            }
        }
        let plain = await ReelProcess.reel(["metadata", "export", Support.counter.path, "--format", "csv"])
        #expect(plain.status == 1)
        #expect(plain.stderr.contains("no static location"))
    }

    @Test("a corrupt gpmd sample: one warning line naming its track and time, the other fixes written")
    func corruptSample() async throws {
        let source = Support.counterGPS
        let tracks = try MP4File(contentsOf: source).tracks()
        let gpmd = try #require(tracks.first { $0.format == "gpmd" })
        let samples = try gpmd.samples()
        let bad = samples[samples.count / 2]
        var bytes = try Data(contentsOf: source)
        for i in 0..<bad.size { bytes[Int(bad.offset) + i] = 0xFF }
        let file = try TestFiles.scratchFolder().appendingPathComponent("damaged.mp4")
        try bytes.write(to: file)
        let result = await ReelProcess.reel(["metadata", "export", file.path, "--format", "csv"])
        #expect(result.status == 0)
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1, "stderr: \(result.stderr)")
        #expect(lines.first?.hasPrefix("reel: warning: track \(gpmd.trackID): ") == true, "stderr: \(result.stderr)")
        #expect(lines.first?.contains("at \(bad.presentationTime.secondsDescription)") == true, "stderr: \(result.stderr)")
        let (_, rows) = Support.csvRows(result.stdout)
        let (_, all) = await Support.csvRows(Support.reelOK(["metadata", "export", source.path, "--format", "csv"]))
        #expect(!rows.isEmpty && rows.count < all.count)
    }

    @Test("the GPS fixtures: CSV gives back their GPX tracks", arguments: MetadataTestSupport.gpsFixtures)
    func fixtureCSV(_ fixture: MetadataTestSupport.GPSFixture) async throws {
        let (_, rows) = await Support.csvRows(
            Support.reelOK(
                ["metadata", "export", "Fixtures/\(fixture.video)", "--format", "csv"],
                in: TestFiles.packageRoot))
        let points = Support.gpxPoints(try String(contentsOf: TestFiles.fixtures.appendingPathComponent(fixture.track), encoding: .utf8))
        #expect(points.count == 10)
        #expect(rows.count == points.count)
        for (i, (row, point)) in zip(rows, points).enumerated() {
            #expect(Support.scaled(row["latitude"], 1e7) == Support.scaled(point.lat, 1e7), "point \(i)")
            #expect(Support.scaled(row["longitude"], 1e7) == Support.scaled(point.lon, 1e7), "point \(i)")
            #expect(Support.scaled(row["altitude"], 1e3) == Support.scaled(point.ele, 1e3), "point \(i)")
            #expect(Support.scaled(row["speed2d"], 1e3) == Support.scaled(point.speed, 1e3), "point \(i)")
            #expect(row["gps_time"] == point.time, "point \(i)")
            #expect(row["time"].flatMap(Double.init) == Double(i) / 5, "point \(i): 5 points per second from 0")
        }
    }

    @Test("-o replaces an existing file whole and leaves nothing beside it")
    func replacesOutput() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data("old contents\n".utf8).write(to: folder.appendingPathComponent("track.csv"))
        _ = await Support.reelOK(["metadata", "export", Support.counterGPS.path, "--format", "csv", "-o", "track.csv"], in: folder)
        let text = try String(contentsOf: folder.appendingPathComponent("track.csv"), encoding: .utf8)
        await #expect(text == (try Support.reelOK(["metadata", "export", Support.counterGPS.path, "--format", "csv"])))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["track.csv"])
    }

    enum BadInput: String, CaseIterable, CustomTestStringConvertible {
        case missingFile, noMetadataTrack, videoTrackChosen, unknownTrack, missingOutputFolder
        var testDescription: String { rawValue }

        var arguments: (args: [String], file: String, words: String) {
            switch self {
            case .missingFile: (["missing.mp4", "--format", "csv"], "missing.mp4", "no such file")
            case .noMetadataTrack: (["Fixtures/counter-320x240.mp4", "--format", "csv"], "Fixtures/counter-320x240.mp4", "no timed-metadata track")
            case .videoTrackChosen:
                (["Fixtures/counter-gps.mp4", "--format", "json", "--track", "1"], "Fixtures/counter-gps.mp4", "not a timed-metadata track")
            case .unknownTrack: (["Fixtures/counter-gps.mp4", "--format", "gpx", "--track", "99"], "Fixtures/counter-gps.mp4", "no track 99")
            case .missingOutputFolder:
                (
                    ["Fixtures/counter-gps.mp4", "--format", "gpx", "-o", "no/such/folder/t.gpx"], "no/such/folder/t.gpx",
                    "the output folder does not exist"
                )
            }
        }
    }

    @Test("bad input: one line on stderr naming the file and the problem, exit status 1", arguments: BadInput.allCases)
    func badInput(_ input: BadInput) async throws {
        let (args, file, words) = input.arguments
        let result = await ReelProcess.reel(["metadata", "export"] + args, in: TestFiles.packageRoot)
        #expect(result.status == 1)
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1, "stderr: \(result.stderr)")
        #expect(lines.first?.hasPrefix("reel: \(file): ") == true, "stderr: \(result.stderr)")
        #expect(lines.first?.contains(words) == true, "stderr: \(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    @Test("a file cut short is refused with one line, not exported as if the track ended there")
    func aTruncatedFileIsRefused() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let cut = folder.appendingPathComponent("cut.mp4")
        try Data(try Data(contentsOf: MetadataTestSupport.counterGPS).prefix(60_000)).write(to: cut)
        let result = await ReelProcess.reel(["metadata", "export", cut.path, "--format", "csv"])
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("cut short"), "\(result.stderr)")
    }
}
