/// A half-open span of media time, `[start, start + duration)`, with CMTimeRange's semantics.
///
/// A range is valid when both times are valid and the duration is a non-negative
/// duration (epoch zero, not negative infinity). Either time may be indefinite (an
/// indefinite range), and the duration may be positive infinity (a range that never
/// ends). The set operations on invalid ranges give ``invalid``.
public struct TimeRange: Sendable, Hashable, Codable {
    /// The first time in the range.
    public var start: MediaTime
    /// How long the range lasts; ``end`` is `start + duration`.
    public var duration: MediaTime

    /// A range from `start` lasting `duration` (`CMTimeRangeMake`). Nothing is checked:
    /// see ``isValid``.
    public init(start: MediaTime, duration: MediaTime) {
        self.start = start
        self.duration = duration
    }

    /// The range from `start` up to, not including, `end` (`CMTimeRangeFromTimeToTime`):
    /// its duration is `end - start`, exact where it fits.
    public init(start: MediaTime, end: MediaTime) {
        self.init(start: start, duration: end - start)
    }

    /// The empty range at zero (`kCMTimeRangeZero`).
    public static let zero = TimeRange(start: .zero, duration: .zero)
    /// The invalid range (`kCMTimeRangeInvalid`).
    public static let invalid = TimeRange(start: .invalid, duration: .invalid)

    /// `start + duration` (`CMTimeRangeGetEnd`): the first time after the range. Invalid
    /// for an invalid range; positive infinity for a range of infinite duration.
    public var end: MediaTime {
        guard isValid else { return .invalid }
        return start + duration
    }

    /// Whether the range is valid (`CMTIMERANGE_IS_VALID`): both times valid, and the
    /// duration of epoch zero and not negative.
    public var isValid: Bool {
        start.isValid && duration.isValid && duration.epoch == 0 && MediaTime.compare(duration, .zero) >= 0
    }

    /// A valid range with an indefinite start or duration (`CMTIMERANGE_IS_INDEFINITE`).
    public var isIndefinite: Bool { isValid && (start.isIndefinite || duration.isIndefinite) }

    /// A valid range whose duration is zero (`CMTIMERANGE_IS_EMPTY`): it contains no time.
    public var isEmpty: Bool { isValid && duration == .zero }

    /// Whether `time` is in `[start, end)` (`CMTimeRangeContainsTime`). Always false for
    /// an invalid range or time, and for an empty range.
    public func containsTime(_ time: MediaTime) -> Bool {
        guard isValid, time.isValid else { return false }
        return MediaTime.compare(time, start) >= 0 && MediaTime.compare(time, end) < 0
    }

    /// Whether `other` lies wholly inside this range (`CMTimeRangeContainsTimeRange`):
    /// `start <= other.start` and `other.end <= end`. An empty `other` at this range's end
    /// counts as inside. False when either range is invalid.
    public func containsTimeRange(_ other: TimeRange) -> Bool {
        guard isValid, other.isValid else { return false }
        return MediaTime.compare(other.start, start) >= 0 && MediaTime.compare(other.end, end) <= 0
    }

    /// The overlap of two ranges (`CMTimeRangeGetIntersection`): from the later start to
    /// the earlier end. Ranges that do not overlap give an empty range at the later start.
    /// Invalid when either range is.
    public func intersection(_ other: TimeRange) -> TimeRange {
        guard isValid, other.isValid else { return .invalid }
        let s = MediaTime.maximum(start, other.start)
        let e = MediaTime.minimum(end, other.end)
        if MediaTime.compare(e, s) <= 0 { return TimeRange(start: s, duration: .zero) }
        return TimeRange(start: s, end: e)
    }

    /// The smallest range holding both (`CMTimeRangeGetUnion`): from the earlier start to
    /// the later end, including any gap between them. Invalid when either range is.
    public func union(_ other: TimeRange) -> TimeRange {
        guard isValid, other.isValid else { return .invalid }
        return TimeRange(start: MediaTime.minimum(start, other.start), end: MediaTime.maximum(end, other.end))
    }

    /// `time` moved into the range (`CMTimeClampToRange`): `start` if before it, `end` if
    /// after it. Invalid for an invalid range or time.
    public func clamp(_ time: MediaTime) -> MediaTime {
        guard isValid, time.isValid else { return .invalid }
        if MediaTime.compare(time, start) < 0 { return start }
        let e = end
        if MediaTime.compare(time, e) > 0 { return e }
        return time
    }

    /// Maps `time` linearly from `from` onto `to` (`CMTimeMapTimeFromRangeToRange`):
    /// `from.start` goes to `to.start` and `from.end` to `to.end`.
    ///
    /// The result is `(time - from.start) * (to.duration / from.duration) + to.start`,
    /// computed exactly as a rational and rounded (half away from zero, flagged) only
    /// when it does not fit. Equal durations, or two infinite durations, just move the
    /// time by the difference of the starts. Invalid when either range is invalid or
    /// empty, or when `time` is not numeric or not in `from.start`'s epoch. Times outside
    /// `from` are mapped by the same line.
    public static func mapTime(_ time: MediaTime, from: TimeRange, to: TimeRange) -> MediaTime {
        guard from.isValid, to.isValid, !from.isEmpty, !to.isEmpty,
            time.isNumeric, from.start.isNumeric, to.start.isNumeric,
            time.epoch == from.start.epoch
        else { return .invalid }
        let offset = time - from.start
        let sd = to.duration, td = from.duration
        if sd == td || (sd.isPositiveInfinity && td.isPositiveInfinity) { return to.start + offset }
        guard sd.isNumeric, td.isNumeric else { return .invalid }
        return to.start + offset.scaled(by: sd, over: td)
    }

    /// Maps a duration from `from`'s scale onto `to`'s (`CMTimeMapDurationFromRangeToRange`):
    /// `duration * to.duration / from.duration`, exact where it fits.
    public static func mapDuration(_ duration: MediaTime, from: TimeRange, to: TimeRange) -> MediaTime {
        guard from.isValid, to.isValid, !from.isEmpty, duration.isValid else { return .invalid }
        if from.duration == to.duration { return duration }
        guard duration.isNumeric, from.duration.isNumeric, to.duration.isNumeric else { return .invalid }
        return duration.scaled(by: to.duration, over: from.duration)
    }
}

extension MediaTime {
    /// `self * numerator / denominator` for numeric times, exact where it fits: the
    /// rational product is reduced, then rounded half away from zero (and flagged) only
    /// if its value or timescale is out of range. `denominator` must not be zero.
    func scaled(by numerator: MediaTime, over denominator: MediaTime) -> MediaTime {
        // self = a/ta, numerator = n/tn, denominator = d/td: result = a*n*td / (ta*tn*d).
        var top = Int128(numerator.value) * Int128(denominator.timescale)
        var bottom = Int128(numerator.timescale) * Int128(denominator.value)
        if bottom == 0 { return .invalid }
        if bottom < 0 { top = -top; bottom = -bottom }
        let g = Int128(Self.gcd128(top.magnitude, bottom.magnitude))
        top /= g
        bottom /= g
        let rounded =
            flags.contains(.hasBeenRounded) || numerator.flags.contains(.hasBeenRounded)
            || denominator.flags.contains(.hasBeenRounded)
        // Now self * top / bottom: reduce the value against bottom and the timescale against top.
        let g1 = Int128(Self.gcd128(Int128(value).magnitude, bottom.magnitude))
        let g2 = Int128(Self.gcd128(Int128(timescale).magnitude, top.magnitude))
        let (num, o1) = (Int128(value) / g1).multipliedReportingOverflow(by: top / g2)
        let (den, o2) = (Int128(timescale) / g2).multipliedReportingOverflow(by: bottom / g1)
        guard !o1, !o2 else {
            // Out of 128-bit range: fall back to floating point at this timescale.
            var t = MediaTime(seconds: seconds * (numerator.seconds / denominator.seconds), preferredTimescale: timescale)
            t.epoch = epoch
            if t.isNumeric { t.flags.insert(.hasBeenRounded) }
            return t
        }
        let h = Int128(Self.gcd128(num.magnitude, den.magnitude))
        let (n, d) = (num / h, den / h)
        // Prefer this time's own timescale when the result is exact in it.
        if let ts = Int32(exactly: Int128(timescale)), (Int128(ts) % d) == 0 {
            let (v, o) = n.multipliedReportingOverflow(by: Int128(ts) / d)
            if !o, let value = Int64(exactly: v) {
                var t = MediaTime(value: value, timescale: ts, epoch: epoch)
                if rounded { t.flags.insert(.hasBeenRounded) }
                return t
            }
        }
        let scale = Int32(exactly: d) ?? Self.maxTimescale
        return Self.fitting(n, over: d, scale: scale, epoch: epoch, rounded: rounded)
    }
}

extension TimeRange: CustomStringConvertible {
    /// `[start, end)`, or `invalid`.
    public var description: String { isValid ? "[\(start), \(end))" : "invalid" }
}
