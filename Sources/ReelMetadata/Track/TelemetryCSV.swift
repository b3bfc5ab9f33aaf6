import Foundation

/// GPS telemetry as CSV: `time,latitude,longitude,altitude,speed2d,speed3d,fix,dop,gps_time`,
/// then the fields fewer sources give (``header``): course, velocity north/east/up,
/// accuracies, satellites, relative altitude, device time, heading, pitch, roll, airspeed.
///
/// `time` is seconds from media start; `gps_time` is ISO 8601 UTC with milliseconds;
/// speeds are m/s, angles degrees, accuracies and altitudes metres; a field without a
/// value is empty. Numbers are written in their shortest exact form, so export then
/// import gives the same values.
public enum TelemetryCSV {
    /// The header line, in this exact column order: the first nine columns are those
    /// earlier versions wrote, the others follow them.
    public static let header =
        "time,latitude,longitude,altitude,speed2d,speed3d,fix,dop,gps_time,"
        + "course,velocity_north,velocity_east,velocity_up,horizontal_accuracy,vertical_accuracy,speed_accuracy,"
        + "satellites,relative_altitude,device_time,heading,pitch,roll,airspeed"
    static let columns = header.split(separator: ",").map(String.init)

    /// The number columns after `gps_time`, with the fix field each holds.
    static var extraNumbers: [(column: String, field: WritableKeyPath<GPSFix, Double?>)] {
        [
            ("course", \.course), ("velocity_north", \.velocityNorth), ("velocity_east", \.velocityEast), ("velocity_up", \.velocityUp),
            ("horizontal_accuracy", \.horizontalAccuracy), ("vertical_accuracy", \.verticalAccuracy), ("speed_accuracy", \.speedAccuracy),
        ]
    }
    static var laterNumbers: [(column: String, field: WritableKeyPath<GPSFix, Double?>)] {
        [
            ("relative_altitude", \.relativeAltitude), ("device_time", \.deviceTime), ("heading", \.heading), ("pitch", \.pitch),
            ("roll", \.roll), ("airspeed", \.airspeed),
        ]
    }

    /// One row per group holding a fix, with a header line; lines end with `\n`.
    public static func document(for groups: [TimedMetadataGroup]) -> String {
        var s = header + "\n"
        for group in groups {
            let time = GPSFix.time(in: group)
            guard let fix = GPSFix(group), time.isNumeric else { continue }
            func f(_ v: Double?) -> String { v.map { "\($0)" } ?? "" }
            let fields =
                [
                    seconds(time), f(fix.latitude), f(fix.longitude), f(fix.altitude), f(fix.speed2D), f(fix.speed3D),
                    fix.fix.map(String.init) ?? "", f(fix.dop), fix.time.map(ISO8601.string) ?? "",
                ] + extraNumbers.map { f(fix[keyPath: $0.field]) } + [fix.satellites.map(String.init) ?? ""]
                + laterNumbers.map { f(fix[keyPath: $0.field]) }
            s += fields.joined(separator: ",") + "\n"
        }
        return s
    }

    /// Seconds with up to 6 decimals, trailing zeros dropped; fewer decimals for times so
    /// large that the digits would not read back as an exact time (18 digits in all).
    static func seconds(_ t: MediaTime) -> String {
        let wholeDigits = String(format: "%.0f", abs(t.seconds)).count
        var s = String(format: "%.\(max(0, min(6, 18 - wholeDigits)))f", t.seconds)
        guard s.contains(".") else { return s }
        while s.hasSuffix("0") { s.removeLast() }
        if s.hasSuffix(".") { s.removeLast() }
        return s
    }

    /// Groups from CSV with this type's header (columns may come in any order; `time`,
    /// `latitude` and `longitude` are required, the others optional).
    ///
    /// Each group lasts until the next row; the last as long as the one before it.
    /// - Throws: `.metadataFormat` naming the line and column of any value that does not parse.
    public static func groups(from data: Data) throws(ReelError) -> [TimedMetadataGroup] {
        guard let text = String(data: data, encoding: .utf8) else { throw .metadataFormat("CSV", "the data is not UTF-8 text") }
        var lines = text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" })
            .map { String($0) }
        while lines.last?.isEmpty == true { lines.removeLast() }
        guard let headerLine = lines.first else { throw .metadataFormat("CSV", "no header line") }
        let names = split(headerLine).map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        var index: [String: Int] = [:]
        for (i, n) in names.enumerated() {
            guard columns.contains(n) else { throw .metadataFormat("CSV", "line 1: unknown column \"\(n)\" (expected \(header))") }
            index[n] = i
        }
        for required in ["time", "latitude", "longitude"] where index[required] == nil {
            throw .metadataFormat("CSV", "line 1: no \"\(required)\" column")
        }
        var rows: [(MediaTime, GPSFix)] = []
        for (n, line) in lines.enumerated().dropFirst() where !line.trimmingCharacters(in: .whitespaces).isEmpty {
            let fields = split(line)
            func field(_ name: String) -> String? {
                guard let i = index[name], i < fields.count else { return nil }
                let v = fields[i].trimmingCharacters(in: .whitespaces)
                return v.isEmpty ? nil : v
            }
            func number(_ name: String) throws(ReelError) -> Double? {
                guard let v = field(name) else { return nil }
                guard let d = Double(v), d.isFinite else { throw .metadataFormat("CSV", "line \(n + 1), column \(name): \"\(v)\" is not a number") }
                return d
            }
            guard let timeText = field("time"), let time = MediaTime(parsing: timeText), time.isNumeric else {
                throw .metadataFormat("CSV", "line \(n + 1), column time: \"\(field("time") ?? "")\" is not a time in seconds")
            }
            guard let lat = try number("latitude"), let lon = try number("longitude") else {
                throw .metadataFormat("CSV", "line \(n + 1): latitude and longitude are required")
            }
            guard abs(lat) <= 90, abs(lon) <= 180 else { throw .metadataFormat("CSV", "line \(n + 1): latitude \(lat) / longitude \(lon) are out of range") }
            var fix = GPSFix(
                latitude: lat, longitude: lon, altitude: try number("altitude"), speed2D: try number("speed2d"),
                speed3D: try number("speed3d"), dop: try number("dop"))
            if let f = field("fix") {
                guard let v = Int(f) else { throw .metadataFormat("CSV", "line \(n + 1), column fix: \"\(f)\" is not an integer") }
                fix.fix = v
            }
            for (column, keyPath) in extraNumbers + laterNumbers {
                fix[keyPath: keyPath] = try number(column)
            }
            if let f = field("satellites") {
                guard let v = Int(f), v >= 0 else { throw .metadataFormat("CSV", "line \(n + 1), column satellites: \"\(f)\" is not a count") }
                fix.satellites = v
            }
            if let t = field("gps_time") {
                guard let d = ISO8601.date(t) else { throw .metadataFormat("CSV", "line \(n + 1), column gps_time: \"\(t)\" is not an ISO 8601 date") }
                fix.time = d
            }
            rows.append((time, fix))
        }
        return groups(rows)
    }

    /// Fields of one line; double-quoted fields may hold commas.
    static func split(_ line: String) -> [String] {
        var fields: [String] = []
        var current = ""
        var quoted = false
        var chars = line.makeIterator()
        while let c = chars.next() {
            if c == "\"" {
                quoted.toggle()
            } else if c == ",", !quoted {
                fields.append(current)
                current = ""
            } else {
                current.append(c)
            }
        }
        fields.append(current)
        return fields
    }

    /// Timed groups from fixes at media times: each lasts until the next; the last as
    /// long as the one before it (1 s when alone).
    static func groups(_ rows: [(MediaTime, GPSFix)]) -> [TimedMetadataGroup] {
        var out: [TimedMetadataGroup] = []
        for (i, (time, fix)) in rows.enumerated() {
            let duration: MediaTime
            if i + 1 < rows.count, time < rows[i + 1].0 {
                duration = rows[i + 1].0 - time
            } else if i > 0, rows[i - 1].0 < time {
                duration = time - rows[i - 1].0
            } else {
                duration = rows.count == 1 ? MediaTime(value: 1, timescale: 1) : .zero
            }
            out.append(TimedMetadataGroup(timeRange: TimeRange(start: time, duration: duration), items: fix.metadataItems(time: time, duration: duration)))
        }
        return out
    }
}
