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
    /// The cover picture (the first artwork item holding a JPEG or PNG picture whose header
    /// gives its size), and how
    /// the file holds it; nil when there is none or the container has no place for one.
    var picture: Picture?

    /// A cover picture and where it goes.
    struct Picture: Equatable {
        enum Kind: Equatable { case jpeg, png }
        /// Where the file keeps it.
        enum Place: Equatable {
            /// An MP4 written with iTunes items: the MP4 muxer's `covr` item, from a video
            /// stream of one packet marked `AV_DISPOSITION_ATTACHED_PIC`.
            case attachedPicture
            /// Matroska: an attachment (`cover.jpg`/`cover.png`, its MIME type), which
            /// FFmpeg's demuxer gives back as an attached picture.
            case attachment
            /// MOV, and MP4 written with metadata keys, where FFmpeg 5.1 writes no picture:
            /// a `com.apple.quicktime.artwork` metadata key added to `moov/udta/meta` after
            /// the trailer by Reel's own pass over the file (``MP4TrackAppender``).
            case metadataKey
        }
        var data: Data
        var kind: Kind
        var width: Int
        var height: Int
        var place: Place

        /// The picture's kind from its signature (JPEG `FF D8 FF`, PNG's eight bytes) and
        /// its size from its header (PNG `IHDR`, a JPEG start-of-frame segment), or nil for
        /// other data and pictures whose header does not give a size.
        static func header(of data: Data) -> (kind: Kind, width: Int, height: Int)? {
            let bytes = [UInt8](data.prefix(1 << 16))
            func u16(_ i: Int) -> Int { Int(bytes[i]) << 8 | Int(bytes[i + 1]) }
            func u32(_ i: Int) -> Int { u16(i) << 16 | u16(i + 2) }
            if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
                // The first chunk is IHDR: length, "IHDR", width, height (ISO/IEC 15948 11.2.2).
                guard bytes.count >= 24, bytes[12...15].elementsEqual("IHDR".utf8) else { return nil }
                let (w, h) = (u32(16), u32(20))
                return w > 0 && h > 0 ? (.png, w, h) : nil
            }
            guard bytes.starts(with: [0xFF, 0xD8, 0xFF]) else { return nil }
            // Segments after SOI: FF, marker, 16-bit length; a start of frame (C0...CF but
            // C4, C8, CC) holds precision, height, width (ITU-T T.81 B.2.2).
            var i = 2
            while i + 9 < bytes.count, bytes[i] == 0xFF {
                let marker = bytes[i + 1]
                if marker == 0xFF { i += 1; continue }
                if (0xC0...0xCF).contains(marker), ![0xC4, 0xC8, 0xCC].contains(marker) {
                    let (h, w) = (u16(i + 5), u16(i + 7))
                    return w > 0 && h > 0 ? (.jpeg, w, h) : nil
                }
                i += 2 + u16(i + 2)
            }
            return nil
        }
    }

    /// Whether the item means the cover picture (common artwork, `itsk/covr`, `APIC`, ...).
    static func isArtwork(_ item: MetadataItem) -> Bool {
        item.identifier == .commonIdentifierArtwork || commonEquivalent(of: item) == .commonIdentifierArtwork
    }

    /// FFmpeg's tags that describe the file itself and that the muxer writes on its own:
    /// an item copied from another file's tags under one of these names is not asked for.
    static let writtenByTheMuxer: Set<String> = [
        "major_brand", "minor_version", "compatible_brands", "encoder", "handler_name",
        "vendor_id", "duration", "service_name", "service_provider",
    ]

    /// The tag names FFmpeg 5.1 writes into a file of each kind without metadata keys
    /// (`mov_write_udta_tag`, `mov_write_ilst_tag`, `mov_write_loci_tag`, the `mvhd` date).
    static let writableNames: [AssetWriter.FileType: Set<String>] = [
        .mov: [
            "title", "artist", "author", "album", "date", "comment", "genre", "copyright", "make", "model",
            "location", "creation_time",
        ],
        .mp4: [
            "title", "artist", "album_artist", "composer", "album", "date", "comment", "genre", "copyright",
            "grouping", "lyrics", "description", "synopsis", "show", "episode_id", "network", "keywords", "track", "disc",
            "location", "creation_time",
        ],
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
        // The first JPEG or PNG artwork item is the cover picture of a container that has a
        // place for one; it is not a tag, so it decides nothing about the tags' form.
        var pictureItem: MetadataItem?
        if fileType != .mpegts {
            pictureItem = asked.first { item in
                guard Self.isArtwork(item), case .data(let data) = item.value else { return false }
                return Picture.header(of: data) != nil
            }
        }
        let tagItems = asked.filter { $0 != pictureItem }
        let plain = tagItems.map { Self.plainTag(for: $0, fileType: fileType) }
        if quickTime {
            let names = Self.writableNames[fileType] ?? []
            // An item with no text (data) fits no form of tags: it decides nothing either.
            usesMetadataKeys = zip(tagItems, plain).contains { item, tag in
                !(tag.map { names.contains($0.key) } ?? false) && Self.metadataKey(for: item) != nil && Self.text(of: item) != nil
            }
        }
        if let pictureItem, case .data(let data) = pictureItem.value, let header = Picture.header(of: data) {
            let place: Picture.Place =
                switch fileType {
                case .mkv: .attachment
                case .mp4 where !usesMetadataKeys: .attachedPicture
                default: .metadataKey
                }
            picture = Picture(data: data, kind: header.kind, width: header.width, height: header.height, place: place)
        }
        for (item, tag) in zip(tagItems, plain) {
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
                // The same picture under another name (`itsk/covr` and common artwork) is written once.
                if let picture, Self.isArtwork(item), case .data(let data) = item.value, data == picture.data { continue }
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
            let value = text(of: item)
        else { return nil }
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
