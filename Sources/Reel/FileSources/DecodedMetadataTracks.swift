import Foundation
import ReelComposition
import ReelCore
import ReelIO

/// Every sample of a file's timed-metadata track, decoded once for the process with Reel's
/// decoding, each group with the raw sample it came from.
///
/// A render reads a camera's GPS track three times: the composition file's loader reads
/// every group (a dashboard draws the whole route), the engine asks for the group at each
/// frame's time, and the export writes the samples into the output. All three now take
/// the track from here, so it is read and decoded once; a seek back in a preview answers
/// from memory instead of opening a reader again. A track is known by its file's identity
/// (device, inode, size, modification time): a file written again is read again. The
/// tracks used most recently are kept; requests for a track being read wait for that read.
package final class DecodedMetadataTracks: Sendable {
    /// One track, decoded.
    package struct Track: Sendable {
        /// Each sample in file order with the groups it gave (none for one that did not
        /// decode), as a reader of the whole track delivers them.
        var samples: [(buffer: SampleBuffer, groups: [TimedMetadataGroup])]
        /// Every group with its sample, in time order, an instant (a group with no
        /// duration) lasting until the next group starts: what the engine is given.
        var timeline: [TimedMetadataSample]
        /// Whether the timeline's groups start in time order (a binary search finds them).
        var isInTimeOrder: Bool
        /// The samples that did not decode, each once.
        var warnings: [MetadataReadWarning]
    }

    package static let shared = DecodedMetadataTracks()
    /// Tracks kept after their last use.
    static let recentLimit = 8

    private struct Key: Hashable {
        var file: FileIdentity
        var trackID: Int32
    }
    private struct State {
        var reads: [Key: Task<Result<Track, ReelError>, Never>] = [:]
        /// Most recently used last.
        var order: [Key] = []
        /// How many times each track was asked for, and how many times it was read.
        var counts: [Key: (requests: Int, reads: Int)] = [:]
    }
    private let state = Lock(State())

    /// How many times track `trackID` of the file at `url` (as it is now) was asked for,
    /// and how many times it was read and decoded.
    package func counts(url: URL, trackID: Int32) -> (requests: Int, reads: Int) {
        guard let file = FileIdentity(url) else { return (0, 0) }
        return state.withLock { $0.counts[Key(file: file, trackID: trackID)] ?? (0, 0) }
    }

    /// Track `trackID` of the file at `url`, read and decoded on first use. A URL that is
    /// not a file on disk is read each time.
    package func track(url: URL, trackID: Int32) async throws(ReelError) -> Track {
        guard let file = FileIdentity(url) else { return try await Self.read(url: url, trackID: trackID) }
        let key = Key(file: file, trackID: trackID)
        let task = state.withLock { state -> Task<Result<Track, ReelError>, Never> in
            state.order.removeAll { $0 == key }
            state.order.append(key)
            state.counts[key, default: (0, 0)].requests += 1
            if let known = state.reads[key] { return known }
            state.counts[key, default: (0, 0)].reads += 1
            let task = Task { () -> Result<Track, ReelError> in
                do throws(ReelError) { return .success(try await Self.read(url: url, trackID: trackID)) } catch { return .failure(error) }
            }
            state.reads[key] = task
            while state.order.count > Self.recentLimit { state.reads[state.order.removeFirst()] = nil }
            return task
        }
        let result = await task.value
        // A failed read (a file being written, cut short) is tried again next time.
        if case .failure = result { state.withLock { if $0.reads[key] == task { $0.reads[key] = nil } } }
        return try result.get()
    }

    private static func read(url: URL, trackID: Int32) async throws(ReelError) -> Track {
        let cursor = try MetadataCursor(reader: try await AssetReader.open(url: url), trackID: trackID, start: .zero, decode: nil)
        defer { cursor.close() }
        var samples: [(buffer: SampleBuffer, groups: [TimedMetadataGroup])] = []
        var timeline: [TimedMetadataSample] = []
        while let (buffer, groups) = try await cursor.adaptor.nextDecodedSample() {
            samples.append((buffer, groups))
            MetadataCursor.append(groups.map { TimedMetadataSample(group: $0, sampleBuffer: buffer) }, to: &timeline)
        }
        let ordered = zip(timeline, timeline.dropFirst()).allSatisfy { !($1.group.timeRange.start < $0.group.timeRange.start) }
        return Track(samples: samples, timeline: timeline, isInTimeOrder: ordered, warnings: cursor.adaptor.takeNewWarnings())
    }
}

extension DecodedMetadataTracks.Track {
    /// Every group in file order, as ``AssetReaderOutputMetadataAdaptor`` gives them.
    package var groups: [TimedMetadataGroup] { samples.flatMap(\.groups) }

    /// What a reader limited to `range` (source time) gives, as ``MetadataCursor/readAll(until:)``
    /// returns it: the samples that overlap the range (an instant at its start or after)
    /// up to the first that starts at or after its end, and of those the groups inside it.
    func samples(in range: TimeRange) -> [TimedMetadataSample] {
        // A reader is limited only by a start after zero.
        let start: MediaTime? = range.start > .zero ? range.start : nil
        var out: [TimedMetadataSample] = []
        for (buffer, groups) in samples {
            let pts = buffer.presentationTime
            if let start, pts.isNumeric {
                let overlaps = buffer.duration.isNumeric && buffer.duration > .zero ? pts + buffer.duration > start : !(pts < start)
                guard overlaps else { continue }
            }
            let kept =
                start.map { start in
                    groups.filter { group in
                        let span = group.timeRange
                        guard span.start.isNumeric else { return true }
                        return span.duration.isNumeric && span.duration > .zero ? span.end > start : !(span.start < start)
                    }
                } ?? groups
            let next = kept.map { TimedMetadataSample(group: $0, sampleBuffer: buffer) }
            MetadataCursor.append(next, to: &out)
            if pts.isNumeric, !(pts < range.end) {
                // Past the end: it only ended the instant before it.
                out.removeLast(next.count)
                break
            }
        }
        return out
    }

    /// The group showing at `time`: the last to start at or before it, when it lasts past
    /// `time` (or is an instant at exactly `time`).
    func sample(at time: MediaTime) -> TimedMetadataSample? {
        let candidate: TimedMetadataSample?
        if isInTimeOrder {
            var low = 0, high = timeline.count
            while low < high {
                let mid = (low + high) / 2
                if time < timeline[mid].group.timeRange.start { high = mid } else { low = mid + 1 }
            }
            candidate = low > 0 ? timeline[low - 1] : nil
        } else {
            candidate = timeline.last { !(time < $0.group.timeRange.start) }
        }
        guard let candidate else { return nil }
        let span = candidate.group.timeRange
        return span.containsTime(time) || (span.duration == .zero && span.start == time) ? candidate : nil
    }
}
