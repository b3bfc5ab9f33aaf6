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

    public init(identifier: MetadataIdentifier, value: MetadataValue, dataType: String? = nil, unit: String? = nil,
                time: MediaTime = .invalid, duration: MediaTime = .invalid) {
        self.identifier = identifier
        self.value = value
        self.dataType = dataType
        self.unit = unit
        self.time = time
        self.duration = duration
    }

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

    /// The value as a number: numbers as they are, strings that parse as one; else nil.
    public var numberValue: Double? {
        switch value {
        case .integer(let i): Double(i)
        case .double(let d): d
        case .string(let s): Double(s.trimmingCharacters(in: .whitespaces))
        case .numbers(let n): n.count == 1 ? n[0] : nil
        case .date, .data: nil
        }
    }

    /// The value as a date: dates as they are, ISO 8601 strings; else nil.
    public var dateValue: Date? {
        switch value {
        case .date(let d): return d
        case .string(let s):
            let fractional = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
            if let d = try? fractional.parse(s) { return d }
            return try? Date.ISO8601FormatStyle().parse(s)
        default: return nil
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

    /// The items of `items` whose identifier is `identifier` (AVMetadataItem.metadataItems(from:filteredByIdentifier:)).
    public static func metadataItems(from items: [MetadataItem], filteredByIdentifier identifier: MetadataIdentifier) -> [MetadataItem] {
        items.filter { $0.identifier == identifier }
    }
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
    /// The track's format (`gpmd`, `mebx`, `camm`, `klv`, ...).
    public var format: String
    /// When the sample is decoded, for codecs that reorder frames (B-frames); invalid when
    /// it is the presentation time.
    public var decodeTime: MediaTime
    /// Whether the sample decodes without earlier ones (a keyframe); true for metadata.
    public var isSync: Bool

    public init(data: Data, presentationTime: MediaTime, duration: MediaTime, format: String,
                decodeTime: MediaTime = .invalid, isSync: Bool = true) {
        self.data = data
        self.presentationTime = presentationTime
        self.duration = duration
        self.format = format
        self.decodeTime = decodeTime
        self.isSync = isSync
    }

    public var timeRange: TimeRange { TimeRange(start: presentationTime, duration: duration) }
}
