import Foundation
import ReelCore

extension Asset {
    /// The tracks of one media type, in container order.
    public func loadTracks(withMediaType mediaType: MediaType) async throws(ReelError) -> [AssetTrack] {
        try await load(.tracks).filter { $0.mediaType == mediaType }
    }

    /// The track with `trackID`, or nil.
    public func loadTrack(withTrackID trackID: Int32) async throws(ReelError) -> AssetTrack? {
        try await load(.tracks).first { $0.trackID == trackID }
    }

    /// The tracks that have `characteristic` (visual, audible, legible, timed metadata).
    public func loadTracks(withMediaCharacteristic characteristic: MediaCharacteristic) async throws(ReelError) -> [AssetTrack] {
        try await load(.tracks).filter { $0.hasMediaCharacteristic(characteristic) }
    }

    /// The container's tags in one key space (AVAsset.loadMetadata(for:)); the common key
    /// space gives `AssetProperty/commonMetadata`.
    public func loadMetadata(for format: MetadataKeySpace) async throws(ReelError) -> [MetadataItem] {
        if format == .common { return try await load(.commonMetadata) }
        return try await load(.metadata).filter { $0.keySpace == format }
    }

    /// The chapters, each a group whose items include `common/title`
    /// (AVAsset.loadChapterMetadataGroups(withTitleLocale:containingItemsWithCommonKeys:)).
    ///
    /// - Parameters:
    ///   - locale: prefer titles in this language where a chapter has several
    ///     (`title-fra`); nil takes the untagged title.
    ///   - commonKeys: keep only items whose identifier is in the common key space with
    ///     one of these keys (`title`); empty keeps every item.
    public func loadChapterMetadataGroups(
        withTitleLocale locale: Locale? = nil,
        containingItemsWithCommonKeys commonKeys: [String] = []
    ) async throws(ReelError)
        -> [TimedMetadataGroup]
    {
        var groups = try await load(.chapters)
        if let tag = locale?.language.languageCode?.identifier {
            groups = groups.map { Self.titled($0, language: tag) ?? $0 }
        }
        if !commonKeys.isEmpty {
            for g in groups.indices {
                groups[g].items.removeAll { !($0.keySpace == .common && commonKeys.contains($0.key)) }
            }
        }
        return groups
    }

    /// The chapters with titles in the first of `preferredLanguages` (BCP 47 tags, most
    /// preferred first) that the chapters have titles in
    /// (AVAsset.loadChapterMetadataGroups(bestMatchingPreferredLanguages:)).
    ///
    /// A title's language is the chapter track's language (MP4/MOV `chap` reference), or
    /// the suffix of a localised title tag (`title-fra`). When no preferred language
    /// matches, the chapters come back with their own titles, as
    /// ``loadChapterMetadataGroups(withTitleLocale:containingItemsWithCommonKeys:)`` gives
    /// them.
    public func loadChapterMetadataGroups(bestMatchingPreferredLanguages preferredLanguages: [String]) async throws(ReelError)
        -> [TimedMetadataGroup]
    {
        let groups = try await load(.chapters)
        for preferred in preferredLanguages {
            let titled = groups.map { Self.titled($0, language: preferred) }
            if titled.contains(where: { $0 != nil }) { return zip(titled, groups).map { $0 ?? $1 } }
        }
        return groups
    }

    /// `group` with its `common/title` in `language` (BCP 47): the title itself when it is
    /// in that language, else a localised title tag (`title-fra`) made the title; nil when
    /// the chapter has no title in that language.
    static func titled(_ group: TimedMetadataGroup, language: String) -> TimedMetadataGroup? {
        guard let t = group.items.firstIndex(where: { $0.identifier == .commonIdentifierTitle }) else { return nil }
        if let tag = group.items[t].extendedLanguageTag, LanguageTag.sameLanguage(tag, language) { return group }
        let localized = group.items.first { item in
            guard let base = ContainerMetadata.languageVariantBase(item.key), base.lowercased() == "title" else { return false }
            return LanguageTag.sameLanguage(String(item.key.suffix(3)), language)
        }
        guard let localized else { return nil }
        var copy = group
        copy.items[t].value = localized.value
        copy.items[t].extendedLanguageTag = LanguageTag.bcp47(fromISO639_2: String(localized.key.suffix(3)))
        return copy
    }
}
