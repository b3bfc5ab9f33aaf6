/// One track of a ``Composition``: a timeline of segments from source tracks of one media
/// kind (`AVCompositionTrack` / `AVMutableCompositionTrack`).
///
/// The segments tile the track's timeline from time zero with no gaps: inserting past the
/// end adds an empty edit first. The editing methods mirror `AVMutableCompositionTrack`'s.
public struct CompositionTrack: Sendable, Hashable, Codable {
    /// The track's ID in the composition (what instructions and layer instructions name).
    public let trackID: Int32
    /// The kind of media the track plays (video, audio, metadata, ...).
    public let mediaType: MediaType
    /// The segments, in time order, tiling `[0, timeRange.end)`.
    public internal(set) var segments: [CompositionTrackSegment]
    /// The picture size (from the first video inserted, unless set).
    public var naturalSize: Size
    /// The usual frame duration (from the first video inserted, unless set); invalid when unknown.
    public var nominalFrameDuration: MediaTime
    /// How the pictures should be displayed.
    public var preferredTransform: Transform2D
    /// A disabled track is ignored when the composition is rendered with default settings.
    public var isEnabled: Bool

    /// A track with the given ID, kind and segments; the segments are taken as they are.
    public init(
        trackID: Int32, mediaType: MediaType, segments: [CompositionTrackSegment] = [],
        naturalSize: Size = .zero, nominalFrameDuration: MediaTime = .invalid,
        preferredTransform: Transform2D = .identity, isEnabled: Bool = true
    ) {
        self.trackID = trackID
        self.mediaType = mediaType
        self.segments = segments
        self.naturalSize = naturalSize
        self.nominalFrameDuration = nominalFrameDuration
        self.preferredTransform = preferredTransform
        self.isEnabled = isEnabled
    }

    /// `[0, end of the last segment)`.
    public var timeRange: TimeRange {
        TimeRange(start: .zero, end: segments.last?.target.end ?? .zero)
    }

    /// Whether the track plays nothing anywhere.
    public var isEmpty: Bool { segments.allSatisfy(\.isEmpty) }

    /// The segment covering composition time `t` (`segment(forTrackTime:)`), nil past the end.
    public func segment(forTrackTime t: MediaTime) -> CompositionTrackSegment? {
        guard let i = segmentIndex(containing: t) else { return nil }
        return segments[i]
    }

    /// The source track and source time shown at composition time `t`; nil in an empty edit
    /// or outside the track.
    public func sourceTime(at t: MediaTime) -> (source: SourceTrackReference, time: MediaTime)? {
        guard let segment = segment(forTrackTime: t), let source = segment.sourceTrack,
            let time = segment.sourceTime(forCompositionTime: t)
        else { return nil }
        return (source, time)
    }

    /// Whether the segments tile the timeline from zero, each valid; nil when they do, else
    /// the first problem in words.
    public func segmentProblem() -> String? {
        var expected = MediaTime.zero
        for (i, s) in segments.enumerated() {
            guard s.target.isValid, s.target.start.isNumeric, s.target.duration.isNumeric else {
                return "track \(trackID) segments[\(i)] has an invalid time range"
            }
            if s.target.start != expected {
                return
                    "track \(trackID) segments[\(i)] starts at \(s.target.start.secondsDescription) but the previous segment ends at \(expected.secondsDescription)"
            }
            expected = s.target.end
        }
        return nil
    }

    // MARK: Editing

    /// Inserts `timeRange` of `sourceTrack` at `startTime`; what was at or after `startTime`
    /// moves later by the range's duration (`insertTimeRange(_:of:at:)`).
    public mutating func insertTimeRange(
        _ timeRange: TimeRange, of sourceTrack: SourceTrackDescription,
        at startTime: MediaTime
    ) throws(ReelError) {
        guard sourceTrack.mediaType == mediaType else {
            throw ReelError(
                .invalidArgument, "cannot insert \(sourceTrack.mediaType) from \(sourceTrack.reference) into a \(mediaType) track",
                trackID: trackID)
        }
        try Self.checkRange(timeRange, "the inserted time range", trackID: trackID)
        if sourceTrack.timeRange.isValid, !sourceTrack.timeRange.containsTimeRange(timeRange) {
            throw ReelError(
                .invalidArgument,
                "the inserted time range \(Self.words(timeRange)) is outside \(sourceTrack.reference), which spans \(Self.words(sourceTrack.timeRange))",
                trackID: trackID)
        }
        let segment = CompositionTrackSegment(
            sourceTrack: sourceTrack.reference,
            timeMapping: TimeMapping(source: timeRange, target: TimeRange(start: startTime, duration: timeRange.duration)))
        try insert([segment], duration: timeRange.duration, at: startTime)
        if mediaType == .video {
            if naturalSize == .zero { naturalSize = sourceTrack.naturalSize }
            if !nominalFrameDuration.isValid { nominalFrameDuration = sourceTrack.nominalFrameDuration }
            if preferredTransform.isIdentity { preferredTransform = sourceTrack.preferredTransform }
        }
    }

    /// Inserts an empty edit over `timeRange`; what was at or after its start moves later.
    public mutating func insertEmptyTimeRange(_ timeRange: TimeRange) throws(ReelError) {
        try Self.checkRange(timeRange, "the empty time range", trackID: trackID)
        try insert([CompositionTrackSegment(emptyTarget: timeRange)], duration: timeRange.duration, at: timeRange.start)
    }

    /// Removes `timeRange` from the track; what was after it moves earlier.
    public mutating func removeTimeRange(_ timeRange: TimeRange) throws(ReelError) {
        try Self.checkRange(timeRange, "the removed time range", trackID: trackID)
        let end = self.timeRange.end
        guard timeRange.start < end else { return }
        let removeEnd = MediaTime.minimum(timeRange.end, end)
        split(at: timeRange.start)
        split(at: removeEnd)
        let removed = removeEnd - timeRange.start
        segments = segments.compactMap { s in
            if !(s.target.start < timeRange.start) && !(removeEnd < s.target.end) { return nil }
            return s.target.start < timeRange.start ? s : s.shifted(by: -removed)
        }
    }

    /// Plays `timeRange` over `duration` instead, speeding it up or slowing it down; what was
    /// after it moves by the difference (`scaleTimeRange(_:toDuration:)`).
    public mutating func scaleTimeRange(_ timeRange: TimeRange, toDuration duration: MediaTime) throws(ReelError) {
        try Self.checkRange(timeRange, "the scaled time range", trackID: trackID)
        guard duration.isNumeric, duration > .zero else {
            throw ReelError(
                .invalidArgument, "cannot scale \(Self.words(timeRange)) to \(duration.secondsDescription): the new duration must be positive",
                trackID: trackID)
        }
        let end = self.timeRange.end
        guard timeRange.start < end else { return }
        let scaleEnd = MediaTime.minimum(timeRange.end, end)
        let oldDuration = scaleEnd - timeRange.start
        let newDuration = scaleEnd == timeRange.end ? duration : oldDuration.scaled(by: duration, over: timeRange.duration)
        split(at: timeRange.start)
        split(at: scaleEnd)
        segments = segments.map { s in
            if s.target.start < timeRange.start { return s }
            if !(s.target.start < scaleEnd) { return s.shifted(by: newDuration - oldDuration) }
            var scaled = s
            let start = timeRange.start + (s.target.start - timeRange.start).scaled(by: newDuration, over: oldDuration)
            let stop = timeRange.start + (s.target.end - timeRange.start).scaled(by: newDuration, over: oldDuration)
            scaled.timeMapping.target = TimeRange(start: start, end: stop)
            if s.isEmpty { scaled.timeMapping.source.duration = scaled.target.duration }
            return scaled
        }
    }

    // MARK: Internals

    func segmentIndex(containing t: MediaTime) -> Int? {
        var lo = 0, hi = segments.count
        while lo < hi {
            let mid = (lo + hi) / 2
            let r = segments[mid].target
            if t < r.start { hi = mid } else if !(t < r.end) { lo = mid + 1 } else { return mid }
        }
        return nil
    }

    /// Cuts the segment holding `t` in two at `t` (no-op at a boundary or outside).
    mutating func split(at t: MediaTime) {
        guard let i = segmentIndex(containing: t), segments[i].target.start != t else { return }
        let s = segments[i]
        var first = s, second = s
        first.timeMapping.target = TimeRange(start: s.target.start, end: t)
        second.timeMapping.target = TimeRange(start: t, end: s.target.end)
        if s.isEmpty {
            first.timeMapping.source.duration = first.target.duration
            second.timeMapping.source.duration = second.target.duration
        } else {
            let sourceCut = s.timeMapping.sourceTime(forTargetTime: t) ?? s.timeMapping.source.start
            first.timeMapping.source = TimeRange(start: s.timeMapping.source.start, end: sourceCut)
            second.timeMapping.source = TimeRange(start: sourceCut, end: s.timeMapping.source.end)
        }
        segments.replaceSubrange(i...i, with: [first, second])
    }

    mutating func insert(_ new: [CompositionTrackSegment], duration: MediaTime, at startTime: MediaTime) throws(ReelError) {
        guard startTime.isNumeric, !(startTime < .zero) else {
            throw ReelError(.invalidArgument, "cannot insert at \(startTime.secondsDescription): the time must be zero or later", trackID: trackID)
        }
        let end = timeRange.end
        if end < startTime {
            segments.append(CompositionTrackSegment(emptyTarget: TimeRange(start: end, end: startTime)))
        }
        split(at: startTime)
        let index = segments.firstIndex { !($0.target.start < startTime) } ?? segments.count
        let moved = segments[index...].map { $0.shifted(by: duration) }
        segments.replaceSubrange(index..., with: new + moved)
    }

    static func checkRange(_ range: TimeRange, _ what: String, trackID: Int32?) throws(ReelError) {
        guard range.isValid, range.start.isNumeric, range.duration.isNumeric else {
            throw ReelError(.invalidArgument, "\(what) \(range) is not a valid, finite time range", trackID: trackID)
        }
        guard range.duration > .zero else {
            throw ReelError(.invalidArgument, "\(what) \(words(range)) is empty", trackID: trackID)
        }
    }

    /// `from 1 s to 2.5 s`.
    static func words(_ range: TimeRange) -> String {
        "from \(range.start.secondsDescription) to \(range.end.secondsDescription)"
    }
}
