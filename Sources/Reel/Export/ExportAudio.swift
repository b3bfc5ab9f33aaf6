import Foundation
import ReelCore
import ReelIO
import ReelComposition

/// How an export carries the composition's first audio track: packets copied when the
/// track plays one continuous, unscaled stretch of one source over the exported range,
/// else decoded, cut at the edits (sample-exact), joined with silence over empty edits and
/// re-encoded to AAC.
struct ExportAudio: Sendable {
    /// One stretch of a source played over a stretch of the output.
    struct Piece: Sendable {
        var url: URL
        var trackID: Int32
        var source: TimeRange
        var target: TimeRange
    }

    enum Mode: Sendable {
        case copy(Piece)
        case encode([Piece], sampleRate: Int, channels: Int)
    }

    let input: AssetWriterInput
    let mode: Mode

    /// The plan for `composition` over `range`, or nil when it has no audio there.
    static func plan(composition: Composition, range: TimeRange, sources: AssetRenderSources) throws(ReelError) -> ExportAudio? {
        guard let track = composition.tracks(withMediaType: .audio).first(where: { $0.isEnabled && !$0.isEmpty }) else { return nil }
        var pieces: [Piece] = []
        var scaled = false
        for segment in track.segments where !segment.isEmpty {
            guard let ref = segment.sourceTrack else { continue }
            let target = segment.target.intersection(range)
            guard target.isValid, target.duration > .zero else { continue }
            let mapping = segment.timeMapping
            if mapping.source.duration != mapping.target.duration { scaled = true }
            let source = TimeRange(start: TimeRange.mapTime(target.start, from: mapping.target, to: mapping.source),
                                   end: TimeRange.mapTime(target.end, from: mapping.target, to: mapping.source))
            pieces.append(Piece(url: sources.url(for: ref.sourceIdentifier), trackID: ref.trackID, source: source, target: target))
        }
        guard let first = pieces.first else { return nil }
        let reader = try AssetReader(url: first.url)
        guard let description = reader.track(withID: first.trackID)?.formatDescription else {
            throw ReelError(.invalidArgument, "the file has no audio track \(first.trackID)", path: first.url.path, trackID: first.trackID)
        }
        if pieces.count == 1, !scaled {
            return ExportAudio(input: AssetWriterInput(settings: .passthrough(description)), mode: .copy(first))
        }
        guard let rate = description.sampleRate, rate > 0, let channels = description.channelCount, channels > 0 else {
            throw ReelError(.unsupportedFormat, "the audio track gives no sample rate or channel count", path: first.url.path, trackID: first.trackID)
        }
        if scaled {
            throw ReelError(.invalidComposition, "audio over a scaled time range is not supported: remove the audio track or export without audio",
                            trackID: track.trackID)
        }
        let settings = AudioEncoderSettings(sampleRate: rate, channelCount: min(channels, 8))
        return ExportAudio(input: AssetWriterInput(settings: .audio(settings)), mode: .encode(pieces, sampleRate: rate, channels: min(channels, 8)))
    }

    /// Appends the audio, then marks the input finished. `progress` gets 0...1.
    func write(range: TimeRange, progress: @Sendable (Double) -> Void) async throws(ReelError) {
        switch mode {
        case .copy(let piece):
            try await copy(piece, range: range, progress: progress)
        case .encode(let pieces, let rate, let channels):
            var joiner = PCMJoiner(start: range.start, sampleRate: rate, channels: channels, input: input)
            for piece in pieces {
                try await joiner.append(piece)
                progress((piece.target.end - range.start).seconds / max(range.duration.seconds, 1e-9))
            }
            try await joiner.finish(at: range.end)
        }
        input.markAsFinished()
    }

    private func copy(_ piece: Piece, range: TimeRange, progress: @Sendable (Double) -> Void) async throws(ReelError) {
        let reader = try AssetReader(url: piece.url)
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

/// Lays decoded PCM end to end on the output timeline: silence where nothing plays,
/// overlaps and spill past a piece's end cut off, so sample `n` of the output is at
/// `start + n / sampleRate` exactly.
struct PCMJoiner {
    let start: MediaTime
    let sampleRate: Int
    let channels: Int
    let input: AssetWriterInput
    /// Output samples (per channel) appended so far.
    private(set) var written: Int64 = 0

    init(start: MediaTime, sampleRate: Int, channels: Int, input: AssetWriterInput) {
        self.start = start
        self.sampleRate = sampleRate
        self.channels = channels
        self.input = input
    }

    /// The output sample index of composition time `t` (rounded to the nearest).
    func index(of t: MediaTime) -> Int64 {
        (t - start).convertScale(Int32(clamping: sampleRate), method: .roundHalfAwayFromZero).value
    }

    mutating func append(_ piece: ExportAudio.Piece) async throws(ReelError) {
        let reader = try AssetReader(url: piece.url)
        defer { reader.cancelReading() }
        let output = AssetReaderTrackOutput(trackID: piece.trackID, settings: .audioPCM, bufferCapacity: 16)
        try reader.add(output)
        reader.timeRange = piece.source
        try reader.startReading()
        let end = index(of: piece.target.end)
        while let sample = try await output.next() {
            if Task.isCancelled { throw ReelError(.cancelled, "the export was cancelled") }
            guard let audio = sample.audio else { continue }
            guard audio.sampleRate == sampleRate else {
                throw ReelError(.unsupportedFormat, "audio at \(audio.sampleRate) Hz cannot join audio at \(sampleRate) Hz",
                                path: piece.url.path, trackID: piece.trackID)
            }
            let at = index(of: piece.target.start + (audio.presentationTime - piece.source.start))
            try await pad(to: min(at, end))
            // Drop what overlaps samples already written, and what spills past the piece.
            let skip = Int(max(0, written - at))
            let take = Int(min(Int64(audio.frameCount - min(skip, audio.frameCount)), max(0, end - written)))
            if take > 0 { try await emit(audio, from: skip, count: take) }
            if written >= end { break }
        }
        try await pad(to: end)
    }

    mutating func finish(at end: MediaTime) async throws(ReelError) {
        try await pad(to: index(of: end))
    }

    /// Appends silence up to output sample `target`.
    private mutating func pad(to target: Int64) async throws(ReelError) {
        while written < target {
            let n = Int(min(target - written, 4096))
            try await send(samples: [Float](repeating: 0, count: n * channels), frames: n)
        }
    }

    private mutating func emit(_ audio: DecodedAudio, from skip: Int, count: Int) async throws(ReelError) {
        let srcChannels = audio.channelCount
        if srcChannels == channels, skip == 0, count == audio.frameCount {
            try await send(samples: audio.samples, frames: count)
            return
        }
        var out = [Float](repeating: 0, count: count * channels)
        for i in 0..<count {
            for c in 0..<channels { out[i * channels + c] = audio.samples[(skip + i) * srcChannels + (c % srcChannels)] }
        }
        try await send(samples: out, frames: count)
    }

    private mutating func send(samples: [Float], frames: Int) async throws(ReelError) {
        let time = start + MediaTime(value: written, timescale: Int32(clamping: sampleRate))
        try await input.append(DecodedAudio(samples: samples, channelCount: channels, sampleRate: sampleRate, presentationTime: time))
        written += Int64(frames)
    }
}
