import Foundation

/// Where the GPS fields sit in the samples of one GPMF stream: GPS5, GPS9, GPRI, GLPI, or
/// any stream whose units (SIUN/UNIT, one per element) and stream name (STNM) say that
/// two elements are a latitude and a longitude in `deg`.
///
/// Element indexes count decoded values (a `c[4]` field of a TYPE is one value).
struct GPMFGPSStream: Sendable, Hashable {
    var key: FourCC
    /// Lower ranks are preferred when a payload has several GPS streams.
    var rank: Int
    var latitude: Int
    var longitude: Int
    var altitude: Int?
    var speed2D: Int?
    var speed3D: Int?
    /// Velocity north, east, down (m/s), from which the 2D and 3D speeds are computed.
    var velocityNED: [Int]?
    /// Course or heading, degrees.
    var course: Int?
    /// Seconds since the device started (GPRI, GLPI): not UTC.
    var deviceTime: Int?
    /// GPS9's days since 2000-01-01 and seconds since midnight (UTC).
    var days: Int?
    var secondsOfDay: Int?
    var dop: Int?
    var fix: Int?
    /// GPRI's horizontal and vertical accuracy (m) and satellite count.
    var horizontalAccuracy: Int?
    var verticalAccuracy: Int?
    var satellites: Int?
    /// GLPI's altitude above the take-off point (m).
    var relativeAltitude: Int?

    /// The number of values a sample needs.
    var valuesNeeded: Int {
        ([
            latitude, longitude, altitude, speed2D, speed3D, course, deviceTime, days, secondsOfDay, dop, fix,
            horizontalAccuracy, verticalAccuracy, satellites, relativeAltitude,
        ].compactMap { $0 }
            + (velocityNED ?? [])).max().map { $0 + 1 } ?? 2
    }

    /// The preference order of a payload's GPS streams, first preferred: GPS9 (the camera's
    /// receiver with a UTC time, fix and DOP per sample), GPS5 (the same receiver, timed by
    /// GPSU), GLPI (a drone flight controller's filtered position, what exiftool reports),
    /// GPRI (that drone's raw receiver output), then any other stream with a latitude and
    /// a longitude.
    static let preference: [FourCC] = ["GPS9", "GPS5", "GLPI", "GPRI"]

    /// The GPS layout of `series`, or nil when it carries no position.
    init?(_ series: GPMFSeries) {
        let key = series.key
        let rank = Self.preference.firstIndex(of: key) ?? Self.preference.count
        switch key {
        case "GPS5":
            self.init(key: key, rank: rank, latitude: 0, longitude: 1, altitude: 2, speed2D: 3, speed3D: 4)
        case "GPS9":
            self.init(
                key: key, rank: rank, latitude: 0, longitude: 1, altitude: 2, speed2D: 3, speed3D: 4,
                days: 5, secondsOfDay: 6, dop: 7, fix: 8)
        case "GPRI" where Self.unitsAgree(series, deg: [1, 2]):
            // time, lat, lon, alt, horizontal and vertical accuracy (m), 2D speed, course, fix, satellites
            self.init(key: key, rank: rank, latitude: 1, longitude: 2, altitude: 3, speed2D: 6, course: 7, deviceTime: 0, fix: 8)
            (horizontalAccuracy, verticalAccuracy, satellites) = (4, 5, 9)
        case "GLPI" where Self.unitsAgree(series, deg: [1, 2]):
            // time, lat, lon, alt, relative alt, velocity north/east/down, heading
            self.init(key: key, rank: rank, latitude: 1, longitude: 2, altitude: 3, velocityNED: [5, 6, 7], course: 8, deviceTime: 0)
            relativeAltitude = 4
        default:
            self.init(general: series, rank: rank)
        }
    }

    init(
        key: FourCC, rank: Int, latitude: Int, longitude: Int, altitude: Int? = nil, speed2D: Int? = nil, speed3D: Int? = nil,
        velocityNED: [Int]? = nil, course: Int? = nil, deviceTime: Int? = nil, days: Int? = nil, secondsOfDay: Int? = nil,
        dop: Int? = nil, fix: Int? = nil
    ) {
        self.key = key
        self.rank = rank
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
        self.speed2D = speed2D
        self.speed3D = speed3D
        self.velocityNED = velocityNED
        self.course = course
        self.deviceTime = deviceTime
        self.days = days
        self.secondsOfDay = secondsOfDay
        self.dop = dop
        self.fix = fix
    }

    /// True when the series gives no per-element units, or gives `deg` at `deg`.
    private static func unitsAgree(_ series: GPMFSeries, deg: [Int]) -> Bool {
        guard series.units.count > 1 else { return true }
        return deg.allSatisfy { series.unit(ofElement: $0) == "deg" }
    }

    /// A stream found by its units and element names: two `deg` elements named latitude
    /// and longitude, or, without names, the first two `deg` elements when the stream also
    /// has a distance (`m`), speed (`m/s`) or time (`s`) element (so that three angles of
    /// an orientation are not taken for a position).
    private init?(general series: GPMFSeries, rank: Int) {
        guard series.units.count > 1, let first = series.samples.first(where: { !$0.isEmpty }) else { return nil }
        let count = first.count
        guard count >= 2, series.units.count >= count else { return nil }
        let units = (0..<count).map { series.unit(ofElement: $0)?.lowercased() ?? "" }
        let names = Self.elementNames(series.streamName, count: count)
        func named(_ words: [String], from: Int = 0) -> Int? {
            guard let names else { return nil }
            return (from..<count).first { i in words.contains { names[i].contains($0) } }
        }
        let degrees = units.indices.filter { units[$0] == "deg" }
        var lat = named(["lat"])
        var lon = named(["lon"])
        if lat == nil || lon == nil {
            let other = units.contains { $0 == "m" || $0 == "m/s" || $0 == "s" }
            guard names == nil || lat == nil && lon == nil, other, degrees.count >= 2 else { return nil }
            (lat, lon) = (degrees[0], degrees[1])
        }
        guard let lat, let lon, lat != lon, units[lat] == "deg", units[lon] == "deg" else { return nil }
        let after = max(lat, lon) + 1
        let taken: Set<Int> = [lat, lon]
        func firstUnit(_ unit: String, from: Int = 0, excluding: Set<Int> = []) -> Int? {
            (from..<count).first { units[$0] == unit && !taken.contains($0) && !excluding.contains($0) }
        }
        self.init(key: series.key, rank: rank, latitude: lat, longitude: lon)
        altitude = named(["alt", "height", "elev"]).flatMap { units[$0] == "m" ? $0 : nil } ?? firstUnit("m", from: after)
        let speeds = (after..<count).filter { units[$0] == "m/s" }
        if let n = named(["north", "vn"]), let e = named(["east", "ve"]), let d = named(["down", "vd"]) {
            velocityNED = [n, e, d]
        } else if speeds.count == 3 {
            velocityNED = speeds
        } else {
            speed2D = named(["2d", "ground"]) ?? speeds.first
            speed3D = named(["3d"]) ?? (speeds.count >= 2 ? speeds[1] : nil)
        }
        course =
            named(["course", "heading", "track"]).flatMap { units[$0] == "deg" ? $0 : nil }
            ?? firstUnit("deg", from: after)
        deviceTime = firstUnit("s")
        fix = named(["fix"])
        dop = named(["dop"])
    }

    /// Element names from a stream name such as `GPS (Lat., Long., Alt., 2D speed, 3D speed)`
    /// or `Drone position[time, lat, lon]`, lowercased; nil unless there is one per element.
    static func elementNames(_ streamName: String?, count: Int) -> [String]? {
        guard let streamName, let open = streamName.firstIndex(where: { $0 == "(" || $0 == "[" }) else { return nil }
        let inner = streamName[streamName.index(after: open)...].filter { $0 != ")" && $0 != "]" && $0 != "[" }
        let names = inner.split(separator: ",", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        return names.count == count ? names : nil
    }

    /// The fix in one sample (values already divided by SCAL); nil when the position is
    /// not a number or out of range.
    func fix(_ v: [Double]) -> GPSFix? {
        func at(_ i: Int?) -> Double? { i.flatMap { $0 < v.count && v[$0].isFinite ? v[$0] : nil } }
        guard let lat = at(latitude), let lon = at(longitude), (-90...90).contains(lat), (-180...180).contains(lon) else { return nil }
        var fix = GPSFix(
            latitude: lat, longitude: lon, altitude: at(altitude), speed2D: at(speed2D), speed3D: at(speed3D),
            course: at(course), dop: at(dop))
        if let ned = velocityNED, let n = at(ned[0]), let e = at(ned[1]) {
            fix.speed2D = (n * n + e * e).squareRoot()
            fix.speed3D = at(ned[2]).map { (n * n + e * e + $0 * $0).squareRoot() }
            fix.velocityNorth = n
            fix.velocityEast = e
            fix.velocityUp = at(ned[2]).map { $0 == 0 ? 0 : -$0 }
        }
        if let f = at(self.fix), abs(f) < 1e9 { fix.fix = Int(f) }
        fix.horizontalAccuracy = at(horizontalAccuracy)
        fix.verticalAccuracy = at(verticalAccuracy)
        if let n = at(satellites), abs(n) < 1e9 { fix.satellites = Int(n) }
        fix.relativeAltitude = at(relativeAltitude)
        fix.deviceTime = at(deviceTime)
        if let d = at(days), let s = at(secondsOfDay) {
            fix.time = Date(timeIntervalSince1970: GPMF.gps2000Epoch + d * 86_400 + s)
        }
        return fix
    }

    /// The sample's device time in seconds (GPRI, GLPI), or nil. GPS9's UTC is not used
    /// for spacing: it comes at the receiver's fixed rate, in whole milliseconds.
    func deviceSeconds(_ v: [Double]) -> Double? {
        deviceTime.flatMap { $0 < v.count && v[$0].isFinite ? v[$0] : nil }
    }
}
