/// The captions showing over one time range (AVFoundation's `AVCaptionGroup`).
///
/// ``groups(for:)`` cuts a caption list where any caption starts or ends, as
/// `AVAssetReaderOutputCaptionAdaptor` does: within a group the same captions show
/// throughout. A group with no captions is a gap between captions.
public struct CaptionGroup: Sendable, Hashable {
    public var timeRange: TimeRange
    public var captions: [Caption]

    public init(timeRange: TimeRange, captions: [Caption] = []) {
        self.timeRange = timeRange
        self.captions = captions
    }

    /// The groups from the first caption's start to the last one's end, in time order,
    /// each holding the captions (in their list order) that show throughout it. Captions
    /// with an empty or invalid time range show nowhere and are left out.
    public static func groups(for captions: [Caption]) -> [CaptionGroup] {
        let shown = captions.filter { $0.timeRange.isValid && $0.timeRange.start.isNumeric && $0.timeRange.duration > .zero }
        var cuts = Set<MediaTime>()
        for c in shown {
            cuts.insert(c.timeRange.start)
            cuts.insert(c.timeRange.end)
        }
        let times = cuts.sorted()
        var groups: [CaptionGroup] = []
        for (start, end) in zip(times, times.dropFirst()) {
            let range = TimeRange(start: start, end: end)
            groups.append(CaptionGroup(timeRange: range, captions: shown.filter { $0.timeRange.containsTimeRange(range) }))
        }
        return groups
    }

    /// The group of `groups` (in time order, not overlapping, as ``groups(for:)`` makes
    /// them) whose range holds `time` (half-open), by binary search; nil when none does.
    public static func group(at time: MediaTime, in groups: [CaptionGroup]) -> CaptionGroup? {
        var low = 0, high = groups.count
        while low < high {
            let mid = (low + high) / 2
            if groups[mid].timeRange.end <= time { low = mid + 1 } else { high = mid }
        }
        return low < groups.count && groups[low].timeRange.containsTime(time) ? groups[low] : nil
    }
}
