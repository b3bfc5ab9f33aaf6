import Foundation

/// GoPro Metadata Format: reading GPMF payloads into timed metadata groups.
///
/// A payload (one sample of a `gpmd` track) holds `DEVC` devices, each with `STRM`
/// streams of sensor data. ``groups(payload:timeRange:)`` places every stream's samples
/// in the payload's time range (evenly from the stream's STMP stamp when it has one, else
/// across the whole range) and returns one group per GPS sample, holding
/// the normalised GPS items (`GPSFix/metadataItems(time:duration:)`) plus every
/// sample of every stream that falls in it as a `gpmf/KEY` item. The lower levels are
/// ``GPMFNode/parse(_:)`` (the KLV tree) and ``series(payload:)`` (decoded streams).
public enum GPMF {
    /// The keys of the GPS position streams GoPro writes. Any other stream whose units
    /// name a latitude and a longitude in `deg` is read as GPS too.
    public static let gpsKeys: Set<FourCC> = ["GPS5", "GPS9", "GPRI", "GLPI"]

    /// The GPS fixes of a payload with their times, from its preferred GPS stream: GPS9,
    /// else GPS5 (with GPSU/GPSF/GPSP), else GLPI, else GPRI, else any stream whose units
    /// name a latitude and a longitude. The other streams stay `gpmf/KEY` items in
    /// ``groups(payload:timeRange:)``. GPRI and GLPI times count from the device's start:
    /// they space the fixes, are each fix's `GPSFix/deviceTime`, and give its UTC by the
    /// payload's SYST (the device clock against UNIX time, as a GoPro Karma writes it),
    /// else from the payload's GPSU.
    ///
    /// `stream` reads the fixes of that GPS stream instead of the preferred one (`GPRI` in
    /// a payload that also has GLPI); none when the payload has no such stream.
    public static func fixes(payload: Data, timeRange: TimeRange, stream: FourCC? = nil) throws(ReelError) -> [(
        time: MediaTime, duration: MediaTime, fix: GPSFix
    )] {
        try fixes(series: series(payload: payload), timeRange: timeRange, stream: stream)
    }

    /// Timed metadata groups for one payload that spans `timeRange`.
    ///
    /// With GPS: one group per GPS sample, tiling `timeRange`; each holds that fix's
    /// normalised items and the `gpmf/KEY` items (ACCL, GYRO, GPS5, GPSU, ...) whose
    /// sample times fall in it. Without GPS: one group over the whole range.
    /// Numbers are scaled by SCAL and carry their SIUN/UNIT as the item's unit.
    ///
    /// - Throws: `ReelError` `.metadataFormat` or `.corruptData` naming the key and
    ///   offset when the payload is not valid GPMF; `.invalidArgument` when `timeRange`
    ///   is not numeric.
    public static func groups(payload: Data, timeRange: TimeRange) throws(ReelError) -> [TimedMetadataGroup] {
        var counts = GPMFSampleCounts()
        return try groups(payload: payload, timeRange: timeRange, counts: &counts)
    }

    /// ``groups(payload:timeRange:)`` for the next payload of a track read in order:
    /// streams without STMP are placed by their TSMP counts against the track's earlier
    /// payloads (``GPMFSampleCounts``), which `counts` remembers.
    public static func groups(payload: Data, timeRange: TimeRange, counts: inout GPMFSampleCounts) throws(ReelError) -> [TimedMetadataGroup] {
        try checkTimeRange(timeRange)
        let all = try series(payload: payload)
        defer { counts.note(all, in: timeRange) }
        let fixes = try fixes(series: all, timeRange: timeRange, counts: counts)
        var groups: [TimedMetadataGroup] = []
        if fixes.isEmpty {
            groups.append(TimedMetadataGroup(timeRange: timeRange, items: []))
        } else {
            for (k, f) in fixes.enumerated() {
                // The first group starts with the payload, so the groups tile it.
                let range = TimeRange(start: k == 0 ? timeRange.start : f.time, end: f.time + f.duration)
                groups.append(TimedMetadataGroup(timeRange: range, items: f.fix.metadataItems(time: f.time, duration: f.duration)))
            }
        }
        let starts = groups.map(\.timeRange.start)
        /// The last group starting at or before `time`.
        func groupIndex(_ time: MediaTime) -> Int {
            var (lo, hi) = (0, starts.count - 1)
            while lo < hi {
                let mid = (lo + hi + 1) / 2
                if time < starts[mid] { hi = mid - 1 } else { lo = mid }
            }
            return lo
        }
        for s in all {
            let m = s.samples.count
            guard m > 0 else { continue }
            let (times, duration) = sampleTimes(of: s, in: timeRange, counts: counts)
            let identifier = MetadataIdentifier(keySpace: .gpmf, key: s.key.description)
            let dataType = s.typeDescription
            let unit = s.unitDescription
            for (j, sample) in s.samples.enumerated() {
                let time = times[j]
                groups[groupIndex(time)].items.append(
                    MetadataItem(
                        identifier: identifier, value: itemValue(sample), dataType: dataType,
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

    /// `payload`, spanning `range` on its track, with each stream's STMP that counts on the
    /// track's clock (``isOnTrackClock(_:payload:)``) moved by `move` (a time in, its new
    /// time out), for a payload copied to another place on a timeline: its samples keep
    /// their place relative to the payload. A stamp on another clock (a camera's later
    /// chapter counts from the start of the recording, so its stamps already hold their
    /// place in the joined recording) is left as it is, and so is everything else: a
    /// payload without stamps on the track's clock comes back byte for byte. A stamp moved
    /// before zero becomes zero.
    ///
    /// - Throws: what ``GPMFNode/parse(_:)`` throws for a payload that is not GPMF.
    public static func restamped(_ payload: Data, spanning range: TimeRange, by move: (MediaTime) -> MediaTime) throws(ReelError) -> Data {
        var bytes = [UInt8](payload)
        var changed = false
        func patch(_ nodes: [GPMFNode]) {
            for node in nodes {
                if node.isNested { patch(node.children); continue }
                guard node.key == "STMP", node.type == .uint64, node.structSize == 8, node.repeatCount == 1 else { continue }
                let at = node.offset + 8
                let old = bytes[at..<(at + 8)].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
                guard old < UInt64(Int64.max) else { continue }
                let stamp = MediaTime(value: Int64(old), timescale: 1_000_000)
                guard isOnTrackClock(stamp, payload: range) else { continue }
                let moved = move(stamp).convertScale(1_000_000, method: .roundHalfAwayFromZero)
                let new = moved.isNumeric && moved.value > 0 ? UInt64(moved.value) : 0
                for k in 0..<8 { bytes[at + k] = UInt8(truncatingIfNeeded: new >> (56 - 8 * UInt64(k))) }
                changed = true
            }
        }
        patch(try GPMFNode.parse(bytes, range: 0..<bytes.count, depth: 0, path: ""))
        return changed ? Data(bytes) : payload
    }

    /// Whether a stream's STMP `stamp` counts on the clock of the track that holds its
    /// payload, spanning `range` there: GoPro cameras stamp a stream's first sample a
    /// little after the payload starts, in microseconds from the start of the recording.
    /// A stamp more than one payload before the payload, or at or after its end, counts on
    /// another clock (a camera that counts from power-on, a chapter file after the first,
    /// or a file whose samples were moved without restamping). A payload with no duration
    /// has no clock to compare with.
    public static func isOnTrackClock(_ stamp: MediaTime, payload range: TimeRange) -> Bool {
        range.duration > .zero && stamp < range.end && !(stamp < range.start - range.duration)
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

    /// Where the samples of `series` lie in a payload spanning `range`: from the stream's
    /// STMP to the payload's end when the stamp is on the track's clock, else the whole
    /// payload (the samples are then spread evenly across it).
    ///
    /// A stamp on another clock (``isOnTrackClock(_:payload:)``) is not used; one a little
    /// before the payload starts the samples with it.
    static func sampleSpan(of series: GPMFSeries, in range: TimeRange) -> TimeRange {
        guard let micros = series.firstSampleMicroseconds, micros < UInt64(Int64.max) else { return range }
        let stamp = MediaTime(value: Int64(micros), timescale: 1_000_000)
        guard isOnTrackClock(stamp, payload: range) else { return range }
        return TimeRange(start: MediaTime.maximum(stamp, range.start), end: range.end)
    }

    /// Each sample's time and duration for `series` in a payload spanning `range`: by
    /// its TSMP count against earlier payloads when `counts` can place it, else across
    /// ``sampleSpan(of:in:)``.
    static func sampleTimes(of series: GPMFSeries, in range: TimeRange, counts: GPMFSampleCounts?) -> (times: [MediaTime], duration: MediaTime) {
        if let placed = counts?.placement(of: series, in: range) { return placed }
        let span = sampleSpan(of: series, in: range)
        let m = series.samples.count
        return ((0..<m).map { sampleTime(span, index: $0, count: m) }, sampleDuration(span, count: m))
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

    /// The fixes of the payload's preferred GPS stream (``GPMFGPSStream/preference``).
    ///
    /// Fixes are placed by the stream's device time (GPRI, GLPI) when every sample has a reading, the readings increase and they fit in the payload;
    /// otherwise evenly across the stream's span (``sampleSpan(of:in:)``). Each lasts until the next; the last until the
    /// end of `timeRange`. Samples whose position is not a number or out of range are
    /// left out.
    static func fixes(
        series all: [GPMFSeries], timeRange: TimeRange, counts: GPMFSampleCounts? = nil,
        stream: FourCC? = nil
    ) throws(ReelError) -> [(time: MediaTime, duration: MediaTime, fix: GPSFix)] {
        try checkTimeRange(timeRange)
        var best: (series: GPMFSeries, layout: GPMFGPSStream)?
        for s in all where !s.samples.isEmpty && (stream == nil || s.key == stream) {
            guard let layout = GPMFGPSStream(s) else { continue }
            if let b = best, !(layout.rank < b.layout.rank) { continue }
            best = (s, layout)
        }
        guard let (gps, layout) = best else { return [] }
        var values = gps.samples.map { $0.map { $0.doubleValue ?? .nan } }
        markMissing(&values, of: gps, layout: layout)
        for (i, v) in values.enumerated() where v.count < layout.valuesNeeded {
            throw .metadataFormat("GPMF", "\(gps.key) sample \(i) has \(v.count) values, expected \(layout.valuesNeeded)", offset: gps.offset)
        }
        let n = values.count
        let span = sampleSpan(of: gps, in: timeRange)
        let offsets = clockOffsets(values.map(layout.deviceSeconds), span: span.duration.seconds)
        // Without STMP, the stream's TSMP count against earlier payloads places it.
        let placed = offsets == nil ? counts?.placement(of: gps, in: timeRange)?.times : nil
        let payloadFix = gps.context["GPSF"]?.doubleValue.flatMap { $0.isFinite && abs($0) < 1e9 ? Int($0) : nil }
        let payloadDOP = gps.context["GPSP"]?.doubleValue.map { $0 / 100 }
        // GPSU: the UTC of the payload's first GPS sample; a drone's GPRI/GLPI take the camera's.
        var gpsu: Date?
        if case .string(let s)? = gps.context["GPSU"] ?? all.first(where: { $0.key == "GPSU" })?.samples.first?.first {
            gpsu = date(fromGPSU: s)
        }
        // SYST: the device clock against UTC, for the device times of GPRI and GLPI.
        let calibration = layout.deviceTime == nil ? [] : systemTimeCalibration(all)
        var out: [(time: MediaTime, duration: MediaTime, fix: GPSFix)] = []
        out.reserveCapacity(n)
        for i in 0..<n {
            guard var fix = layout.fix(values[i]) else { continue }
            let time =
                offsets.map { span.start + MediaTime(seconds: $0[i], preferredTimescale: 1_000_000) }
                ?? placed?[i] ?? sampleTime(span, index: i, count: n)
            if fix.time == nil, let device = fix.deviceTime {
                fix.time = utc(deviceSeconds: device, calibration: calibration)
            }
            if fix.time == nil, let gpsu {
                fix.time = gpsu.addingTimeInterval(offsets?[i] ?? (time - (placed?.first ?? span.start)).seconds)
            }
            if layout.fix == nil { fix.fix = payloadFix }
            if layout.dop == nil { fix.dop = payloadDOP }
            out.append((time, .zero, fix))
        }
        for k in out.indices {
            out[k].duration = (k + 1 < out.count ? out[k + 1].time : timeRange.end) - out[k].time
        }
        return out
    }

    /// The SYST samples of a payload (a GoPro Karma's `JJ`, units `s,s`: the device clock's
    /// seconds and the UNIX time at that moment), in device-clock order; pairs that are
    /// not finite numbers, or whose UNIX time is not after 1970 and before 5138, are left out.
    static func systemTimeCalibration(_ all: [GPMFSeries]) -> [(device: Double, unix: Double)] {
        var out: [(device: Double, unix: Double)] = []
        for s in all where s.key == "SYST" {
            for sample in s.samples where sample.count >= 2 {
                guard let device = sample[0].doubleValue, let unix = sample[1].doubleValue, device.isFinite, unix.isFinite,
                    unix > 0, unix < 1e11
                else { continue }
                out.append((device, unix))
            }
        }
        return out.sorted { $0.device < $1.device }
    }

    /// The UTC of a device-clock reading by the SYST calibration point at or before it
    /// (else the first), the device clock counting seconds; nil without calibration or
    /// when the reading is more than a day from the point.
    static func utc(deviceSeconds t: Double, calibration: [(device: Double, unix: Double)]) -> Date? {
        guard t.isFinite, let first = calibration.first else { return nil }
        let point = calibration.last { $0.device <= t } ?? first
        let offset = t - point.device
        guard abs(offset) <= 86_400 else { return nil }
        return Date(timeIntervalSince1970: point.unix + offset)
    }

    /// Replaces GPS5/GPS9 fields stored as "no value" (``GPMFWriter/noValue``: an altitude
    /// or speed of the int32's lowest value; ``GPMFWriter/noValue16``: a GPS9 DOP or fix
    /// type of 65535) with NaN, so the fix leaves them out.
    static func markMissing(_ values: inout [[Double]], of series: GPMFSeries, layout: GPMFGPSStream) {
        guard layout.key == "GPS5" || layout.key == "GPS9" else { return }
        let scale = series.scale
        func stored(_ v: Double, _ i: Int) -> Double {
            let s = scale.isEmpty ? 1 : scale.count == 1 ? scale[0] : (i < scale.count ? scale[i] : 1)
            return (v * (s == 0 ? 1 : s)).rounded()
        }
        let wide = [layout.altitude, layout.speed2D, layout.speed3D].compactMap { $0 }
        let narrow = layout.key == "GPS9" ? [layout.dop, layout.fix].compactMap { $0 } : []
        for r in values.indices {
            for i in wide where i < values[r].count && stored(values[r][i], i) == Double(GPMFWriter.noValue) { values[r][i] = .nan }
            for i in narrow where i < values[r].count && stored(values[r][i], i) == Double(GPMFWriter.noValue16) { values[r][i] = .nan }
        }
    }

    /// Each sample's seconds after the first by a per-sample clock, when every sample has a
    /// finite reading, the readings strictly increase and span less than `span` seconds;
    /// nil otherwise (the samples are then spread evenly).
    static func clockOffsets(_ clock: [Double?], span: Double) -> [Double]? {
        guard clock.count > 1, let first = clock[0], first.isFinite else { return nil }
        var out = [0.0]
        var last = first
        for reading in clock.dropFirst() {
            guard let reading, reading.isFinite, reading > last else { return nil }
            out.append(reading - first)
            last = reading
        }
        guard let total = out.last, total < span else { return nil }
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
