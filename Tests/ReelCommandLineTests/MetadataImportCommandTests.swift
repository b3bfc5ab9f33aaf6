import Foundation
import ReelTestSupport
import Testing

/// `reel metadata import` run as a user runs it: the built binary, the file it writes,
/// and what ffprobe, ffmpeg and exiftool find in that file.
@Suite("reel metadata import")
struct MetadataImportCommandTests {
    typealias Support = MetadataTestSupport

    /// Imports `track` into `video` as `out` in a scratch folder; returns the folder.
    static func imported(
        _ extra: [String] = [], track: URL = MetadataTestSupport.trackGPX,
        video: URL = MetadataTestSupport.counter, out: String = "out.mp4"
    ) async throws -> URL {
        let folder = try TestFiles.scratchFolder()
        let stdout = await Support.reelOK(["metadata", "import", track.path, "--into", video.path, "-o", out] + extra, in: folder)
        #expect(stdout.isEmpty)
        return folder
    }

    @Test("round trip: GPX in, the same points out (to GPMF's scaling), at their times")
    func roundTrip() async throws {
        let folder = try await Self.imported()
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("out.mp4")
        let points = Support.gpxPoints(try String(contentsOf: Support.trackGPX, encoding: .utf8))
        let (_, rows) = await Support.csvRows(Support.reelOK(["metadata", "export", out.path, "--format", "csv"]))
        try #require(rows.count == points.count)
        for (i, (row, point)) in zip(rows, points).enumerated() {
            #expect(Support.scaled(row["latitude"], 1e7) == Support.scaled(point.lat, 1e7), "point \(i)")
            #expect(Support.scaled(row["longitude"], 1e7) == Support.scaled(point.lon, 1e7), "point \(i)")
            #expect(Support.scaled(row["altitude"], 1e3) == Support.scaled(point.ele, 1e3), "point \(i)")
            #expect(Support.scaled(row["speed2d"], 1e3) == Support.scaled(point.speed, 1e3), "point \(i)")
            #expect(row["gps_time"] == point.time, "point \(i)")
            #expect(row["fix"] == "3" && row["dop"] == "1.2", "point \(i)")
            #expect(row["time"].flatMap(Double.init) == Double(i) / 5, "point \(i): the GPX time against the video's creation time")
        }
        // GPX out gives the same points as the GPX that went in.
        let gpx = await Support.gpxPoints(Support.reelOK(["metadata", "export", out.path, "--format", "gpx"]))
        #expect(gpx.map(\.lat) == points.map(\.lat))
        #expect(gpx.map(\.lon) == points.map(\.lon))
        #expect(gpx.map(\.time) == points.map(\.time))
    }

    @Test("ffprobe sees a data track with codec tag gpmd; the container tags are kept", .requires(.ffprobe))
    func ffprobeSeesGPMD() async throws {
        let folder = try await Self.imported()
        defer { try? FileManager.default.removeItem(at: folder) }
        let streams = try Support.probeStreams(folder.appendingPathComponent("out.mp4"))
        #expect(streams.map { $0["codec_type"] as? String } == ["video", "audio", "data"])
        let format = try Support.probeFormat(folder.appendingPathComponent("out.mp4"))
        #expect(format["creation_time"] as? String == "2024-01-01T00:00:00.000000Z", "the video's creation time is kept")
        #expect(format["title"] as? String == "Reel counter")
        let data = try #require(streams.last)
        #expect(data["codec_tag_string"] as? String == "gpmd")
        #expect(data["codec_name"] as? String == "bin_data")
        #expect((data["tags"] as? [String: Any])?["handler_name"] as? String == "GoPro MET")
    }

    @Test("the video's chapters are kept, with no note about its chapter track", .requires(.ffmpeg, .ffprobe))
    func chaptersAreKept() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let meta = folder.appendingPathComponent("chapters.txt")
        try Data(";FFMETADATA1\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=0\nEND=500\ntitle=One\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=500\nEND=1000\ntitle=Two\n".utf8)
            .write(to: meta)
        let video = folder.appendingPathComponent("chaptered.mp4")
        _ = try TestTools.run(
            "ffmpeg",
            ["-v", "error", "-i", Support.counter.path, "-i", meta.path, "-map", "0", "-map_metadata", "0", "-map_chapters", "1", "-c", "copy", video.path])
        // reelOK also checks that nothing is printed on stderr.
        _ = await Support.reelOK(["metadata", "import", Support.trackGPX.path, "--into", video.path, "-o", "out.mp4"], in: folder)
        let chapters = try TestTools.outputString(
            "ffprobe",
            [
                "-v", "error", "-show_entries", "chapter=start_time:chapter_tags=title", "-of", "csv=p=0",
                folder.appendingPathComponent("out.mp4").path,
            ])
        #expect(chapters.split(separator: "\n") == ["0.000000,One", "0.500000,Two"], "\(chapters)")
    }

    @Test("exiftool -ee reads the same coordinates", .requires(.exiftool))
    func exiftoolReadsIt() async throws {
        let folder = try await Self.imported()
        defer { try? FileManager.default.removeItem(at: folder) }
        let exif = try Support.exiftoolFixes(folder.appendingPathComponent("out.mp4"))
        let points = Support.gpxPoints(try String(contentsOf: Support.trackGPX, encoding: .utf8))
        try #require(exif.count == points.count, "exiftool found \(exif.count) fixes")
        for (i, (theirs, point)) in zip(exif, points).enumerated() {
            #expect(Support.scaled(String(theirs.latitude), 1e7) == Support.scaled(point.lat, 1e7), "point \(i)")
            #expect(theirs.longitude.flatMap { Support.scaled(String($0), 1e7) } == Support.scaled(point.lon, 1e7), "point \(i)")
            #expect(theirs.altitude.flatMap { Support.scaled(String($0), 1e3) } == Support.scaled(point.ele, 1e3), "point \(i)")
        }
        #expect(exif.first?.documentTime.map(Support.isoTime(fromExifTool:)) == points.first?.time)
    }

    @Test("video and audio packets are bit-identical to the source's (framemd5)", .requires(.ffmpeg))
    func packetsCopied() async throws {
        let folder = try await Self.imported()
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = try Support.packetHashes(Support.counter)
        let copied = try Support.packetHashes(folder.appendingPathComponent("out.mp4"))
        #expect(source.count == 60 + 95, "60 video packets, 95 audio packets (priming included): \(source.count)")
        #expect(copied == source)
    }

    @Test("a rotated video keeps its display matrix and its packets", .requires(.ffmpeg))
    func rotated() async throws {
        let source = TestFiles.fixtures.appendingPathComponent("rotated-90.mp4")
        let folder = try await Self.imported(video: source)
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("out.mp4")
        func transform(_ file: URL) async throws -> [String: Double]? {
            let json = await Support.reelOK(["inspect", "--json", file.path])
            let object = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
            let video = (object?["tracks"] as? [[String: Any]])?.first { $0["mediaType"] as? String == "video" }
            return video?["preferredTransform"] as? [String: Double]
        }
        let expected = try await #require(try transform(source))
        #expect(expected["b"] == -1 && expected["c"] == 1)
        await #expect(try transform(out) == expected)
        #expect(try Support.packetHashes(out) == (try Support.packetHashes(source)))
    }

    @Test("a camera's timecode is kept: the video starts at the same label, with its timecode track", .requires(.ffmpeg))
    func timecode() async throws {
        let scratch = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let source = scratch.appendingPathComponent("tc.mp4")
        _ = try TestTools.run(
            "ffmpeg",
            [
                "-v", "error", "-i", Support.counter.path, "-c", "copy", "-timecode", "12:34:56:07",
                "-metadata", "creation_time=2024-01-01T00:00:00Z", source.path,
            ]
        ).succeeded("ffmpeg")
        let folder = try await Self.imported(video: source)
        defer { try? FileManager.default.removeItem(at: folder) }
        let json = await Support.reelOK(["inspect", "--json", folder.appendingPathComponent("out.mp4").path])
        let tracks = (try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])?["tracks"] as? [[String: Any]] ?? []
        #expect(tracks.first { $0["mediaType"] as? String == "video" }?["timecode"] as? String == "12:34:56:07")
        #expect(tracks.filter { $0["mediaType"] as? String == "timecode" }.count == 1)
    }

    @Test(
        "the committed fixtures are what the script makes", .requires(.ffprobe),
        arguments: MetadataTestSupport.gpsFixtures)
    func fixtureIsCurrent(_ fixture: MetadataTestSupport.GPSFixture) async throws {
        let fixtures = TestFiles.fixtures
        let folder = try await Self.imported(
            track: fixtures.appendingPathComponent(fixture.track),
            video: fixtures.appendingPathComponent(fixture.source), out: fixture.video)
        defer { try? FileManager.default.removeItem(at: folder) }
        let made = try Data(contentsOf: folder.appendingPathComponent(fixture.video))
        #expect(
            made == (try Data(contentsOf: fixtures.appendingPathComponent(fixture.video))),
            "Fixtures/\(fixture.video) is stale: run scripts/make-fixtures")
    }

    @Test("the two cameras' fixtures carry different routes")
    func fixturesDiffer() async throws {
        var tracks: [[[String: String]]] = []
        for fixture in MetadataTestSupport.gpsFixtures {
            let csv = await Support.reelOK(["metadata", "export", "Fixtures/\(fixture.video)", "--format", "csv"], in: TestFiles.packageRoot)
            tracks.append(Support.csvRows(csv).rows)
        }
        try #require(tracks.count == 2 && tracks[0].count == 10 && tracks[1].count == 10)
        for (i, (a, b)) in zip(tracks[0], tracks[1]).enumerated() {
            #expect(a["time"] == b["time"] && a["gps_time"] == b["gps_time"], "point \(i): the same times")
            #expect(a["latitude"] != b["latitude"] && a["longitude"] != b["longitude"], "point \(i)")
            #expect(a["altitude"] != b["altitude"] && a["speed2d"] != b["speed2d"], "point \(i)")
        }
    }

    @Test("CSV in: the time column is media seconds, plus --offset; points past the end are left out")
    func csvWithOffset() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let csv = await Support.reelOK(["metadata", "export", Support.counterGPS.path, "--format", "csv", "-o", "track.csv"], in: folder)
        #expect(csv.isEmpty)
        _ = await Support.reelOK(["metadata", "import", "track.csv", "--into", Support.counter.path, "-o", "same.mp4"], in: folder)
        _ = await Support.reelOK(["metadata", "import", "track.csv", "--into", Support.counter.path, "-o", "later.mov", "--offset", "0.5"], in: folder)
        let original = Support.csvRows(try String(contentsOf: folder.appendingPathComponent("track.csv"), encoding: .utf8)).rows
        let same = await Support.csvRows(Support.reelOK(["metadata", "export", "same.mp4", "--format", "csv"], in: folder)).rows
        #expect(same == original)
        let later = await Support.csvRows(Support.reelOK(["metadata", "export", "later.mov", "--format", "csv"], in: folder)).rows
        #expect(later.count == 8, "points at 1.6 s and 1.8 s move past the 2 s video")
        #expect(later.first?["time"] == "0.5")
        #expect(later.first?["latitude"] == original.first?["latitude"])
        // The first payload [0.5 s, 1.5 s) holds five whole intervals: exact times. The last
        // one is cut at the video's end, 2 s: its three fixes spread over 0.5 s.
        #expect(later.prefix(5).map { $0["time"] } == ["0.5", "0.7", "0.9", "1.1", "1.3"])
        #expect(later.prefix(5).map { $0["gps_time"] } == original.prefix(5).map { $0["gps_time"] })
        #expect(later.map { $0["latitude"] } == original.prefix(8).map { $0["latitude"] })
        #expect(later.dropFirst(5).map { $0["time"] } == ["1.5", "1.666667", "1.833333"])
    }

    @Test("an existing output is an error unless --overwrite")
    func overwrite() async throws {
        let folder = try await Self.imported()
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("out.mp4")
        try Data("keep me".utf8).write(to: out)
        let refused = await ReelProcess.reel(
            [
                "metadata", "import", Support.trackGPX.path, "--into", Support.counter.path,
                "-o", "out.mp4",
            ], in: folder)
        #expect(refused.status == 1)
        #expect(refused.stderr == "reel: out.mp4: the output file exists (use --overwrite to replace it)\n")
        #expect(try Data(contentsOf: out) == Data("keep me".utf8))
        _ = await Support.reelOK(["metadata", "import", Support.trackGPX.path, "--into", Support.counter.path, "-o", "out.mp4", "--overwrite"], in: folder)
        #expect(try Data(contentsOf: out) == (try Data(contentsOf: Support.counterGPS)))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["out.mp4"], "no partial file left")
    }

    enum BadInput: String, CaseIterable, CustomTestStringConvertible {
        case missingTrack, notXML, notGPX, badLatitude, pointWithoutTime, noPoints, unknownTrackType
        case missingVideo, noVideoTrack, noOverlap, badOutputType
        var testDescription: String { rawValue }

        /// Makes the inputs in `folder`; returns the arguments after `metadata import`, the
        /// file the error must name, and words it must contain.
        func make(in folder: URL) throws -> (args: [String], file: String, words: String) {
            let video = MetadataTestSupport.counter.path
            func gpx(_ name: String, _ text: String) throws -> [String] {
                try Data(text.utf8).write(to: folder.appendingPathComponent(name))
                return [name, "--into", video, "-o", "out.mp4"]
            }
            let head = "<?xml version=\"1.0\"?>\n<gpx version=\"1.1\" xmlns=\"http://www.topografix.com/GPX/1/1\"><trk><trkseg>\n"
            switch self {
            case .missingTrack:
                return (["gone.gpx", "--into", video, "-o", "out.mp4"], "gone.gpx", "no such file")
            case .notXML:
                return (try gpx("bad.gpx", "this is not XML <"), "bad.gpx", "XML")
            case .notGPX:
                return (try gpx("map.gpx", "<?xml version=\"1.0\"?>\n<kml><Placemark/></kml>\n"), "map.gpx", "not a GPX document")
            case .badLatitude:
                return (
                    try gpx("lat.gpx", head + "<trkpt lat=\"95\" lon=\"6\"><time>2024-01-01T00:00:00Z</time></trkpt>\n</trkseg></trk></gpx>\n"),
                    "lat.gpx", "trkpt 1"
                )
            case .pointWithoutTime:
                return (
                    try gpx("untimed.gpx", head + "<trkpt lat=\"46\" lon=\"6\"><ele>1</ele></trkpt>\n</trkseg></trk></gpx>\n"),
                    "untimed.gpx", "trkpt 1 has no time"
                )
            case .noPoints:
                return (try gpx("empty.gpx", head + "</trkseg></trk></gpx>\n"), "empty.gpx", "no track points")
            case .unknownTrackType:
                return (try gpx("track.txt", "time,latitude,longitude\n0,46,6\n"), "track.txt", "use a .gpx or .csv file")
            case .missingVideo:
                return ([MetadataTestSupport.trackGPX.path, "--into", "nothing.mp4", "-o", "out.mp4"], "nothing.mp4", "no such file")
            case .noVideoTrack:
                let ffmpeg = try #require(TestTools.which("ffmpeg"))
                let made = try TestTools.run(ffmpeg, ["-v", "error", "-i", video, "-map", "0:a", "-c", "copy", "sound.m4a"], in: folder)
                try #require(made.status == 0, "ffmpeg: \(made.stderr)")
                return ([MetadataTestSupport.trackGPX.path, "--into", "sound.m4a", "-o", "out.mp4"], "sound.m4a", "no video track")
            case .noOverlap:
                return (
                    [MetadataTestSupport.trackGPX.path, "--into", video, "-o", "out.mp4", "--offset", "-30"],
                    MetadataTestSupport.trackGPX.path, "no point falls within the video"
                )
            case .badOutputType:
                return ([MetadataTestSupport.trackGPX.path, "--into", video, "-o", "out.mkv"], "out.mkv", ".mp4, .mov or .ts")
            }
        }
    }

    @Test(
        "bad input: one line on stderr naming the file and the problem, exit status 1, nothing written",
        .requires(.ffmpeg),
        arguments: BadInput.allCases)
    func badInput(_ input: BadInput) async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (args, file, words) = try input.make(in: folder)
        let before = Set(try FileManager.default.contentsOfDirectory(atPath: folder.path))
        let result = await ReelProcess.reel(["metadata", "import"] + args, in: folder)
        #expect(result.status == 1)
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1, "stderr: \(result.stderr)")
        #expect(lines.first?.hasPrefix("reel: \(file): ") == true, "stderr: \(result.stderr)")
        #expect(lines.first?.contains(words) == true, "stderr: \(result.stderr)")
        #expect(result.stdout.isEmpty)
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: folder.path)) == before, "nothing written")
    }

    @Test(
        "--metadata-format writes each format a container holds, and refuses the others up front",
        arguments: [
            ("gpmd", "mp4"), ("mebx", "mov"), ("mebx", "mp4"), ("camm", "mp4"), ("klv", "ts"), ("auto", "ts"),
            ("klv", "mp4"), ("mebx", "ts"), ("gpmd", "ts"),
        ])
    func everyFormat(format: String, container: String) async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("out.\(container)")
        let result = await ReelProcess.reel(
            [
                "metadata", "import", Support.trackGPX.path, "--into", Support.counter.path,
                "-o", out.path, "--metadata-format", format,
            ])
        let holds = container == "ts" ? ["klv", "auto"] : ["gpmd", "mebx", "camm", "auto"]
        guard holds.contains(format) else {
            #expect(result.status == 1)
            #expect(result.stderr.contains("does not go into"), "\(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: out.path))
            return
        }
        #expect(result.status == 0, "\(result.stderr)")
        let points = Support.gpxPoints(try String(contentsOf: Support.trackGPX, encoding: .utf8))
        let (_, rows) = await Support.csvRows(Support.reelOK(["metadata", "export", out.path, "--format", "csv"]))
        try #require(rows.count == points.count)
        for (row, point) in zip(rows, points) {
            // The coarsest: ISO 6709 in mebx, 6 decimals.
            #expect(abs((row["latitude"].flatMap(Double.init) ?? 0) - (Double(point.lat) ?? 1)) < 1e-6)
            #expect(abs((row["longitude"].flatMap(Double.init) ?? 0) - (Double(point.lon) ?? 1)) < 1e-6)
        }
    }

    /// Two points with every field the CSV carries.
    static let fieldsCSV = """
        time,latitude,longitude,altitude,speed2d,speed3d,fix,dop,gps_time,course,velocity_north,velocity_east,velocity_up,\
        horizontal_accuracy,vertical_accuracy,speed_accuracy,satellites,relative_altitude,device_time,heading,pitch,roll,airspeed
        0,33.1253688,-117.3310668,15.711,5,5.0990195135927845,3,,2017-04-17T19:27:57.526Z,36.86989764584402,4,3,-1,2.5,4,0.25,9,,,159.97,-0.4315,3.4058,7
        1,33.1253712,-117.3310685,15.643,5,5.0990195135927845,3,,2017-04-17T19:27:58.526Z,36.86989764584402,4,3,-1,2.5,4,0.25,9,,,160.5,-0.5,3.5,8

        """

    @Test("CAMM keeps the velocity and accuracies: reel exports them back, exiftool reads them", .requires(.exiftool))
    func cammCarriesVelocityAndAccuracy() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try Self.fieldsCSV.write(to: folder.appendingPathComponent("in.csv"), atomically: true, encoding: .utf8)
        _ = await Support.reelOK(["metadata", "import", "in.csv", "--into", Support.counter.path, "-o", "out.mp4", "--metadata-format", "camm"], in: folder)
        let rows = await Support.csvRows(Support.reelOK(["metadata", "export", "out.mp4", "--format", "csv"], in: folder)).rows
        try #require(rows.count == 2)
        for column in ["velocity_north", "velocity_east", "velocity_up", "horizontal_accuracy", "vertical_accuracy", "speed_accuracy"] {
            #expect(
                rows[0][column].flatMap(Double.init)
                    == [
                        "velocity_north": 4, "velocity_east": 3, "velocity_up": -1,
                        "horizontal_accuracy": 2.5, "vertical_accuracy": 4, "speed_accuracy": 0.25,
                    ][column],
                "\(column): \(rows[0])")
        }
        #expect(rows[0]["gps_time"] == "2017-04-17T19:27:57.526Z")
        // CAMM has no heading or attitude.
        #expect(rows[0]["heading"] == "" && rows[0]["satellites"] == "")

        let exiftool = try #require(TestTools.which("exiftool"))
        let result = try TestTools.run(exiftool, ["-ee", "-n", "-G3", "-GPSVelocity*", "-GPS*Accuracy", folder.appendingPathComponent("out.mp4").path])
        try #require(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map { $0.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) } }
        func first(_ name: String) -> Double? { lines.first { $0.count == 2 && $0[0].hasSuffix(name) }.flatMap { Double($0[1]) } }
        #expect(first("GPS Velocity East") == 3 && first("GPS Velocity North") == 4 && first("GPS Velocity Up") == -1, "\(result.stdout)")
        #expect(
            first("GPS Horizontal Accuracy") == 2.5 && first("GPS Vertical Accuracy") == 4 && first("GPS Speed Accuracy") == 0.25,
            "\(result.stdout)")
    }

    @Test("KLV keeps heading, attitude, course, velocity and satellites; JSON gives them in the fix")
    func klvCarriesAttitude() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try Self.fieldsCSV.write(to: folder.appendingPathComponent("in.csv"), atomically: true, encoding: .utf8)
        _ = await Support.reelOK(["metadata", "import", "in.csv", "--into", Support.counter.path, "-o", "out.ts"], in: folder)
        let rows = await Support.csvRows(Support.reelOK(["metadata", "export", "out.ts", "--format", "csv"], in: folder)).rows
        try #require(rows.count == 2)
        func value(_ column: String, _ row: Int = 0) -> Double { rows[row][column].flatMap(Double.init) ?? .nan }
        #expect(abs(value("heading") - 159.97) < 0.006 && abs(value("heading", 1) - 160.5) < 0.006)
        #expect(abs(value("pitch") + 0.4315) < 1e-6 && abs(value("roll") - 3.4058) < 1e-6)
        #expect(abs(value("course") - 36.86989764584402) < 1.0 / 64)
        #expect(abs(value("velocity_north") - 4) < 0.01 && abs(value("velocity_east") - 3) < 0.01 && abs(value("velocity_up") + 1) < 0.006)
        #expect(rows[0]["satellites"] == "9" && value("airspeed") == 7)

        let json = await Support.reelOK(["metadata", "export", "out.ts", "--format", "json"], in: folder)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let fix = try #require((object["groups"] as? [[String: Any]])?.first?["fix"] as? [String: Any])
        #expect(fix["satellites"] as? Int == 9)
        #expect((fix["heading"] as? Double).map { abs($0 - 159.97) < 0.006 } == true)
        #expect(fix["pitch"] != nil && fix["roll"] != nil && fix["velocityNorth"] != nil && fix["airspeed"] != nil)
        #expect(fix["horizontalAccuracy"] == nil, "KLV has no accuracy: the key is left out")
    }
}
