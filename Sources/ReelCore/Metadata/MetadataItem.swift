import Foundation

/// A metadata value: what a ``MetadataItem`` holds.
public enum MetadataValue: Sendable, Hashable {
    case string(String)
    case integer(Int64)
    case double(Double)
    case date(Date)
    case data(Data)
    /// Several numbers that belong together (a 3-axis accelerometer sample, a matrix).
    case numbers([Double])
}

/// One piece of metadata: an identified, typed value, optionally timed (AVMetadataItem).
public struct MetadataItem: Sendable, Hashable {
    public var identifier: MetadataIdentifier
    public var value: MetadataValue
    /// The type as the source names it (`com.apple.metadata.datatype.UTF-8`, GPMF's type char, ...).
    public var dataType: String?
    /// Units of the value where the source gives them (`m/s²`, `rad/s`, `m`).
    public var unit: String?
    /// When the value applies, for timed metadata; invalid for static items.
    public var time: MediaTime
    /// How long the value applies; invalid when unknown.
    public var duration: MediaTime
    /// The language of the value as a BCP 47 tag (`en`, `fr-CA`), when the source gives one.
    public var extendedLanguageTag: String?
    /// The moment the value applies from, as a date, for items of a date-based timeline
    /// (AVMetadataItem.startDate); nil otherwise. Reel's readers place timed items by
    /// ``time`` in the track and leave this nil; an item made for a writer may carry it.
    public var startDate: Date?
    /// What the source says about the item beyond its value (AVMetadataItem.extraAttributes),
    /// by ``MetadataExtraAttributeKey``; empty when it says nothing.
    public var extraAttributes: [MetadataExtraAttributeKey: String]

    public init(
        identifier: MetadataIdentifier, value: MetadataValue, dataType: String? = nil, unit: String? = nil,
        time: MediaTime = .invalid, duration: MediaTime = .invalid, extendedLanguageTag: String? = nil,
        startDate: Date? = nil, extraAttributes: [MetadataExtraAttributeKey: String] = [:]
    ) {
        self.identifier = identifier
        self.value = value
        self.dataType = dataType
        self.unit = unit
        self.time = time
        self.duration = duration
        self.extendedLanguageTag = extendedLanguageTag
        self.startDate = startDate
        self.extraAttributes = extraAttributes
    }

    /// The locale of ``extendedLanguageTag``.
    public var locale: Locale? { extendedLanguageTag.map { Locale(identifier: $0) } }

    public var key: String { identifier.key }
    public var keySpace: MetadataKeySpace { identifier.keySpace }

    /// The value as text: strings as they are, numbers and dates formatted; nil for data.
    public var stringValue: String? {
        switch value {
        case .string(let s): s
        case .integer(let i): String(i)
        case .double(let d): String(d)
        case .date(let d): d.formatted(.iso8601)
        case .numbers(let n): n.map { String($0) }.joined(separator: " ")
        case .data: nil
        }
    }

    /// The value as a number: numbers as they are, strings that parse as one, and
    /// big-endian integers of 1, 2, 4 or 8 bytes held as data under an integer data type
    /// (`com.apple.metadata.datatype.int8` ... `uint64`, iTunes flags 21 and 22); else nil.
    public var numberValue: Double? {
        switch value {
        case .integer(let i): Double(i)
        case .double(let d): d
        case .string(let s): Double(s.trimmingCharacters(in: .whitespaces))
        case .numbers(let n): n.count == 1 ? n[0] : nil
        case .data(let bytes): Self.integer(bytes, dataType: dataType)
        case .date: nil
        }
    }

    /// The value as a date: dates as they are; strings in the forms containers write:
    /// ISO 8601 with or without fractional seconds and zone (`+0100` too), a bare date
    /// (`2024-01-01`), a date and time with a space and no zone (UTC), a year (`2024`,
    /// January 1st UTC, as iTunes `©day` often holds); else nil.
    public var dateValue: Date? {
        switch value {
        case .date(let d): d
        case .string(let s): Self.date(fromMetadataString: s)
        default: nil
        }
    }

    /// The value as bytes: data as it is, strings as UTF-8; else nil.
    public var dataValue: Data? {
        switch value {
        case .data(let d): d
        case .string(let s): Data(s.utf8)
        default: nil
        }
    }

    /// A big-endian integer under an integer data type; nil for other data.
    static func integer(_ bytes: Data, dataType: String?) -> Double? {
        guard let dataType, [1, 2, 4, 8].contains(bytes.count) else { return nil }
        let signed: Bool
        switch dataType {
        case "com.apple.metadata.datatype.int8", "com.apple.metadata.datatype.int16", "com.apple.metadata.datatype.int32",
            "com.apple.metadata.datatype.int64", "com.apple.metadata.datatype.signed-integer":
            signed = true
        case "com.apple.metadata.datatype.uint8", "com.apple.metadata.datatype.uint16", "com.apple.metadata.datatype.uint32",
            "com.apple.metadata.datatype.uint64", "com.apple.metadata.datatype.unsigned-integer":
            signed = false
        default: return nil
        }
        let raw = bytes.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        guard signed else { return Double(raw) }
        let shift = UInt64(64 - bytes.count * 8)
        return Double(Int64(bitPattern: raw << shift) >> Int64(shift))
    }

    /// Parses the date forms containers write (see ``dateValue``).
    package static func date(fromMetadataString text: String) -> Date? {
        var s = text.trimmingCharacters(in: .whitespaces)
        if s.count == 4, s.allSatisfy(\.isNumber) { s += "-01-01" }
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
        // "2024-01-01 12:00:00" (space instead of T) and ID3v2.4's "2024-01-01T12:00:00":
        // no zone, UTC.
        if s.count == 19, [" ", "T"].contains(s[s.index(s.startIndex, offsetBy: 10)]) {
            var t = s
            t.replaceSubrange(t.index(t.startIndex, offsetBy: 10)...t.index(t.startIndex, offsetBy: 10), with: "T")
            return try? Date.ISO8601FormatStyle().parse(t + "Z")
        }
        return nil
    }

    /// The items of `items` whose identifier is `identifier` (AVMetadataItem.metadataItems(from:filteredByIdentifier:)).
    public static func metadataItems(from items: [MetadataItem], filteredByIdentifier identifier: MetadataIdentifier) -> [MetadataItem] {
        items.filter { $0.identifier == identifier }
    }

    /// The items of `items` with `key` in `keySpace` (AVMetadataItem.metadataItems(from:withKey:keySpace:));
    /// a nil key or key space matches any. Keys compare exactly (`©nam` is not `title`:
    /// filter `commonKey` for the common meaning).
    public static func metadataItems(from items: [MetadataItem], withKey key: String?, keySpace: MetadataKeySpace?) -> [MetadataItem] {
        items.filter { item in (key.map { item.key == $0 } ?? true) && (keySpace.map { item.keySpace == $0 } ?? true) }
    }

    /// The items of `items` in one of `preferredLanguages` (BCP 47 tags, best first),
    /// those in the first language first, in their order within each language
    /// (AVMetadataItem.metadataItems(from:filteredAndSortedAccordingToPreferredLanguages:)).
    /// Languages compare by their primary subtag (`fr-CA` is `fr`, `fra`); an item without
    /// a language, or in none of them, is left out.
    public static func metadataItems(from items: [MetadataItem], filteredAndSortedAccordingToPreferredLanguages preferredLanguages: [String]) -> [MetadataItem]
    {
        let ranked = items.enumerated().compactMap { index, item -> (rank: Int, index: Int, item: MetadataItem)? in
            guard let tag = item.extendedLanguageTag,
                let rank = preferredLanguages.firstIndex(where: { LanguageTag.sameLanguage(tag, $0) })
            else { return nil }
            return (rank, index, item)
        }
        return ranked.sorted { ($0.rank, $0.index) < ($1.rank, $1.index) }.map(\.item)
    }
}

/// A kind of extra attribute of a ``MetadataItem`` (AVMetadataExtraAttributeKey).
public struct MetadataExtraAttributeKey: RawRepresentable, Sendable, Hashable, Codable {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Information about the value, such as an ID3 comment's or user text's description.
    public static let info = MetadataExtraAttributeKey(rawValue: "info")
    /// The base URI of a value that is a relative URI.
    public static let baseURI = MetadataExtraAttributeKey(rawValue: "baseURI")
}

/// The metadata items that hold over one time range of a timed-metadata track
/// (AVTimedMetadataGroup).
public struct TimedMetadataGroup: Sendable, Hashable {
    public var timeRange: TimeRange
    public var items: [MetadataItem]

    public init(timeRange: TimeRange, items: [MetadataItem]) {
        self.timeRange = timeRange
        self.items = items
    }

    /// A group in AVFoundation's argument order (AVTimedMetadataGroup(items:timeRange:)).
    public init(items: [MetadataItem], timeRange: TimeRange) {
        self.init(timeRange: timeRange, items: items)
    }

    /// The first item with `identifier`, if any.
    public func item(_ identifier: MetadataIdentifier) -> MetadataItem? {
        items.first { $0.identifier == identifier }
    }

    /// The numeric value of the first item with `identifier`.
    public func number(_ identifier: MetadataIdentifier) -> Double? { item(identifier)?.numberValue }
}

/// The raw bytes of one sample of a track, with its timing (CMSampleBuffer, data only).
public struct SampleBuffer: Sendable, Hashable {
    public var data: Data
    public var presentationTime: MediaTime
    public var duration: MediaTime
    /// The codec code of the sample's track: a timed-metadata format (`gpmd`, `mebx`,
    /// `camm`, `klv`), or any other codec's for passthrough packets (`avc1`, `mp4a`).
    public var format: String
    /// When the sample is decoded, for codecs that reorder frames (B-frames); invalid when
    /// it is the presentation time.
    public var decodeTime: MediaTime
    /// Whether the sample decodes without earlier ones (a keyframe); true for metadata.
    public var isSync: Bool
    /// A WebVTT cue's settings (`line:0 align:start`), which Matroska keeps beside the cue
    /// text (FFmpeg's WebVTT settings side data); nil for other samples.
    public var cueSettings: String?
    /// A WebVTT cue's identifier, kept beside the cue text as its settings are; nil when
    /// the cue has none.
    public var cueIdentifier: String?

    public init(
        data: Data, presentationTime: MediaTime, duration: MediaTime, format: String,
        decodeTime: MediaTime = .invalid, isSync: Bool = true
    ) {
        self.data = data
        self.presentationTime = presentationTime
        self.duration = duration
        self.format = format
        self.decodeTime = decodeTime
        self.isSync = isSync
    }

    /// A timed-metadata sample of `format`.
    public init(data: Data, presentationTime: MediaTime, duration: MediaTime, format: MetadataFormat) {
        self.init(data: data, presentationTime: presentationTime, duration: duration, format: format.rawValue)
    }

    public var timeRange: TimeRange { TimeRange(start: presentationTime, duration: duration) }

    /// The timed-metadata format ``format`` names (`KLVA` read as ``MetadataFormat/klv``),
    /// or nil when it is no format in ``MetadataFormat/known`` (video, audio, captions).
    public var metadataFormat: MetadataFormat? { MetadataFormat(knownCode: format) }
}
