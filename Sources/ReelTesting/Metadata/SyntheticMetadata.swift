import Foundation
import ReelCore
import ReelMetadata

/// One GPS fix at a point in composition time: the input to ``SyntheticMetadata``.
public struct GPSSample: Sendable, Hashable {
    /// When the fix starts to hold, in the metadata track's (composition) time.
    public var time: MediaTime
    /// The position and readings that hold from ``time``.
    public var fix: GPSFix

    /// A sample of `fix` from `time`.
    public init(time: MediaTime, fix: GPSFix) {
        self.time = time
        self.fix = fix
    }

    /// A sample at `seconds` (kept exact to the millisecond).
    public init(
        seconds: Double, latitude: Double, longitude: Double, altitude: Double? = nil,
        speed2D: Double? = nil, speed3D: Double? = nil, course: Double? = nil
    ) {
        self.init(
            time: MediaTime(seconds: seconds, preferredTimescale: 1000),
            fix: GPSFix(
                latitude: latitude, longitude: longitude, altitude: altitude,
                speed2D: speed2D, speed3D: speed3D, course: course))
    }
}

/// Timed metadata made from nothing: the GPS groups a compositor would get from a
/// camera's telemetry track, built from arrays of points or from a GPX document.
///
/// Each group holds the items of `GPSFix/metadataItems(time:duration:)` (ISO 6709
/// location plus typed latitude, longitude, altitude, speeds, course, time, fix, DOP),
/// so a compositor reads it back with `GPSFix(group)` exactly as with a real file.
public enum SyntheticMetadata {
    /// One group per sample, each lasting until the next sample's time (half-open, so
    /// the groups tile the timeline); the last lasts `lastDuration`, by default the
    /// interval before it (1 s when there is a single sample).
    ///
    /// - Throws: `ReelError.invalidArgument` when a time is not numeric or times do not increase.
    public static func gpsGroups(_ samples: [GPSSample], lastDuration: MediaTime? = nil) throws(ReelError) -> [TimedMetadataGroup] {
        var groups: [TimedMetadataGroup] = []
        for (i, sample) in samples.enumerated() {
            guard sample.time.isNumeric else {
                throw ReelError(.invalidArgument, "GPS sample \(i) has a non-numeric time (\(sample.time))")
            }
            let end: MediaTime
            if i + 1 < samples.count {
                end = samples[i + 1].time
                guard end.isNumeric, sample.time < end else {
                    throw ReelError(.invalidArgument, "GPS sample \(i + 1) time \(end) does not come after sample \(i) time \(sample.time)")
                }
            } else if let lastDuration {
                guard lastDuration.isNumeric, lastDuration > .zero else {
                    throw ReelError(.invalidArgument, "lastDuration must be a positive time, not \(lastDuration)")
                }
                end = sample.time + lastDuration
            } else if i > 0 {
                end = sample.time + (sample.time - samples[i - 1].time)
            } else {
                end = sample.time + MediaTime(value: 1, timescale: 1)
            }
            let range = TimeRange(start: sample.time, end: end)
            groups.append(
                TimedMetadataGroup(
                    timeRange: range,
                    items: sample.fix.metadataItems(time: range.start, duration: range.duration)))
        }
        return groups
    }

    /// `count` fixes `interval` apart from time zero, moving in a straight line from
    /// `start` by (`latitudeStep`, `longitudeStep`) degrees per fix, with constant speed:
    /// a quick way to get a moving position.
    public static func straightLine(
        from start: GPSFix, latitudeStep: Double, longitudeStep: Double,
        count: Int, interval: MediaTime = MediaTime(value: 1, timescale: 1)
    ) throws(ReelError) -> [TimedMetadataGroup] {
        guard count >= 0 else { throw ReelError(.invalidArgument, "count must not be negative, not \(count)") }
        guard interval.isNumeric, interval > .zero else {
            throw ReelError(.invalidArgument, "interval must be a positive time, not \(interval)")
        }
        var samples: [GPSSample] = []
        var time = MediaTime.zero
        for i in 0..<count {
            var fix = start
            fix.latitude += latitudeStep * Double(i)
            fix.longitude += longitudeStep * Double(i)
            samples.append(GPSSample(time: time, fix: fix))
            time = time + interval
        }
        return try gpsGroups(samples, lastDuration: interval)
    }

    /// The track points of a GPX document as GPS groups, timed from the first point's
    /// `<time>` (which becomes composition time zero).
    ///
    /// Reads `<trkpt>` (or, when there are none, `<rtept>`) elements: `lat` and `lon`
    /// attributes, and `<ele>`, `<time>`, `<course>`, `<speed>` (GPX 1.0, or any
    /// extension element named `speed`, such as Garmin's `gpxtpx:speed`), `<fix>` and
    /// `<pdop>`/`<hdop>`. Points without `<time>` are spaced `interval` apart.
    ///
    /// - Throws: `ReelError.metadataFormat` naming the point and what is wrong with it.
    public static func gpsGroups(
        gpx: String, interval: MediaTime = MediaTime(value: 1, timescale: 1),
        lastDuration: MediaTime? = nil
    ) throws(ReelError) -> [TimedMetadataGroup] {
        let points = try GPXReader.points(in: gpx)
        guard let first = points.first else {
            throw ReelError(.metadataFormat, "GPX: no <trkpt> or <rtept> elements")
        }
        var samples: [GPSSample] = []
        for (i, point) in points.enumerated() {
            let time: MediaTime
            if let date = point.time, let start = first.time {
                let ms = ((date.timeIntervalSince(start)) * 1000).rounded()
                time = MediaTime(value: Int64(ms), timescale: 1000)
            } else if point.time != nil || first.time != nil {
                throw ReelError(.metadataFormat, "GPX: point \(i) and point 0 do not both have a <time>")
            } else {
                time = interval * Int32(clamping: i)
            }
            samples.append(GPSSample(time: time, fix: point.fix))
        }
        do {
            return try gpsGroups(samples, lastDuration: lastDuration ?? (samples.count == 1 ? interval : nil))
        } catch {
            throw ReelError(.metadataFormat, "GPX: \(error.message)")
        }
    }
}

/// The small part of GPX that test data needs, read without an XML library.
enum GPXReader {
    struct Point {
        var fix: GPSFix
        var time: Date?
    }

    static func points(in gpx: String) throws(ReelError) -> [Point] {
        var elements = elementsNamed("trkpt", in: gpx)
        if elements.isEmpty { elements = elementsNamed("rtept", in: gpx) }
        var points: [Point] = []
        for (i, element) in elements.enumerated() {
            func fail(_ message: String) -> ReelError {
                ReelError(.metadataFormat, "GPX: point \(i) (\(element.name) on line \(element.line)): \(message)")
            }
            guard let latText = attribute("lat", in: element.openingTag) else { throw fail("no lat attribute") }
            guard let lonText = attribute("lon", in: element.openingTag) else { throw fail("no lon attribute") }
            guard let lat = Double(latText), (-90...90).contains(lat) else { throw fail("lat \"\(latText)\" is not a latitude") }
            guard let lon = Double(lonText), (-180...180).contains(lon) else { throw fail("lon \"\(lonText)\" is not a longitude") }
            var fix = GPSFix(latitude: lat, longitude: lon)
            func number(_ name: String) throws(ReelError) -> Double? {
                guard let text = childText(name, in: element.body) else { return nil }
                guard let v = Double(text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
                    throw fail("<\(name)> \"\(text)\" is not a number")
                }
                return v
            }
            fix.altitude = try number("ele")
            fix.speed2D = try number("speed")
            fix.course = try number("course")
            let pdop = try number("pdop"), hdop = try number("hdop")
            fix.dop = pdop ?? hdop
            if let fixText = childText("fix", in: element.body) {
                switch fixText.trimmingCharacters(in: .whitespacesAndNewlines) {
                case "none": fix.fix = 0
                case "2d": fix.fix = 2
                case "3d", "dgps", "pps": fix.fix = 3
                default: throw fail("<fix> \"\(fixText)\" is not none, 2d, 3d, dgps or pps")
                }
            }
            var time: Date?
            if let text = childText("time", in: element.body) {
                let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
                let fractional = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
                guard let date = (try? fractional.parse(trimmed)) ?? (try? Date.ISO8601FormatStyle().parse(trimmed)) else {
                    throw fail("<time> \"\(trimmed)\" is not an ISO 8601 time")
                }
                time = date
            }
            fix.time = time
            points.append(Point(fix: fix, time: time))
        }
        return points
    }

    struct Element {
        var name: String
        var openingTag: Substring
        var body: Substring
        var line: Int
    }

    /// Every `<name ...>...</name>` or `<name .../>` in `text` (any namespace prefix).
    static func elementsNamed(_ name: String, in text: String) -> [Element] {
        var out: [Element] = []
        var searchStart = text.startIndex
        while let open = text.range(of: "<\(name)", range: searchStart..<text.endIndex) {
            // The name must end here (`<trkpt>` or `<trkpt `), not continue (`<trkptx`).
            guard open.upperBound < text.endIndex, let next = text[open.upperBound...].first,
                next == " " || next == ">" || next == "/" || next == "\n" || next == "\t" || next == "\r"
            else {
                searchStart = open.upperBound
                continue
            }
            guard let tagEnd = text.range(of: ">", range: open.upperBound..<text.endIndex) else { break }
            let openingTag = text[open.lowerBound..<tagEnd.upperBound]
            let line = text[text.startIndex..<open.lowerBound].reduce(1) { $1 == "\n" ? $0 + 1 : $0 }
            if openingTag.hasSuffix("/>") {
                out.append(Element(name: name, openingTag: openingTag, body: "", line: line))
                searchStart = tagEnd.upperBound
                continue
            }
            let close = text.range(of: "</\(name)>", range: tagEnd.upperBound..<text.endIndex)
            let bodyEnd = close?.lowerBound ?? text.endIndex
            out.append(Element(name: name, openingTag: openingTag, body: text[tagEnd.upperBound..<bodyEnd], line: line))
            searchStart = close?.upperBound ?? text.endIndex
        }
        return out
    }

    /// The value of `name="..."` or `name='...'` in an opening tag.
    static func attribute(_ name: String, in tag: Substring) -> String? {
        var search = tag.startIndex
        while let r = tag.range(of: name, range: search..<tag.endIndex) {
            search = r.upperBound
            // A whole attribute name: preceded by white space.
            guard r.lowerBound > tag.startIndex, tag[tag.index(before: r.lowerBound)].isWhitespace else { continue }
            var i = r.upperBound
            while i < tag.endIndex, tag[i].isWhitespace { i = tag.index(after: i) }
            guard i < tag.endIndex, tag[i] == "=" else { continue }
            i = tag.index(after: i)
            while i < tag.endIndex, tag[i].isWhitespace { i = tag.index(after: i) }
            guard i < tag.endIndex, tag[i] == "\"" || tag[i] == "'" else { continue }
            let quote = tag[i]
            let valueStart = tag.index(after: i)
            guard let valueEnd = tag[valueStart...].firstIndex(of: quote) else { return nil }
            return String(tag[valueStart..<valueEnd])
        }
        return nil
    }

    /// The text of the first child element called `name`, with or without a namespace
    /// prefix (`<speed>` or `<gpxtpx:speed>`).
    static func childText(_ name: String, in body: Substring) -> String? {
        var search = body.startIndex
        while let r = body.range(of: "\(name)>", range: search..<body.endIndex) {
            search = r.upperBound
            // Walk back to the `<`: only a prefix of letters, digits and `:` may come between.
            var i = r.lowerBound
            var sawColon = false
            var ok = false
            while i > body.startIndex {
                let prev = body[body.index(before: i)]
                if prev == "<" { ok = true; break }
                if prev == "/" { break }
                if prev == ":" { sawColon = true } else if !(prev.isLetter || prev.isNumber || prev == "_") { break }
                i = body.index(before: i)
            }
            guard ok, sawColon || i == r.lowerBound else { continue }
            guard let end = body[r.upperBound...].range(of: "</") else { return nil }
            return String(body[r.upperBound..<end.lowerBound])
        }
        return nil
    }
}

/// One GPRI record: a GoPro Karma drone's raw GNSS receiver output.
public struct GPRIRecord: Sendable, Hashable {
    /// Seconds since the device started (not UTC).
    public var time: Double
    /// Latitude, degrees (north positive).
    public var latitude: Double
    /// Longitude, degrees (east positive).
    public var longitude: Double
    /// Altitude, m.
    public var altitude: Double
    /// Horizontal accuracy, m.
    public var horizontalAccuracy: Double
    /// Vertical accuracy, m.
    public var verticalAccuracy: Double
    /// Ground speed, m/s.
    public var speed: Double
    /// Degrees clockwise from true north.
    public var course: Double
    /// The fix: 0 none, 2 2D, 3 3D.
    public var fix: Int
    /// Satellites used for the fix.
    public var satellites: Int

    /// A record of these readings; the accuracies, fix and satellites default to a good 3D fix.
    public init(
        time: Double, latitude: Double, longitude: Double, altitude: Double, horizontalAccuracy: Double = 1.5,
        verticalAccuracy: Double = 2.5, speed: Double, course: Double, fix: Int = 3, satellites: Int = 12
    ) {
        self.time = time
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
        self.horizontalAccuracy = horizontalAccuracy
        self.verticalAccuracy = verticalAccuracy
        self.speed = speed
        self.course = course
        self.fix = fix
        self.satellites = satellites
    }
}

/// One GLPI record: a GoPro Karma drone flight controller's integrated position.
public struct GLPIRecord: Sendable, Hashable {
    /// Seconds since the device started (not UTC).
    public var time: Double
    /// Latitude, degrees (north positive).
    public var latitude: Double
    /// Longitude, degrees (east positive).
    public var longitude: Double
    /// Altitude, m.
    public var altitude: Double
    /// Altitude above the take-off point, m.
    public var relativeAltitude: Double
    /// Velocity north, m/s.
    public var velocityNorth: Double
    /// Velocity east, m/s.
    public var velocityEast: Double
    /// Velocity down, m/s (positive when descending).
    public var velocityDown: Double
    /// Degrees clockwise from true north.
    public var heading: Double

    /// A record of these readings; ``relativeAltitude`` defaults to 0 (take-off height).
    public init(
        time: Double, latitude: Double, longitude: Double, altitude: Double, relativeAltitude: Double = 0,
        velocityNorth: Double, velocityEast: Double, velocityDown: Double, heading: Double
    ) {
        self.time = time
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
        self.relativeAltitude = relativeAltitude
        self.velocityNorth = velocityNorth
        self.velocityEast = velocityEast
        self.velocityDown = velocityDown
        self.heading = heading
    }
}

extension SyntheticMetadata {
    /// A GPMF payload with a GPRI stream, laid out as a drone-mounted GoPro writes it:
    /// `DEVC > (DVID, DVNM, STRM > (STNM, TYPE "JlllSSSSBB", UNIT "s,deg,deg,m,m,m,m/s,deg,,",
    /// SCAL, [GPSU], GPRI))`. Stored as integers: time in microseconds, latitude and
    /// longitude x 1e7, altitude in mm, accuracies and speed in cm(/s), course in 1/100 degree.
    ///
    /// - Parameters:
    ///   - records: the GPRI records, in order.
    ///   - gpsu: a GPSU (UTC of the first record) to add to the stream.
    public static func gpriPayload(_ records: [GPRIRecord], gpsu: Date? = nil) throws(ReelError) -> Data {
        let rows = records.map { r -> [Int64] in
            [
                scaled(r.time, 1e6), scaled(r.latitude, 1e7), scaled(r.longitude, 1e7), scaled(r.altitude, 1000),
                scaled(r.horizontalAccuracy, 100), scaled(r.verticalAccuracy, 100), scaled(r.speed, 100), scaled(r.course, 100),
                Int64(r.fix), Int64(r.satellites),
            ]
        }
        return try drone(
            key: "GPRI", type: "JlllSSSSBB", name: "GPS RAW", units: ["s", "deg", "deg", "m", "m", "m", "m/s", "deg", "", ""],
            scale: [1_000_000, 10_000_000, 10_000_000, 1000, 100, 100, 100, 100, 1, 1], rows: rows, gpsu: gpsu)
    }

    /// A GPMF payload with a GLPI stream: `TYPE "LllllsssS"`, `UNIT
    /// "s,deg,deg,m,m,m/s,m/s,m/s,deg"`. Stored as integers: time in milliseconds,
    /// latitude and longitude x 1e7, altitudes in mm, velocities in cm/s, heading in
    /// 1/100 degree.
    public static func glpiPayload(_ records: [GLPIRecord], gpsu: Date? = nil) throws(ReelError) -> Data {
        let rows = records.map { r -> [Int64] in
            [
                scaled(r.time, 1000), scaled(r.latitude, 1e7), scaled(r.longitude, 1e7), scaled(r.altitude, 1000),
                scaled(r.relativeAltitude, 1000), scaled(r.velocityNorth, 100), scaled(r.velocityEast, 100),
                scaled(r.velocityDown, 100), scaled(r.heading, 100),
            ]
        }
        return try drone(
            key: "GLPI", type: "LllllsssS", name: "GPS POS", units: ["s", "deg", "deg", "m", "m", "m/s", "m/s", "m/s", "deg"],
            scale: [1000, 10_000_000, 10_000_000, 1000, 1000, 100, 100, 100, 100], rows: rows, gpsu: gpsu)
    }

    private static func scaled(_ value: Double, _ scale: Double) -> Int64 {
        let v = (value * scale).rounded()
        return v.isFinite ? Int64(max(-9e18, min(9e18, v))) : 0
    }

    private static func drone(
        key: FourCC, type: String, name: String, units: [String], scale: [Int64], rows: [[Int64]],
        gpsu: Date?
    ) throws(ReelError) -> Data {
        var stream: [GPMFNode] = [
            .string("STNM", name),
            .string("TYPE", type),
            .strings("UNIT", units),
            .integers("SCAL", .int32, scale.map { [$0] }),
        ]
        if let gpsu {
            stream.append(GPMFNode(key: "GPSU", type: .utcDate, structSize: 16, repeatCount: 1, payload: Data(GPMF.gpsuString(from: gpsu).utf8)))
        }
        stream.append(try .complex(key, layout: GPMFStructLayout(parsing: type), rows: rows))
        return try GPMFNode.nested(
            "DEVC",
            [
                .integers("DVID", .uint32, [[2]]),
                .string("DVNM", "Karma"),
                .nested("STRM", stream),
            ]
        ).encoded()
    }
}
