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

extension MetadataSampleTimes {
    /// The box tree of one reader's file, read once for all its outputs: by the first
    /// read loop that asks, on that loop's thread, while any other that asks meanwhile
    /// waits for it.
    final class Movie: Sendable {
        private struct Parsed: Sendable {
            var tracks: [MP4Track]
            var movieTimescale: UInt32
        }

        private let path: String
        /// Nil until read; `.some(nil)` once the boxes turned out unreadable.
        private let parsed = Lock<Parsed??>(nil)
        private let reads = Lock(0)

        init(path: String) { self.path = path }

        /// How many times the boxes were read: 0 or 1.
        var readCount: Int { reads.withLock { $0 } }

        /// The placements of track `trackID`'s samples; nil when the file's boxes cannot
        /// be read or the track has no sample table.
        func sampleTimes(trackID: Int32) -> MetadataSampleTimes? {
            let movie = parsed.withLock { parsed -> Parsed? in
                if let parsed { return parsed }
                reads.withLock { $0 += 1 }
                let read: Parsed? = (try? MP4File(contentsOf: URL(fileURLWithPath: path))).flatMap { file in
                    guard let tracks = try? file.tracks() else { return nil }
                    return Parsed(tracks: tracks, movieTimescale: (try? file.movieTimescale()) ?? 0)
                }
                parsed = .some(read)
                return read
            }
            guard let movie, let track = movie.tracks.first(where: { Int64($0.trackID) == Int64(trackID) }) else { return nil }
            return MetadataSampleTimes(track: track, movieTimescale: movie.movieTimescale)
        }
    }
}
