import Foundation
import ReelCore
import ReelIO

/// One composition audio track's sound on the output timeline, in the output's sample
/// rate and channel count: silence where no segment plays (empty edits, before the first
/// segment, after the last), and each segment's stretch of its source cut at the edits
/// sample-exactly. A scaled segment's audio is resampled to the segment's duration, so its
/// pitch changes with its speed (as a tape's would).
///
/// Output sample `n` plays at `start + n / sampleRate`; an edit at time `t` falls on the
/// sample nearest `t`. Not thread-safe: read from one task.
final class AudioTrackStream {
    let pieces: [ExportAudio.Piece]
    let start: MediaTime
    let sampleRate: Int
    let channels: Int
    /// The output frames read so far.
    private var position: Int64 = 0
    private var nextPiece = 0
    private var current: Segment?

    init(pieces: [ExportAudio.Piece], start: MediaTime, sampleRate: Int, channels: Int) {
        // A piece already playing at `start` is read from there, not from its own start.
        self.pieces = pieces.compactMap { $0.starting(at: start) }
        self.start = start
        self.sampleRate = sampleRate
        self.channels = channels
    }

    /// The output frame index of time `t`, rounded to the nearest.
    func index(of t: MediaTime) -> Int64 {
        (t - start).convertScale(Int32(clamping: sampleRate), method: .roundHalfAwayFromZero).value
    }

    /// The next `count` output frames, interleaved.
    func read(_ count: Int) async throws(ReelError) -> [Float] {
        var out: [Float] = []
        out.reserveCapacity(count * channels)
        let stop = position + Int64(count)
        while position < stop {
            guard let segment = try await openSegment(before: stop, into: &out) else { continue }
            let frames = Int(min(stop, segment.end) - position)
            out += try await segment.read(frames)
            position += Int64(frames)
            if position >= segment.end { current = nil }
        }
        return out
    }

    /// The segment playing at the current position, opened when it starts there; else
    /// silence appended up to the next segment's start or `stop`, and nil.
    private func openSegment(before stop: Int64, into out: inout [Float]) async throws(ReelError) -> Segment? {
        if let current { return current }
        while nextPiece < pieces.count, index(of: pieces[nextPiece].target.end) <= position { nextPiece += 1 }
        let silenceEnd = nextPiece < pieces.count ? min(stop, index(of: pieces[nextPiece].target.start)) : stop
        if silenceEnd > position {
            out += [Float](repeating: 0, count: Int(silenceEnd - position) * channels)
            position = silenceEnd
            return nil
        }
        let piece = pieces[nextPiece]
        nextPiece += 1
        let blocks: Segment.Blocks
        if let sound = piece.sound {
            blocks = .memory(MemoryBlocks(sound: sound, source: piece.source))
        } else {
            // The file is opened and probed on a thread of its own.
            blocks = .file(try await AssetReader.open(url: piece.url))
        }
        let segment = try Segment(piece: piece, blocks: blocks, end: index(of: piece.target.end), sampleRate: sampleRate, channels: channels)
        current = segment
        return segment
    }

    /// One piece being decoded: its source's samples from the piece's source start, the
    /// source's gaps filled with silence, converted (and stretched for a scaled piece) to
    /// the output format; silence once the source runs out. A file's sound and sound held
    /// in memory take the same path from their first block on.
    final class Segment {
        /// Where the piece's sound comes from.
        enum Blocks {
            /// A reader opened on the piece's file, not started.
            case file(AssetReader)
            case memory(MemoryBlocks)
        }

        let piece: ExportAudio.Piece
        /// The output frame index where the segment ends.
        let end: Int64
        let sampleRate: Int
        let channels: Int
        /// What the blocks come from once reading: a started reader and its output, or memory.
        private var input: Input
        private enum Input {
            case file(AssetReader, AssetReaderTrackOutput)
            case memory(MemoryBlocks)
        }
        private var converter: AudioConverter?
        /// Source frames to feed (known once the source's rate is), and fed so far.
        private var sourceFrames: Int64 = 0
        private var fed: Int64 = 0
        private var inputChannels = 0
        private var inputRate = 0
        private var pending: [Float] = []
        private var ended = false

        /// A segment reading `piece` from `blocks`.
        init(piece: ExportAudio.Piece, blocks: Blocks, end: Int64, sampleRate: Int, channels: Int) throws(ReelError) {
            self.piece = piece
            self.end = end
            self.sampleRate = sampleRate
            self.channels = channels
            switch blocks {
            case .file(let reader):
                let output = AssetReaderTrackOutput(trackID: piece.trackID, settings: .audioPCM, bufferCapacity: 16)
                input = .file(reader, output)
                try reader.add(output)
                // Decoding starts a little early: a codec with overlapping frames (AAC, Opus)
                // gives its first frame after a seek wrong; the lead-in is dropped.
                reader.timeRange = TimeRange(start: MediaTime.maximum(.zero, piece.source.start - Self.preroll), end: piece.source.end)
                try reader.startReading()
            case .memory(let memory):
                input = .memory(memory)
            }
        }

        /// How far before its start a piece is decoded.
        static let preroll = MediaTime(value: 1, timescale: 10)

        deinit { if case .file(let reader, _) = input { reader.cancelReading() } }

        /// The next `count` frames; silence once the source has no more.
        func read(_ count: Int) async throws(ReelError) -> [Float] {
            let wanted = count * channels
            while pending.count < wanted, !ended { try await pull() }
            if pending.count < wanted { pending += [Float](repeating: 0, count: wanted - pending.count) }
            let out = Array(pending[..<wanted])
            pending.removeFirst(wanted)
            return out
        }

        /// Decodes one more block of the source and converts it.
        private func pull() async throws(ReelError) {
            if Task.isCancelled { throw ReelError(.cancelled, "the export was cancelled") }
            let next: DecodedAudio?
            switch input {
            case .file(_, let output):
                guard let sample = try await output.next() else { return try finish() }
                next = sample.audio
            case .memory(var memory):
                next = try await memory.next()
                input = .memory(memory)
                if next == nil { return try finish() }
            }
            guard let audio = next, audio.frameCount > 0 else { return }
            if converter == nil && inputRate == 0 { try configure(for: audio) }
            guard audio.sampleRate == inputRate, audio.channelCount == inputChannels else {
                throw ReelError(
                    .unsupportedFormat,
                    "the audio changes from \(inputChannels) channels at \(inputRate) Hz to \(audio.channelCount) channels at \(audio.sampleRate) Hz",
                    path: piece.url.path, trackID: piece.trackID, time: audio.presentationTime)
            }
            // Where this block belongs among the source frames: a gap before it is silence,
            // an overlap with what was fed (or the lead-in before the piece) is dropped.
            let at =
                audio.presentationTime.isNumeric
                ? (audio.presentationTime - piece.source.start).convertScale(Int32(clamping: inputRate), method: .roundHalfAwayFromZero).value
                : fed
            if at > fed {
                let gap = min(at, sourceFrames) - fed
                if gap > 0 { try feed([Float](repeating: 0, count: Int(gap) * inputChannels)) }
            }
            let skip = Int(max(0, fed - at))
            let take = min(audio.frameCount - min(skip, audio.frameCount), Int(max(0, sourceFrames - fed)))
            if take > 0 {
                try feed(Array(audio.samples[(skip * inputChannels)..<((skip + take) * inputChannels)]))
            }
            if fed >= sourceFrames { try finish() }
        }

        /// Learns the source's format from its first block and makes the converter: to the
        /// output rate and channels, the input's rate stretched by the piece's scale.
        private func configure(for audio: DecodedAudio) throws(ReelError) {
            inputRate = audio.sampleRate
            inputChannels = audio.channelCount
            guard inputRate > 0, inputChannels > 0 else {
                throw ReelError(.unsupportedFormat, "the audio has no sample rate or channels", path: piece.url.path, trackID: piece.trackID)
            }
            sourceFrames = piece.source.duration.convertScale(Int32(clamping: inputRate), method: .roundHalfAwayFromZero).value
            // Played over the target's duration, the source's samples run at this rate.
            let playedRate =
                piece.isScaled
                ? Int((Double(inputRate) * piece.source.duration.seconds / piece.target.duration.seconds).rounded())
                : inputRate
            if playedRate != sampleRate || inputChannels != channels {
                do {
                    converter = try AudioConverter(
                        inputSampleRate: playedRate, inputChannelCount: inputChannels,
                        outputSampleRate: sampleRate, outputChannelCount: channels)
                } catch {
                    var e = error
                    e.path = piece.url.path
                    e.trackID = piece.trackID
                    throw e
                }
            }
        }

        private func feed(_ samples: [Float]) throws(ReelError) {
            fed += Int64(samples.count / inputChannels)
            pending += try converter?.convert(samples) ?? samples
        }

        private func finish() throws(ReelError) {
            guard !ended else { return }
            ended = true
            if let converter { pending += try converter.flush() }
            if case .file(let reader, _) = input { reader.cancelReading() }
        }
    }
}

/// Sound held in memory, read as a decoder's blocks: 4096 sample frames at a time over a
/// piece's source range, each stamped with the time of its first sample.
struct MemoryBlocks {
    let sound: any SoundSource
    private var position: Int64
    private let end: Int64

    init(sound: any SoundSource, source: TimeRange) {
        self.sound = sound
        let rate = Int32(clamping: sound.sampleRate)
        position = source.start.convertScale(rate, method: .roundHalfAwayFromZero).value
        end = source.end.convertScale(rate, method: .roundHalfAwayFromZero).value
    }

    mutating func next() async throws(ReelError) -> DecodedAudio? {
        guard position < end else { return nil }
        let count = Int(min(4096, end - position))
        let rate = Int32(clamping: sound.sampleRate)
        let start = MediaTime(value: position, timescale: rate)
        let samples = try await sound.samples(from: start, frameCount: count)
        position += Int64(count)
        return DecodedAudio(samples: samples, channelCount: sound.channelCount, sampleRate: sound.sampleRate, presentationTime: start)
    }
}
