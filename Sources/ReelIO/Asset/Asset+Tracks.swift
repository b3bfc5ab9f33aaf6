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
    /// space gives ``AssetProperty/commonMetadata``.
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
    public func loadChapterMetadataGroups(withTitleLocale locale: Locale? = nil,
                                          containingItemsWithCommonKeys commonKeys: [String] = []) async throws(ReelError)
        -> [TimedMetadataGroup] {
        var groups = try await load(.chapters)
        if let code = locale.flatMap(Self.iso639_2) {
            for g in groups.indices {
                guard let localized = groups[g].items.first(where: { $0.key.lowercased() == "title-\(code)" }) else { continue }
                if let t = groups[g].items.firstIndex(where: { $0.identifier == .commonIdentifierTitle }) {
                    groups[g].items[t].value = localized.value
                }
            }
        }
        if !commonKeys.isEmpty {
            for g in groups.indices {
                groups[g].items.removeAll { !($0.keySpace == .common && commonKeys.contains($0.key)) }
            }
        }
        return groups
    }

    /// The ISO 639-2 code of a locale's language (`fra`), as containers tag titles.
    static func iso639_2(_ locale: Locale) -> String? {
        locale.language.languageCode?.identifier(.alpha3)
    }
}
