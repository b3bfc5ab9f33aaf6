/// One segment of a track's timeline (`CMTimeMapping`): the media in `source` plays over
/// `target`, sped up or slowed down when their durations differ.
///
/// An empty edit plays nothing over `target`: its `source` start is not numeric
/// (``init(emptyTarget:)`` makes it ``TimeRange/invalid``).
public struct TimeMapping: Sendable, Hashable, Codable {
    /// The span of the media (the track's own timeline) that plays.
    public var source: TimeRange
    /// Where it plays on the composition's timeline.
    public var target: TimeRange

    /// A segment playing `source` over `target` (`CMTimeMappingMake`).
    public init(source: TimeRange, target: TimeRange) {
        self.source = source
        self.target = target
    }

    /// An empty edit over `target` (`CMTimeMappingMakeEmpty`): `source` is invalid.
    public init(emptyTarget target: TimeRange) {
        self.source = .invalid
        self.target = target
    }

    /// Whether this is an empty edit (`CMTIMEMAPPING_IS_EMPTY`): a valid target and a
    /// source whose start is not numeric.
    public var isEmpty: Bool { !source.start.isNumeric && target.isValid }

    /// Whether the mapping is usable (`CMTIMEMAPPING_IS_VALID`): a valid target, and a
    /// valid source unless it is an empty edit.
    public var isValid: Bool { target.isValid && (isEmpty || source.isValid) }

    /// The speed factor, source duration over target duration: 1 for normal playback,
    /// 2 for double speed; 0 for an empty edit or an empty target.
    public var rate: Double {
        guard !isEmpty, target.duration.seconds != 0 else { return 0 }
        return source.duration.seconds / target.duration.seconds
    }

    /// The source time shown at target time `t`; nil for an empty edit, an invalid
    /// mapping, or a time outside `[target.start, target.end)`.
    ///
    /// Equal durations just shift `t` by the difference of the starts, exactly; other
    /// durations scale the offset into the target by `source.duration / target.duration`
    /// as an exact rational, rounding (half away from zero, flagged) only when the result
    /// does not fit.
    public func sourceTime(forTargetTime t: MediaTime) -> MediaTime? {
        guard isValid, !isEmpty, target.containsTime(t) else { return nil }
        let mapped = TimeRange.mapTime(t, from: target, to: source)
        return mapped.isValid ? mapped : nil
    }

    /// The target time at which source time `s` is shown; nil for an empty edit, an
    /// invalid mapping, or a time outside `[source.start, source.end)`.
    public func targetTime(forSourceTime s: MediaTime) -> MediaTime? {
        guard isValid, !isEmpty, source.containsTime(s) else { return nil }
        let mapped = TimeRange.mapTime(s, from: source, to: target)
        return mapped.isValid ? mapped : nil
    }
}

extension TimeMapping: CustomStringConvertible {
    /// `source -> target`, or `empty -> target`.
    public var description: String { "\(isEmpty ? "empty" : source.description) -> \(target)" }
}
