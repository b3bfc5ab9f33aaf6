import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// GPS fixes as GPX 1.1 (topografix.com/GPX/1/1): one track, one segment, a `trkpt`
/// per fix.
///
/// Writing: `ele`, `time` (UTC, milliseconds), `fix` (`none`/`2d`/`3d`), `hdop` (GPMF's
/// DOP is horizontal), and speed and course in Garmin's TrackPointExtension v2 (m/s,
/// degrees). Reading accepts `trkpt` (else `rtept`) with `lat`/`lon`, `ele`, `time`,
/// `fix`, `hdop` (else `pdop`), and any element named `speed` or `course` (GPX 1.0's, or
/// an extension's).
enum GPSTrackGPX {
    static let namespace = "http://www.topografix.com/GPX/1/1"
    static let trackPointExtension = "http://www.garmin.com/xmlschemas/TrackPointExtension/v2"

    /// The GPX document for `fixes`, naming the track `name`.
    static func text(_ fixes: [(time: MediaTime, fix: GPSFix)], name: String) -> String {
        var out = """
        <?xml version="1.0" encoding="UTF-8"?>
        <gpx version="1.1" creator="Reel" xmlns="\(namespace)" xmlns:gpxtpx="\(trackPointExtension)">
          <trk>
            <name>\(escape(name))</name>
            <trkseg>

        """
        for (_, fix) in fixes {
            out += "      <trkpt lat=\"\(DecimalText.string(fix.latitude))\" lon=\"\(DecimalText.string(fix.longitude))\">\n"
            if let alt = fix.altitude { out += "        <ele>\(DecimalText.string(alt))</ele>\n" }
            if let time = fix.time { out += "        <time>\(UTCTimestamp.string(from: time))</time>\n" }
            switch fix.fix {
            case 0?: out += "        <fix>none</fix>\n"
            case 2?: out += "        <fix>2d</fix>\n"
            case 3?: out += "        <fix>3d</fix>\n"
            default: break
            }
            if let dop = fix.dop { out += "        <hdop>\(DecimalText.string(dop))</hdop>\n" }
            if fix.speed2D != nil || fix.course != nil {
                out += "        <extensions><gpxtpx:TrackPointExtension>"
                if let speed = fix.speed2D { out += "<gpxtpx:speed>\(DecimalText.string(speed))</gpxtpx:speed>" }
                if let course = fix.course { out += "<gpxtpx:course>\(DecimalText.string(course))</gpxtpx:course>" }
                out += "</gpxtpx:TrackPointExtension></extensions>\n"
            }
            out += "      </trkpt>\n"
        }
        out += "    </trkseg>\n  </trk>\n</gpx>\n"
        return out
    }

    static func escape(_ text: String) -> String {
        var out = ""
        for c in text {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            default: out.append(c)
            }
        }
        return out
    }

    /// The track points of a GPX document (its route points when it has none). Throws
    /// `.metadataFormat` naming the file and line when it is not GPX or a point is bad.
    static func points(_ data: Data, path: String) throws(ReelError) -> [GPSTrackPoint] {
        let reader = Reader(path: path)
        let parser = XMLParser(data: data)
        parser.shouldProcessNamespaces = true
        parser.delegate = reader
        let ok = parser.parse()
        if let error = reader.error { throw error }
        guard ok else {
            let message = parser.parserError.map { ($0 as NSError).localizedDescription } ?? "unknown error"
            throw ReelError(.metadataFormat, "not valid XML (\(message))", path: path, field: "line \(parser.lineNumber)")
        }
        guard reader.rootName == "gpx" else {
            throw ReelError(.metadataFormat, reader.rootName.map { "not a GPX file: the root element is <\($0)>" } ?? "not a GPX file", path: path)
        }
        return reader.trackPoints.isEmpty ? reader.routePoints : reader.trackPoints
    }

    /// Collects points as the parser walks the document; stops at the first bad one.
    private final class Reader: NSObject, XMLParserDelegate {
        let path: String
        var rootName: String?
        var trackPoints: [GPSTrackPoint] = []
        var routePoints: [GPSTrackPoint] = []
        var error: ReelError?
        private var point: GPSTrackPoint?
        private var pointElement = ""
        private var text = ""
        private var hdop: Double?
        private var pdop: Double?

        init(path: String) { self.path = path }

        private func fail(_ parser: XMLParser, _ message: String) {
            guard error == nil else { return }
            error = ReelError(.metadataFormat, message, path: path, field: "line \(parser.lineNumber)")
            parser.abortParsing()
        }

        func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
                    qualifiedName qName: String?, attributes: [String: String] = [:]) {
            let name = Self.localName(elementName)
            if rootName == nil { rootName = name }
            text = ""
            guard name == "trkpt" || name == "rtept", point == nil else { return }
            func coordinate(_ key: String, _ range: ClosedRange<Double>) -> Double? {
                guard let raw = attributes[key] ?? attributes.first(where: { Self.localName($0.key) == key })?.value else {
                    fail(parser, "<\(name)> has no \(key) attribute")
                    return nil
                }
                guard let v = Double(raw.trimmingCharacters(in: .whitespaces)), range.contains(v) else {
                    fail(parser, "<\(name)> \(key)=\"\(raw)\" is not a number in \(Int(range.lowerBound))...\(Int(range.upperBound))")
                    return nil
                }
                return v
            }
            guard let lat = coordinate("lat", -90...90), let lon = coordinate("lon", -180...180) else { return }
            point = GPSTrackPoint(fix: GPSFix(latitude: lat, longitude: lon), mediaTime: nil, line: parser.lineNumber)
            pointElement = name
            hdop = nil
            pdop = nil
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            text += string
        }

        func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName qName: String?) {
            let name = Self.localName(elementName)
            guard var current = point else { return }
            let value = text.trimmingCharacters(in: .whitespacesAndNewlines)
            text = ""
            func number() -> Double? {
                guard let v = Double(value), v.isFinite else {
                    fail(parser, "<\(name)> \"\(value)\" is not a number")
                    return nil
                }
                return v
            }
            switch name {
            case pointElement:
                current.fix.dop = hdop ?? pdop
                if pointElement == "trkpt" { trackPoints.append(current) } else { routePoints.append(current) }
                point = nil
                return
            case "ele": current.fix.altitude = number()
            case "speed": current.fix.speed2D = number()
            case "course": current.fix.course = number()
            case "hdop": hdop = number()
            case "pdop": pdop = number()
            case "fix":
                switch value.lowercased() {
                case "none": current.fix.fix = 0
                case "2d": current.fix.fix = 2
                case "3d", "dgps", "pps": current.fix.fix = 3
                default: fail(parser, "<fix> \"\(value)\" is not none, 2d, 3d, dgps or pps")
                }
            case "time":
                guard let date = UTCTimestamp.date(from: value) else {
                    fail(parser, "<time> \"\(value)\" is not an ISO 8601 time")
                    return
                }
                current.fix.time = date
            default: return
            }
            point = current
        }

        private static func localName(_ name: String) -> String {
            name.split(separator: ":").last.map(String.init) ?? name
        }
    }
}
