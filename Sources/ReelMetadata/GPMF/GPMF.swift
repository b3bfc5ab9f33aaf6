import Foundation

/// GoPro Metadata Format: reading GPMF payloads into timed metadata groups.
///
/// A payload (one sample of a `gpmd` track) holds `DEVC` devices, each with `STRM`
/// streams of sensor data. ``groups(payload:timeRange:)`` spreads every stream's samples
/// evenly across the payload's time range and returns one group per GPS sample, holding
/// the normalised GPS items (``GPSFix/metadataItems(time:duration:)``) plus every
/// sample of every stream that falls in it as a `gpmf/KEY` item. The lower levels are
/// ``GPMFNode/parse(_:)`` (the KLV tree) and ``series(payload:)`` (decoded streams).
public enum GPMF {
    /// The keys of GPS position streams.
    public static let gpsKeys: Set<FourCC> = ["GPS5", "GPS9"]

    /// The GPS fixes of a payload with their times: GPS9 when there is one, else GPS5
    /// (with GPSU/GPSF/GPSP).
    public static func fixes(payload: Data, timeRange: TimeRange) throws(ReelError) -> [(time: MediaTime, duration: MediaTime, fix: GPSFix)] {
        try fixes(series: series(payload: payload), timeRange: timeRange)
    }

    /// Timed metadata groups for one payload that spans `timeRange`.
    ///
    /// With GPS: one group per GPS sample, tiling `timeRange`; each holds that fix's
    /// normalised items and the `gpmf/KEY` items (ACCL, GYRO, GPS5, GPSU, ...) whose
    /// sample times fall in it. Without GPS: one group over the whole range.
    /// Numbers are scaled by SCAL and carry their SIUN/UNIT as the item's unit.
    ///
    /// - Throws: ``ReelError`` `.metadataFormat` or `.corruptData` naming the key and
    ///   offset when the payload is not valid GPMF; `.invalidArgument` when `timeRange`
    ///   is not numeric.
    public static func groups(payload: Data, timeRange: TimeRange) throws(ReelError) -> [TimedMetadataGroup] {
        try checkTimeRange(timeRange)
        let all = try series(payload: payload)
        let fixes = try fixes(series: all, timeRange: timeRange)
        let groupCount = max(fixes.count, 1)
        var groups: [TimedMetadataGroup] = []
        if fixes.isEmpty {
            groups.append(TimedMetadataGroup(timeRange: timeRange, items: []))
        } else {
            for f in fixes {
                groups.append(TimedMetadataGroup(timeRange: TimeRange(start: f.time, duration: f.duration),
                                                 items: f.fix.metadataItems(time: f.time, duration: f.duration)))
            }
        }
        for s in all {
            let m = s.samples.count
            guard m > 0 else { continue }
            let duration = sampleDuration(timeRange, count: m)
            let identifier = MetadataIdentifier(keySpace: .gpmf, key: s.key.description)
            let dataType = s.typeDescription
            let unit = s.unitDescription
            for (j, sample) in s.samples.enumerated() {
                let time = sampleTime(timeRange, index: j, count: m)
                let g = min(groupCount - 1, j * groupCount / m)
                groups[g].items.append(MetadataItem(identifier: identifier, value: itemValue(sample), dataType: dataType,
                                                    unit: unit, time: time, duration: duration))
            }
        }
        return groups
    }

    /// Splits a raw GPMF stream (payloads back to back, as `ffmpeg -f data` writes them)
    /// into one payload per top-level KLV, usually one `DEVC` each.
    public static func splitStream(_ data: Data) throws(ReelError) -> [Data] {
        let bytes = [UInt8](data)
        let nodes = try GPMFNode.parse(bytes, range: 0..<bytes.count, depth: 0, path: "", shallow: true)
        return nodes.map { node in
            let end = min(bytes.count, node.offset + 8 + (node.structSize * node.repeatCount + 3) & ~3)
            return Data(bytes[node.offset..<end])
        }
    }

    /// Parses GPSU's `yymmddhhmmss.sss` (years 2000-2099) as a UTC date.
    public static func date(fromGPSU text: String) -> Date? {
        let chars = Array(text.utf8)
        guard chars.count >= 12, chars[0..<12].allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        func num(_ i: Int) -> Int { Int(chars[i] - 0x30) * 10 + Int(chars[i + 1] - 0x30) }
        let (yy, mo, dd, hh, mi, ss) = (num(0), num(2), num(4), num(6), num(8), num(10))
        guard (1...12).contains(mo), (1...31).contains(dd), hh < 24, mi < 60, ss < 61 else { return nil }
        var fraction = 0.0
        if chars.count > 12 {
            guard chars[12] == 0x2E else { return nil }
            let digits = chars[13...].prefix { (0x30...0x39).contains($0) }
            var scale = 0.1
            for d in digits.prefix(9) {
                fraction += Double(d - 0x30) * scale
                scale /= 10
            }
        }
        let days = daysFromCivil(year: 2000 + yy, month: mo, day: dd)
        let seconds = Double(days * 86_400 + hh * 3600 + mi * 60 + ss) + fraction
        return Date(timeIntervalSince1970: seconds)
    }

    /// Formats a date as GPSU's `yymmddhhmmss.sss` (UTC).
    public static func gpsuString(from date: Date) -> String {
        let totalMillis = Int64((date.timeIntervalSince1970 * 1000).rounded())
        let millis = Int(((totalMillis % 1000) + 1000) % 1000)
        let secondsTotal = (totalMillis - Int64(millis)) / 1000
        let days = Int(floorDiv(secondsTotal, 86_400))
        let secs = Int(secondsTotal - Int64(days) * 86_400)
        let (y, m, d) = civilFromDays(days)
        func two(_ v: Int) -> String { String(v).leftPadded(to: 2) }
        return two(((y % 100) + 100) % 100) + two(m) + two(d) + two(secs / 3600) + two(secs / 60 % 60) + two(secs % 60)
            + "." + String(millis).leftPadded(to: 3)
    }

    // MARK: - Internals

    static func checkTimeRange(_ timeRange: TimeRange) throws(ReelError) {
        guard timeRange.start.isNumeric, timeRange.duration.isNumeric, !(timeRange.duration < .zero) else {
            throw ReelError(.invalidArgument, "GPMF: the payload's time range \(timeRange) must be numeric with a duration of zero or more")
        }
    }

    static func sampleTime(_ range: TimeRange, index: Int, count: Int) -> MediaTime {
        range.start + range.duration.multiplied(byRatio: Int32(clamping: index), Int32(clamping: count))
    }

    static func sampleDuration(_ range: TimeRange, count: Int) -> MediaTime {
        range.duration.multiplied(byRatio: 1, Int32(clamping: count))
    }

    static func itemValue(_ sample: [GPMFValue]) -> MetadataValue {
        let numbers = sample.compactMap(\.doubleValue)
        if numbers.count == sample.count { return .numbers(numbers) }
        if sample.count == 1, case .string(let s) = sample[0] { return .string(s) }
        if sample.count == 1, case .bytes(let d) = sample[0] { return .data(d) }
        return .string(sample.map(\.description).joined(separator: ","))
    }

    /// The fixes of the first GPS5/GPS9 series with samples.
    static func fixes(series all: [GPMFSeries], timeRange: TimeRange) throws(ReelError) -> [(time: MediaTime, duration: MediaTime, fix: GPSFix)] {
        try checkTimeRange(timeRange)
        // GPS9 (HERO11+, written next to GPS5) has a time, fix and DOP per sample: prefer it.
        guard let gps = all.first(where: { $0.key == "GPS9" && !$0.samples.isEmpty })
            ?? all.first(where: { $0.key == "GPS5" && !$0.samples.isEmpty }) else { return [] }
        let n = gps.samples.count
        let duration = sampleDuration(timeRange, count: n)
        let payloadFix = gps.context["GPSF"]?.doubleValue.map { Int($0) }
        let payloadDOP = gps.context["GPSP"]?.doubleValue.map { $0 / 100 }
        var gpsu: Date?
        if case .string(let s)? = gps.context["GPSU"] { gpsu = date(fromGPSU: s) }
        var out: [(time: MediaTime, duration: MediaTime, fix: GPSFix)] = []
        out.reserveCapacity(n)
        for (i, sample) in gps.samples.enumerated() {
            let time = sampleTime(timeRange, index: i, count: n)
            let v = sample.map { $0.doubleValue ?? .nan }
            let needed = gps.key == "GPS9" ? 9 : 5
            guard v.count >= needed else {
                throw .metadataFormat("GPMF", "\(gps.key) sample \(i) has \(v.count) values, expected \(needed)", offset: gps.offset)
            }
            var fix = GPSFix(latitude: v[0], longitude: v[1], altitude: v[2], speed2D: v[3], speed3D: v[4])
            if gps.key == "GPS9" {
                let seconds = v[5] * 86_400 + v[6]
                fix.time = seconds.isFinite ? Date(timeIntervalSince1970: gps2000Epoch + seconds) : nil
                fix.dop = v[7]
                fix.fix = v[8].isFinite ? Int(clamping: Int64(max(-1e9, min(1e9, v[8])))) : nil
            } else {
                fix.time = gpsu.map { $0.addingTimeInterval((time - timeRange.start).seconds) }
                fix.dop = payloadDOP
                fix.fix = payloadFix
            }
            out.append((time, duration, fix))
        }
        return out
    }

    /// 2000-01-01T00:00:00Z as seconds since 1970.
    static let gps2000Epoch: TimeInterval = 946_684_800

    static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 { a >= 0 ? a / b : -((-a + b - 1) / b) }

    /// Days since 1970-01-01 of a proleptic Gregorian date.
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// The proleptic Gregorian date of a day count since 1970-01-01.
    static func civilFromDays(_ days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }
}
