import Foundation

/// GPX 1.1 tracks: import to timed metadata groups, export from them.
///
/// Import reads every `trkpt` (`lat`, `lon`, `ele`, `time`, `fix`, `hdop`/`pdop`, and
/// `speed`/`course` wherever they appear inside the point, e.g. in Garmin's
/// TrackPointExtension). Export writes one `trkpt` per group with a fix, with speed and
/// course in a Garmin TrackPointExtension (GPX has no 3D speed: use CSV for that).
public enum GPX {
    /// The fixes of every `trkpt`, in document order.
    /// - Throws: `.metadataFormat` naming the offset when the XML is malformed or a point's
    ///   `lat`/`lon` is missing or out of range.
    public static func fixes(from data: Data) throws(ReelError) -> [GPSFix] {
        var scanner = XMLScanner(data, format: "GPX")
        var fixes: [GPSFix] = []
        var current: GPSFix?
        var element: String?
        var sawGPX = false
        var hdop: Double?, pdop: Double?
        var count = 0
        func number(_ text: String, _ what: String) throws(ReelError) -> Double {
            guard let v = Double(text.trimmingCharacters(in: .whitespacesAndNewlines)), v.isFinite else {
                throw .metadataFormat("GPX", "trkpt \(count): \(what) \"\(text)\" is not a number")
            }
            return v
        }
        while let event = try scanner.next() {
            switch event {
            case .start(let name, let attributes, let selfClosing):
                let local = XMLScanner.localName(name)
                if local == "gpx" { sawGPX = true }
                if local == "trkpt" {
                    count += 1
                    guard let latText = attributes["lat"], let lonText = attributes["lon"] else {
                        throw .metadataFormat("GPX", "trkpt \(count) has no lat or lon attribute")
                    }
                    let lat = try number(latText, "lat"), lon = try number(lonText, "lon")
                    guard abs(lat) <= 90, abs(lon) <= 180 else {
                        throw .metadataFormat("GPX", "trkpt \(count): lat \(lat) / lon \(lon) are out of range")
                    }
                    current = GPSFix(latitude: lat, longitude: lon)
                    hdop = nil
                    pdop = nil
                    if selfClosing { fixes.append(current!); current = nil }
                } else {
                    element = selfClosing ? nil : local
                }
            case .text(let text):
                guard current != nil, let element else { continue }
                switch element {
                case "ele": current?.altitude = try number(text, "ele")
                case "time":
                    guard let date = ISO8601.date(text) else { throw .metadataFormat("GPX", "trkpt \(count): time \"\(text)\" is not an ISO 8601 date") }
                    current?.time = date
                case "speed": current?.speed2D = try number(text, "speed")
                case "course": current?.course = try number(text, "course")
                case "hdop": hdop = try number(text, "hdop")
                case "pdop": pdop = try number(text, "pdop")
                case "fix":
                    switch text.trimmingCharacters(in: .whitespacesAndNewlines) {
                    case "none": current?.fix = 0
                    case "2d": current?.fix = 2
                    case "3d", "dgps", "pps": current?.fix = 3
                    default: break
                    }
                default: break
                }
            case .end(let name):
                element = nil
                if XMLScanner.localName(name) == "trkpt", var fix = current {
                    fix.dop = hdop ?? pdop
                    fixes.append(fix)
                    current = nil
                }
            }
        }
        guard sawGPX else { throw .metadataFormat("GPX", "no <gpx> element: not a GPX document") }
        return fixes
    }

    /// Groups for the track points, timed relative to `mediaStartTime` (the UTC time of
    /// media time zero), in time order.
    ///
    /// Each group lasts until the next point; the last as long as the one before it (1 s
    /// when there is only one). Points before `mediaStartTime` are dropped.
    /// - Throws: `.metadataFormat` when a point has no `<time>` (it could not be placed).
    public static func groups(from data: Data, mediaStartTime: Date) throws(ReelError) -> [TimedMetadataGroup] {
        let fixes = try fixes(from: data)
        var timed: [(offset: Double, fix: GPSFix)] = []
        for (i, fix) in fixes.enumerated() {
            guard let time = fix.time else { throw .metadataFormat("GPX", "trkpt \(i + 1) has no <time>, so it cannot be placed on the media timeline") }
            let offset = time.timeIntervalSince(mediaStartTime)
            if offset >= 0 { timed.append((offset, fix)) }
        }
        timed.sort { $0.offset < $1.offset }
        return TelemetryCSV.groups(timed.map { (MediaTime(seconds: $0.offset, preferredTimescale: 1000), $0.fix) })
    }

    /// A GPX 1.1 document with one track segment: a `trkpt` per group holding a fix.
    ///
    /// A point's time is the fix's GPS time, else `mediaStartTime` plus the group's start,
    /// else omitted.
    public static func document(for groups: [TimedMetadataGroup], mediaStartTime: Date? = nil, name: String? = nil, creator: String = "Reel") -> Data {
        var s = """
        <?xml version="1.0" encoding="UTF-8"?>
        <gpx version="1.1" creator="\(creator.xmlEscaped)" xmlns="http://www.topografix.com/GPX/1/1" \
        xmlns:gpxtpx="http://www.garmin.com/xmlschemas/TrackPointExtension/v2">
          <trk>

        """
        if let name { s += "    <name>\(name.xmlEscaped)</name>\n" }
        s += "    <trkseg>\n"
        for group in groups {
            guard let fix = GPSFix(group) else { continue }
            s += "      <trkpt lat=\"\(fix.latitude)\" lon=\"\(fix.longitude)\">"
            if let alt = fix.altitude { s += "<ele>\(alt)</ele>" }
            let time = fix.time ?? mediaStartTime.flatMap { start in
                let at = GPSFix.time(in: group)
                return at.isNumeric ? start.addingTimeInterval(at.seconds) : nil
            }
            if let time { s += "<time>\(ISO8601.string(time))</time>" }
            switch fix.fix {
            case 0?: s += "<fix>none</fix>"
            case 2?: s += "<fix>2d</fix>"
            case 3?: s += "<fix>3d</fix>"
            default: break
            }
            if let dop = fix.dop { s += "<hdop>\(dop)</hdop>" }
            if fix.speed2D != nil || fix.course != nil {
                s += "<extensions><gpxtpx:TrackPointExtension>"
                if let v = fix.speed2D { s += "<gpxtpx:speed>\(v)</gpxtpx:speed>" }
                if let v = fix.course { s += "<gpxtpx:course>\(v)</gpxtpx:course>" }
                s += "</gpxtpx:TrackPointExtension></extensions>"
            }
            s += "</trkpt>\n"
        }
        s += "    </trkseg>\n  </trk>\n</gpx>\n"
        return Data(s.utf8)
    }
}
