import Foundation
import ReelCore

/// The mutually exclusive choices of one kind an asset offers: its sound tracks by
/// language, its subtitle tracks (AVMediaSelectionGroup).
///
/// ``Asset/loadMediaSelectionGroup(for:)`` builds a group from the tracks that have the
/// characteristic, each an option named by the track's language tag and container flags.
public struct MediaSelectionGroup: Sendable, Hashable {
    /// The choices, in container order.
    public var options: [MediaSelectionOption]
    /// The option a player picks when nothing else is asked for: the track the container
    /// marks as default, else the first for a group that must have a selection.
    public var defaultOption: MediaSelectionOption?
    /// Whether a player may select no option: true for subtitles, false for sound and
    /// pictures.
    public var allowsEmptySelection: Bool

    public init(options: [MediaSelectionOption], defaultOption: MediaSelectionOption?, allowsEmptySelection: Bool) {
        self.options = options
        self.defaultOption = defaultOption
        self.allowsEmptySelection = allowsEmptySelection
    }

    /// The characteristics groups exist for, in the order AVFoundation lists them.
    static let characteristics: [MediaCharacteristic] = [.audible, .legible, .visual]

    /// The option whose track is `trackID`.
    public func option(withTrackID trackID: Int32) -> MediaSelectionOption? {
        options.first { $0.trackID == trackID }
    }

    /// The options whose language matches one of `preferredLanguages` (BCP 47), ordered
    /// by the first preferred language each matches
    /// (AVMediaSelectionGroup.mediaSelectionOptions(from:filteredAndSortedAccordingToPreferredLanguages:)).
    public static func mediaSelectionOptions(
        from options: [MediaSelectionOption],
        filteredAndSortedAccordingToPreferredLanguages preferredLanguages: [String]
    )
        -> [MediaSelectionOption]
    {
        preferredLanguages.flatMap { preferred in
            options.filter { option in option.extendedLanguageTag.map { LanguageTag.sameLanguage($0, preferred) } ?? false }
        }.reduce(into: [MediaSelectionOption]()) { if !$0.contains($1) { $0.append($1) } }
    }

    /// The options in `locale`'s language.
    public static func mediaSelectionOptions(from options: [MediaSelectionOption], with locale: Locale) -> [MediaSelectionOption] {
        mediaSelectionOptions(from: options, filteredAndSortedAccordingToPreferredLanguages: [locale.identifier])
    }

    /// The options that have every one of `characteristics`.
    public static func mediaSelectionOptions(
        from options: [MediaSelectionOption],
        withMediaCharacteristics characteristics: [MediaCharacteristic]
    ) -> [MediaSelectionOption] {
        options.filter { option in characteristics.allSatisfy(option.hasMediaCharacteristic) }
    }

    /// The options that have none of `characteristics`.
    public static func mediaSelectionOptions(
        from options: [MediaSelectionOption],
        withoutMediaCharacteristics characteristics: [MediaCharacteristic]
    ) -> [MediaSelectionOption] {
        options.filter { option in !characteristics.contains(where: option.hasMediaCharacteristic) }
    }

    /// The options that can be played.
    public static func playableMediaSelectionOptions(from options: [MediaSelectionOption]) -> [MediaSelectionOption] {
        options.filter(\.isPlayable)
    }
}

extension Asset {
    /// The group of options for `characteristic` (`audible`, `legible`, `visual`), or nil
    /// when the asset has no track with it (AVAsset.loadMediaSelectionGroup(for:)).
    ///
    /// Each track with the characteristic is an option, cover pictures left out. The
    /// default option is the enabled track the container marks as default; a legible
    /// group allows an empty selection and has no default unless the file marks one.
    public func loadMediaSelectionGroup(for characteristic: MediaCharacteristic) async throws(ReelError) -> MediaSelectionGroup? {
        let tracks = try await load(.tracks).filter { $0.hasMediaCharacteristic(characteristic) && $0.isSelectable }
        guard !tracks.isEmpty else { return nil }
        let options = tracks.map(MediaSelectionOption.init(track:))
        let allowsEmpty = characteristic == .legible
        let marked = tracks.firstIndex { $0.isMarkedDefault }
        let defaultIndex = marked ?? (allowsEmpty ? nil : 0)
        return MediaSelectionGroup(
            options: options, defaultOption: defaultIndex.map { options[$0] },
            allowsEmptySelection: allowsEmpty)
    }
}
