import Foundation

/// ISO 6709 location strings as QuickTime stores them (Annex H): `+27.1281+100.2508+000.000/`.
public enum ISO6709 {
    /// A parsed location.
    public struct Location: Sendable, Hashable {
        public var latitude: Double
        public var longitude: Double
        public var altitude: Double?
        /// A coordinate reference system (`CRSWGS_84`), when the string names one.
        public var crs: String?

        public init(latitude: Double, longitude: Double, altitude: Double? = nil, crs: String? = nil) {
            self.latitude = latitude
            self.longitude = longitude
            self.altitude = altitude
            self.crs = crs
        }

        /// The location as a GPS fix.
        public var fix: GPSFix { GPSFix(latitude: latitude, longitude: longitude, altitude: altitude) }
    }

    /// Parses `±DD.DDD±DDD.DDD[±A.A][CRS...]/`. Latitude may also be `±DDMM.M` or
    /// `±DDMMSS.S` and longitude `±DDDMM.M` or `±DDDMMSS.S`; the final `/` may be missing.
    public static func parse(_ text: String) throws(ReelError) -> Location {
        let chars = Array(text.trimmingCharacters(in: .whitespacesAndNewlines).utf8)
        var i = 0
        func fail(_ what: String) -> ReelError {
            .metadataFormat("ISO 6709", "\(what) in \"\(text)\" at character \(i)")
        }
        /// A signed number: returns its text (digits and at most one point) and sign.
        func number() -> (sign: Double, integer: [UInt8], fraction: [UInt8])? {
            guard i < chars.count, chars[i] == UInt8(ascii: "+") || chars[i] == UInt8(ascii: "-") else { return nil }
            let sign: Double = chars[i] == UInt8(ascii: "-") ? -1 : 1
            let start = i
            i += 1
            var integer: [UInt8] = [], fraction: [UInt8] = []
            while i < chars.count, (0x30...0x39).contains(chars[i]) { integer.append(chars[i]); i += 1 }
            if i < chars.count, chars[i] == UInt8(ascii: ".") {
                i += 1
                while i < chars.count, (0x30...0x39).contains(chars[i]) { fraction.append(chars[i]); i += 1 }
            }
            if integer.isEmpty { i = start; return nil }
            return (sign, integer, fraction)
        }
        func value(_ digits: [UInt8]) -> Double { digits.reduce(0.0) { $0 * 10 + Double($1 - 0x30) } }
        func fractionValue(_ digits: [UInt8]) -> Double {
            var scale = 0.1, v = 0.0
            for d in digits.prefix(15) { v += Double(d - 0x30) * scale; scale /= 10 }
            return v
        }
        /// Degrees from D, DM or DMS digits; `degreeDigits` is 2 for latitude, 3 for longitude.
        func degrees(_ n: (sign: Double, integer: [UInt8], fraction: [UInt8]), degreeDigits: Int, name: String) throws(ReelError) -> Double {
            let f = fractionValue(n.fraction)
            let d: Double
            switch n.integer.count {
            case degreeDigits: d = value(n.integer) + f
            case degreeDigits + 2:
                let minutes = value(Array(n.integer.suffix(2))) + f
                guard minutes < 60 else { throw fail("\(name) minutes \(minutes) are 60 or more") }
                d = value(Array(n.integer.prefix(degreeDigits))) + minutes / 60
            case degreeDigits + 4:
                let minutes = value(Array(n.integer.dropFirst(degreeDigits).prefix(2)))
                let seconds = value(Array(n.integer.suffix(2))) + f
                guard minutes < 60, seconds < 60 else { throw fail("\(name) minutes or seconds are 60 or more") }
                d = value(Array(n.integer.prefix(degreeDigits))) + minutes / 60 + seconds / 3600
            default:
                throw fail("\(name) has \(n.integer.count) integer digits (expected \(degreeDigits), \(degreeDigits + 2) or \(degreeDigits + 4))")
            }
            return n.sign * d
        }
        guard let latText = number() else { throw fail("expected a signed latitude") }
        let latitude = try degrees(latText, degreeDigits: 2, name: "latitude")
        guard let lonText = number() else { throw fail("expected a signed longitude") }
        let longitude = try degrees(lonText, degreeDigits: 3, name: "longitude")
        guard abs(latitude) <= 90 else { throw fail("latitude \(latitude) is outside -90...90") }
        guard abs(longitude) <= 180 else { throw fail("longitude \(longitude) is outside -180...180") }
        var altitude: Double?
        if let a = number() {
            let metres = a.sign * (value(a.integer) + fractionValue(a.fraction))
            guard metres.isFinite else { throw fail("the altitude has too many digits to be a number") }
            altitude = metres
        }
        var crs: String?
        if i + 3 <= chars.count, chars[i..<(i + 3)].elementsEqual("CRS".utf8) {
            let start = i
            while i < chars.count, chars[i] != UInt8(ascii: "/") { i += 1 }
            crs = String(decoding: chars[start..<i], as: UTF8.self)
        }
        if i < chars.count, chars[i] == UInt8(ascii: "/") { i += 1 }
        guard i == chars.count else { throw fail("unexpected text after the location") }
        return Location(latitude: latitude, longitude: longitude, altitude: altitude, crs: crs)
    }

    /// Formats as QuickTime does: `+DD.DDDD+DDD.DDDD[+AAA.AAA]/` (the precision is adjustable).
    public static func string(latitude: Double, longitude: Double, altitude: Double? = nil, fractionDigits: Int = 4) -> String {
        let p = max(0, min(12, fractionDigits))
        let point = p > 0 ? p + 1 : 0
        var s = String(format: "%+0\(3 + point).\(p)f%+0\(4 + point).\(p)f", latitude, longitude)
        if let altitude, altitude.isFinite { s += String(format: "%+08.3f", altitude) }
        return s + "/"
    }
}
