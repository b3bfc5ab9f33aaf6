import Foundation
import ReelCore

/// How an ``AssetWriter``'s metadata items become the muxer's container tags, and which
/// of them the container cannot hold.
///
/// FFmpeg 5.1's muxers keep different sets of tag names: the MOV muxer writes a fixed set
/// as QuickTime user data (`©nam`, `©mak`, `©xyz`, ...), the MP4 muxer another as iTunes
/// items (`©nam`, `desc`, `keyw`, ...), Matroska any name, MPEG-TS none. With `movflags
/// use_metadata_tags` the MOV/MP4 muxer writes every tag as a QuickTime metadata key
/// (`mdta`) instead, and writes no user data or iTunes items. So a MOV/MP4 file is written
/// with user data or iTunes items while every item fits them, and with metadata keys when
/// one needs them (a `com.apple.quicktime.*` key, or a common key the first form lacks):
/// then each common item goes under AVFoundation's own key (`com.apple.quicktime.title`).
struct ContainerTagPlan {
    /// The tags, in the items' order, one per key.
    var tags: [(key: String, value: String)] = []
    /// Whether the MOV/MP4 muxer writes the tags as metadata keys (`use_metadata_tags`).
    var usesMetadataKeys = false
    /// The items the container cannot hold, in the items' order.
    var notWritten: [MetadataItem] = []

    /// FFmpeg's tags that describe the file itself and that the muxer writes on its own:
    /// an item copied from another file's tags under one of these names is not asked for.
    static let writtenByTheMuxer: Set<String> = ["major_brand", "minor_version", "compatible_brands", "encoder", "handler_name",
                                                 "vendor_id", "duration", "service_name", "service_provider"]

    /// The tag names FFmpeg 5.1 writes into a file of each kind without metadata keys
    /// (`mov_write_udta_tag`, `mov_write_ilst_tag`, `mov_write_loci_tag`, the `mvhd` date).
    static let writableNames: [AssetWriter.FileType: Set<String>] = [
        .mov: ["title", "artist", "author", "album", "date", "comment", "genre", "copyright", "make", "model",
               "location", "creation_time"],
        .mp4: ["title", "artist", "album_artist", "composer", "album", "date", "comment", "genre", "copyright",
               "grouping", "lyrics", "description", "synopsis", "show", "episode_id", "network", "keywords", "track", "disc",
               "location", "creation_time"],
    ]

    /// The FFmpeg tag name of each common key (what FFmpeg's demuxers give it); software is
    /// `software`, as libavformat replaces `encoder` with its own name in every file.
    static let commonNames: [MetadataIdentifier: String] = [
        .commonIdentifierTitle: "title", .commonIdentifierCreationDate: "creation_time", .commonIdentifierLocation: "location",
        .commonIdentifierMake: "make", .commonIdentifierModel: "model", .commonIdentifierSoftware: "software",
        .commonIdentifierArtist: "artist", .commonIdentifierAlbumName: "album", .commonIdentifierAuthor: "author",
        .commonIdentifierCreator: "composer", .commonIdentifierCopyrights: "copyright", .commonIdentifierDescription: "description",
        .commonIdentifierType: "genre", .commonIdentifierSubject: "keywords", .commonIdentifierContributor: "performer",
        .commonIdentifierPublisher: "publisher", .commonIdentifierLanguage: "language",
        .commonIdentifierLastModifiedDate: "date_modified", .commonIdentifierIdentifier: "isrc",
        .quickTimeMetadataLocationISO6709: "location",
    ]

    /// The plan for `items` in a file of `fileType`.
    init(items: [MetadataItem], fileType: AssetWriter.FileType) {
        let quickTime = fileType == .mp4 || fileType == .mov
        let hasHeaderDate = items.contains { $0.keySpace == .container && $0.key.lowercased() == "creation_time" }
        // The file tags the muxer writes itself, a common item read from one of them
        // (software from `encoder`), and libavformat's own name read from any key space
        // (`©too`, `©swr`): not asked for.
        let fileOwn = items.filter { $0.keySpace == .container && Self.writtenByTheMuxer.contains($0.key.lowercased()) }
        let asked = items.filter { item in
            if Self.isLibavformatStamp(item) { return false }
            return !fileOwn.contains { $0 == item || (Self.commonEquivalent(of: $0) == item.identifier && $0.stringValue == item.stringValue) }
        }
        let plain = asked.map { Self.plainTag(for: $0, fileType: fileType) }
        if quickTime {
            let names = Self.writableNames[fileType] ?? []
            usesMetadataKeys = zip(asked, plain).contains { item, tag in
                !(tag.map { names.contains($0.key) } ?? false) && Self.metadataKey(for: item) != nil
            }
        }
        for (item, tag) in zip(asked, plain) {
            var chosen = tag
            if usesMetadataKeys {
                // The movie header's date comes from `creation_time` whatever the muxer's mode:
                // the file's own header date when it is among the items, else the creation date.
                if let tag, tag.key == "creation_time", item.keySpace == .container {
                    chosen = tag
                } else {
                    chosen = Self.metadataKey(for: item).flatMap { key in Self.text(of: item).map { (key, $0) } }
                    if let tag, tag.key == "creation_time", !hasHeaderDate {
                        add(tag)
                        if chosen == nil { continue }
                    }
                }
            } else if quickTime, let key = tag?.key, !(Self.writableNames[fileType] ?? []).contains(key) {
                chosen = nil
            } else if fileType == .mpegts {
                chosen = nil
            }
            guard let chosen else {
                notWritten.append(item)
                continue
            }
            if let present = tags.first(where: { $0.key == chosen.key }), !Self.sameValue(present.value, chosen.value) {
                notWritten.append(item)
            } else {
                add(chosen)
            }
        }
    }

    private mutating func add(_ tag: (key: String, value: String)) {
        if !tags.contains(where: { $0.key == tag.key }) { tags.append(tag) }
    }

    /// Whether two tag texts say the same: equal, or the same instant written two ways
    /// (a date item and the text it was read from).
    static func sameValue(_ a: String, _ b: String) -> Bool {
        if a == b { return true }
        guard let x = MetadataItem.date(fromMetadataString: a), let y = MetadataItem.date(fromMetadataString: b) else { return false }
        return x == y
    }

    /// The item as an FFmpeg tag of the usual names, or nil when it has none.
    static func plainTag(for item: MetadataItem, fileType: AssetWriter.FileType) -> (key: String, value: String)? {
        let name: String?
        switch item.keySpace {
        case .common:
            name = commonNames[item.identifier]
        case .container:
            name = item.key
        case .quickTimeUserData where fileType == .mov, .iTunes where fileType == .mp4, .isoUserData where fileType == .mp4:
            name = ContainerMetadata.ffmpegNames[item.key]
        case .id3 where fileType == .mkv:
            name = ContainerMetadata.id3Frames.first { $0.value == item.key }?.key
        default:
            name = nil
        }
        // Else the name of what it means in the common key space (`udta/©xyz` is `location`).
        guard var name = name ?? commonNames[item.identifier] ?? commonEquivalent(of: item).flatMap({ commonNames[$0] }),
              let value = text(of: item) else { return nil }
        // The MOV muxer writes `©des` (which FFmpeg reads back as `description`) from
        // `comment`, and has no box for a comment of its own.
        if fileType == .mov {
            if name == "comment" { return nil }
            if name == "description" { name = "comment" }
        }
        return (name, value)
    }

    /// The QuickTime metadata key the item is written under in metadata-key mode: its own
    /// (`com.apple.quicktime.make`), or the one AVFoundation maps to the item's common key.
    static func metadataKey(for item: MetadataItem) -> String? {
        if item.keySpace == .quickTimeMetadata { return item.key }
        guard let common = item.keySpace == .common ? item.identifier : commonEquivalent(of: item) else { return nil }
        let sources = ContainerMetadata.commonSources.first { $0.common == common }?.sources ?? []
        return sources.first { $0.keySpace == .quickTimeMetadata && $0.key.hasPrefix("com.apple.quicktime.") }?.key
    }

    /// Whether the item is software naming libavformat (`Lavf59.27.100`): what FFmpeg's
    /// muxers write of themselves, and write again in every file.
    static func isLibavformatStamp(_ item: MetadataItem) -> Bool {
        let software = item.identifier == .commonIdentifierSoftware || commonEquivalent(of: item) == .commonIdentifierSoftware
        return software && (item.stringValue?.hasPrefix("Lavf") ?? false)
    }

    /// The common key an item of another key space stands for (as the reader maps it).
    static func commonEquivalent(of item: MetadataItem) -> MetadataIdentifier? {
        ContainerMetadata.commonSources.first { entry in entry.sources.contains { ContainerMetadata.matches(item.identifier, $0) } }?.common
    }

    /// The item's value as tag text: dates in ISO 8601, numbers and text as they are;
    /// nil for pictures and other data, which container tags cannot hold.
    static func text(of item: MetadataItem) -> String? {
        if case .date(let date) = item.value {
            return date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
        }
        return item.stringValue
    }
}
