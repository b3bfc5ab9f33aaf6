import ReelCore

extension MediaType {
    /// A data track of a kind Reel does not interpret (GoPro "SOS" `fdsc`, ...).
    public static let data = MediaType(rawValue: "data")
    /// A file attached to the container (Matroska fonts, cover art files).
    public static let attachment = MediaType(rawValue: "attachment")

    /// The characteristics a track of this type has.
    var characteristics: Set<MediaCharacteristic> {
        switch self {
        case .video: [.visual, .frameBased]
        case .audio: [.audible]
        case .text, .subtitle: [.legible]
        case .metadata: [.containsTimedMetadata]
        default: []
        }
    }
}

/// A trait a track may have, used to select tracks (AVMediaCharacteristic).
public struct MediaCharacteristic: RawRepresentable, Sendable, Hashable {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Shows pictures: video tracks.
    public static let visual = MediaCharacteristic(rawValue: "visual")
    /// Makes sound: audio tracks.
    public static let audible = MediaCharacteristic(rawValue: "audible")
    /// Holds readable text: text and subtitle tracks.
    public static let legible = MediaCharacteristic(rawValue: "legible")
    /// Made of discrete frames: video tracks.
    public static let frameBased = MediaCharacteristic(rawValue: "frameBased")
    /// Holds timed metadata (telemetry, detected faces, KLV).
    public static let containsTimedMetadata = MediaCharacteristic(rawValue: "containsTimedMetadata")
    /// Subtitles shown only where the picture needs them, such as foreign dialogue
    /// (FFmpeg's `forced` disposition; MP4 `kind` role `forced-subtitle`).
    public static let containsOnlyForcedSubtitles = MediaCharacteristic(rawValue: "containsOnlyForcedSubtitles")
    /// Describes sounds as well as dialogue, for the hard of hearing (`hearing_impaired`
    /// or `captions` disposition).
    public static let describesMusicAndSoundForAccessibility = MediaCharacteristic(rawValue: "describesMusicAndSoundForAccessibility")
    /// Transcribes the dialogue, for the hard of hearing (`hearing_impaired` or `captions`).
    public static let transcribesSpokenDialogForAccessibility = MediaCharacteristic(rawValue: "transcribesSpokenDialogForAccessibility")
    /// Describes the picture, for the visually impaired (`visual_impaired` or `descriptions`).
    public static let describesVideoForAccessibility = MediaCharacteristic(rawValue: "describesVideoForAccessibility")
    /// A translation dubbed over the original (`dub` disposition).
    public static let dubbedTranslation = MediaCharacteristic(rawValue: "dubbedTranslation")
    /// The content in its original language (`original` disposition).
    public static let isOriginalContent = MediaCharacteristic(rawValue: "isOriginalContent")
    /// Content beside the main programme, such as a commentary (`comment` disposition).
    public static let isAuxiliaryContent = MediaCharacteristic(rawValue: "isAuxiliaryContent")
}

/// How one track relates to another (AVAssetTrack.AssociationType).
public struct TrackAssociationType: RawRepresentable, Sendable, Hashable {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// A timed-metadata track describes the returned (video) track (`cdsc`).
    public static let metadataReferent = TrackAssociationType(rawValue: "cdsc")
    /// The returned timecode track gives the timecode of this track (`tmcd`).
    public static let timecode = TrackAssociationType(rawValue: "tmcd")
    /// The returned text track holds this track's chapters (`chap`).
    public static let chapterList = TrackAssociationType(rawValue: "chap")
    /// The returned audio track plays where this one's format cannot (`fall`).
    public static let audioFallback = TrackAssociationType(rawValue: "fall")
    /// The returned subtitle track holds only this one's forced subtitles (`forc`).
    public static let forcedSubtitlesOnly = TrackAssociationType(rawValue: "forc")
    /// This track is selected when the returned track is (`folw`).
    public static let selectionFollower = TrackAssociationType(rawValue: "folw")
}
