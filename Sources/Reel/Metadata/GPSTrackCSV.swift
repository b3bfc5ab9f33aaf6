import Foundation

/// GPS fixes as CSV: a header, then one row per fix, in the columns ``columns``.
///
/// `time` is seconds from the start of the media; `gps_time` is ISO 8601 UTC with
/// milliseconds; a field the source has no value for is empty. Reading accepts the same
/// columns in any order (`latitude` and `longitude` are required, and `time` or
/// `gps_time`), extra columns (ignored), CRLF line ends and double-quoted fields.
enum GPSTrackCSV {
    static let columns = ["time", "latitude", "longitude", "altitude", "speed2d", "speed3d", "fix", "dop", "gps_time"]

    /// The CSV text for `fixes`, header first.
    static func text(_ fixes: [(time: MediaTime, fix: GPSFix)]) -> String {
        var out = columns.joined(separator: ",") + "\n"
        for (time, fix) in fixes {
            let fields: [String] = [
                time.isNumeric ? DecimalText.seconds(time.seconds) : "",
                DecimalText.string(fix.latitude),
                DecimalText.string(fix.longitude),
                fix.altitude.map(DecimalText.string) ?? "",
                fix.speed2D.map(DecimalText.string) ?? "",
                fix.speed3D.map(DecimalText.string) ?? "",
                fix.fix.map { String($0) } ?? "",
                fix.dop.map(DecimalText.string) ?? "",
                fix.time.map(UTCTimestamp.string(from:)) ?? "",
            ]
            out += fields.joined(separator: ",") + "\n"
        }
        return out
    }

    /// The points of a CSV file. Throws `.metadataFormat` naming the file, line and column
    /// of the first problem.
    static func points(_ data: Data, path: String) throws(ReelError) -> [GPSTrackPoint] {
        guard let text = String(data: data, encoding: .utf8) else {
            throw ReelError(.metadataFormat, "not UTF-8 text", path: path)
        }
        var lines = text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }).enumerated()
            .map { (number: $0.offset + 1, text: $0.element.trimmingCharacters(in: CharacterSet(charactersIn: "\r"))) }
            .filter { !$0.text.trimmingCharacters(in: .whitespaces).isEmpty }
        guard !lines.isEmpty else { throw ReelError(.metadataFormat, "the CSV file is empty", path: path) }
        let header = split(lines.removeFirst().text).map { $0.lowercased().trimmingCharacters(in: .whitespaces) }
        func column(_ name: String) -> Int? { header.firstIndex(of: name) }
        guard let latColumn = column("latitude"), let lonColumn = column("longitude") else {
            throw ReelError(.metadataFormat, "the CSV header needs latitude and longitude columns (expected \(columns.joined(separator: ",")))", path: path, field: "line 1")
        }
        let timeColumn = column("time"), gpsTimeColumn = column("gps_time")
        guard timeColumn != nil || gpsTimeColumn != nil else {
            throw ReelError(.metadataFormat, "the CSV header needs a time or gps_time column", path: path, field: "line 1")
        }
        var points: [GPSTrackPoint] = []
        for (lineNumber, line) in lines {
            let fields = split(line)
            guard fields.count == header.count else {
                throw ReelError(.metadataFormat, "\(fields.count) fields where the header has \(header.count)", path: path, field: "line \(lineNumber)")
            }
            func value(_ index: Int?) -> String? {
                guard let index else { return nil }
                let v = fields[index].trimmingCharacters(in: .whitespaces)
                return v.isEmpty ? nil : v
            }
            func number(_ index: Int?, _ name: String) throws(ReelError) -> Double? {
                guard let text = value(index) else { return nil }
                guard let v = Double(text), v.isFinite else {
                    throw ReelError(.metadataFormat, "\(name) \"\(text)\" is not a number", path: path, field: "line \(lineNumber)")
                }
                return v
            }
            guard let lat = try number(latColumn, "latitude"), let lon = try number(lonColumn, "longitude") else {
                throw ReelError(.metadataFormat, "a row needs a latitude and a longitude", path: path, field: "line \(lineNumber)")
            }
            guard (-90...90).contains(lat), (-180...180).contains(lon) else {
                throw ReelError(.metadataFormat, "latitude \(lat), longitude \(lon) is not a position on Earth", path: path, field: "line \(lineNumber)")
            }
            var fix = GPSFix(latitude: lat, longitude: lon)
            fix.altitude = try number(column("altitude"), "altitude")
            fix.speed2D = try number(column("speed2d"), "speed2d")
            fix.speed3D = try number(column("speed3d"), "speed3d")
            fix.course = try number(column("course"), "course")
            fix.fix = try number(column("fix"), "fix").map { Int(max(-1, min(255, $0))) }
            fix.dop = try number(column("dop"), "dop")
            if let text = value(gpsTimeColumn) {
                guard let date = UTCTimestamp.date(from: text) else {
                    throw ReelError(.metadataFormat, "gps_time \"\(text)\" is not an ISO 8601 time", path: path, field: "line \(lineNumber)")
                }
                fix.time = date
            }
            let time = try number(timeColumn, "time")
            if time == nil && fix.time == nil {
                throw ReelError(.metadataFormat, "a row needs a time or a gps_time", path: path, field: "line \(lineNumber)")
            }
            points.append(GPSTrackPoint(fix: fix, mediaTime: time, line: lineNumber))
        }
        return points
    }

    /// The fields of one line: commas separate, double quotes enclose (`""` is a quote).
    static func split(_ line: String) -> [String] {
        var fields: [String] = []
        var current = ""
        var quoted = false
        var chars = line.makeIterator()
        while let c = chars.next() {
            if quoted {
                if c == "\"" {
                    if let next = chars.next() {
                        if next == "\"" { current.append("\"") } else {
                            quoted = false
                            if next == "," { fields.append(current); current = "" } else { current.append(next) }
                        }
                    } else {
                        quoted = false
                    }
                } else {
                    current.append(c)
                }
            } else if c == "\"" && current.isEmpty {
                quoted = true
            } else if c == "," {
                fields.append(current)
                current = ""
            } else {
                current.append(c)
            }
        }
        fields.append(current)
        return fields
    }
}
