import Foundation
import ReelCore
import ReelIO
import ReelComposition

/// The `.passthrough` preset's video stream copy: the packets of the one source the
/// composition's video plays, copied with their decode times and keyframe flags, when
/// nothing is composited and no frame would be cut from the frames it is predicted from
/// (the exported range plays one whole track, unscaled).
struct ExportVideoCopy: Sendable {
    let input: AssetWriterInput
    let url: URL
    let trackID: Int32
    let source: TimeRange
    let offset: MediaTime

    /// The copy plan, or nil when the frames must be rendered.
    static func plan(composition: Composition, range: TimeRange, sources: AssetRenderSources) async throws(ReelError) -> ExportVideoCopy? {
        let tracks = composition.tracks(withMediaType: .video).filter { $0.isEnabled && !$0.isEmpty }
        guard tracks.count == 1, let track = tracks.first else { return nil }
        let playing = track.segments.filter { !$0.target.intersection(range).duration.isZeroOrLess }
        guard playing.count == 1, let segment = playing.first, !segment.isEmpty, let ref = segment.sourceTrack,
              segment.target.containsTimeRange(range),
              segment.timeMapping.source.duration == segment.timeMapping.target.duration else { return nil }
        let offset = segment.target.start - segment.timeMapping.source.start
        let source = TimeRange(start: range.start - offset, duration: range.duration)
        // A copy must start at the track's first packet (a keyframe): no cut at the front.
        guard !(source.start > .zero) else { return nil }
        let url = sources.url(for: ref.sourceIdentifier)
        // ... nor at the back: frames before a cut may be predicted from packets after it.
        guard let sourceTrack = try await Asset(url: url).loadTrack(withTrackID: ref.trackID),
              !(source.end < sourceTrack.timeRange.end) else { return nil }
        let reader = try await AssetReader.open(url: url)
        guard let description = reader.track(withID: ref.trackID)?.formatDescription else { return nil }
        let input = AssetWriterInput(settings: .passthrough(description))
        input.transform = track.preferredTransform
        return ExportVideoCopy(input: input, url: url, trackID: ref.trackID, source: source, offset: offset)
    }

    /// Appends every packet of the range, moved onto the composition timeline.
    func write(progress: @Sendable (MediaTime) -> Void) async throws(ReelError) {
        let reader = try await AssetReader.open(url: url)
        defer { reader.cancelReading() }
        let output = AssetReaderTrackOutput(trackID: trackID, settings: .passthrough, bufferCapacity: 32)
        try reader.add(output)
        reader.timeRange = source
        try reader.startReading()
        while let sample = try await output.next() {
            if Task.isCancelled { throw ReelError(.cancelled, "the export was cancelled") }
            guard var buffer = sample.sampleBuffer, buffer.presentationTime.isNumeric else { continue }
            buffer.presentationTime = buffer.presentationTime + offset
            if buffer.decodeTime.isNumeric { buffer.decodeTime = buffer.decodeTime + offset }
            try await input.append(buffer)
            progress(buffer.presentationTime)
        }
        input.markAsFinished()
    }
}

extension MediaTime {
    var isZeroOrLess: Bool { !(self > .zero) }
}
