import Foundation

/// One GPS fix, the typed view of a group's telemetry items, whatever camera wrote them.
///
/// Every metadata reader turns its format's GPS into these items (``metadataItems(time:duration:)``),
/// and a compositor reads them back with ``init(_:)``.
public struct GPSFix: Sendable, Hashable, Codable {
    public var latitude: Double
    public var longitude: Double
    public var altitude: Double?
    /// Ground speed, m/s.
    public var speed2D: Double?
    /// 3D speed, m/s.
    public var speed3D: Double?
    /// Degrees clockwise from true north.
    public var course: Double?
    /// UTC time of the fix.
    public var time: Date?
    /// 0 no fix, 2 2D, 3 3D.
    public var fix: Int?
    /// Dilution of precision.
    public var dop: Double?
    /// Estimated horizontal accuracy of the position, metres.
    public var horizontalAccuracy: Double?
    /// Estimated vertical accuracy of the altitude, metres.
    public var verticalAccuracy: Double?
    /// Estimated accuracy of the speed, m/s.
    public var speedAccuracy: Double?
    /// Satellites used for the fix (MISB ST 0601: in view).
    public var satellites: Int?
    /// Seconds on the recording device's own clock, counted from its start (GoPro GPRI and
    /// GLPI); not UTC: ``time`` is.
    public var deviceTime: Double?
    /// Velocity north, east and up, m/s.
    public var velocityNorth: Double?
    public var velocityEast: Double?
    public var velocityUp: Double?
    /// Metres above the take-off or home point (a drone's relative altitude).
    public var relativeAltitude: Double?
    /// Where the platform carrying the receiver points, degrees clockwise from true north
    /// (``course`` is where it moves).
    public var heading: Double?
    /// The platform's pitch (positive nose up) and roll (positive right wing down), degrees.
    public var pitch: Double?
    public var roll: Double?
    /// True airspeed, m/s.
    public var airspeed: Double?

    public init(
        latitude: Double, longitude: Double, altitude: Double? = nil, speed2D: Double? = nil,
        speed3D: Double? = nil, course: Double? = nil, time: Date? = nil, fix: Int? = nil, dop: Double? = nil,
        horizontalAccuracy: Double? = nil, verticalAccuracy: Double? = nil, speedAccuracy: Double? = nil,
        satellites: Int? = nil, deviceTime: Double? = nil, velocityNorth: Double? = nil, velocityEast: Double? = nil,
        velocityUp: Double? = nil, relativeAltitude: Double? = nil, heading: Double? = nil, pitch: Double? = nil,
        roll: Double? = nil, airspeed: Double? = nil
    ) {
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
        self.speed2D = speed2D
        self.speed3D = speed3D
        self.course = course
        self.time = time
        self.fix = fix
        self.dop = dop
        self.horizontalAccuracy = horizontalAccuracy
        self.verticalAccuracy = verticalAccuracy
        self.speedAccuracy = speedAccuracy
        self.satellites = satellites
        self.deviceTime = deviceTime
        self.velocityNorth = velocityNorth
        self.velocityEast = velocityEast
        self.velocityUp = velocityUp
        self.relativeAltitude = relativeAltitude
        self.heading = heading
        self.pitch = pitch
        self.roll = roll
        self.airspeed = airspeed
    }

    /// The fix in a group, if the group has at least a latitude and a longitude.
    public init?(_ group: TimedMetadataGroup) {
        self.init(items: group.items)
    }

    /// When the fix in `group` was taken on the timeline: its latitude item's time, else
    /// the group's start. They differ where groups tile a sample and a fix comes a little
    /// after the sample starts (a GoPro payload's first fix, at its stream's STMP).
    public static func time(in group: TimedMetadataGroup) -> MediaTime {
        if let t = group.item(.latitude)?.time, t.isNumeric { return t }
        return group.timeRange.start
    }

    /// The fix among `items`, if they hold at least a latitude and a longitude.
    public init?(items: [MetadataItem]) {
        func number(_ id: MetadataIdentifier) -> Double? { items.first { $0.identifier == id }?.numberValue }
        guard let lat = number(.latitude), let lon = number(.longitude) else { return nil }
        self.init(
            latitude: lat, longitude: lon, altitude: number(.altitude), speed2D: number(.speed2D),
            speed3D: number(.speed3D), course: number(.course),
            time: items.first { $0.identifier == .gpsTime }?.dateValue,
            fix: number(.gpsFix).map { Int($0) }, dop: number(.gpsDOP))
        horizontalAccuracy = number(.gpsHorizontalAccuracy)
        verticalAccuracy = number(.gpsVerticalAccuracy)
        speedAccuracy = number(.gpsSpeedAccuracy)
        satellites = number(.gpsSatellites).flatMap { $0.isFinite && abs($0) < 1e9 ? Int($0) : nil }
        deviceTime = number(.deviceTime)
        velocityNorth = number(.velocityNorth)
        velocityEast = number(.velocityEast)
        velocityUp = number(.velocityUp)
        relativeAltitude = number(.relativeAltitude)
        heading = number(.heading)
        pitch = number(.pitch)
        roll = number(.roll)
        airspeed = number(.airspeed)
    }

    /// The fix as ISO 6709 (`+33.1268-117.3273-022.959/`).
    public var iso6709: String {
        var s = String(format: "%+08.4f%+09.4f", latitude, longitude)
        if let altitude { s += String(format: "%+08.3f", altitude) }
        return s + "/"
    }

    /// The items that carry this fix: the ISO 6709 location plus one typed item per known field.
    public func metadataItems(time: MediaTime = .invalid, duration: MediaTime = .invalid) -> [MetadataItem] {
        func item(_ id: MetadataIdentifier, _ value: MetadataValue, unit: String? = nil) -> MetadataItem {
            MetadataItem(identifier: id, value: value, unit: unit, time: time, duration: duration)
        }
        var items = [
            item(.quickTimeMetadataLocationISO6709, .string(iso6709)),
            item(.latitude, .double(latitude), unit: "deg"),
            item(.longitude, .double(longitude), unit: "deg"),
        ]
        if let altitude { items.append(item(.altitude, .double(altitude), unit: "m")) }
        if let speed2D { items.append(item(.speed2D, .double(speed2D), unit: "m/s")) }
        if let speed3D { items.append(item(.speed3D, .double(speed3D), unit: "m/s")) }
        if let course { items.append(item(.course, .double(course), unit: "deg")) }
        if let time = self.time { items.append(item(.gpsTime, .date(time))) }
        if let fix { items.append(item(.gpsFix, .integer(Int64(fix)))) }
        if let dop { items.append(item(.gpsDOP, .double(dop))) }
        if let v = horizontalAccuracy { items.append(item(.gpsHorizontalAccuracy, .double(v), unit: "m")) }
        if let v = verticalAccuracy { items.append(item(.gpsVerticalAccuracy, .double(v), unit: "m")) }
        if let v = speedAccuracy { items.append(item(.gpsSpeedAccuracy, .double(v), unit: "m/s")) }
        if let v = satellites { items.append(item(.gpsSatellites, .integer(Int64(v)))) }
        if let v = deviceTime { items.append(item(.deviceTime, .double(v), unit: "s")) }
        if let v = velocityNorth { items.append(item(.velocityNorth, .double(v), unit: "m/s")) }
        if let v = velocityEast { items.append(item(.velocityEast, .double(v), unit: "m/s")) }
        if let v = velocityUp { items.append(item(.velocityUp, .double(v), unit: "m/s")) }
        if let v = relativeAltitude { items.append(item(.relativeAltitude, .double(v), unit: "m")) }
        if let v = heading { items.append(item(.heading, .double(v), unit: "deg")) }
        if let v = pitch { items.append(item(.pitch, .double(v), unit: "deg")) }
        if let v = roll { items.append(item(.roll, .double(v), unit: "deg")) }
        if let v = airspeed { items.append(item(.airspeed, .double(v), unit: "m/s")) }
        return items
    }
}
