import Reel

extension CompositionFile {
    /// One composition track: a kind and its segments, played one after another from time zero.
    public struct Track: Sendable, Hashable, Codable {
        /// What instructions and layer instructions call the track (1 or more, unique).
        public var trackID: Int32
        public var mediaType: Kind
        /// Played in order, each starting where the previous ends.
        public var segments: [Segment]

        public init(trackID: Int32, mediaType: Kind, segments: [Segment]) {
            self.trackID = trackID
            self.mediaType = mediaType
            self.segments = segments
        }

        /// The kind of a composition track, written `"video"`, `"audio"`, `"metadata"` or
        /// `"captions"` (3GPP timed text or subtitles, from a media file or a caption file).
        public enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
            case video, audio, metadata, captions

            public init(from decoder: any Decoder) throws {
                let c = try decoder.singleValueContainer()
                let text = try c.decode(String.self)
                guard let kind = Kind(rawValue: text) else {
                    throw DecodingError.dataCorruptedError(
                        in: c, debugDescription: "expected \"video\", \"audio\", \"metadata\" or \"captions\", got \"\(text)\"")
                }
                self = kind
            }

            /// The matching `MediaType` (captions: subtitle; a captions track takes the
            /// type of the source track it plays, text for 3GPP timed text).
            public var mediaType: MediaType {
                switch self {
                case .video: .video
                case .audio: .audio
                case .metadata: .metadata
                case .captions: .subtitle
                }
            }

            /// Whether a source track of `type` can play in a track of this kind.
            public func plays(_ type: MediaType) -> Bool {
                self == .captions ? type == .text || type == .subtitle : type == mediaType
            }

            /// The track of this kind a segment plays when it names none.
            func defaultTrack(in source: SourceDescription) -> SourceTrackDescription? {
                self == .captions ? source.tracks.first { plays($0.mediaType) } : source.defaultTrack(withMediaType: mediaType)
            }
        }
    }

    /// A span of one source track, or an empty edit.
    ///
    /// `{"source": "camera"}` plays the whole first track of the track's kind in that
    /// source; `sourceTrackID` picks another track, `sourceStart` and `duration` a part, and
    /// `scaledDuration` plays that part over another duration (speed change).
    /// `{"empty": 2}` shows nothing for 2 s.
    public struct Segment: Sendable, Hashable, Codable {
        /// The name of a source in ``CompositionFile/sources``.
        public var source: String?
        /// The track ID inside the source file (as `reel inspect` lists it); by default the
        /// source's first track of the composition track's kind.
        public var sourceTrackID: Int32?
        /// Where in the source track to start; 0 by default.
        public var sourceStart: MediaTime?
        /// How much of the source to play; by default up to the end of the source track.
        public var duration: MediaTime?
        /// The composition time the part takes, when not `duration` (a speed change).
        public var scaledDuration: MediaTime?
        /// An empty edit of this duration instead of a source.
        public var empty: MediaTime?

        public init(
            source: String? = nil, sourceTrackID: Int32? = nil, sourceStart: MediaTime? = nil,
            duration: MediaTime? = nil, scaledDuration: MediaTime? = nil, empty: MediaTime? = nil
        ) {
            self.source = source
            self.sourceTrackID = sourceTrackID
            self.sourceStart = sourceStart
            self.duration = duration
            self.scaledDuration = scaledDuration
            self.empty = empty
        }
    }
}
