import Foundation

/// Google's Camera Motion Metadata (`camm` tracks): little-endian records of
/// `u16 reserved (0), u16 type, payload`, several to a sample.
///
/// Every record becomes a `camm/TYPE` item (numbers); types 5 (position) and 6 (GPS)
/// also give the normalised GPS items.
public enum CAMM {
    /// Type 6: a GPS measurement.
    public struct GPS: Sendable, Hashable {
        /// Seconds since the GPS epoch (1980-01-06T00:00:00Z), GPS time (no leap seconds).
        public var timeGPSEpoch: Double
        /// 0 no fix, 2 2D, 3 3D.
        public var fixType: Int32
        public var latitude: Double
        public var longitude: Double
        /// Metres above the WGS 84 ellipsoid.
        public var altitude: Float
        public var horizontalAccuracy: Float
        public var verticalAccuracy: Float
        public var velocityEast: Float
        public var velocityNorth: Float
        public var velocityUp: Float
        public var speedAccuracy: Float

        public init(
            timeGPSEpoch: Double, fixType: Int32, latitude: Double, longitude: Double, altitude: Float,
            horizontalAccuracy: Float = 0, verticalAccuracy: Float = 0, velocityEast: Float = 0, velocityNorth: Float = 0,
            velocityUp: Float = 0, speedAccuracy: Float = 0
        ) {
            self.timeGPSEpoch = timeGPSEpoch
            self.fixType = fixType
            self.latitude = latitude
            self.longitude = longitude
            self.altitude = altitude
            self.horizontalAccuracy = horizontalAccuracy
            self.verticalAccuracy = verticalAccuracy
            self.velocityEast = velocityEast
            self.velocityNorth = velocityNorth
            self.velocityUp = velocityUp
            self.speedAccuracy = speedAccuracy
        }

        /// The UTC time of the measurement (GPS time less the leap seconds in force).
        public var date: Date? {
            guard timeGPSEpoch.isFinite, abs(timeGPSEpoch) < 1e11 else { return nil }
            let gps = CAMM.gpsEpoch + timeGPSEpoch
            return Date(timeIntervalSince1970: gps - Double(CAMM.leapSeconds(atGPSTime: gps)))
        }

        /// The measurement as a fix: the velocity east, north and up as it is, speeds from
        /// it, course from east/north, and the horizontal, vertical and speed accuracies. A
        /// velocity or altitude that is not a number (what ``CAMM/record(fix:)`` writes for
        /// one the fix did not have) leaves that field out, and so does an accuracy that is
        /// not a number or not above zero (the spec gives no "unknown"; writers put 0).
        public var fix: GPSFix {
            let e = Double(velocityEast), n = Double(velocityNorth), u = Double(velocityUp)
            let ground: Double? = e.isFinite && n.isFinite ? (e * e + n * n).squareRoot() : nil
            var course: Double?
            if let ground, ground > 0 {
                let c = atan2(e, n) * 180 / .pi
                course = c < 0 ? c + 360 : c
            }
            let speed3D = ground.flatMap { g in u.isFinite ? (g * g + u * u).squareRoot() : nil }
            func accuracy(_ v: Float) -> Double? { v.isFinite && v > 0 ? Double(v) : nil }
            return GPSFix(
                latitude: latitude, longitude: longitude, altitude: altitude.isFinite ? Double(altitude) : nil, speed2D: ground,
                speed3D: speed3D, course: course, time: date, fix: Int(fixType),
                horizontalAccuracy: accuracy(horizontalAccuracy), verticalAccuracy: accuracy(verticalAccuracy),
                speedAccuracy: accuracy(speedAccuracy), velocityNorth: n.isFinite ? n : nil, velocityEast: e.isFinite ? e : nil,
                velocityUp: u.isFinite ? u : nil)
        }
    }

    /// One record.
    public enum Record: Sendable, Hashable {
        /// Type 0: orientation as an angle-axis vector, radians.
        case angleAxis(x: Float, y: Float, z: Float)
        /// Type 1: pixel exposure time and rolling-shutter skew, nanoseconds.
        case exposure(pixelExposureTime: Int32, rollingShutterSkewTime: Int32)
        /// Type 2: gyroscope, rad/s.
        case gyro(x: Float, y: Float, z: Float)
        /// Type 3: acceleration, m/s².
        case acceleration(x: Float, y: Float, z: Float)
        /// Type 4: 3D position, metres.
        case position(x: Float, y: Float, z: Float)
        /// Type 5: latitude, longitude (degrees), altitude (metres).
        case location(latitude: Double, longitude: Double, altitude: Double)
        /// Type 6.
        case gps(GPS)
        /// Type 7: magnetic field, µT.
        case magneticField(x: Float, y: Float, z: Float)

        /// The record type, 0-7.
        public var type: Int {
            switch self {
            case .angleAxis: 0
            case .exposure: 1
            case .gyro: 2
            case .acceleration: 3
            case .position: 4
            case .location: 5
            case .gps: 6
            case .magneticField: 7
            }
        }

        /// The values as numbers, in the record's field order.
        public var numbers: [Double] {
            switch self {
            case .angleAxis(let x, let y, let z), .gyro(let x, let y, let z), .acceleration(let x, let y, let z),
                .position(let x, let y, let z), .magneticField(let x, let y, let z):
                [Double(x), Double(y), Double(z)]
            case .exposure(let a, let b): [Double(a), Double(b)]
            case .location(let lat, let lon, let alt): [lat, lon, alt]
            case .gps(let g):
                [
                    g.timeGPSEpoch, Double(g.fixType), g.latitude, g.longitude, Double(g.altitude), Double(g.horizontalAccuracy),
                    Double(g.verticalAccuracy), Double(g.velocityEast), Double(g.velocityNorth), Double(g.velocityUp), Double(g.speedAccuracy),
                ]
            }
        }

        var unit: String? {
            switch self {
            case .angleAxis: "rad"
            case .exposure: "ns"
            case .gyro: "rad/s"
            case .acceleration: "m/s²"
            case .position: "m"
            case .location, .gps: nil
            case .magneticField: "µT"
            }
        }
    }

    /// The size of each record type, header included.
    public static let recordSizes: [Int] = [16, 12, 16, 16, 16, 28, 60, 16]

    /// The records of one sample.
    /// - Throws: `.metadataFormat` for an unknown type or a non-zero reserved field,
    ///   `.corruptData` when a record is cut short; both name the offset.
    public static func records(sample: Data) throws(ReelError) -> [Record] {
        var r = ByteReader(sample, format: "CAMM")
        var out: [Record] = []
        while !r.isAtEnd {
            let start = r.offset
            let reserved = try r.u16le("reserved field")
            let type = Int(try r.u16le("record type"))
            guard reserved == 0 else { throw .metadataFormat("CAMM", "reserved field is \(reserved), not 0", offset: start) }
            guard type < recordSizes.count else { throw .metadataFormat("CAMM", "unknown record type \(type)", offset: start) }
            try r.require(recordSizes[type] - 4, "type \(type) record")
            func f() throws(ReelError) -> Float { Float(bitPattern: try r.u32le()) }
            func d() throws(ReelError) -> Double { Double(bitPattern: try r.u64le()) }
            func i() throws(ReelError) -> Int32 { Int32(bitPattern: try r.u32le()) }
            switch type {
            case 0: out.append(.angleAxis(x: try f(), y: try f(), z: try f()))
            case 1: out.append(.exposure(pixelExposureTime: try i(), rollingShutterSkewTime: try i()))
            case 2: out.append(.gyro(x: try f(), y: try f(), z: try f()))
            case 3: out.append(.acceleration(x: try f(), y: try f(), z: try f()))
            case 4: out.append(.position(x: try f(), y: try f(), z: try f()))
            case 5: out.append(.location(latitude: try d(), longitude: try d(), altitude: try d()))
            case 6:
                out.append(
                    .gps(
                        GPS(
                            timeGPSEpoch: try d(), fixType: try i(), latitude: try d(), longitude: try d(), altitude: try f(),
                            horizontalAccuracy: try f(), verticalAccuracy: try f(), velocityEast: try f(), velocityNorth: try f(),
                            velocityUp: try f(), speedAccuracy: try f())))
            default: out.append(.magneticField(x: try f(), y: try f(), z: try f()))
            }
        }
        return out
    }

    /// The items of one sample, timed over `timeRange`: a `camm/TYPE` item per record, then
    /// the GPS items of the last position (type 6 preferred over type 5).
    public static func items(sample: Data, timeRange: TimeRange) throws(ReelError) -> [MetadataItem] {
        let records = try records(sample: sample)
        var items = records.map { record in
            MetadataItem(
                identifier: MetadataIdentifier(keySpace: .camm, key: String(record.type)), value: .numbers(record.numbers),
                unit: record.unit, time: timeRange.start, duration: timeRange.duration)
        }
        var fix: GPSFix?
        for record in records {
            if case .gps(let g) = record { fix = g.fix }
        }
        if fix == nil {
            for record in records {
                if case .location(let lat, let lon, let alt) = record { fix = GPSFix(latitude: lat, longitude: lon, altitude: alt) }
            }
        }
        if let fix, abs(fix.latitude) <= 90, abs(fix.longitude) <= 180 {
            items += fix.metadataItems(time: timeRange.start, duration: timeRange.duration)
        }
        return items
    }

    /// One timed group for a sample.
    public static func group(sample: Data, timeRange: TimeRange) throws(ReelError) -> TimedMetadataGroup {
        TimedMetadataGroup(timeRange: timeRange, items: try items(sample: sample, timeRange: timeRange))
    }

    /// Encodes records as one sample.
    public static func encode(_ records: [Record]) -> Data {
        var w = ByteWriter()
        for record in records {
            w.u16le(0)
            w.u16le(UInt16(record.type))
            func f(_ v: Float) { w.u32le(v.bitPattern) }
            func d(_ v: Double) { w.u64le(v.bitPattern) }
            switch record {
            case .angleAxis(let x, let y, let z), .gyro(let x, let y, let z), .acceleration(let x, let y, let z),
                .position(let x, let y, let z), .magneticField(let x, let y, let z):
                f(x); f(y); f(z)
            case .exposure(let a, let b):
                w.u32le(UInt32(bitPattern: a)); w.u32le(UInt32(bitPattern: b))
            case .location(let lat, let lon, let alt):
                d(lat); d(lon); d(alt)
            case .gps(let g):
                d(g.timeGPSEpoch); w.u32le(UInt32(bitPattern: g.fixType)); d(g.latitude); d(g.longitude)
                f(g.altitude); f(g.horizontalAccuracy); f(g.verticalAccuracy)
                f(g.velocityEast); f(g.velocityNorth); f(g.velocityUp); f(g.speedAccuracy)
            }
        }
        return Data(w.bytes)
    }

    /// The record for a fix: type 6 (GPS) when the fix has a time, else type 5 (position,
    /// altitude 0 when unknown). Type 6 takes the time on the GPS clock, the fix type (3
    /// with an altitude, else 2, unless the fix says: the record has no "unknown"), the
    /// fix's velocity east, north and up (east and north from the 2D speed and course when
    /// it has no velocity), and its horizontal, vertical and speed accuracies (0 when
    /// unknown); a velocity or altitude the fix lacks is NaN, which ``GPS/fix`` reads back
    /// as missing.
    public static func record(fix: GPSFix) -> Record {
        guard let time = fix.time else {
            return .location(latitude: fix.latitude, longitude: fix.longitude, altitude: fix.altitude ?? 0)
        }
        let utc = time.timeIntervalSince1970
        var leap = leapSeconds(atGPSTime: utc)
        leap = leapSeconds(atGPSTime: utc + Double(leap))
        // A velocity the fix does not give (no speed, or a speed without a course to
        // split it east and north; no vertical speed at all) is written as NaN, not 0.
        var east = Float.nan, north = Float.nan
        if let e = fix.velocityEast, let n = fix.velocityNorth, e.isFinite, n.isFinite {
            (east, north) = (Float(e), Float(n))
        } else if let speed = fix.speed2D, let course = fix.course, speed.isFinite, course.isFinite {
            east = Float(speed * sin(course * .pi / 180))
            north = Float(speed * cos(course * .pi / 180))
        }
        func accuracy(_ v: Double?) -> Float { v.flatMap { $0.isFinite && $0 > 0 ? Float($0) : nil } ?? 0 }
        return .gps(
            GPS(
                timeGPSEpoch: utc + Double(leap) - gpsEpoch, fixType: Int32(clamping: fix.fix ?? (fix.altitude == nil ? 2 : 3)),
                latitude: fix.latitude, longitude: fix.longitude, altitude: fix.altitude.map { Float($0) } ?? .nan,
                horizontalAccuracy: accuracy(fix.horizontalAccuracy), verticalAccuracy: accuracy(fix.verticalAccuracy),
                velocityEast: east, velocityNorth: north, velocityUp: fix.velocityUp.map { Float($0) } ?? .nan,
                speedAccuracy: accuracy(fix.speedAccuracy)))
    }

    /// 1980-01-06T00:00:00Z as seconds since 1970.
    public static let gpsEpoch: TimeInterval = 315_964_800

    /// GPS time minus UTC at a GPS time (seconds since 1970 on the GPS clock).
    static func leapSeconds(atGPSTime t: TimeInterval) -> Int {
        // UTC dates (seconds since 1970) from which GPS - UTC took each value.
        let table: [(TimeInterval, Int)] = [
            (362_793_600, 1), (394_329_600, 2), (425_865_600, 3), (489_024_000, 4), (567_993_600, 5), (631_152_000, 6),
            (662_688_000, 7), (709_948_800, 8), (741_484_800, 9), (773_020_800, 10), (820_454_400, 11), (867_715_200, 12),
            (915_148_800, 13), (1_136_073_600, 14), (1_230_768_000, 15), (1_341_100_800, 16), (1_435_708_800, 17), (1_483_228_800, 18),
        ]
        var offset = 0
        for (utc, leap) in table where t - Double(leap) >= utc { offset = leap }
        return offset
    }
}
