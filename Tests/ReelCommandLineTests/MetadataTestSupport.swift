import Foundation
import ReelTestSupport
import Testing

/// What the `reel metadata` tests share: the binary, scratch folders, and the reference
/// tools (ffmpeg, ffprobe, exiftool) read as a user would run them.
enum MetadataTestSupport {
    static let maxSample = TestFiles.sharedMedia.appendingPathComponent("gpmf-parser_max-heromode.mp4")
    static let counter = TestFiles.fixtures.appendingPathComponent("counter-320x240.mp4")
    static let counterGPS = TestFiles.fixtures.appendingPathComponent("counter-gps.mp4")
    static let trackGPX = TestFiles.fixtures.appendingPathComponent("track.gpx")

    /// A GPS fixture of Fixtures/: `track` imported into `source` by scripts/make-fixtures gives `video`.
    struct GPSFixture: Sendable, CustomTestStringConvertible {
        var track: String
        var source: String
        var video: String
        var testDescription: String { video }
    }

    /// Both cameras of the multi-camera example.
    static let gpsFixtures = [
        GPSFixture(track: "track.gpx", source: "counter-320x240.mp4", video: "counter-gps.mp4"),
        GPSFixture(track: "track-b.gpx", source: "counter-bars-320x240.mp4", video: "counter-gps-b.mp4"),
    ]

    /// Runs `reel ARGS`, requiring exit status 0 and nothing on stderr; returns stdout.
    static func reelOK(_ arguments: [String], in folder: URL? = nil) async -> String {
        let result = await ReelProcess.reel(arguments, in: folder)
        #expect(result.status == 0, "reel \(arguments.joined(separator: " ")): \(result.stderr)")
        #expect(result.stderr.isEmpty, "stderr: \(result.stderr)")
        return result.stdout
    }

    /// The CSV rows as dictionaries keyed by the header's column names.
    static func csvRows(_ text: String) -> (header: [String], rows: [[String: String]]) {
        let lines = text.split(separator: "\n").map(String.init)
        guard let first = lines.first else { return ([], []) }
        let header = first.components(separatedBy: ",")
        let rows = lines.dropFirst().map { line in
            Dictionary(uniqueKeysWithValues: zip(header, line.components(separatedBy: ",")))
        }
        return (header, rows)
    }

    /// One track point of a GPX file, read with plain string matching (not Reel's reader).
    struct GPXPoint: Equatable {
        var lat: String
        var lon: String
        var ele: String?
        var time: String?
        var speed: String?
    }

    static func gpxPoints(_ text: String) -> [GPXPoint] {
        func capture(_ pattern: String, in s: String) -> String? {
            guard let r = s.range(of: pattern, options: .regularExpression) else { return nil }
            let m = String(s[r])
            guard let gt = m.firstIndex(of: ">"), let close = m.range(of: "</", options: .backwards)?.lowerBound else { return nil }
            let open = m.index(after: gt)
            guard open <= close else { return nil }
            return String(m[open..<close])
        }
        var points: [GPXPoint] = []
        for chunk in text.components(separatedBy: "<trkpt ").dropFirst() {
            let body = chunk.components(separatedBy: "</trkpt>")[0]
            func attribute(_ name: String) -> String {
                guard let r = body.range(of: "\(name)=\"[^\"]*\"", options: .regularExpression) else { return "" }
                return String(body[r].dropFirst(name.count + 2).dropLast())
            }
            points.append(
                GPXPoint(
                    lat: attribute("lat"), lon: attribute("lon"),
                    ele: capture("<ele>[^<]*</ele>", in: body), time: capture("<time>[^<]*</time>", in: body),
                    speed: capture("<gpxtpx:speed>[^<]*</gpxtpx:speed>", in: body)))
        }
        return points
    }

    /// One GPS fix as `exiftool -ee -n -G3 "-GPS*"` prints it, with the values of the
    /// embedded document (GPMF payload) it came from.
    struct ExifFix {
        var document: String
        var indexInDocument: Int
        var latitude: Double
        var longitude: Double?
        var altitude: Double?
        var speed: Double?
        var speed3D: Double?
        var documentTime: String?
        var measureMode: Int?
        var positioningError: Double?
    }

    /// The per-sample fixes exiftool finds: lines `[DocN] GPS Latitude : v` start a fix,
    /// the next Longitude/Altitude/Speed/Speed 3D lines of the same document fill it;
    /// Date Time, Measure Mode and Horizontal Positioning Error belong to the document.
    /// Lines of other groups (`[Main]`, the file's static position) are not fixes.
    static func exiftoolFixes(_ file: URL) throws -> [ExifFix] {
        let exiftool = try #require(TestTools.which("exiftool"))
        let result = try TestTools.run(exiftool, ["-ee", "-n", "-G3", "-GPS*", file.path])
        try #require(result.status == 0, "exiftool: \(result.stderr)")
        var fixes: [ExifFix] = []
        var documentValues: [String: (time: String?, mode: Int?, error: Double?)] = [:]
        var perDocument: [String: Int] = [:]
        for line in result.stdout.split(separator: "\n") {
            guard line.hasPrefix("[Doc"), let close = line.firstIndex(of: "]"), let colon = line.range(of: ": ") else { continue }
            let document = String(line[line.index(after: line.startIndex)..<close])
            let name = line[line.index(after: close)..<colon.lowerBound].trimmingCharacters(in: .whitespaces)
            let value = String(line[colon.upperBound...]).trimmingCharacters(in: .whitespaces)
            var doc = documentValues[document] ?? (nil, nil, nil)
            switch name {
            case "GPS Latitude":
                let index = perDocument[document, default: 0]
                perDocument[document] = index + 1
                fixes.append(ExifFix(document: document, indexInDocument: index, latitude: Double(value) ?? .nan))
            case "GPS Longitude", "GPS Altitude", "GPS Speed", "GPS Speed 3D":
                guard var last = fixes.popLast() else { continue }
                if last.document == document {
                    switch name {
                    case "GPS Longitude": last.longitude = Double(value)
                    case "GPS Altitude": last.altitude = Double(value)
                    case "GPS Speed": last.speed = Double(value)
                    default: last.speed3D = Double(value)
                    }
                }
                fixes.append(last)
            case "GPS Date Time": doc.time = value
            case "GPS Measure Mode": doc.mode = Int(value)
            case "GPS Horizontal Positioning Error": doc.error = Double(value)
            default: break
            }
            documentValues[document] = doc
        }
        return fixes.map { fix in
            var f = fix
            let doc = documentValues[fix.document]
            f.documentTime = doc?.time
            f.measureMode = doc?.mode
            f.positioningError = doc?.error
            return f
        }
    }

    /// exiftool's `2019:11:18 23:45:14.000` as Reel writes it: `2019-11-18T23:45:14.000Z`.
    static func isoTime(fromExifTool text: String) -> String {
        let parts = text.split(separator: " ")
        guard parts.count == 2 else { return text }
        return parts[0].replacingOccurrences(of: ":", with: "-") + "T" + parts[1] + "Z"
    }

    /// `ffmpeg -map 0:v -map 0:a -c copy -f framemd5`: one line per packet (stream, dts,
    /// pts, duration, size, MD5, side data), the header comments left out.
    static func packetHashes(_ file: URL) throws -> [String] {
        let ffmpeg = try #require(TestTools.which("ffmpeg"))
        let result = try TestTools.run(
            ffmpeg,
            [
                "-v", "error", "-i", file.path, "-map", "0:v", "-map", "0:a?",
                "-c", "copy", "-f", "framemd5", "-",
            ])
        try #require(result.status == 0, "ffmpeg: \(result.stderr)")
        return result.stdout.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("#") }
    }

    /// ffprobe's streams as JSON objects.
    static func probeStreams(_ file: URL) throws -> [[String: Any]] {
        let ffprobe = try #require(TestTools.which("ffprobe"))
        let result = try TestTools.run(ffprobe, ["-v", "error", "-show_streams", "-of", "json", file.path])
        try #require(result.status == 0, "ffprobe: \(result.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        return object?["streams"] as? [[String: Any]] ?? []
    }

    /// ffprobe's container tags.
    static func probeFormat(_ file: URL) throws -> [String: Any] {
        let ffprobe = try #require(TestTools.which("ffprobe"))
        let result = try TestTools.run(ffprobe, ["-v", "error", "-show_format", "-of", "json", file.path])
        try #require(result.status == 0, "ffprobe: \(result.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        return (object?["format"] as? [String: Any])?["tags"] as? [String: Any] ?? [:]
    }

    /// The scaled integer GPMF stores for a value (degrees x 1e7, metres x 1000).
    static func scaled(_ text: String?, _ scale: Double) -> Int64? {
        guard let text, let v = Double(text) else { return nil }
        return Int64((v * scale).rounded())
    }
}
