/// An edited timeline of tracks from one or more sources (`AVComposition`): immutable.
///
/// Make one with ``MutableComposition`` and take a snapshot with `Composition(_:)`. A
/// composition stores only references to its sources (``SourceTrackReference``); the render
/// engine gets their frames and metadata through a ``RenderSourceProvider``.
public struct Composition: Sendable, Hashable, Codable {
    /// The tracks, in the order they were added.
    public let tracks: [CompositionTrack]
    /// The size a default video composition renders at; `.zero` to take it from the tracks.
    public let naturalSize: Size

    public init(tracks: [CompositionTrack] = [], naturalSize: Size = .zero) {
        self.tracks = tracks
        self.naturalSize = naturalSize
    }

    /// A snapshot of a mutable composition.
    public init(_ composition: MutableComposition) {
        self.init(tracks: composition.tracks, naturalSize: composition.naturalSize)
    }

    /// A mutable copy, to edit further.
    public func mutableCopy() -> MutableComposition { MutableComposition(self) }

    /// The end of the longest track.
    public var duration: MediaTime { tracks.reduce(MediaTime.zero) { MediaTime.maximum($0, $1.timeRange.end) } }

    /// `[0, duration)`.
    public var timeRange: TimeRange { TimeRange(start: .zero, duration: duration) }

    public func track(withTrackID trackID: Int32) -> CompositionTrack? { tracks.first { $0.trackID == trackID } }

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
}
