import Foundation
import ReelCore

/// The container families whose tags Reel maps differently.
enum ContainerFamily: Sendable {
    case quickTime, matroska, mpegTS
    /// Files whose tags are ID3 (MP3, ADTS AAC).
    case id3
    case other

    /// The family of an FFmpeg input format name (`mov,mp4,m4a,3gp,3g2,mj2`, `matroska,webm`, `mpegts`).
    init(formatName: String) {
        let names = formatName.split(separator: ",")
        if names.contains("mov") || names.contains("mp4") {
            self = .quickTime
        } else if names.contains("matroska") || names.contains("webm") {
            self = .matroska
        } else if names.contains("mpegts") {
            self = .mpegTS
        } else if names.contains("mp3") || names.contains("aac") {
            self = .id3
        } else {
            self = .other
        }
    }
}

/// Maps FFmpeg's container and stream tags (`AVFormatContext.metadata`,
/// `AVStream.metadata`) to ``MetadataItem``s, and those to the common key space.
///
/// FFmpeg folds several boxes into one tag name (QuickTime `udta` and iTunes `ilst`
/// titles both become `title`), so only the tags whose origin is certain get their
/// native key space: reverse-DNS QuickTime keys (`mdta/com.apple.quicktime.make`) and
/// the `udta` location (`udta/©xyz`). The rest keep FFmpeg's name under `container/`.
enum ContainerMetadata {
    /// The QuickTime user-data key for location (`©xyz`), an ISO 6709 string.
    static let userDataLocation = MetadataIdentifier(keySpace: .quickTimeUserData, key: "\u{A9}xyz")

    /// The items for `tags`, in the container's order. A language variant (`location-eng`)
    /// that repeats its base tag's value is left out.
    static func items(from tags: [(key: String, value: String)], family: ContainerFamily) -> [MetadataItem] {
        var values: [String: String] = [:]
        for tag in tags { values[tag.key] = tag.value }
        var items: [MetadataItem] = []
        for tag in tags {
            if let base = languageVariantBase(tag.key), values[base] == tag.value { continue }
            items.append(MetadataItem(identifier: identifier(forTag: tag.key, family: family), value: .string(tag.value)))
        }
        return items
    }

    /// The identifier for one FFmpeg tag name in a container family.
    static func identifier(forTag key: String, family: ContainerFamily) -> MetadataIdentifier {
        if family == .quickTime {
            if isReverseDNS(key) { return MetadataIdentifier(keySpace: .quickTimeMetadata, key: key) }
            if key == "location" { return userDataLocation }
        }
        if family == .id3, let frame = id3Frames[key] ?? (isID3FrameID(key) ? key : nil) {
            return MetadataIdentifier(keySpace: .id3, key: frame)
        }
        return MetadataIdentifier(keySpace: .container, key: key)
    }

    /// The ID3v2 frames behind FFmpeg's names for them (`ff_id3v2_34_metadata_conv`,
    /// `ff_id3v2_4_metadata_conv`): each name comes from one frame, so the way back is exact.
    static let id3Frames: [String: String] = [
        "title": "TIT2", "artist": "TPE1", "album": "TALB", "album_artist": "TPE2", "performer": "TPE3",
        "composer": "TCOM", "genre": "TCON", "copyright": "TCOP", "encoded_by": "TENC", "encoder": "TSSE",
        "language": "TLAN", "publisher": "TPUB", "track": "TRCK", "disc": "TPOS", "date": "TDRC", "grouping": "TIT1",
        "comment": "COMM", "lyrics": "USLT", "album-sort": "TSOA", "artist-sort": "TSOP", "title-sort": "TSOT",
        "compilation": "TCMP", "creation_time": "TDEN", "tagging_time": "TDTG", "file_type": "TFLT", "isrc": "TSRC",
    ]

    /// Whether a key is an ID3v2 frame ID FFmpeg kept as it is (four capitals or digits).
    static func isID3FrameID(_ key: String) -> Bool {
        key.utf8.count == 4 && key.utf8.allSatisfy { (0x41...0x5A).contains($0) || (0x30...0x39).contains($0) }
    }

    /// The name FFmpeg gives the tag each user-data or iTunes box becomes
    /// (`mov_read_udta_string`), so that an item read from the box replaces FFmpeg's copy.
    static let ffmpegNames: [String: String] = {
        let c = "\u{A9}"
        var names: [String: String] = [
            "aART": "album_artist", "gnre": "genre", "cprt": "copyright", "desc": "description", "ldes": "synopsis",
            "trkn": "track", "disk": "disc", "tvsh": "show", "tven": "episode_id", "tvnn": "network", "cpil": "compilation",
            "pgap": "gapless_playback", "stik": "media_type", "hdvd": "hd_video", "rtng": "rating", "sonm": "sort_name",
            "soar": "sort_artist", "soal": "sort_album", "soaa": "sort_album_artist", "soco": "sort_composer",
            "sosn": "sort_show", "tves": "episode_sort", "tvsn": "season_number", "purd": "purchase_date", "pcst": "podcast",
            "catg": "category", "keyw": "keywords", "titl": "title", "dscp": "description", "perf": "artist", "auth": "author",
            "albm": "album", "yrrc": "date",
        ]
        let copyright: [String: String] = [
            "nam": "title", "ART": "artist", "alb": "album", "wrt": "composer", "day": "date", "cmt": "comment", "gen": "genre",
            "cpy": "copyright", "des": "description", "too": "encoder", "swr": "encoder", "enc": "encoded_by", "lyr": "lyrics",
            "grp": "grouping", "xyz": "location", "aut": "author", "mak": "make", "mod": "model", "key": "keywords",
            "inf": "comment", "prd": "producer", "dir": "director", "prf": "performers", "st3": "subtitle", "ope": "original_artist",
            "pub": "publisher", "url": "url",
        ]
        for (key, name) in copyright { names[c + key] = name }
        return names
    }()

    /// The asset's items: those read from the container's own boxes (`boxes`), then
    /// FFmpeg's tags the boxes did not already give (`tags`), then the cover pictures
    /// FFmpeg found when no item holds one.
    static func merged(tags: [MetadataItem], boxes: [MetadataItem], pictures: [MetadataItem]) -> [MetadataItem] {
        var items = boxes
        let replaced = Set(boxes.compactMap { ffmpegNames[$0.key] })
        let hasMetadataKeys = boxes.contains { $0.keySpace == .quickTimeMetadata }
        items += tags.filter { tag in
            if tag.keySpace == .quickTimeMetadata { return !hasMetadataKeys }
            if tag.identifier == userDataLocation { return !replaced.contains("location") }
            return !(tag.keySpace == .container && replaced.contains(tag.key))
        }
        let artwork = Set(commonSources.first { $0.common == .commonIdentifierArtwork }?.sources ?? [])
        if !items.contains(where: { artwork.contains($0.identifier) }) { items += pictures }
        return items
    }

    /// For each common key, where its value may come from, best first: QuickTime
    /// metadata (`mdta`), QuickTime user data (`udta`), iTunes (`itsk`), ISO user data
    /// (`uiso`), ID3 (`org.id3`), then FFmpeg's generic tag names (Matroska and others),
    /// as AVFoundation maps each key space to the common one.
    static let commonSources: [(common: MetadataIdentifier, sources: [MetadataIdentifier])] = {
        func mdta(_ key: String) -> MetadataIdentifier { MetadataIdentifier(keySpace: .quickTimeMetadata, key: "com.apple.quicktime." + key) }
        func tag(_ key: String) -> MetadataIdentifier { MetadataIdentifier(keySpace: .container, key: key) }
        func udta(_ key: String) -> MetadataIdentifier { MetadataIdentifier(keySpace: .quickTimeUserData, key: key) }
        func itsk(_ key: String) -> MetadataIdentifier { MetadataIdentifier(keySpace: .iTunes, key: key) }
        func id3(_ key: String) -> MetadataIdentifier { MetadataIdentifier(keySpace: .id3, key: key) }
        let c = "\u{A9}"
        return [
            (.commonIdentifierTitle, [mdta("title"), udta(c + "nam"), itsk(c + "nam"), id3("TIT2"), udta("titl"), tag("title")]),
            (
                .commonIdentifierCreationDate,
                [
                    mdta("creationdate"), tag("creation_time"), udta(c + "day"), itsk(c + "day"),
                    id3("TDRC"), udta("yrrc"), tag("date"), tag("date_recorded"),
                ]
            ),
            (.commonIdentifierLocation, [mdta("location.ISO6709"), userDataLocation, tag("location")]),
            (
                .commonIdentifierMake,
                [
                    mdta("make"), MetadataIdentifier(keySpace: .quickTimeMetadata, key: "com.android.manufacturer"),
                    udta(c + "mak"), tag("make"),
                ]
            ),
            (
                .commonIdentifierModel,
                [
                    mdta("model"), MetadataIdentifier(keySpace: .quickTimeMetadata, key: "com.android.model"),
                    udta(c + "mod"), tag("model"),
                ]
            ),
            (
                .commonIdentifierSoftware,
                [
                    mdta("software"), udta(c + "swr"), itsk(c + "too"), id3("TSSE"), tag("software"),
                    tag("firmware"), tag("encoder"),
                ]
            ),
            (.commonIdentifierArtist, [mdta("artist"), udta(c + "ART"), itsk(c + "ART"), id3("TPE1"), udta("perf"), tag("artist")]),
            (.commonIdentifierAlbumName, [mdta("album"), udta(c + "alb"), itsk(c + "alb"), id3("TALB"), udta("albm"), tag("album")]),
            (.commonIdentifierArtwork, [mdta("artwork"), itsk("covr"), id3("APIC"), tag("cover")]),
            (.commonIdentifierAuthor, [mdta("author"), udta(c + "aut"), udta("auth"), tag("author")]),
            (.commonIdentifierCreator, [mdta("director"), udta(c + "wrt"), itsk(c + "wrt"), id3("TCOM"), tag("composer")]),
            (.commonIdentifierContributor, [mdta("performer"), udta(c + "prf"), id3("TPE3"), tag("performer")]),
            (
                .commonIdentifierDescription,
                [
                    mdta("description"), udta(c + "des"), itsk("desc"), itsk(c + "des"), udta("dscp"),
                    tag("description"),
                ]
            ),
            (
                .commonIdentifierCopyrights,
                [
                    mdta("copyright"), udta(c + "cpy"), MetadataIdentifier(keySpace: .isoUserData, key: "cprt"),
                    itsk("cprt"), id3("TCOP"), tag("copyright"),
                ]
            ),
            (.commonIdentifierSubject, [mdta("keywords"), udta(c + "key"), tag("subject"), tag("keywords")]),
            (.commonIdentifierType, [mdta("genre"), udta(c + "gen"), itsk(c + "gen"), id3("TCON"), udta("gnre"), tag("genre")]),
            (.commonIdentifierLanguage, [id3("TLAN"), tag("language")]),
            (.commonIdentifierPublisher, [mdta("publisher"), itsk(c + "pub"), id3("TPUB"), tag("publisher")]),
            (.commonIdentifierLastModifiedDate, [id3("TDTG"), tag("date_modified")]),
            (.commonIdentifierFormat, [udta(c + "fmt"), id3("TFLT")]),
            (.commonIdentifierIdentifier, [id3("TSRC"), tag("isrc")]),
            (.commonIdentifierSource, [udta(c + "src")]),
            (.commonIdentifierRelation, [udta(c + "lnk")]),
        ]
    }()

    /// The common-key-space items found among `items`: one per common key, from its best
    /// source. A creation or modification date that parses becomes a date value.
    static func commonItems(from items: [MetadataItem]) -> [MetadataItem] {
        var result: [MetadataItem] = []
        for (common, sources) in commonSources {
            guard let found = sources.lazy.compactMap({ source in items.first { matches($0.identifier, source) } }).first
            else { continue }
            var item = MetadataItem(
                identifier: common, value: found.value, dataType: found.dataType, unit: found.unit,
                extendedLanguageTag: found.extendedLanguageTag)
            if common == .commonIdentifierCreationDate || common == .commonIdentifierLastModifiedDate, case .string(let text) = found.value,
                let date = MetadataItem.date(fromMetadataString: text)
            {
                item.value = .date(date)
            }
            result.append(item)
        }
        return result
    }

    /// Whether `id` is `source`; `container/` keys compare without regard to case
    /// (Matroska writes `TITLE`, MP4 `title`).
    static func matches(_ id: MetadataIdentifier, _ source: MetadataIdentifier) -> Bool {
        guard id.keySpace == source.keySpace else { return false }
        return source.keySpace == .container ? id.key.lowercased() == source.key : id.key == source.key
    }

    /// `location` for `location-eng`; nil when the key has no three-letter language suffix.
    static func languageVariantBase(_ key: String) -> String? {
        guard let dash = key.lastIndex(of: "-") else { return nil }
        let suffix = key[key.index(after: dash)...]
        guard suffix.count == 3, suffix.allSatisfy({ $0.isASCII && $0.isLowercase }), dash != key.startIndex else { return nil }
        return String(key[..<dash])
    }

    /// Whether a key is a reverse-DNS name such as `com.apple.quicktime.make`.
    static func isReverseDNS(_ key: String) -> Bool {
        let parts = key.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count >= 3 && parts.allSatisfy { !$0.isEmpty && !$0.contains(" ") }
    }
}
