import Foundation
import ReelCore
import ReelIO
import ReelMetadata
import ReelComposition

/// How an export writes one composition metadata track: a `gpmd` track whose samples are
/// the sources' samples retimed through the composition's edits. A sample wholly inside
/// an edit is copied byte for byte; one cut by an edit or by the exported range is
/// rewritten as a GPMF payload holding the GPS fixes inside the cut.
struct ExportMetadata: Sendable {
    struct Piece: Sendable {
        var source: AssetTimedMetadataSource
        /// The source range played.
        var sourceRange: TimeRange
        /// Where it plays in the composition.
        var target: TimeRange
    }

    let trackID: Int32
    let input: AssetWriterInput
    let pieces: [Piece]

    static func plans(trackIDs: [Int32], composition: Composition, range: TimeRange, sources: AssetRenderSources,
                      fileType: AssetWriter.FileType, path: String) throws(ReelError) -> [ExportMetadata] {
        var plans: [ExportMetadata] = []
        var formats: [URL: AssetReader] = [:]
        for id in trackIDs {
            guard let track = composition.track(withTrackID: id) else {
                throw ReelError(.invalidComposition, "sourceSampleDataTrackIDs names track \(id), which the composition does not have", trackID: id)
            }
            guard track.mediaType == .metadata else {
                throw ReelError(.invalidComposition, "sourceSampleDataTrackIDs names track \(id), a \(track.mediaType) track: only metadata tracks can be written as timed metadata", trackID: id)
            }
            guard fileType == .mp4 || fileType == .mov else {
                throw ReelError(.invalidArgument, "timed metadata (gpmd) goes into MP4 or MOV; choose one of them or leave the metadata out", path: path, trackID: id)
            }
            var pieces: [Piece] = []
            for segment in track.segments where !segment.isEmpty {
                guard let ref = segment.sourceTrack else { continue }
                let target = segment.target.intersection(range)
                guard target.isValid, target.duration > .zero else { continue }
                let url = sources.url(for: ref.sourceIdentifier)
                let reader: AssetReader
                if let known = formats[url] { reader = known } else {
                    reader = try AssetReader(url: url)
                    formats[url] = reader
                }
                let format = reader.track(withID: ref.trackID)?.metadataFormat
                guard format == "gpmd" else {
                    throw ReelError(.unsupportedFormat, "metadata track \(ref.trackID) holds \(format ?? "no known") samples; an export writes gpmd (GoPro GPMF) tracks only",
                                    path: url.path, trackID: ref.trackID)
                }
                let m = segment.timeMapping
                let sourceRange = TimeRange(start: TimeRange.mapTime(target.start, from: m.target, to: m.source),
                                            end: TimeRange.mapTime(target.end, from: m.target, to: m.source))
                pieces.append(Piece(source: sources.metadataSource(for: ref), sourceRange: sourceRange, target: target))
            }
            plans.append(ExportMetadata(trackID: id, input: AssetWriterInput(settings: .metadata(format: "gpmd")), pieces: pieces))
        }
        return plans
    }

    /// Appends every retimed sample, then marks the input finished.
    func write() async throws(ReelError) {
        var last = MediaTime.negativeInfinity
        for piece in pieces {
            let samples = try await piece.source.samples(in: piece.sourceRange)
            for (buffer, groups) in Self.bySample(samples) {
                if Task.isCancelled { throw ReelError(.cancelled, "the export was cancelled") }
                guard let out = try Self.retimed(buffer, groups: groups, piece: piece), last < out.presentationTime else { continue }
                last = out.presentationTime
                try await input.append(out)
            }
        }
        input.markAsFinished()
    }

    /// The decoded groups gathered back under the raw sample they came from, in order.
    static func bySample(_ samples: [TimedMetadataSample]) -> [(SampleBuffer, [TimedMetadataGroup])] {
        var out: [(SampleBuffer, [TimedMetadataGroup])] = []
        for sample in samples {
            guard let buffer = sample.sampleBuffer else { continue }
            if let lastBuffer = out.last?.0, lastBuffer == buffer {
                out[out.count - 1].1.append(sample.group)
            } else {
                out.append((buffer, [sample.group]))
            }
        }
        return out
    }

    /// `buffer` on the composition timeline of `piece`: as it is when wholly inside, else
    /// the fixes inside the piece rewritten as one payload; nil when nothing is inside.
    static func retimed(_ buffer: SampleBuffer, groups: [TimedMetadataGroup], piece: Piece) throws(ReelError) -> SampleBuffer? {
        let span = buffer.duration.isNumeric && buffer.duration > .zero ? buffer.timeRange
            : TimeRange(start: buffer.presentationTime, duration: .zero)
        let inside = span.intersection(piece.sourceRange)
        let map = { (t: MediaTime) in TimeRange.mapTime(t, from: piece.sourceRange, to: piece.target) }
        if piece.sourceRange.containsTimeRange(span) || (span.duration == .zero && piece.sourceRange.containsTime(span.start)) {
            var out = buffer
            out.presentationTime = map(span.start)
            out.duration = span.duration == .zero ? buffer.duration : map(span.end) - out.presentationTime
            return out
        }
        guard inside.isValid, inside.duration > .zero else { return nil }
        let kept = groups.filter { inside.containsTime($0.timeRange.start) }
        let fixes = kept.compactMap { GPSFix($0) }
        guard !fixes.isEmpty, let first = kept.first, let last = kept.last else { return nil }
        let data = try GPMFWriter.payload(fixes: fixes)
        // Span the kept fixes themselves (the last one's end may pass the cut), so a reader
        // spreading them evenly across the sample puts each close to where it was.
        let start = map(MediaTime.maximum(inside.start, first.timeRange.start))
        var end = map(last.timeRange.end)
        if !(start < end) { end = map(inside.end) }
        return SampleBuffer(data: data, presentationTime: start, duration: end - start, format: buffer.format)
    }
}
