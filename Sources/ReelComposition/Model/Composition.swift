/// An edited timeline of tracks from one or more sources: AVFoundation's `AVComposition` and
/// `AVMutableComposition` in one value type (``MutableComposition`` is the same type, for
/// code that names it).
///
/// ```swift
/// var composition = Composition()
/// try composition.insertTimeRange(clipA.timeRange, of: clipA, at: .zero)
/// let video = composition.addMutableTrack(withMediaType: .video)
/// try composition.modifyTrack(withTrackID: video) { try $0.insertTimeRange(r, of: track, at: t) }
/// ```
///
/// A copy is independent of the value it was copied from, so what AVFoundation does with
/// `copy()` and `mutableCopy()` is an assignment here. A composition stores only references to
/// its sources (``SourceTrackReference``); the render engine gets their frames and metadata
/// through a ``RenderSourceProvider``.
public struct Composition: Sendable, Hashable, Codable {
    /// The tracks, in the order they were added.
    public private(set) var tracks: [CompositionTrack]
    /// The size a default video composition renders at; `.zero` to take it from the tracks.
    public var naturalSize: Size

    /// A composition of the given tracks; empty by default.
    public init(tracks: [CompositionTrack] = [], naturalSize: Size = .zero) {
        self.tracks = tracks
        self.naturalSize = naturalSize
    }

    /// A copy of `composition` (AVFoundation's snapshot of a mutable composition).
    public init(_ composition: Composition) {
        self = composition
    }

    /// A copy, to edit further (AVFoundation's `mutableCopy()`).
    public func mutableCopy() -> Composition { self }

    /// The end of the longest track.
    public var duration: MediaTime { tracks.reduce(MediaTime.zero) { MediaTime.maximum($0, $1.timeRange.end) } }

    /// `[0, duration)`.
    public var timeRange: TimeRange { TimeRange(start: .zero, duration: duration) }

    /// The track with `trackID`, if the composition has one.
    public func track(withTrackID trackID: Int32) -> CompositionTrack? { tracks.first { $0.trackID == trackID } }

    /// The tracks of one kind, in the order they were added.
    public func tracks(withMediaType mediaType: MediaType) -> [CompositionTrack] { tracks.filter { $0.mediaType == mediaType } }

    /// Every source the composition plays from, each once, in order of first use.
    public var sourceTrackReferences: [SourceTrackReference] {
        var seen = Set<SourceTrackReference>()
        var out: [SourceTrackReference] = []
        for track in tracks {
            for case let ref? in track.segments.map(\.sourceTrack) where seen.insert(ref).inserted { out.append(ref) }
        }
        return out
    }

    /// Adds an empty track and returns its ID: `preferredTrackID` when given and free, else
    /// one more than the largest ID in use.
    @discardableResult
    public mutating func addMutableTrack(withMediaType mediaType: MediaType, preferredTrackID: Int32? = nil) -> Int32 {
        let id: Int32
        if let preferred = preferredTrackID, preferred > 0, track(withTrackID: preferred) == nil {
            id = preferred
        } else {
            id = (tracks.map(\.trackID).max() ?? 0) + 1
        }
        tracks.append(CompositionTrack(trackID: id, mediaType: mediaType))
        return id
    }

    /// Adds a ready-made track (from a composition file); its ID must be free.
    public mutating func addTrack(_ track: CompositionTrack) throws(ReelError) {
        guard self.track(withTrackID: track.trackID) == nil else {
            throw ReelError(.invalidArgument, "the composition already has a track \(track.trackID)", trackID: track.trackID)
        }
        if let problem = track.segmentProblem() { throw ReelError(.invalidComposition, problem, trackID: track.trackID) }
        tracks.append(track)
    }

    /// Removes the track with `trackID`, if there is one.
    public mutating func removeTrack(withTrackID trackID: Int32) {
        tracks.removeAll { $0.trackID == trackID }
    }

    /// Edits the track with `trackID` in place.
    public mutating func modifyTrack<R>(
        withTrackID trackID: Int32,
        _ body: (inout CompositionTrack) throws(ReelError) -> R
    ) throws(ReelError) -> R {
        guard let i = tracks.firstIndex(where: { $0.trackID == trackID }) else {
            throw ReelError(.invalidArgument, "the composition has no track \(trackID)", trackID: trackID)
        }
        return try body(&tracks[i])
    }

    /// Inserts `timeRange` of one source track into the composition track `trackID`.
    public mutating func insertTimeRange(
        _ timeRange: TimeRange, of sourceTrack: SourceTrackDescription,
        intoTrackWithID trackID: Int32, at startTime: MediaTime
    ) throws(ReelError) {
        try modifyTrack(withTrackID: trackID) { (t: inout CompositionTrack) throws(ReelError) in
            try t.insertTimeRange(timeRange, of: sourceTrack, at: startTime)
        }
    }

    /// Inserts `timeRange` of every track of `source` at `startTime` (`insertTimeRange(_:of:at:)`
    /// with an asset): the n-th source track of a kind goes into the n-th composition track of
    /// that kind, added when missing. Every other track gets an empty edit there, so the whole
    /// timeline after `startTime` moves later by the range's duration. A source track shorter
    /// than the range is padded with empty edits.
    public mutating func insertTimeRange(_ timeRange: TimeRange, of source: SourceDescription, at startTime: MediaTime) throws(ReelError) {
        try CompositionTrack.checkRange(timeRange, "the inserted time range", trackID: nil)
        var used = Set<Int32>()
        var perKind: [MediaType: Int] = [:]
        var edited = self
        for sourceTrack in source.tracks {
            let n = perKind[sourceTrack.mediaType, default: 0]
            perKind[sourceTrack.mediaType] = n + 1
            let existing = edited.tracks(withMediaType: sourceTrack.mediaType)
            let id = n < existing.count ? existing[n].trackID : edited.addMutableTrack(withMediaType: sourceTrack.mediaType)
            used.insert(id)
            let part = sourceTrack.timeRange.isValid ? timeRange.intersection(sourceTrack.timeRange) : timeRange
            try edited.modifyTrack(withTrackID: id) { (t: inout CompositionTrack) throws(ReelError) in
                if part.duration > .zero {
                    let before = part.start - timeRange.start
                    let after = timeRange.end - part.end
                    try t.insertTimeRange(part, of: sourceTrack, at: startTime)
                    if before > .zero { try t.insertEmptyTimeRange(TimeRange(start: startTime, duration: before)) }
                    if after > .zero { try t.insertEmptyTimeRange(TimeRange(start: startTime + before + part.duration, duration: after)) }
                } else {
                    try t.insertEmptyTimeRange(TimeRange(start: startTime, duration: timeRange.duration))
                }
            }
        }
        for i in edited.tracks.indices where !used.contains(edited.tracks[i].trackID) && startTime < edited.tracks[i].timeRange.end {
            try edited.tracks[i].insertEmptyTimeRange(TimeRange(start: startTime, duration: timeRange.duration))
        }
        self = edited
    }

    /// Inserts an empty edit over `timeRange` in every track.
    public mutating func insertEmptyTimeRange(_ timeRange: TimeRange) throws(ReelError) {
        var edited = self
        for i in edited.tracks.indices { try edited.tracks[i].insertEmptyTimeRange(timeRange) }
        self = edited
    }

    /// Removes `timeRange` from every track.
    public mutating func removeTimeRange(_ timeRange: TimeRange) throws(ReelError) {
        var edited = self
        for i in edited.tracks.indices { try edited.tracks[i].removeTimeRange(timeRange) }
        self = edited
    }

    /// Scales `timeRange` of every track to `duration`.
    public mutating func scaleTimeRange(_ timeRange: TimeRange, toDuration duration: MediaTime) throws(ReelError) {
        var edited = self
        for i in edited.tracks.indices { try edited.tracks[i].scaleTimeRange(timeRange, toDuration: duration) }
        self = edited
    }
}

/// A composition being edited (`AVMutableComposition`): the same type as ``Composition``.
public typealias MutableComposition = Composition
