import Foundation
import ReelCore
import ReelIO
import ReelComposition

/// How an export carries the composition's audio.
///
/// With an ``AudioMix``, every enabled audio track is mixed into one output track; without
/// one, each enabled audio track becomes an output track of its own. An output that plays
/// exactly one track, unscaled, at volume 1, as one stretch of its source from the start of
/// the range, copies the source's packets. Any other is decoded, converted to one format
/// (the first track's sample rate and channel count), cut at the edits sample-exactly,
/// given silence over empty edits, scaled by its volume ramps, summed and encoded once to
/// AAC (or PCM), lasting exactly as long as the range (see ``ExportAudio/mix(_:range:sampleRate:channels:progress:)``).
/// An output asked for in PCM is always decoded and encoded, never copied.
struct ExportAudio: Sendable {
    /// One stretch of a source played over a stretch of the output.
    struct Piece: Sendable {
        var url: URL
        var trackID: Int32
        var source: TimeRange
        var target: TimeRange

        var isScaled: Bool { source.duration != target.duration }
    }

    /// One composition audio track over the range: what plays where, and how loud.
    struct Track: Sendable {
        var trackID: Int32
        var pieces: [Piece]
        var volume: AudioMixInputParameters
    }

    enum Mode: Sendable {
        case copy(Piece)
        case mix([Track], sampleRate: Int, channels: Int)
    }

    let input: AssetWriterInput
    let mode: Mode

    /// The audio outputs for `composition` over `range`: one mixing every enabled audio
    /// track when `audioMix` is given, else one per track; none when nothing plays there.
    /// Encoded outputs use `codec`, at `format`'s rate and channel count where it gives them.
    static func plans(composition: Composition, range: TimeRange, sources: AssetRenderSources,
                      audioMix: AudioMix?, codec: AudioEncoderSettings.Codec = .aac,
                      format: OutputFormat = OutputFormat()) async throws(ReelError) -> [ExportAudio] {
        let tracks = composition.tracks(withMediaType: .audio).filter { $0.isEnabled && !$0.isEmpty }.map { track in
            Track(trackID: track.trackID, pieces: pieces(of: track, in: range, sources: sources),
                  volume: audioMix?.inputParameters(forTrackID: track.trackID) ?? AudioMixInputParameters(trackID: track.trackID))
        }.filter { !$0.pieces.isEmpty }
        guard !tracks.isEmpty else { return [] }
        if audioMix != nil { return [try await plan(tracks, range: range, codec: codec, format: format)] }
        var plans: [ExportAudio] = []
        for track in tracks { plans.append(try await plan([track], range: range, codec: codec, format: format)) }
        return plans
    }

    /// The stretches of `track`'s sources that play in `range`, in order.
    private static func pieces(of track: CompositionTrack, in range: TimeRange, sources: AssetRenderSources) -> [Piece] {
        var pieces: [Piece] = []
        for segment in track.segments where !segment.isEmpty {
            guard let ref = segment.sourceTrack else { continue }
            let target = segment.target.intersection(range)
            guard target.isValid, target.duration > .zero else { continue }
            let mapping = segment.timeMapping
            let source = TimeRange(start: TimeRange.mapTime(target.start, from: mapping.target, to: mapping.source),
                                   end: TimeRange.mapTime(target.end, from: mapping.target, to: mapping.source))
            pieces.append(Piece(url: sources.url(for: ref.sourceIdentifier), trackID: ref.trackID, source: source, target: target))
        }
        return pieces
    }

    private static func plan(_ tracks: [Track], range: TimeRange, codec: AudioEncoderSettings.Codec, format: OutputFormat) async throws(ReelError) -> ExportAudio {
        let first = tracks[0].pieces[0]
        let reader = try await AssetReader.open(url: first.url)
        guard let description = reader.track(withID: first.trackID)?.formatDescription else {
            throw ReelError(.invalidArgument, "the file has no audio track \(first.trackID)", path: first.url.path, trackID: first.trackID)
        }
        if codec.isLossy, format.fits(description), tracks.count == 1, tracks[0].pieces.count == 1, !first.isScaled, first.target.start == range.start,
           tracks[0].volume.isUnitVolume(over: range) {
            return ExportAudio(input: AssetWriterInput(settings: .passthrough(description)), mode: .copy(first))
        }
        guard let rate = description.sampleRate, rate > 0, let channels = description.channelCount, channels > 0 else {
            throw ReelError(.unsupportedFormat, "the audio track gives no sample rate or channel count", path: first.url.path, trackID: first.trackID)
        }
        let (outRate, outChannels) = format.resolved(sampleRate: rate, channelCount: min(channels, 8))
        let settings = AudioEncoderSettings(codec: codec, sampleRate: outRate, channelCount: outChannels)
        return ExportAudio(input: AssetWriterInput(settings: .audio(settings)), mode: .mix(tracks, sampleRate: outRate, channels: outChannels))
    }

    /// Appends the audio, then marks the input finished. `progress` gets 0...1.
    func write(range: TimeRange, progress: @Sendable (Double) -> Void) async throws(ReelError) {
        switch mode {
        case .copy(let piece):
            try await copy(piece, range: range, progress: progress)
        case .mix(let tracks, let rate, let channels):
            try await mix(tracks, range: range, sampleRate: rate, channels: channels, progress: progress)
        }
        input.markAsFinished()
    }

    private func copy(_ piece: Piece, range: TimeRange, progress: @Sendable (Double) -> Void) async throws(ReelError) {
        let reader = try await AssetReader.open(url: piece.url)
        defer { reader.cancelReading() }
        let output = AssetReaderTrackOutput(trackID: piece.trackID, settings: .passthrough, bufferCapacity: 32)
        try reader.add(output)
        reader.timeRange = piece.source
        try reader.startReading()
        let offset = piece.target.start - piece.source.start
        while let sample = try await output.next() {
            if Task.isCancelled { throw ReelError(.cancelled, "the export was cancelled") }
            guard var buffer = sample.sampleBuffer, buffer.presentationTime.isNumeric else { continue }
            buffer.presentationTime = buffer.presentationTime + offset
            guard buffer.presentationTime < piece.target.end else { break }
            // Packets starting before the range are dropped by the writer's session start.
            guard !(buffer.presentationTime < range.start) else { continue }
            try await input.append(buffer)
            progress((buffer.presentationTime - range.start).seconds / max(range.duration.seconds, 1e-9))
        }
    }
}
