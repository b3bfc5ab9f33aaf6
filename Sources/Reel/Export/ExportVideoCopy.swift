import Foundation
import ReelComposition
import ReelCore
import ReelIO

/// A video stream copy: packets copied with their decode times and keyframe flags, moved
/// onto the composition timeline. The `.passthrough` preset copies the one source the
/// composition's video plays, when nothing is composited and no frame would be cut from
/// the frames it is predicted from (the exported range plays one whole track, unscaled);
/// a render plan's join copies its pieces one after another.
package struct ExportVideoCopy: Sendable {
    /// One file's packets: those of track `trackID` (the first video track when nil) in
    /// `source` (all of them when nil), moved by `offset`.
    package struct Part: Sendable {
        let url: URL
        let trackID: Int32?
        let source: TimeRange?
        let offset: MediaTime

        package init(url: URL, trackID: Int32?, source: TimeRange?, offset: MediaTime) {
            self.url = url
            self.trackID = trackID
            self.source = source
            self.offset = offset
        }
    }

    let input: AssetWriterInput
    let parts: [Part]

    /// The copy plan, or nil when the frames must be rendered.
    static func plan(composition: Composition, range: TimeRange, sources: AssetRenderSources) async throws(ReelError) -> ExportVideoCopy? {
        let tracks = composition.tracks(withMediaType: .video).filter { $0.isEnabled && !$0.isEmpty }
        guard tracks.count == 1, let track = tracks.first else { return nil }
        let playing = track.segments.filter { !$0.target.intersection(range).duration.isZeroOrLess }
        guard playing.count == 1, let segment = playing.first, !segment.isEmpty, let ref = segment.sourceTrack, !sources.isInMemory(ref),
            segment.target.containsTimeRange(range),
            segment.timeMapping.source.duration == segment.timeMapping.target.duration
        else { return nil }
        let offset = segment.target.start - segment.timeMapping.source.start
        let source = TimeRange(start: range.start - offset, duration: range.duration)
        // A copy must start at the track's first packet (a keyframe): no cut at the front.
        guard !(source.start > .zero) else { return nil }
        let url = sources.url(for: ref.sourceIdentifier)
        // ... nor at the back: frames before a cut may be predicted from packets after it.
        guard let sourceTrack = try await Asset(url: url).loadTrack(withTrackID: ref.trackID),
            !(source.end < sourceTrack.timeRange.end)
        else { return nil }
        let reader = try await AssetReader.open(url: url)
        guard let description = reader.track(withID: ref.trackID)?.formatDescription else { return nil }
        let input = AssetWriterInput(settings: .passthrough(description))
        input.transform = track.preferredTransform
        return ExportVideoCopy(input: input, parts: [Part(url: url, trackID: ref.trackID, source: source, offset: offset)])
    }

    /// The copy of `parts` one after another, described as the first part's track is (the
    /// caller has checked that every part has the same codec configuration).
    static func joining(_ parts: [Part]) async throws(ReelError) -> ExportVideoCopy {
        guard let first = parts.first else { throw ReelError(.invalidArgument, "there are no pieces to join") }
        let reader = try await AssetReader.open(url: first.url)
        defer { reader.cancelReading() }
        let description = try first.track(in: reader).formatDescription
        return ExportVideoCopy(input: AssetWriterInput(settings: .passthrough(description)), parts: parts)
    }

    /// Appends every packet of every part, moved onto the composition timeline.
    func write(progress: @Sendable (MediaTime) -> Void) async throws(ReelError) {
        for part in parts { try await part.copy(into: input, progress: progress) }
        input.markAsFinished()
    }
}

extension ExportVideoCopy.Part {
    /// Appends the part's packets to `input`, moved by `offset`: those the reader gives for
    /// `source` (from the keyframe before it), or with `startsInSource` only those whose
    /// presentation time lies in `source`.
    func copy(into input: AssetWriterInput, startsInSource: Bool = false, progress: @Sendable (MediaTime) -> Void = { _ in }) async throws(ReelError) {
        let reader = try await AssetReader.open(url: url)
        defer { reader.cancelReading() }
        let output = AssetReaderTrackOutput(trackID: try track(in: reader).trackID, settings: .passthrough, bufferCapacity: 32)
        try reader.add(output)
        if let source { reader.timeRange = source }
        try reader.startReading()
        while let sample = try await output.next() {
            if Task.isCancelled { throw ReelError(.cancelled, "the export was cancelled") }
            guard var buffer = sample.sampleBuffer, buffer.presentationTime.isNumeric else { continue }
            if startsInSource, let source, !source.containsTime(buffer.presentationTime) { continue }
            buffer.presentationTime = buffer.presentationTime + offset
            if buffer.decodeTime.isNumeric { buffer.decodeTime = buffer.decodeTime + offset }
            try await input.append(buffer)
            progress(buffer.presentationTime)
        }
    }

    /// The track the part copies.
    func track(in reader: AssetReader) throws(ReelError) -> AssetReader.Track {
        let track = trackID.map { reader.track(withID: $0) } ?? reader.tracks(withMediaType: .video).first
        guard let track else {
            throw ReelError(.corruptData, trackID.map { "has no track \($0)" } ?? "has no video track", path: url.path, trackID: trackID)
        }
        return track
    }
}

extension MediaTime {
    var isZeroOrLess: Bool { !(self > .zero) }
}
