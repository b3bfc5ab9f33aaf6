import Foundation
import ReelCore
import ReelIO
import ReelMetadata

/// Timed metadata groups encoded in another track format, and what that format could
/// not carry.
///
/// `gpmd` gathers the groups into GoPro-style payloads of 1.001 s; `mebx`, `camm` and
/// `klv` write one sample per group (``AssetWriterInputMetadataAdaptor/defaultEncode(forFormat:)``).
/// What is lost is found by decoding the written samples again and comparing the item
/// identifiers with the groups', so the warning is true of the bytes, not of a table.
struct MetadataConversion: Sendable {
    let format: MetadataFormat
    /// The encoded samples, in time order.
    private(set) var samples: [SampleBuffer] = []
    /// Groups the format could not hold at all (no GPS fix for `camm` or `klv`, say).
    private(set) var droppedGroups = 0
    /// Item identifiers of the groups that no written sample gives back.
    private(set) var lostIdentifiers: [MetadataIdentifier] = []

    /// GoPro's payload length.
    static let gpmfPayloadDuration = MediaTime(value: 1001, timescale: 1000)

    /// `groups` encoded as `format` samples for `input` (a `mebx` input gathers the key
    /// table its samples refer to).
    init(groups: [TimedMetadataGroup], to format: MetadataFormat, input: AssetWriterInput) {
        self.format = format
        if format == .gpmd {
            encodeGPMF(groups)
        } else {
            let encode = AssetWriterInputMetadataAdaptor.defaultEncode(forFormat: format, input: input)
            var encoded: [(group: TimedMetadataGroup, time: MediaTime, data: Data)] = []
            for group in groups {
                guard let data = try? encode(group) else {
                    droppedGroups += 1
                    continue
                }
                encoded.append((group, Self.sampleTime(of: group), data))
            }
            for (k, e) in encoded.enumerated() {
                // A sample lasts until the next one when their groups meet, so the track
                // has no gap between a payload's start and its first fix.
                var end = e.group.timeRange.end
                if k + 1 < encoded.count, !(e.group.timeRange.end < encoded[k + 1].group.timeRange.start), e.time < encoded[k + 1].time {
                    end = encoded[k + 1].time
                }
                if end < e.time { end = e.time }
                samples.append(SampleBuffer(data: e.data, presentationTime: e.time, duration: end - e.time, format: format))
            }
        }
        lostIdentifiers = Self.lost(from: groups, in: samples, decoder: TimedMetadataDecoder(format: format, keys: input.metadataKeys))
    }

    /// When a converted sample of `group` starts: at its fix's own time (a GPMF payload's
    /// first group starts with the payload, up to a payload's length before its first
    /// fix), else at the group's start. A fix time outside the group (a group cut at an
    /// edit) gives the group's start.
    static func sampleTime(of group: TimedMetadataGroup) -> MediaTime {
        let range = group.timeRange
        let time = GPSFix.time(in: group)
        guard time.isNumeric, !(time < range.start), time < range.end || time == range.start else { return range.start }
        return time
    }

    /// One payload per 1.001 s window holding the groups that start in it.
    private mutating func encodeGPMF(_ groups: [TimedMetadataGroup]) {
        var window: [TimedMetadataGroup] = []
        func flush(_ samples: inout [SampleBuffer], _ dropped: inout Int, isLast: Bool = false) {
            defer { window.removeAll() }
            guard let first = window.first, let last = window.last else { return }
            var end = last.timeRange.end
            if !(first.timeRange.start < end) { end = first.timeRange.start + Self.gpmfPayloadDuration }
            // A reader spreads a payload's fixes evenly to its end: the last payload, which
            // no next one bounds, ends one fix spacing after its last fix (a source's last
            // sample often lasts to the end of the video).
            if isLast, window.count > 1 {
                let (a, b) = (Self.sampleTime(of: first), Self.sampleTime(of: last))
                let spaced = b + (b - a).multiplied(byRatio: 1, Int32(clamping: window.count - 1))
                if a < b, spaced < end { end = spaced }
            }
            let range = TimeRange(start: first.timeRange.start, end: end)
            guard let data = try? GPMFWriter.payload(groups: window, timeRange: range) else {
                dropped += window.count
                return
            }
            samples.append(SampleBuffer(data: data, presentationTime: range.start, duration: range.duration, format: .gpmd))
        }
        for group in groups {
            if let first = window.first, !(group.timeRange.start < first.timeRange.start + Self.gpmfPayloadDuration) {
                flush(&samples, &droppedGroups)
            }
            window.append(group)
        }
        flush(&samples, &droppedGroups, isLast: true)
    }

    /// Identifiers the groups hold and the decoded samples do not, the fix's fields
    /// (`reel/speed.3d`, `reel/gps.dop`, ...) first. Raw GPS records whose content the
    /// samples carry as a fix (GPMF's GPS5, GPSU, ...; the ISO 6709 string) are not
    /// counted, nor Reel's raw-sample items: the fix's fields they held are compared one
    /// by one instead, so a fix carried without its DOP names `reel/gps.dop`.
    static func lost(from groups: [TimedMetadataGroup], in samples: [SampleBuffer], decoder: TimedMetadataDecoder) -> [MetadataIdentifier] {
        var decoder = decoder
        var kept = Set<MetadataIdentifier>()
        for sample in samples {
            for group in (try? decoder.groups(for: sample)) ?? [] { kept.formUnion(group.items.map(\.identifier)) }
        }
        let carriesFix = kept.contains(.latitude)
        var lost = Set<MetadataIdentifier>()
        for group in groups {
            for item in group.items where !kept.contains(item.identifier) {
                let id = item.identifier
                if id.keySpace == .reel, id.key.hasPrefix("sample.") { continue }
                if carriesFix, id == .quickTimeMetadataLocationISO6709 || (id.keySpace == .gpmf && gpsRecordKeys.contains(id.key)) { continue }
                lost.insert(id)
            }
        }
        // The fix's own fields (3D speed, DOP, fix type, UTC) first: they are what a
        // reader of the converted track misses most, and a long list shows only its start.
        return lost.sorted { a, b in
            let (fa, fb) = (a.keySpace == .reel, b.keySpace == .reel)
            return fa != fb ? fa : a.description < b.description
        }
    }

    /// GPMF keys whose content is the GPS fix.
    static let gpsRecordKeys: Set<String> = ["GPS5", "GPS9", "GPRI", "GLPI", "GPSU", "GPSF", "GPSP", "GPSA"]

    /// What was not carried, in one clause; nil when everything was.
    var lossDescription: String? {
        var parts: [String] = []
        if !lostIdentifiers.isEmpty {
            let names = lostIdentifiers.map(\.description)
            let shown = names.prefix(8).joined(separator: ", ")
            parts.append("not carried: \(shown)" + (names.count > 8 ? " and \(names.count - 8) more" : ""))
        }
        if droppedGroups > 0 {
            parts.append("\(droppedGroups) group\(droppedGroups == 1 ? "" : "s") with nothing \(format) can hold left out")
        }
        return parts.isEmpty ? nil : parts.joined(separator: "; ")
    }
}
