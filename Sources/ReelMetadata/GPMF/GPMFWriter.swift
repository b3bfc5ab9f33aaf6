import Foundation

/// Writes GPS fixes as GPMF payloads that GoPro's own tools, exiftool and ``GPMF`` read back.
///
/// Each payload is `DEVC > (DVID, DVNM, STRM > (STNM, UNIT, SCAL, [TYPE], GPSU, GPSF, GPSP, GPS5|GPS9))`.
/// Values are stored as GPMF stores them: latitude and longitude x 1e7, altitude, 2D and
/// 3D speed x 1000 (GPS9 adds days since 2000, milliseconds since midnight, DOP x 100 and
/// the fix type per sample).
///
/// Nothing the fixes do not hold is claimed: GPSF (fix type) and GPSP (DOP) are written
/// only when the first fix has them. A GPS5 or GPS9 sample has a slot for every field, so
/// a missing altitude or speed is written as ``noValue`` (the int32's lowest value, which
/// no altitude or speed scaled by 1000 reaches) and a missing GPS9 DOP or fix type as
/// ``noValue16``; ``GPMF`` reads both back as missing.
public enum GPMFWriter {
    /// Which GPS stream to write.
    public enum GPSFormat: String, Sendable, Hashable, CaseIterable {
        /// GPS5 (HERO5-HERO10): position and speeds per sample; GPSU, GPSF and GPSP per payload.
        case gps5
        /// GPS9 (HERO11+): also UTC time, DOP and fix per sample. Every fix needs a time.
        case gps9
        /// Both streams side by side, as HERO11+ cameras write them: readers that know GPS9
        /// get each fix's time, older ones (exiftool before 12.63) read GPS5. Every fix
        /// needs a time.
        case gps5AndGPS9
    }

    /// How payloads are labelled and laid out.
    public struct Options: Sendable, Hashable {
        public var format: GPSFormat
        /// DVNM.
        public var deviceName: String
        /// DVID.
        public var deviceID: UInt32

        public init(format: GPSFormat = .gps5, deviceName: String = "Reel", deviceID: UInt32 = 1) {
            self.format = format
            self.deviceName = deviceName
            self.deviceID = deviceID
        }
    }

    /// SCAL of the GPS5 fields: lat, lon, alt, 2D speed, 3D speed.
    public static let gps5Scale: [Int64] = [10_000_000, 10_000_000, 1000, 1000, 1000]
    /// SCAL of the GPS9 fields: lat, lon, alt, 2D speed, 3D speed, days, seconds, DOP, fix.
    public static let gps9Scale: [Int64] = [10_000_000, 10_000_000, 1000, 1000, 1000, 1, 1000, 100, 1]
    /// The GPS9 TYPE.
    public static let gps9Type = "lllllllSS"
    /// The stored altitude or speed of a fix that has none (GPS5, GPS9).
    public static let noValue = Int64(Int32.min)
    /// The stored GPS9 DOP or fix type of a fix that has none.
    public static let noValue16: Int64 = 65535

    /// The payloads for the GPS fixes in `groups`, one per `payloadDuration` of media.
    ///
    /// Payloads tile the span from the first group's start to the last group's end; the
    /// last may be shorter. A group goes to the payload holding its start time; groups
    /// without a fix (no latitude/longitude) are skipped, and a payload with no fix still
    /// carries an empty GPS stream so the track has no holes. Only the GPS items are
    /// written; other items (`gpmf/ACCL`, ...) are not.
    ///
    /// - Throws: `.invalidArgument` naming the group when a value cannot be stored (not
    ///   finite, out of range, GPS9 without a time), or when `payloadDuration` is not positive.
    public static func payloads(
        for groups: [TimedMetadataGroup], payloadDuration: MediaTime,
        options: Options = Options()
    ) throws(ReelError) -> [(data: Data, timeRange: TimeRange)] {
        guard payloadDuration.isNumeric, payloadDuration > .zero else {
            throw ReelError(.invalidArgument, "GPMF writer: payload duration \(payloadDuration) must be a positive time")
        }
        let timed = groups.enumerated().filter { $0.element.timeRange.start.isNumeric }
        guard let start = timed.map(\.element.timeRange.start).min(), var end = timed.map({ $0.element.timeRange.end }).filter(\.isNumeric).max() else {
            return []
        }
        if let lastStart = timed.map(\.element.timeRange.start).max(), !(lastStart < end) { end = lastStart + payloadDuration }
        var buckets: [[(index: Int, fix: GPSFix)]] = []
        var ranges: [TimeRange] = []
        var windowStart = start
        while windowStart < end {
            let windowEnd = MediaTime.minimum(windowStart + payloadDuration, end)
            ranges.append(TimeRange(start: windowStart, end: windowEnd))
            buckets.append([])
            windowStart = windowEnd
            guard buckets.count <= 10_000_000 else {
                throw ReelError(
                    .invalidArgument, "GPMF writer: \(payloadDuration.secondsDescription) payloads over \((end - start).secondsDescription) are too many")
            }
        }
        for (index, group) in timed {
            guard let fix = GPSFix(group) else { continue }
            let offset = group.timeRange.start - start
            let q = (offset.seconds / payloadDuration.seconds).rounded(.down)
            var k = q.isFinite ? Int(max(0, min(q, Double(ranges.count - 1)))) : 0
            // Correct any floating-point edge so the window really holds the start.
            while k > 0, group.timeRange.start < ranges[k].start { k -= 1 }
            while k < ranges.count - 1, !(group.timeRange.start < ranges[k].end) { k += 1 }
            buckets[k].append((index, fix))
        }
        var out: [(data: Data, timeRange: TimeRange)] = []
        out.reserveCapacity(ranges.count)
        for (k, range) in ranges.enumerated() {
            out.append((try payload(fixes: buckets[k], options: options), range))
        }
        return out
    }

    /// One payload holding `fixes` in order.
    public static func payload(fixes: [GPSFix], options: Options = Options()) throws(ReelError) -> Data {
        try payload(fixes: fixes.enumerated().map { ($0.offset, $0.element) }, options: options)
    }

    static func payload(fixes: [(index: Int, fix: GPSFix)], options: Options) throws(ReelError) -> Data {
        try device(gpsStreams(fixes: fixes, options: options), options: options).encoded()
    }

    /// The `STRM`s holding `fixes` in `options.format`.
    static func gpsStreams(fixes: [(index: Int, fix: GPSFix)], options: Options) throws(ReelError) -> [GPMFNode] {
        let formats: [GPSFormat] = options.format == .gps5AndGPS9 ? [.gps5, .gps9] : [options.format]
        var out: [GPMFNode] = []
        for format in formats {
            var single = options
            single.format = format
            out.append(.nested("STRM", try gpsStream(fixes: fixes, options: single)))
        }
        return out
    }

    /// `DEVC > (DVID, DVNM, streams...)`.
    static func device(_ streams: [GPMFNode], options: Options) -> GPMFNode {
        .nested(
            "DEVC",
            [
                .integers("DVID", .uint32, [[Int64(options.deviceID)]]),
                .string("DVNM", options.deviceName),
            ] + streams)
    }

    /// The KLVs inside the `STRM` of a GPS5 or GPS9 stream holding `fixes`
    /// (`options.format` is `.gps5` or `.gps9`).
    static func gpsStream(fixes: [(index: Int, fix: GPSFix)], options: Options) throws(ReelError) -> [GPMFNode] {
        guard fixes.count <= 65535 else {
            throw ReelError(.invalidArgument, "GPMF writer: \(fixes.count) fixes in one payload; at most 65535 fit")
        }
        var stream: [GPMFNode] = []
        switch options.format {
        case .gps5, .gps5AndGPS9:
            stream.append(.string("STNM", "GPS (Lat., Long., Alt., 2D speed, 3D speed)"))
            stream.append(.strings("UNIT", ["deg", "deg", "m", "m/s", "m/s"]))
            stream.append(.integers("SCAL", .int32, gps5Scale.map { [$0] }))
            if let first = fixes.first?.fix {
                if let time = first.time {
                    stream.append(.init(key: "GPSU", type: .utcDate, structSize: 16, repeatCount: 1, payload: Data(GPMF.gpsuString(from: time).utf8)))
                }
                if let fix = first.fix { stream.append(.integers("GPSF", .uint32, [[try stored(Double(fix), 0...65535, "fix", fixes[0].index)]])) }
                if let dop = first.dop { stream.append(.integers("GPSP", .uint16, [[try stored(dop * 100, 0...65535, "DOP", fixes[0].index)]])) }
            } else {
                stream.append(.integers("GPSF", .uint32, [[0]]))
            }
            var rows: [[Int64]] = []
            for (index, fix) in fixes { rows.append(try gps5Row(fix, index)) }
            var gps5 = GPMFNode.integers("GPS5", .int32, rows)
            gps5.structSize = 20
            stream.append(gps5)
        case .gps9:
            stream.append(.string("STNM", "GPS (Lat., Long., Alt., 2D, 3D, days, secs, DOP, fix)"))
            stream.append(.strings("UNIT", ["deg", "deg", "m", "m/s", "m/s", "", "s", "", ""]))
            stream.append(.integers("SCAL", .int32, gps9Scale.map { [$0] }))
            stream.append(.string("TYPE", gps9Type))
            var w = ByteWriter()
            for (index, fix) in fixes {
                let row = try gps5Row(fix, index)
                for v in row { w.appendBE(UInt64(bitPattern: v), 4) }
                guard let time = fix.time else {
                    throw ReelError(.invalidArgument, "GPMF writer: GPS9 needs a GPS time on every fix; group \(index) has none")
                }
                let millis = (time.timeIntervalSince1970 - GPMF.gps2000Epoch) * 1000
                guard millis.isFinite, millis >= 0, millis < 2_000_000 * 86_400_000 else {
                    throw ReelError(.invalidArgument, "GPMF writer: group \(index): GPS time \(time) is before 2000 or too far ahead")
                }
                let total = Int64(millis.rounded())
                w.appendBE(UInt64(total / 86_400_000), 4)
                w.appendBE(UInt64(total % 86_400_000), 4)
                w.appendBE(UInt64(try fix.dop.map { dop throws(ReelError) in try stored(dop * 100, 0...(noValue16 - 1), "DOP", index) } ?? noValue16), 2)
                w.appendBE(UInt64(try fix.fix.map { f throws(ReelError) in try stored(Double(f), 0...(noValue16 - 1), "fix", index) } ?? noValue16), 2)
            }
            stream.append(GPMFNode(key: "GPS9", type: .complex, structSize: 32, repeatCount: fixes.count, payload: Data(w.bytes)))
        }
        return stream
    }

    private static func gps5Row(_ fix: GPSFix, _ index: Int) throws(ReelError) -> [Int64] {
        guard (-90...90).contains(fix.latitude) else {
            throw ReelError(.invalidArgument, "GPMF writer: group \(index): latitude \(fix.latitude) is outside -90...90")
        }
        guard (-180...180).contains(fix.longitude) else {
            throw ReelError(.invalidArgument, "GPMF writer: group \(index): longitude \(fix.longitude) is outside -180...180")
        }
        let int32 = Int64(Int32.min)...Int64(Int32.max)
        let valued = (noValue + 1)...Int64(Int32.max)
        return [
            try stored(fix.latitude * 1e7, int32, "latitude", index),
            try stored(fix.longitude * 1e7, int32, "longitude", index),
            try fix.altitude.map { a throws(ReelError) in try stored(a * 1000, valued, "altitude", index) } ?? noValue,
            try fix.speed2D.map { v throws(ReelError) in try stored(v * 1000, valued, "2D speed", index) } ?? noValue,
            try fix.speed3D.map { v throws(ReelError) in try stored(v * 1000, valued, "3D speed", index) } ?? noValue,
        ]
    }

    /// `value` rounded to an integer in `range`, or an error naming the field and group.
    private static func stored(_ value: Double, _ range: ClosedRange<Int64>, _ field: String, _ index: Int) throws(ReelError) -> Int64 {
        let r = value.rounded()
        guard r.isFinite, r >= Double(range.lowerBound), r <= Double(range.upperBound) else {
            throw ReelError(.invalidArgument, "GPMF writer: group \(index): \(field) \(value) does not fit GPMF's scaled integer")
        }
        return Int64(r)
    }
}
