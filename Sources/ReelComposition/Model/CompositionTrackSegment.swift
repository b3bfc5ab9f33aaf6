/// One piece of a composition track's timeline: a span of a source track played over a span
/// of the composition (`AVCompositionTrackSegment`), or an empty edit.
public struct CompositionTrackSegment: Sendable, Hashable, Codable {
    /// Which source time range plays over which composition time range.
    public var timeMapping: TimeMapping
    /// The source track played, or nil for an empty edit.
    public var sourceTrack: SourceTrackReference?

    /// A segment playing `sourceTrack` over `timeMapping`.
    public init(sourceTrack: SourceTrackReference, timeMapping: TimeMapping) {
        self.sourceTrack = sourceTrack
        self.timeMapping = timeMapping
    }

    /// An empty edit over `target`: nothing plays there.
    public init(emptyTarget target: TimeRange) {
        self.sourceTrack = nil
        self.timeMapping = TimeMapping(emptyTarget: target)
    }

    /// Whether nothing plays over this segment.
    public var isEmpty: Bool { sourceTrack == nil || timeMapping.isEmpty }

    /// The composition time range this segment covers.
    public var target: TimeRange { timeMapping.target }

    /// The source time shown at composition time `t`, or nil for an empty edit or a time
    /// outside the segment.
    public func sourceTime(forCompositionTime t: MediaTime) -> MediaTime? {
        guard !isEmpty, target.containsTime(t) else { return nil }
        return timeMapping.sourceTime(forTargetTime: t)
    }

    /// The composition time at which source time `s` is shown (the inverse mapping, not
    /// limited to the segment); nil for an empty edit.
    public func compositionTime(forSourceTime s: MediaTime) -> MediaTime? {
        guard !isEmpty else { return nil }
        let source = timeMapping.source, target = timeMapping.target
        let offset = s - source.start
        if source.duration == target.duration { return target.start + offset }
        guard source.duration > .zero else { return target.start }
        return target.start + offset.scaled(by: target.duration, over: source.duration)
    }

    /// `sourceRange` (source time) seen on the composition timeline, clipped to this segment.
    public func compositionTimeRange(forSourceTimeRange sourceRange: TimeRange) -> TimeRange? {
        guard let start = compositionTime(forSourceTime: sourceRange.start),
            let end = compositionTime(forSourceTime: sourceRange.end)
        else { return nil }
        return TimeRange(start: start, end: end).intersection(target)
    }

    /// The same segment moved by `offset` on the composition timeline.
    func shifted(by offset: MediaTime) -> CompositionTrackSegment {
        var s = self
        s.timeMapping.target.start = target.start + offset
        return s
    }
}

extension MediaTime {
    /// `self * numerator / denominator` with the two times taken as a ratio, exact when the
    /// ratio fits in 32-bit integers at their common timescale.
    func scaled(by numerator: MediaTime, over denominator: MediaTime) -> MediaTime {
        let common =
            Self.leastCommonTimescale(numerator.timescale, denominator.timescale)
            ?? max(numerator.timescale, denominator.timescale)
        let n = numerator.convertScale(common), d = denominator.convertScale(common)
        guard d.value != 0 else { return .invalid }
        if let n32 = Int32(exactly: n.value), let d32 = Int32(exactly: d.value) {
            return multiplied(byRatio: n32, d32)
        }
        return multiplied(by: n.seconds / d.seconds)
    }
}

extension MediaTime {
    /// The least common multiple of two timescales, or nil when it does not fit in Int32.
    static func leastCommonTimescale(_ a: Int32, _ b: Int32) -> Int32? {
        guard a > 0, b > 0 else { return nil }
        if a == b { return a }
        var x = Int64(a), y = Int64(b)
        while y != 0 { (x, y) = (y, x % y) }
        return Int32(exactly: Int64(a) / x * Int64(b))
    }
}
