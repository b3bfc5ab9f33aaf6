import Foundation
import ReelComposition
import ReelCore
import ReelIO

/// A video stream copy: packets copied with their decode times and keyframe flags, moved
/// onto the composition timeline. The `.passthrough` preset copies the one source the
/// composition's video plays, when nothing is composited and no frame would be cut from
/// the frames it is predicted from (the exported range plays one whole track, unscaled);
/// a render plan's join copies its pieces one after another, their parameter sets merged.
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

    /// A render plan's pieces joined one after another: each a file whose video track holds
    /// one packet for each frame of the grid every `frameDuration` from zero.
    package struct Pieces: Sendable {
        let parts: [Part]
        /// The joined track's codec configuration (``mergedCodecConfiguration(_:)``).
        let codecConfiguration: Data
        /// Frames between a packet's decode time and its presentation, at most, over every
        /// piece (``reorderDelay(ofPresentationTimes:frameDuration:)``).
        let reorderDelay: Int
        let frameDuration: MediaTime

        package init(parts: [Part], codecConfiguration: Data, reorderDelay: Int, frameDuration: MediaTime) {
            self.parts = parts
            self.codecConfiguration = codecConfiguration
            self.reorderDelay = reorderDelay
            self.frameDuration = frameDuration
        }
    }

    let input: AssetWriterInput
    let parts: [Part]
    /// For joined pieces: decode times laid on one grid over all of them, `reorderDelay`
    /// frames before the presentation grid, so they increase across the joints whatever
    /// each piece's own delay (a smart-rendered piece's depends on what it copies).
    var decodeGrid: (start: MediaTime, frameDuration: MediaTime, reorderDelay: Int)?

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

    /// The copy of `pieces` one after another, described as the first piece's track is
    /// with the pieces' merged codec configuration (the caller has checked each piece).
    static func joining(_ pieces: Pieces) async throws(ReelError) -> ExportVideoCopy {
        guard let first = pieces.parts.first else { throw ReelError(.invalidArgument, "there are no pieces to join") }
        let reader = try await AssetReader.open(url: first.url)
        defer { reader.cancelReading() }
        let description = try first.track(in: reader).formatDescription.replacingCodecConfiguration(pieces.codecConfiguration)
        var copy = ExportVideoCopy(input: AssetWriterInput(settings: .passthrough(description)), parts: pieces.parts)
        copy.decodeGrid = (first.offset, pieces.frameDuration, pieces.reorderDelay)
        return copy
    }

    /// Appends every packet of every part, moved onto the composition timeline.
    func write(progress: @Sendable (MediaTime) -> Void) async throws(ReelError) {
        var decodeIndex = 0
        for part in parts {
            try await part.copy(into: input, progress: progress) { buffer in
                guard let grid = decodeGrid else { return }
                buffer.decodeTime = grid.start + grid.frameDuration * Int32(clamping: decodeIndex - grid.reorderDelay)
                decodeIndex += 1
            }
        }
        input.markAsFinished()
    }

    /// Frames between a packet's decode time and its presentation, at most, for a track
    /// whose packets (in decode order) present at `times`, one for each frame every
    /// `frameDuration` from the earliest: the packets can be given decode times that many
    /// frames before the frame grid, increasing and never after their presentation.
    package static func reorderDelay(ofPresentationTimes times: [MediaTime], frameDuration: MediaTime) -> Int {
        guard let first = times.min(), frameDuration > .zero else { return 0 }
        var delay = 0
        for (n, t) in times.enumerated() {
            let frame = Int(((t - first).seconds / frameDuration.seconds).rounded())
            delay = max(delay, n - frame)
        }
        return delay
    }

    /// One codec configuration for pieces whose tracks have `configurations`: theirs when
    /// they are all the same; for H.264 (`avcC`) that differ only in the parameter sets
    /// they hold (smart-rendered pieces hold their encoded stretches', or none), every
    /// parameter set of every piece, provided no two different ones share an ID. Otherwise
    /// the index of the first piece that cannot join the ones before it, and why.
    package static func mergedCodecConfiguration(_ configurations: [Data]) -> Result<Data, MergeProblem> {
        guard let first = configurations.first else { return .success(Data()) }
        guard configurations.contains(where: { $0 != first }) else { return .success(first) }
        let differs = "its codec configuration differs from piece 0's: it was encoded with other settings"
        guard var merged = AVCConfiguration(first) else {
            let k = configurations.firstIndex { $0 != first } ?? 0
            return .failure(MergeProblem(piece: k, reason: differs))
        }
        for (k, data) in configurations.enumerated().dropFirst() where data != first {
            guard let c = AVCConfiguration(data), c.profile == merged.profile, c.compatibility == merged.compatibility,
                c.level == merged.level, c.lengthSize == merged.lengthSize, c.trailer == merged.trailer
            else {
                return .failure(MergeProblem(piece: k, reason: differs))
            }
            let next = merged.adding(parameterSetsOf: c)
            let spsIDs = next.sequenceParameterSetIDs, ppsIDs = next.pictureParameterSetIDs
            guard spsIDs.count == next.sequenceParameterSets.count, Set(spsIDs).count == spsIDs.count,
                ppsIDs.count == next.pictureParameterSets.count, Set(ppsIDs).count == ppsIDs.count
            else {
                return .failure(MergeProblem(piece: k, reason: differs + " (other H.264 parameter sets under the same IDs)"))
            }
            merged = next
        }
        return .success(merged.data)
    }

    /// Why piece `piece` cannot join the pieces before it.
    package struct MergeProblem: Error, Sendable {
        package let piece: Int
        package let reason: String
    }
}

extension ExportVideoCopy.Part {
    /// Appends the part's packets to `input`, moved by `offset`: those the reader gives for
    /// `source` (from the keyframe before it), or with `startsInSource` only those whose
    /// presentation time lies in `source`.
    func copy(
        into input: AssetWriterInput, startsInSource: Bool = false, progress: @Sendable (MediaTime) -> Void = { _ in },
        retime: (inout SampleBuffer) -> Void = { _ in }
    ) async throws(ReelError) {
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
            retime(&buffer)
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
