/// A half-open span of media time, `[start, start + duration)`, with CMTimeRange's semantics.
public struct TimeRange: Sendable, Hashable, Codable {
    public var start: MediaTime
    public var duration: MediaTime

    public init(start: MediaTime, duration: MediaTime) {
        self.start = start
        self.duration = duration
    }

    /// The range from `start` up to (not including) `end`.
    public init(start: MediaTime, end: MediaTime) {
        self.init(start: start, duration: end - start)
    }

    public static let zero = TimeRange(start: .zero, duration: .zero)
    public static let invalid = TimeRange(start: .invalid, duration: .invalid)

    /// `start + duration`: the first time after the range.
    public var end: MediaTime { start + duration }

    /// Both times valid, the duration not negative and its epoch zero.
    public var isValid: Bool {
        start.isValid && duration.isValid && duration.epoch == 0 && !(duration < .zero)
    }

    /// A valid range whose duration is zero.
    public var isEmpty: Bool { isValid && duration == .zero }

    /// Whether `time` is in `[start, end)`.
    public func containsTime(_ time: MediaTime) -> Bool {
        guard isValid, time.isValid else { return false }
        return !(time < start) && time < end
    }

    /// Whether `other` lies wholly inside this range.
    public func containsTimeRange(_ other: TimeRange) -> Bool {
        guard isValid, other.isValid else { return false }
        return !(other.start < start) && !(end < other.end)
    }

    /// The overlap of two ranges; an empty range at the later start when they do not meet.
    public func intersection(_ other: TimeRange) -> TimeRange {
        guard isValid, other.isValid else { return .invalid }
        let s = MediaTime.maximum(start, other.start)
        let e = MediaTime.minimum(end, other.end)
        return e < s ? TimeRange(start: s, duration: .zero) : TimeRange(start: s, end: e)
    }

    /// The smallest range holding both.
    public func union(_ other: TimeRange) -> TimeRange {
        guard isValid, other.isValid else { return .invalid }
        return TimeRange(start: MediaTime.minimum(start, other.start), end: MediaTime.maximum(end, other.end))
    }
}

extension TimeRange: CustomStringConvertible {
    public var description: String { "[\(start), \(end))" }
}

/// One segment of a track's timeline: media time range `source` plays over `target`
/// (`CMTimeMapping`). An empty edit has an invalid `source.start`.
public struct TimeMapping: Sendable, Hashable, Codable {
    public var source: TimeRange
    public var target: TimeRange

    public init(source: TimeRange, target: TimeRange) {
        self.source = source
        self.target = target
    }

    /// An empty edit: nothing plays over `target`.
    public init(emptyTarget target: TimeRange) {
        self.source = TimeRange(start: .invalid, duration: target.duration)
        self.target = target
    }

    /// Whether this segment plays nothing.
    public var isEmpty: Bool { !source.start.isValid }

    /// The speed factor: source duration over target duration (1 for normal playback).
    public var rate: Double { target.duration.seconds == 0 ? 0 : source.duration.seconds / target.duration.seconds }

    /// The source time shown at target time `t`, exact when the durations are equal and
    /// otherwise scaled linearly; nil for an empty edit or a time outside `target`.
    public func sourceTime(forTargetTime t: MediaTime) -> MediaTime? {
        guard !isEmpty, target.containsTime(t) || (t == target.start) else { return nil }
        let offset = t - target.start
        if source.duration == target.duration { return source.start + offset }
        // Scale: offset * sourceDuration / targetDuration, in exact rationals where they fit.
        let sd = source.duration, td = target.duration
        let common = MediaTime.commonTimescale(sd.timescale, td.timescale) ?? max(sd.timescale, td.timescale)
        let s = sd.convertScale(common), d = td.convertScale(common)
        guard d.value != 0 else { return source.start }
        if let num = Int32(exactly: s.value), let den = Int32(exactly: d.value) {
            return source.start + offset.multiplied(byRatio: num, den)
        }
        return source.start + offset.multiplied(by: s.seconds / d.seconds)
    }
}
