import Foundation

/// Decodes the samples of any timed-metadata track Reel reads into groups, by the
/// track's `MetadataFormat`: `gpmd` (GPMF), `mebx` (QuickTime, with the sample entry's
/// keys), `camm`, and KLV (`klv`, the MP4 `KLVA`: MISB ST 0601 and EG 0104).
///
/// A value type with a little state: KLV packets without a presentation time are placed
/// by their UNIX time stamp relative to the first packet seen, and GPMF streams without
/// STMP by their TSMP counts against the track's earlier payloads (``GPMFSampleCounts``),
/// so feed one track's samples in order through one decoder.
public struct TimedMetadataDecoder: Sendable {
    /// The track format this decoder handles.
    public let format: MetadataFormat
    /// For `mebx`: the keys from the track's sample entry (``MP4SampleEntry/metadataKeys``).
    public let keys: [QuickTimeMetadataKey]

    private var klvAnchor: (unix: Int64, time: MediaTime)?
    private var gpmfCounts = GPMFSampleCounts()
    private var lastKLVTime: MediaTime?

    /// The formats with a decoder.
    public static let supportedFormats: Set<MetadataFormat> = [.gpmd, .mebx, .camm, .klv]

    public static func canDecode(format: MetadataFormat) -> Bool { supportedFormats.contains(format) }

    public init(format: MetadataFormat, keys: [QuickTimeMetadataKey] = []) {
        self.format = format
        self.keys = keys
    }

    /// The groups of one sample.
    ///
    /// - `gpmd`: one group per GPS fix across the sample's span (``GPMF/groups(payload:timeRange:)``).
    /// - `mebx`, `camm`: one group over the sample's span.
    /// - KLV: one group per packet, at the sample's time, or (no time) at its UNIX time
    ///   stamp relative to the first packet; lasting the sample's duration, or the gap
    ///   since the packet before when there is none.
    /// A sample without a numeric duration is read as an instant.
    /// - Throws: the format's `ReelError`; `.unsupportedFormat` for any other format.
    public mutating func groups(for sample: SampleBuffer) throws(ReelError) -> [TimedMetadataGroup] {
        let duration = sample.duration.isNumeric ? sample.duration : .zero
        let range = TimeRange(start: sample.presentationTime, duration: duration)
        switch format {
        case .gpmd:
            return try GPMF.groups(payload: sample.data, timeRange: range, counts: &gpmfCounts)
        case .mebx:
            return [try QuickTimeMetadataSample.group(sample: sample.data, keys: keys, timeRange: range)]
        case .camm:
            return [try CAMM.group(sample: sample.data, timeRange: range)]
        case .klv:
            return try klvGroups(sample)
        default:
            throw ReelError(
                .unsupportedFormat,
                "no timed-metadata decoder for format '\(format)' (Reel decodes \(Self.supportedFormats.map(\.rawValue).sorted().joined(separator: ", ")))",
                time: sample.presentationTime)
        }
    }

    private mutating func klvGroups(_ sample: SampleBuffer) throws(ReelError) -> [TimedMetadataGroup] {
        var out: [TimedMetadataGroup] = []
        for packet in try KLV.packets(in: sample.data) {
            var unix: Int64?
            var items: [MetadataItem]
            if packet.key == MISB0601.universalKey {
                let set = try MISB0601.decode(packet)
                unix = set.unixTimeMicroseconds
                items = set.metadataItems()
            } else if EG0104.matches(packet.key) {
                let set = try EG0104.decode(packet)
                unix = set.unixTimeMicroseconds
                items = set.metadataItems()
            } else {
                items = [MetadataItem(identifier: MetadataIdentifier(keySpace: .klv, key: packet.keyHex), value: .data(packet.value))]
            }
            var time = sample.presentationTime
            if time.isNumeric {
                if klvAnchor == nil, let unix { klvAnchor = (unix, time) }
            } else if let unix {
                if klvAnchor == nil { klvAnchor = (unix, .zero) }
                let (delta, overflow) = unix.subtractingReportingOverflow(klvAnchor!.unix)
                time = overflow ? .invalid : klvAnchor!.time + MediaTime(value: delta, timescale: 1_000_000)
            }
            if !time.isNumeric { time = lastKLVTime ?? .zero }
            var duration = sample.duration.isNumeric ? sample.duration : .zero
            if !sample.duration.isNumeric, let last = lastKLVTime, last < time { duration = time - last }
            lastKLVTime = time
            for i in items.indices {
                items[i].time = time
                items[i].duration = duration
            }
            out.append(TimedMetadataGroup(timeRange: TimeRange(start: time, duration: duration), items: items))
        }
        return out
    }
}
