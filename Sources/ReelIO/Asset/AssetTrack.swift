import Foundation
import ReelCore

/// One track of an ``Asset``: its identity, kind, format, geometry and timing (AVAssetTrack).
///
/// Every property is read when the asset first loads its tracks, so reading one needs no
/// `await`; the `load...` methods that need more of the file (packets, other tracks) are
/// asynchronous. A track keeps what it needs to reach its file, not the ``Asset`` itself.
public struct AssetTrack: Sendable, CustomStringConvertible {
    /// The container's own id for the track, stable across runs: the MP4/MOV `tkhd` track
    /// id, the MPEG-TS PID; the stream index where the container has none (Matroska), as
    /// ``AssetReader`` numbers tracks.
    public var trackID: Int32
    /// The track's position among the container's streams (FFmpeg's stream index).
    public var index: Int
    /// What kind of media the track holds.
    public var mediaType: MediaType
    /// What the samples are; one entry in practice. Hand one to a writer input to copy
    /// the track's samples unchanged.
    public var formatDescriptions: [FormatDescription]
    /// For a timed-metadata track Reel decodes, the format of its samples (`gpmd`, `mebx`,
    /// `camm`, `klv`); nil for other tracks.
    public var metadataFormat: MetadataFormat?
    /// The track's handler name (MP4/MOV `hdlr`), trimmed: `GoPro MET`, `Core Media Metadata`.
    public var handlerName: String?
    /// Encoded picture size, before ``preferredTransform`` (zero for non-visual tracks).
    public var naturalSize: Size
    /// How to display the picture: the container's display matrix (MP4/MOV `tkhd` matrix).
    public var preferredTransform: Transform2D
    /// Frames per second on average (0 for non-visual tracks).
    public var nominalFrameRate: Float
    /// The shortest frame duration: from the stream's base frame rate, or from the sample
    /// table (or packets, with ``Asset/Options/preferPreciseDurationAndTiming``) when the
    /// frame rate varies.
    public var minFrameDuration: MediaTime
    /// Where the track's media lies on the asset's timeline.
    public var timeRange: TimeRange
    /// The track's time base denominator (MP4 `mdhd` timescale, 90000 in MPEG-TS).
    public var naturalTimeScale: Int32
    /// How the media maps onto the asset's timeline (AVAssetTrack.segments). In MP4/MOV,
    /// the track's edit list (`edts/elst`): an empty mapping for each empty edit, and for
    /// each other edit the media range it shows, in the media's own time (`source`, from
    /// the edit's media time: a B-frame delay shows here), over its range of the asset's
    /// timeline (`target`). Elsewhere, and for a track without an edit list, an empty edit
    /// first when the track starts after the asset does, then the media.
    public var segments: [TimeMapping]
    /// Bits per second, from the container (0 when unknown).
    public var estimatedDataRate: Float
    /// ISO 639-2/T language code (`eng`, `und`), when the container gives one.
    public var languageCode: String?
    /// The track's own tags (handler name, language, creation time, encoder, timecode).
    public var metadata: [MetadataItem]
    /// The SMPTE timecode of the track's first frame (`15:44:35:10`), when the file has one:
    /// a timecode track's (`tmcd`, whose first sample FFmpeg reads) and that of the video
    /// and audio tracks it times; a container's own timecode (MXF, MPEG-2 streams) for its
    /// video tracks. Count it at `Timecode/nominalRate(framesPerSecond:)` of the video's
    /// ``nominalFrameRate``.
    public var startTimecode: Timecode?
    /// Whether the container marks the track enabled (MP4 `tkhd` flag; true elsewhere).
    public var isEnabled: Bool
    /// Number of samples, when the container says (MP4 sample table).
    public var sampleCount: Int?
    /// Whether this FFmpeg build has a decoder for the track's samples (AVAssetTrack.isDecodable).
    public var isDecodable: Bool
    /// Whether the track can be played: audio, video or text that decodes, not a cover
    /// picture (AVAssetTrack.isPlayable).
    public var isPlayable: Bool

    /// Characteristics from the container's flags (forced, dubbed, for accessibility),
    /// besides those of the media type.
    var flags: Set<MediaCharacteristic>
    /// Whether the container marks the track as the default of its kind.
    var isMarkedDefault: Bool
    /// Whether the track is a cover picture (an attached picture: one still image, listed
    /// as video), not media to play or read.
    public internal(set) var isCoverPicture: Bool
    /// Whether the track is a QuickTime chapter track (the text track a `chap` reference
    /// names, whose samples are the file's chapters, read with `.chapters`): not captions
    /// to show, nor a track to play.
    public var isChapterList: Bool { mediaType == .text && codec == "bin_data" }

    /// Track IDs this track relates to, by association type.
    var associations: [TrackAssociationType: [Int32]]
    /// The file this track belongs to; nil only inside a probe snapshot.
    var source: AssetSource?

    /// The time base of the track, as FFmpeg gives it (`num/den`).
    var timeBase: (num: Int32, den: Int32)

    /// FFmpeg's codec name (`h264`, `aac`, `bin_data`, `klv`; `none` for data tracks FFmpeg
    /// has no codec for, such as `mebx`, `camm`, `tmcd`, `fdsc`).
    public var codec: String { formatDescriptions.first?.codecName ?? "none" }
    /// The track's format description (``formatDescriptions`` holds exactly one for every
    /// track Reel lists).
    public var formatDescription: FormatDescription { formatDescriptions[0] }
    /// The sample format (`avc1`, `mp4a`, `gpmd`, `mebx`, `klv`): see ``FormatDescription/format``.
    public var format: String { formatDescriptions.first?.format ?? "none" }

    /// The language as a BCP 47 tag (`en`, `fr`), from ``languageCode``; nil for `und`
    /// (AVAssetTrack.extendedLanguageTag).
    public var extendedLanguageTag: String? { languageCode.flatMap(LanguageTag.bcp47(fromISO639_2:)) }

    /// Whether the track can be offered as a media selection option (not a cover picture).
    var isSelectable: Bool { !isCoverPicture && !isChapterList }

    /// The display rotation in degrees, counter-clockwise as FFmpeg reports it
    /// (`av_display_rotation_get`): 0, 90, 180, -90 for the usual matrices.
    public var rotationDegrees: Double {
        let degrees = -atan2(preferredTransform.b, preferredTransform.a) * 180 / Double.pi
        return degrees == 0 ? 0 : degrees
    }

    /// The characteristics the container flags on this track (forced, dubbed, original,
    /// commentary, for accessibility), by name; those of its media type are left out.
    public var flaggedCharacteristics: [MediaCharacteristic] {
        flags.sorted { $0.rawValue < $1.rawValue }
    }

    /// Whether the track has `characteristic` (AVAssetTrack.hasMediaCharacteristic).
    public func hasMediaCharacteristic(_ characteristic: MediaCharacteristic) -> Bool {
        // A chapter track's text names the chapters: it is not shown over the picture.
        if characteristic == .legible, isChapterList { return false }
        return mediaType.characteristics.contains(characteristic) || flags.contains(characteristic)
    }

    /// The track's metadata items in one key space (AVAssetTrack.loadMetadata(for:)).
    public func loadMetadata(for format: MetadataKeySpace) async throws(ReelError) -> [MetadataItem] {
        metadata.filter { $0.keySpace == format }
    }

    /// Loads track properties by name, returning their values as a tuple:
    /// `let (size, transform) = try await track.load(.naturalSize, .preferredTransform)`.

    /// The presentation time of the sample shown at `trackTime`: the latest sample that
    /// starts at or before it, or the first sample for an earlier time. Reads packets of
    /// this track only (no decoding).
    public func loadSamplePresentationTime(forTrackTime trackTime: MediaTime) async throws(ReelError) -> MediaTime {
        guard let source else { throw ReelError(.internalError, "the track is not attached to a file", trackID: trackID) }
        guard trackTime.isNumeric else {
            throw ReelError(.invalidArgument, "the track time is not a number", path: NetworkInput.location(source.url), trackID: trackID, time: trackTime)
        }
        let index = self.index, trackID = self.trackID, timeBase = self.timeBase
        return try await source.perform { (source) throws(ReelError) in
            try source.samplePresentationTime(streamIndex: index, trackID: trackID, timeBase: timeBase, at: trackTime)
        }
    }

    /// The tracks this one relates to (AVAssetTrack.loadAssociatedTracks(ofType:)): a
    /// metadata track's ``TrackAssociationType/metadataReferent`` is the track it
    /// describes, a video track's ``TrackAssociationType/timecode`` its timecode track, a
    /// track's ``TrackAssociationType/chapterList`` the text track of its chapters; also
    /// ``TrackAssociationType/audioFallback``, ``TrackAssociationType/forcedSubtitlesOnly``
    /// and ``TrackAssociationType/selectionFollower``.
    ///
    /// In MP4/MOV the file's track references (`tref`) say so. Where the file has none of
    /// that type (and in other containers) a metadata track is taken to describe the first
    /// video track, and a video track's timecode is the file's timecode track.
    public func loadAssociatedTracks(ofType type: TrackAssociationType) async throws(ReelError) -> [AssetTrack] {
        guard let source else { return [] }
        let trackID = self.trackID
        let (snapshot, references) = try await source.perform { (source) throws(ReelError) in
            (try source.snapshot(), source.trackReferences())
        }
        var ids = references[trackID]?[type.rawValue] ?? []
        if ids.isEmpty { ids = associations[type] ?? [] }
        return ids.compactMap { id in snapshot.tracks.first { $0.trackID == id }?.attached(to: source) }
    }

    /// This track, able to reach its file.
    func attached(to source: AssetSource) -> AssetTrack {
        var copy = self
        copy.source = source
        return copy
    }

    public var description: String {
        "track \(trackID) (\(mediaType), \(codec), \(format))"
    }
}

extension AssetTrack: Hashable {
    /// Two tracks are equal when they are the same track of the same opened asset.
    public static func == (lhs: AssetTrack, rhs: AssetTrack) -> Bool {
        lhs.trackID == rhs.trackID && lhs.index == rhs.index
            && lhs.source.map(ObjectIdentifier.init) == rhs.source.map(ObjectIdentifier.init)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(trackID)
        hasher.combine(index)
        hasher.combine(source.map(ObjectIdentifier.init))
    }
}
