/// The kind of media a track holds (AVMediaType).
///
/// Raw values are readable names (`video`, `audio`, `metadata`, ...), the same words
/// `reel inspect --json` prints.
public struct MediaType: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Pictures.
    public static let video = MediaType(rawValue: "video")
    /// Sound.
    public static let audio = MediaType(rawValue: "audio")
    /// Timed text that is part of the presentation (QuickTime text, `mov_text`).
    public static let text = MediaType(rawValue: "text")
    /// Subtitles (SubRip, WebVTT, ASS, DVB, PGS).
    public static let subtitle = MediaType(rawValue: "subtitle")
    /// Closed captions.
    public static let closedCaption = MediaType(rawValue: "closedCaption")
    /// Timed metadata: GoPro GPMF (`gpmd`), Apple `mebx`, Google CAMM, MISB KLV, ID3.
    public static let metadata = MediaType(rawValue: "metadata")
    /// SMPTE timecode (`tmcd`).
    public static let timecode = MediaType(rawValue: "timecode")
    /// A data track of a kind Reel does not interpret (GoPro "SOS" `fdsc`, ...).
    public static let data = MediaType(rawValue: "data")
    /// A file attached to the container (Matroska fonts, cover art files).
    public static let attachment = MediaType(rawValue: "attachment")

    public var description: String { rawValue }
}

/// A trait a track may have, used to select tracks (AVMediaCharacteristic).
public struct MediaCharacteristic: RawRepresentable, Sendable, Hashable {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Shows pictures: video tracks.
    public static let visual = MediaCharacteristic(rawValue: "visual")
    /// Makes sound: audio tracks.
    public static let audible = MediaCharacteristic(rawValue: "audible")
    /// Holds readable text: text, subtitle and closed-caption tracks.
    public static let legible = MediaCharacteristic(rawValue: "legible")
    /// Made of discrete frames: video tracks.
    public static let frameBased = MediaCharacteristic(rawValue: "frameBased")
    /// Holds timed metadata (telemetry, detected faces, KLV).
    public static let containsTimedMetadata = MediaCharacteristic(rawValue: "containsTimedMetadata")
}

/// How one track relates to another (AVAssetTrack.AssociationType).
public struct TrackAssociationType: RawRepresentable, Sendable, Hashable {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// A timed-metadata track describes the returned (video) track (`cdsc`).
    public static let metadataReferent = TrackAssociationType(rawValue: "cdsc")
    /// The returned timecode track gives the timecode of this track (`tmcd`).
    public static let timecode = TrackAssociationType(rawValue: "tmcd")
}

extension MediaType {
    /// The characteristics a track of this type has.
    var characteristics: Set<MediaCharacteristic> {
        switch self {
        case .video: [.visual, .frameBased]
        case .audio: [.audible]
        case .text, .subtitle, .closedCaption: [.legible]
        case .metadata: [.containsTimedMetadata]
        default: []
        }
    }
}
