import Foundation

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// GPX 1.1 tracks: import to timed metadata groups, export from them.
///
/// Import reads every `trkpt` (`lat`, `lon`, `ele`, `time`, `fix`, `sat`, `hdop`/`pdop`,
/// and `speed`/`course` wherever they appear inside the point, e.g. in Garmin's
/// TrackPointExtension). Export writes one `trkpt` per group with a fix, with speed and
/// course in a Garmin TrackPointExtension (GPX has no 3D speed, velocity, accuracy or
/// attitude: use CSV or JSON for those).
public enum GPX {
    /// The fixes of every `trkpt`, in document order.
    /// - Throws: `.metadataFormat` naming the line when the XML is malformed or not UTF-8, or
    ///   a point's `lat`/`lon` is missing or out of range.
    public static func fixes(from data: Data) throws(ReelError) -> [GPSFix] {
        try GPXReader.points(in: data).map(\.fix)
    }

    /// Groups for the track points, timed relative to `mediaStartTime` (the UTC time of
    /// media time zero), in time order.
    ///
    /// Each group lasts until the next point; the last as long as the one before it (1 s
    /// when there is only one). Points before `mediaStartTime` are dropped.
    /// - Throws: `.metadataFormat` when a point has no `<time>` (it could not be placed).
    public static func groups(from data: Data, mediaStartTime: Date) throws(ReelError) -> [TimedMetadataGroup] {
        let points = try GPXReader.points(in: data)
        var timed: [(offset: Double, fix: GPSFix)] = []
        for (i, (fix, line)) in points.enumerated() {
            guard let time = fix.time else {
                throw GPXReader.error("trkpt \(i + 1) has no <time>, so it cannot be placed on the media timeline", line: line)
            }
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
            let time =
                fix.time
                ?? mediaStartTime.flatMap { start in
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
            if let sat = fix.satellites, sat >= 0 { s += "<sat>\(sat)</sat>" }
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

/// Reads GPX through Foundation's `XMLParser` (libxml2 underneath), one delegate per document.
private final class GPXReader: NSObject, XMLParserDelegate {
    private var points: [(fix: GPSFix, line: Int)] = []
    private var error: ReelError?
    private var sawGPX = false
    private var current: GPSFix?
    private var currentLine = 0
    private var hdop: Double?, pdop: Double?
    private var count = 0
    /// The character data of the innermost open element inside a `trkpt`.
    private var text = ""
    private weak var parser: XMLParser?

    /// Every `trkpt`'s fix and the line its start tag ends on.
    static func points(in data: Data) throws(ReelError) -> [(fix: GPSFix, line: Int)] {
        let reader = GPXReader()
        let failure = XMLInput.parse(data, format: "GPX", delegate: reader) { reader.parser = $0 }
        if let error = reader.error { throw error }
        if let failure { throw error(failure.message, line: failure.line) }
        guard reader.sawGPX else { throw error("no <gpx> element: not a GPX document", line: 1) }
        return reader.points
    }

    static func error(_ message: String, line: Int) -> ReelError {
        ReelError(.metadataFormat, "GPX: \(message)", field: "line \(line)")
    }

    private func fail(_ message: String) {
        if error == nil { error = Self.error(message, line: parser?.lineNumber ?? 0) }
        parser?.abortParsing()
    }

    private func number(_ text: String, _ what: String) -> Double? {
        guard let v = Double(text.trimmingCharacters(in: .whitespacesAndNewlines)), v.isFinite else {
            fail("trkpt \(count): \(what) \"\(text.prefix(40))\" is not a number")
            return nil
        }
        return v
    }

    /// The name without its namespace prefix (`gpxtpx:speed` is `speed`).
    private static func localName(_ name: String) -> Substring {
        name.firstIndex(of: ":").map { name[name.index(after: $0)...] } ?? name[...]
    }

    // MARK: XMLParserDelegate

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
        qualifiedName qName: String?, attributes attributeDict: [String: String] = [:]
    ) {
        guard error == nil else { return }
        text = ""
        switch Self.localName(elementName) {
        case "gpx": sawGPX = true
        case "trkpt":
            count += 1
            guard let latText = attributeDict["lat"], let lonText = attributeDict["lon"] else {
                return fail("trkpt \(count) has no lat or lon attribute")
            }
            guard let lat = number(latText, "lat"), let lon = number(lonText, "lon") else { return }
            guard abs(lat) <= 90, abs(lon) <= 180 else { return fail("trkpt \(count): lat \(lat) / lon \(lon) are out of range") }
            current = GPSFix(latitude: lat, longitude: lon)
            currentLine = parser.lineNumber
            hdop = nil
            pdop = nil
        default: break
        }
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName qName: String?) {
        guard error == nil, current != nil else { return }
        switch Self.localName(elementName) {
        case "ele": if let v = number(text, "ele") { current?.altitude = v }
        case "time":
            guard let date = ISO8601.date(text) else { return fail("trkpt \(count): time \"\(text.prefix(40))\" is not an ISO 8601 date") }
            current?.time = date
        case "speed": if let v = number(text, "speed") { current?.speed2D = v }
        case "course": if let v = number(text, "course") { current?.course = v }
        case "hdop": hdop = number(text, "hdop")
        case "sat": if let v = number(text, "sat"), v >= 0, v < 1e9 { current?.satellites = Int(v) }
        case "pdop": pdop = number(text, "pdop")
        case "fix":
            switch text.trimmingCharacters(in: .whitespacesAndNewlines) {
            case "none": current?.fix = 0
            case "2d": current?.fix = 2
            case "3d", "dgps", "pps": current?.fix = 3
            default: break
            }
        case "trkpt":
            if var fix = current {
                fix.dop = hdop ?? pdop
                points.append((fix, currentLine))
            }
            current = nil
        default: break
        }
        text = ""
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        // Only a point's own elements hold values: text anywhere else is not kept.
        if current != nil { text += string }
    }

    func parser(_ parser: XMLParser, parseErrorOccurred parseError: any Error) {
        // libxml2 reports some errors (an unclosed element at the end) without failing parse().
        guard error == nil else { return }
        error = Self.error("not well-formed XML (\((parseError as NSError).localizedDescription))", line: max(1, parser.lineNumber))
    }

    func parser(_ parser: XMLParser, foundCDATA CDATABlock: Data) {
        if current != nil { text += String(decoding: CDATABlock, as: UTF8.self) }
    }
}
