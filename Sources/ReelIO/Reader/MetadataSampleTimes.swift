import Foundation
import ReelCore
import ReelMetadata

/// Where each sample of an MP4/QuickTime timed-metadata track is presented on the movie
/// timeline, by the sample's file offset: its sample-table span moved through the
/// track's edit list (``MP4Track/presentationTimeRange(of:movieTimescale:)``).
///
/// FFmpeg 5.1 applies edit lists to data streams too, but it moves a sample cut by the
/// start of an edit to the edit's start and shortens it, and it gives the last sample no
/// duration: a GPMF payload's fixes would then be spread over the wrong span. The video's
/// frames keep their own times, so the metadata does too.
struct MetadataSampleTimes: Sendable {
    enum Placement: Equatable, Sendable {
        /// Shown over this range of the movie timeline.
        case shown(TimeRange)
        /// No edit shows the sample (trimmed away).
        case hidden
    }

    private let byOffset: [Int64: Placement]

    /// The placements of `track`'s samples; nil when the track has no sample table (a
    /// fragmented file keeps its samples in `moof` boxes, timed by FFmpeg from
    /// `tfdt`/`trun`) or the table cannot be read.
    init?(track: MP4Track, movieTimescale: UInt32) {
        guard let samples = try? track.samples(), !samples.isEmpty else { return nil }
        var byOffset: [Int64: Placement] = [:]
        byOffset.reserveCapacity(samples.count)
        for sample in samples where byOffset[sample.offset] == nil {
            byOffset[sample.offset] = track.presentationTimeRange(of: sample, movieTimescale: movieTimescale).map(Placement.shown) ?? .hidden
        }
        self.byOffset = byOffset
    }

    /// The placement of the sample at file offset `offset`; nil for a sample the table
    /// does not hold.
    func placement(atOffset offset: Int64) -> Placement? { byOffset[offset] }
}
