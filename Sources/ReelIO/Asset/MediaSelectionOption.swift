import Foundation
import ReelCore

/// One choice in a ``MediaSelectionGroup``: a track of one language or kind
/// (AVMediaSelectionOption).
///
/// Reel builds options from the file's tracks, so each option names its track
/// (``trackID``), which AVFoundation keeps hidden.
public struct MediaSelectionOption: Sendable, Hashable, CustomStringConvertible {
    /// The track this option plays.
    public var trackID: Int32
    /// The media type of the option's track.
    public var mediaType: MediaType
    /// The formats of the option's samples (`mp4a`, `tx3g`, `wvtt`).
    public var mediaSubTypes: [String]
    /// The language as a BCP 47 tag (`en`, `fr`), nil when the track has none or `und`.
    public var extendedLanguageTag: String?
    /// Whether the option's track can be played.
    public var isPlayable: Bool
    /// The track's tags in the common key space.
    public var commonMetadata: [MetadataItem]
    /// The characteristics of the option's track: its media type's and those the
    /// container flags (forced, dubbed, for accessibility).
    public var mediaCharacteristics: Set<MediaCharacteristic>

    public init(
        trackID: Int32, mediaType: MediaType, mediaSubTypes: [String] = [], extendedLanguageTag: String? = nil,
        isPlayable: Bool = true, commonMetadata: [MetadataItem] = [], mediaCharacteristics: Set<MediaCharacteristic> = []
    ) {
        self.trackID = trackID
        self.mediaType = mediaType
        self.mediaSubTypes = mediaSubTypes
        self.extendedLanguageTag = extendedLanguageTag
        self.isPlayable = isPlayable
        self.commonMetadata = commonMetadata
        self.mediaCharacteristics = mediaCharacteristics
    }

    /// The option for `track`, with the characteristics among `known` the track has.
    init(track: AssetTrack) {
        let known: [MediaCharacteristic] = [
            .visual, .audible, .legible, .frameBased, .containsTimedMetadata, .containsOnlyForcedSubtitles,
            .describesMusicAndSoundForAccessibility, .transcribesSpokenDialogForAccessibility,
            .describesVideoForAccessibility, .dubbedTranslation, .isOriginalContent, .isAuxiliaryContent,
        ]
        self.init(
            trackID: track.trackID, mediaType: track.mediaType, mediaSubTypes: [track.format],
            extendedLanguageTag: track.extendedLanguageTag, isPlayable: track.isPlayable,
            commonMetadata: ContainerMetadata.commonItems(from: track.metadata),
            mediaCharacteristics: Set(known.filter(track.hasMediaCharacteristic)))
    }

    /// The locale of ``extendedLanguageTag``.
    public var locale: Locale? { extendedLanguageTag.map { Locale(identifier: $0) } }

    /// Whether the option has `characteristic`.
    public func hasMediaCharacteristic(_ characteristic: MediaCharacteristic) -> Bool {
        mediaCharacteristics.contains(characteristic)
    }

    /// The option's name for people: its title where the track has one, else its language
    /// in English (`French`), with "Forced" or "SDH" where flagged; "Unknown language"
    /// when it has neither.
    public var displayName: String { displayName(with: Locale(identifier: "en")) }

    /// The option's name for people, the language named in `locale`'s language
    /// (AVMediaSelectionOption.displayName(with:)).
    public func displayName(with locale: Locale) -> String {
        if let title = commonMetadata.first(where: { $0.identifier == .commonIdentifierTitle })?.stringValue, !title.isEmpty {
            return title
        }
        var name =
            extendedLanguageTag.flatMap { locale.localizedString(forIdentifier: $0) } ?? extendedLanguageTag
            ?? "Unknown language"
        if hasMediaCharacteristic(.containsOnlyForcedSubtitles) { name += " Forced" }
        if hasMediaCharacteristic(.describesMusicAndSoundForAccessibility) { name += " SDH" }
        return name
    }

    public var description: String { "option track \(trackID) (\(mediaType), \(extendedLanguageTag ?? "und"))" }
}
