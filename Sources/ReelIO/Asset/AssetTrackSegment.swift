import ReelCore

/// One segment of a track: how a stretch of the track's timeline maps to its media, or
/// that it shows nothing (AVAssetTrackSegment).
public struct AssetTrackSegment: Sendable, Hashable, CustomStringConvertible {
    /// The media range (`source`) shown over the track's range (`target`).
    public var timeMapping: TimeMapping

    public init(timeMapping: TimeMapping) {
        self.timeMapping = timeMapping
    }

    /// Whether the segment shows no media (an empty edit).
    public var isEmpty: Bool { timeMapping.isEmpty }

    public var description: String {
        isEmpty ? "empty \(timeMapping.target)" : "\(timeMapping.source) -> \(timeMapping.target)"
    }
}

extension AssetTrack {
    /// The segment whose target range holds `trackTime`, or else the one whose target range
    /// is nearest to it (AVAssetTrack.segment(forTrackTime:)); nil when the track has no
    /// segments or the time is invalid or indefinite.
    public func segment(forTrackTime trackTime: MediaTime) -> AssetTrackSegment? {
        guard trackTime.isValid, !trackTime.isIndefinite else { return nil }
        if let holding = segments.first(where: { $0.target.containsTime(trackTime) }) {
            return AssetTrackSegment(timeMapping: holding)
        }
        let valid = segments.filter { $0.target.isValid }
        guard let first = valid.first, let last = valid.last else { return nil }
        if trackTime < first.target.start { return AssetTrackSegment(timeMapping: first) }
        if trackTime >= last.target.end { return AssetTrackSegment(timeMapping: last) }
        // In a gap between segments: the nearer side.
        func distance(_ mapping: TimeMapping) -> MediaTime {
            trackTime < mapping.target.start ? mapping.target.start - trackTime : trackTime - mapping.target.end
        }
        return valid.min { distance($0) < distance($1) }.map(AssetTrackSegment.init)
    }

    /// Loads the segment for `trackTime` (AVAssetTrack.loadSegment(forTrackTime:)): see
    /// ``segment(forTrackTime:)``.
    public func loadSegment(forTrackTime trackTime: MediaTime) async throws(ReelError) -> AssetTrackSegment? {
        segment(forTrackTime: trackTime)
    }
}
