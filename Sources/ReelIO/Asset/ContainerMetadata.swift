import Foundation
import ReelCore

/// The container families whose tags Reel maps differently.
enum ContainerFamily: Sendable {
    case quickTime, matroska, mpegTS, other

    /// The family of an FFmpeg input format name (`mov,mp4,m4a,3gp,3g2,mj2`, `matroska,webm`, `mpegts`).
    init(formatName: String) {
        let names = formatName.split(separator: ",")
        if names.contains("mov") || names.contains("mp4") { self = .quickTime }
        else if names.contains("matroska") || names.contains("webm") { self = .matroska }
        else if names.contains("mpegts") { self = .mpegTS }
        else { self = .other }
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
        return MetadataIdentifier(keySpace: .container, key: key)
    }

    /// For each common key, where its value may come from, best first.
    static let commonSources: [(common: MetadataIdentifier, sources: [MetadataIdentifier])] = {
        func mdta(_ key: String) -> MetadataIdentifier { MetadataIdentifier(keySpace: .quickTimeMetadata, key: key) }
        func tag(_ key: String) -> MetadataIdentifier { MetadataIdentifier(keySpace: .container, key: key) }
        return [
            (.commonIdentifierTitle, [mdta("com.apple.quicktime.title"), tag("title")]),
            (.commonIdentifierCreationDate, [mdta("com.apple.quicktime.creationdate"), tag("creation_time"), tag("date"),
                                   tag("date_recorded")]),
            (.commonIdentifierLocation, [mdta("com.apple.quicktime.location.ISO6709"), userDataLocation, tag("location")]),
            (.commonIdentifierMake, [mdta("com.apple.quicktime.make"), mdta("com.android.manufacturer"), tag("make")]),
            (.commonIdentifierModel, [mdta("com.apple.quicktime.model"), mdta("com.android.model"), tag("model")]),
            (.commonIdentifierSoftware, [mdta("com.apple.quicktime.software"), tag("software"), tag("firmware"), tag("encoder")]),
        ]
    }()

    /// The common-key-space items found among `items`: one per common key, from its best
    /// source. A creation date that parses becomes a date value.
    static func commonItems(from items: [MetadataItem]) -> [MetadataItem] {
        var result: [MetadataItem] = []
        for (common, sources) in commonSources {
            guard let found = sources.lazy.compactMap({ source in items.first { matches($0.identifier, source) } }).first
            else { continue }
            var item = MetadataItem(identifier: common, value: found.value, dataType: found.dataType, unit: found.unit)
            if common == .commonIdentifierCreationDate, let text = found.stringValue, let date = parseDate(text) {
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

    /// Parses the date forms containers use: ISO 8601 with or without fractional seconds
    /// (any number of digits, FFmpeg writes six) and with `Z` or an offset; a bare date.
    static func parseDate(_ text: String) -> Date? {
        var s = text.trimmingCharacters(in: .whitespaces)
        if s.count == 10, let d = try? Date.ISO8601FormatStyle().year().month().day().parse(s) { return d }
        // Keep at most three fractional digits: "15:45:32.000000Z" -> "15:45:32.000Z".
        if let t = s.firstIndex(of: "T"), let dot = s[t...].firstIndex(of: ".") {
            let digitsStart = s.index(after: dot)
            let digitsEnd = s[digitsStart...].firstIndex { !$0.isNumber } ?? s.endIndex
            let digits = s[digitsStart..<digitsEnd]
            let kept = String((digits + "000").prefix(3))
            s = String(s[..<digitsStart]) + kept + String(s[digitsEnd...])
        }
        // "+0800" -> "+08:00".
        if s.count > 5 {
            let tail = s.suffix(5)
            if let sign = tail.first, sign == "+" || sign == "-", tail.dropFirst().allSatisfy(\.isNumber), s.contains("T") {
                s = String(s.dropLast(5)) + String(sign) + tail.dropFirst().prefix(2) + ":" + tail.suffix(2)
            }
        }
        if let d = try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(s) { return d }
        if let d = try? Date.ISO8601FormatStyle().parse(s) { return d }
        // "2024-01-01 12:00:00" (space instead of T, no zone: UTC).
        if s.count == 19, s[s.index(s.startIndex, offsetBy: 10)] == " " {
            var t = s
            t.replaceSubrange(t.index(t.startIndex, offsetBy: 10)...t.index(t.startIndex, offsetBy: 10), with: "T")
            return try? Date.ISO8601FormatStyle().parse(t + "Z")
        }
        return nil
    }
}
