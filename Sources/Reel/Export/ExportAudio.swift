import Foundation
import ReelComposition
import ReelCore
import ReelIO

/// How an export carries the composition's audio.
///
/// With an ``AudioMix``, every enabled audio track is mixed into one output track; without
/// one, each enabled audio track becomes an output track of its own. An output that plays
/// exactly one track, unscaled, at volume 1, as one stretch of its source over the whole
/// range, copies the source's packets. Any other is decoded, converted to one format
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
        /// The source track's sound when it is held in memory (no file is read).
        var sound: (any SoundSource)? = nil

        var isScaled: Bool { source.duration != target.duration }

        /// The part of the piece that plays from `time` on (the whole piece when it starts
        /// then or later); nil when it has ended by then.
        func starting(at time: MediaTime) -> Piece? {
            guard time < target.end else { return nil }
            guard target.start < time else { return self }
            var cut = self
            cut.target = TimeRange(start: time, end: target.end)
            cut.source = TimeRange(start: TimeRange.mapTime(time, from: target, to: source), end: source.end)
            return cut
        }
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
    var mode: Mode
    /// What a mix is made over when it is not the export's range: a piece's range with its
    /// pre-roll before and the frames its last packets need after (``piece(of:range:tracks:sources:)``).
    var mixRange: TimeRange?
    /// The whole timeline a copy's range is a piece of: the piece keeps the packets that
    /// end in it (see ``copy(_:range:progress:)``).
    var copyPieceOf: TimeRange?
    /// The output's sample rate, when known.
    var sampleRate: Int?

    /// The audio outputs for `composition` over `range`: one mixing every enabled audio
    /// track when `audioMix` is given, else one per track; none when nothing plays there.
    /// Encoded outputs use `codec`, at `format`'s rate and channel count where it gives them.
    ///
    /// With `wholeTimeRange`, `range` is a piece of that timeline, to be joined by stream copy with
    /// the other pieces: the outputs, their formats and whether they copy or encode are
    /// those of an export of the whole timeline, and each is cut down to the piece.
    static func plans(
        composition: Composition, range: TimeRange, sources: AssetRenderSources,
        audioMix: AudioMix?, codec: AudioEncoderSettings.Codec = .aac,
        format: OutputFormat = OutputFormat(), wholeTimeRange: TimeRange? = nil
    ) async throws(ReelError) -> [ExportAudio] {
        let whole = wholeTimeRange ?? range
        let compositionTracks = composition.tracks(withMediaType: .audio).filter { $0.isEnabled && !$0.isEmpty }
        let tracks = compositionTracks.map { track in
            Track(
                trackID: track.trackID, pieces: pieces(of: track, in: whole, sources: sources),
                volume: audioMix?.inputParameters(forTrackID: track.trackID) ?? AudioMixInputParameters(trackID: track.trackID))
        }.filter { !$0.pieces.isEmpty }
        guard !tracks.isEmpty else { return [] }
        let groups = audioMix != nil ? [tracks] : tracks.map { [$0] }
        var plans: [ExportAudio] = []
        for group in groups {
            let plan = try await plan(group, range: whole, codec: codec, format: format)
            guard wholeTimeRange != nil else {
                plans.append(plan)
                continue
            }
            plans.append(
                plan.piece(
                    of: whole, range: range, tracks: compositionTracks.filter { t in group.contains { $0.trackID == t.trackID } },
                    sources: sources))
        }
        return plans
    }

    /// This output, planned over `whole`, cut down to `range`, a piece of it.
    ///
    /// Copied packets: those that end in the range (the one holding its start written at
    /// a negative time its edit list hides). Encoded AAC: the packets one encode
    /// of `whole` would give from the frame of its grid that holds the range's start (an
    /// edit list hides what it holds before the start) to the frame before the one that
    /// holds the range's end, where the next piece starts; the encoder starts
    /// ``preRollFrames`` frames before (the pre-roll, mixed as the whole would be and
    /// dropped) and is fed three frames past the last packet kept, which the encoder's
    /// look-ahead and overlap read.
    /// PCM and ALAC have no frames that overlap: the range itself.
    private func piece(of whole: TimeRange, range: TimeRange, tracks: [CompositionTrack], sources: AssetRenderSources) -> ExportAudio {
        switch mode {
        case .copy(var piece):
            let target = piece.target.intersection(range)
            piece.source = TimeRange(start: piece.source.start + (target.start - piece.target.start), duration: target.duration)
            piece.target = target
            var plan = self
            plan.mode = .copy(piece)
            plan.copyPieceOf = whole
            return plan
        case .mix(let planned, let rate, let channels):
            guard case .audio(var settings) = input.settings, settings.codec.isLossy else { return self }
            let frame = Int64(Self.aacFrame)
            let r = Int32(clamping: rate)
            func sample(_ t: MediaTime) -> Int64 { (t - whole.start).convertScale(r, method: .roundHalfAwayFromZero).value }
            func time(_ n: Int64) -> MediaTime { whole.start + MediaTime(value: n, timescale: r) }
            // The start of the frame holding sample n (n >= 0).
            func boundary(_ n: Int64) -> Int64 { n / frame * frame }
            let total = sample(whole.end)
            let first = sample(range.start), last = sample(range.end)
            // The encode of the whole gives packet i at sample 1024 (i - 1), its priming
            // packet first; an encode from sample `start` gives them from `start - 1024`.
            let keptStart = first <= 0 ? -frame : boundary(first)
            let start = first <= 0 ? 0 : max(0, keptStart - Int64(Self.preRollFrames) * frame)
            let firstPacket = Int((keptStart - (start - frame)) / frame)
            var count: Int?
            var end = total
            if last < total {
                let keptEnd = boundary(last)
                count = Int((keptEnd - keptStart) / frame)
                end = min(total, keptEnd + 3 * frame)
            }
            let mixRange = TimeRange(start: time(start), end: time(end))
            let cut = planned.map { track in
                Track(
                    trackID: track.trackID,
                    pieces: tracks.first { $0.trackID == track.trackID }.map { Self.pieces(of: $0, in: mixRange, sources: sources) } ?? [],
                    volume: track.volume)
            }
            settings.packetWindow = AudioPacketWindow(firstPacket: firstPacket, packetCount: count)
            var plan = ExportAudio(input: AssetWriterInput(settings: .audio(settings)), mode: .mix(cut, sampleRate: rate, channels: channels))
            plan.mixRange = mixRange
            plan.sampleRate = rate
            return plan
        }
    }

    /// Samples per AAC frame (AAC-LC).
    static let aacFrame = 1024
    /// AAC frames encoded before a piece's first packet and dropped (about a second at
    /// 48 kHz). FFmpeg's AAC encoder carries its rate control (the quantiser's lambda)
    /// from frame to frame; it takes some 30 to 50 frames from a cold start to settle
    /// where the encode of the whole is, and the pieces' packets differ from the whole's
    /// until it has.
    static let preRollFrames = 48

    /// The stretches of `track`'s sources that play in `range`, in order.
    static func pieces(of track: CompositionTrack, in range: TimeRange, sources: AssetRenderSources) -> [Piece] {
        var pieces: [Piece] = []
        for segment in track.segments where !segment.isEmpty {
            guard let ref = segment.sourceTrack else { continue }
            let target = segment.target.intersection(range)
            guard target.isValid, target.duration > .zero else { continue }
            let mapping = segment.timeMapping
            let source = TimeRange(
                start: TimeRange.mapTime(target.start, from: mapping.target, to: mapping.source),
                end: TimeRange.mapTime(target.end, from: mapping.target, to: mapping.source))
            pieces.append(
                Piece(
                    url: sources.url(for: ref.sourceIdentifier), trackID: ref.trackID, source: source, target: target,
                    sound: sources.soundSource(for: ref)))
        }
        return pieces
    }

    private static func plan(_ tracks: [Track], range: TimeRange, codec: AudioEncoderSettings.Codec, format: OutputFormat) async throws(ReelError)
        -> ExportAudio
    {
        let first = tracks[0].pieces[0]
        if let sound = first.sound {
            // Sound held in memory is mixed and encoded, at its own format unless told otherwise.
            guard sound.sampleRate > 0, sound.channelCount > 0 else {
                throw ReelError(.unsupportedFormat, "the sound held in memory gives no sample rate or channel count", trackID: first.trackID)
            }
            let (outRate, outChannels) = format.resolved(sampleRate: sound.sampleRate, channelCount: min(sound.channelCount, 8))
            let settings = AudioEncoderSettings(codec: codec, sampleRate: outRate, channelCount: outChannels)
            var plan = ExportAudio(input: AssetWriterInput(settings: .audio(settings)), mode: .mix(tracks, sampleRate: outRate, channels: outChannels))
            plan.sampleRate = outRate
            return plan
        }
        let reader = try await AssetReader.open(url: first.url)
        guard let description = reader.track(withID: first.trackID)?.formatDescription else {
            throw ReelError(.invalidArgument, "the file has no audio track \(first.trackID)", path: first.url.path, trackID: first.trackID)
        }
        // Copied only when the one stretch plays over the whole range: a track that ends
        // early is mixed, so its silence lasts to the end.
        if codec.isLossy, format.fits(description), tracks.count == 1, tracks[0].pieces.count == 1, !first.isScaled, first.target == range,
            tracks[0].volume.isUnitVolume(over: range)
        {
            var plan = ExportAudio(input: AssetWriterInput(settings: .passthrough(description)), mode: .copy(first))
            plan.sampleRate = description.sampleRate
            return plan
        }
        guard let rate = description.sampleRate, rate > 0, let channels = description.channelCount, channels > 0 else {
            throw ReelError(.unsupportedFormat, "the audio track gives no sample rate or channel count", path: first.url.path, trackID: first.trackID)
        }
        let (outRate, outChannels) = format.resolved(sampleRate: rate, channelCount: min(channels, 8))
        let settings = AudioEncoderSettings(codec: codec, sampleRate: outRate, channelCount: outChannels)
        var plan = ExportAudio(input: AssetWriterInput(settings: .audio(settings)), mode: .mix(tracks, sampleRate: outRate, channels: outChannels))
        plan.sampleRate = outRate
        return plan
    }

    /// Appends the audio, then marks the input finished. `progress` gets 0...1.
    func write(range: TimeRange, progress: @Sendable (Double) -> Void) async throws(ReelError) {
        switch mode {
        case .copy(let piece):
            try await copy(piece, range: range, progress: progress)
        case .mix(let tracks, let rate, let channels):
            try await mix(tracks, range: mixRange ?? range, sampleRate: rate, channels: channels, progress: progress)
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
            if buffer.decodeTime.isNumeric { buffer.decodeTime = buffer.decodeTime + offset }
            guard buffer.presentationTime < piece.target.end else { break }
            if let whole = copyPieceOf, buffer.duration.isNumeric {
                // A piece keeps the packets that end in it, the one holding its start at a
                // negative time its edit list hides; the last piece, every one that starts in it.
                let end = buffer.presentationTime + buffer.duration
                guard end > range.start, end <= range.end || !(range.end < whole.end) else { continue }
            } else {
                // Packets starting before the range are dropped by the writer's session start.
                guard !(buffer.presentationTime < range.start) else { continue }
            }
            try await input.append(buffer)
            progress((buffer.presentationTime - range.start).seconds / max(range.duration.seconds, 1e-9))
        }
    }
}
