/// What the composition layer needs to know about a source track to edit it into a
/// composition: its identity, kind, extent and picture size (the parts of an `AssetTrack`
/// that matter here, without the file).
public struct SourceTrackDescription: Sendable, Hashable, Codable {
    /// The source and track this describes.
    public var reference: SourceTrackReference
    /// The kind of media the track holds.
    public var mediaType: MediaType
    /// The track's extent in its own media time.
    public var timeRange: TimeRange
    /// The picture size of a video track; `.zero` for other kinds.
    public var naturalSize: Size
    /// The usual duration of one frame (1001/30000 for 29.97 fps); invalid when unknown or
    /// not a video track.
    public var nominalFrameDuration: MediaTime
    /// How the track's pictures should be displayed (rotation of phone footage).
    public var preferredTransform: Transform2D

    /// A description of the track `reference`, of `mediaType`, over `timeRange`.
    public init(
        reference: SourceTrackReference, mediaType: MediaType, timeRange: TimeRange,
        naturalSize: Size = .zero, nominalFrameDuration: MediaTime = .invalid,
        preferredTransform: Transform2D = .identity
    ) {
        self.reference = reference
        self.mediaType = mediaType
        self.timeRange = timeRange
        self.naturalSize = naturalSize
        self.nominalFrameDuration = nominalFrameDuration
        self.preferredTransform = preferredTransform
    }

    /// The track's ID inside its source.
    public var trackID: Int32 { reference.trackID }
}

/// A whole source: its identifier and the tracks it offers (what `insertTimeRange(_:of:at:)`
/// on a composition takes, as AVFoundation takes an `AVAsset`).
public struct SourceDescription: Sendable, Hashable, Codable {
    /// Which source, for example a file path: the ``SourceTrackReference/sourceIdentifier`` its tracks name.
    public var identifier: String
    /// The tracks the source offers, in source order.
    public var tracks: [SourceTrackDescription]
    /// The metadata track a segment plays when it names none: the one a reader of the
    /// file would pick (holding GPS, else items). Nil: the first metadata track.
    public var preferredMetadataTrackID: Int32?

    /// A source with the given identifier and tracks.
    public init(identifier: String, tracks: [SourceTrackDescription], preferredMetadataTrackID: Int32? = nil) {
        self.identifier = identifier
        self.tracks = tracks
        self.preferredMetadataTrackID = preferredMetadataTrackID
    }

    /// The track of `mediaType` a segment plays when it names none: the preferred
    /// metadata track for metadata, else the first of the kind.
    public func defaultTrack(withMediaType mediaType: MediaType) -> SourceTrackDescription? {
        if mediaType == .metadata, let id = preferredMetadataTrackID, let t = track(withTrackID: id), t.mediaType == .metadata { return t }
        return tracks(withMediaType: mediaType).first
    }

    /// The tracks of one kind, in source order.
    public func tracks(withMediaType mediaType: MediaType) -> [SourceTrackDescription] {
        tracks.filter { $0.mediaType == mediaType }
    }

    /// The track with `trackID`, if the source has one.
    public func track(withTrackID trackID: Int32) -> SourceTrackDescription? {
        tracks.first { $0.trackID == trackID }
    }

    /// The longest extent of any track, from time zero.
    public var duration: MediaTime {
        tracks.reduce(MediaTime.zero) { MediaTime.maximum($0, $1.timeRange.end) }
    }
}
