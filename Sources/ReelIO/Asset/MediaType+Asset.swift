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
