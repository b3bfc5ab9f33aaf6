import Foundation
import ReelComposition
import ReelCore
import ReelIO

/// The audio tracks of a reader's file mixed into one stream of PCM
/// (AVAssetReaderAudioMixOutput), by the mixer exports use (`AudioMixer`): each track
/// decoded and converted with libswresample to one format, scaled by its volumes in
/// ``audioMix`` (sample-exact linear ramps), summed and clamped to [-1, 1].
///
/// ```swift
/// let reader = try await AssetReader.open(url: url)
/// let output = AssetReaderAudioMixOutput(audioTracks: reader.tracks(withMediaType: .audio),
///                                        audioSettings: .init(sampleRate: 48000, channelCount: 2))
/// var fade = MutableAudioMixInputParameters(trackID: output.audioTracks[0].trackID)
/// fade.setVolumeRamp(fromStartVolume: 1, toEndVolume: 0, timeRange: TimeRange(start: .zero, end: .ratio(2, 1)))
/// output.audioMix = AudioMix(inputParameters: [.init(fade)])
/// try reader.add(output)
/// try reader.startReading()
/// for try await case .audio(let block) in output { use(block) }
/// ```
///
/// The mix covers the reader's `AssetReader/timeRange` within the tracks' span (from the
/// earliest track's start to the latest's end), in blocks of 4096 frames, each stamped with
/// the file time of its first sample; a track is silent where it has no sound. Float
/// output comes as `AssetReaderSample/audio(_:)` (interleaved 32-bit float), 16-bit
/// output as `AssetReaderSample/sampleBuffer(_:)` holding interleaved little-endian
/// signed samples (format `sowt`). The sound is decoded and mixed in the consumer's
/// `next()` (decoding runs ahead on reader threads); read it from one consumer.
public final class AssetReaderAudioMixOutput: AsyncSequence, AssetReaderCompositeOutput, Sendable {
    /// The PCM format of the mix (AVFoundation's `AVSampleRateKey`, `AVNumberOfChannelsKey`,
    /// `AVLinearPCMIsFloatKey` and `AVLinearPCMBitDepthKey`).
    public struct AudioSettings: Sendable, Hashable {
        /// How each sample is written.
        public enum SampleFormat: Sendable, Hashable {
            /// 32-bit float, full scale ±1.
            case float32
            /// 16-bit signed integers, little-endian (rounded, clamped).
            case int16
        }

        /// Samples per second, 8000 to 192000; the first track's when nil.
        public var sampleRate: Int?
        /// Channels, 1 to 8, in FFmpeg's standard layout for the count (1 mono, 2 stereo,
        /// 6 5.1, 8 7.1); the first track's (at most 8) when nil. Other counts are mixed
        /// up or down with libswresample's standard matrix.
        public var channelCount: Int?
        public var sampleFormat: SampleFormat

        public init(sampleRate: Int? = nil, channelCount: Int? = nil, sampleFormat: SampleFormat = .float32) {
            self.sampleRate = sampleRate
            self.channelCount = channelCount
            self.sampleFormat = sampleFormat
        }
    }

    public typealias Element = AssetReaderSample
    public typealias Failure = ReelError

    /// The tracks mixed.
    public let audioTracks: [AssetTrack]
    /// The format asked for; nil for the first track's rate and channels, as float.
    public let audioSettings: AudioSettings?

    private struct State {
        var audioMix: AudioMix?
        var url: URL?
        var format: (sampleRate: Int, channels: Int)?
        var mixer: AudioMixer?
        var finished: (@Sendable (ReelError?) -> Void)?
        var started = false
        var ended = false
        var failure: ReelError?
    }
    private let state = Lock(State())

    /// An output mixing `audioTracks` (all of the reader's file) into `audioSettings`'s format.
    public init(audioTracks: [AssetTrack], audioSettings: AudioSettings? = nil) {
        self.audioTracks = audioTracks
        self.audioSettings = audioSettings
    }

    /// The volumes of the tracks (AVAssetReaderAudioMixOutput.audioMix); every track at
    /// volume 1 when nil. Set it before `AssetReader/startReading()`: later changes are
    /// ignored.
    public var audioMix: AudioMix? {
        get { state.withLock { $0.audioMix } }
        set { state.withLock { if !$0.started { $0.audioMix = newValue } } }
    }

    /// The sample rate of the mix, once the output is added to a reader.
    public var sampleRate: Int? { state.withLock { $0.format?.sampleRate } }
    /// The channel count of the mix, once the output is added to a reader.
    public var channelCount: Int? { state.withLock { $0.format?.channels } }

    public var sourceTracks: [AssetTrack] { audioTracks }

    /// Checks the tracks (audio, decodable, no track twice) and the settings, and fixes the
    /// format.
    public func attach(to reader: AssetReader) throws(ReelError) {
        let path = reader.url.path
        guard let first = audioTracks.first else {
            throw ReelError(.invalidArgument, "an audio mix output needs at least one audio track", path: path)
        }
        var seen = Set<Int32>()
        for track in audioTracks {
            guard track.mediaType == .audio else {
                throw ReelError(
                    .invalidArgument, "the track is \(track.mediaType), not audio: an audio mix output mixes audio tracks",
                    path: path, trackID: track.trackID)
            }
            guard track.isDecodable else {
                throw ReelError(.decoderFailed, "no decoder for \(track.formatDescription.codecName) in this FFmpeg", path: path, trackID: track.trackID)
            }
            guard seen.insert(track.trackID).inserted else {
                throw ReelError(.invalidArgument, "the track is given twice", path: path, trackID: track.trackID)
            }
        }
        let rate = audioSettings?.sampleRate ?? first.formatDescription.sampleRate ?? 0
        let channels = audioSettings?.channelCount ?? Swift.min(first.formatDescription.channelCount ?? 0, 8)
        guard (8000...192_000).contains(rate) else {
            throw ReelError(
                .invalidArgument,
                audioSettings?.sampleRate == nil
                    ? "the track gives no sample rate: give one in the audio settings"
                    : "the sample rate \(rate) Hz is out of range: 8000 to 192000", path: path, trackID: first.trackID)
        }
        guard (1...8).contains(channels) else {
            throw ReelError(
                .invalidArgument,
                audioSettings?.channelCount == nil
                    ? "the track gives no channel count: give one in the audio settings"
                    : "\(channels) channels is out of range: 1 to 8", path: path, trackID: first.trackID)
        }
        try state.withLock { (s) throws(ReelError) in
            guard s.url == nil else { throw ReelError(.invalidArgument, "the output already belongs to a reader", path: path) }
            s.url = reader.url
            s.format = (rate, channels)
        }
    }

    /// Checks the volumes and plans the mix over `timeRange`: one piece per track, each
    /// read where the track has sound.
    public func prepare(timeRange: TimeRange) throws(ReelError) {
        let tracks = audioTracks
        try state.withLock { (s) throws(ReelError) in
            guard let url = s.url, let format = s.format else {
                throw ReelError(.invalidArgument, "the output was not added to a reader")
            }
            let ids = Set(tracks.map(\.trackID))
            for parameters in s.audioMix?.inputParameters ?? [] {
                guard ids.contains(parameters.trackID) else {
                    throw ReelError(.invalidArgument, "the audio mix names a track the output does not mix", path: url.path, trackID: parameters.trackID)
                }
                if let problem = parameters.rampProblem() { throw ReelError(.invalidArgument, problem, path: url.path, trackID: parameters.trackID) }
            }
            // The tracks' span, within the range read.
            let starts = tracks.map(\.timeRange.start).filter(\.isNumeric)
            let ends = tracks.map(\.timeRange.end).filter(\.isNumeric)
            guard let first = starts.min(), let last = ends.max() else {
                throw ReelError(.invalidArgument, "the tracks have no time range", path: url.path)
            }
            let range = timeRange.intersection(TimeRange(start: first, end: last))
            guard range.isValid, range.duration > .zero else {
                s.mixer = nil
                return
            }
            let mix = s.audioMix
            let mixed = tracks.compactMap { track -> ExportAudio.Track? in
                let source = track.timeRange.intersection(range)
                guard source.isValid, source.duration > .zero else { return nil }
                return ExportAudio.Track(
                    trackID: track.trackID,
                    pieces: [ExportAudio.Piece(url: url, trackID: track.trackID, source: source, target: source)],
                    volume: mix?.inputParameters(forTrackID: track.trackID) ?? AudioMixInputParameters(trackID: track.trackID))
            }
            s.mixer = AudioMixer(tracks: mixed, range: range, sampleRate: format.sampleRate, channels: format.channels)
        }
    }

    public func start(finished: @escaping @Sendable (ReelError?) -> Void) {
        state.withLock {
            $0.started = true
            $0.finished = finished
            // Nothing to mix in the range: the first read ends.
            if $0.mixer == nil { $0.ended = true }
        }
    }

    public func cancel(_ error: ReelError) {
        state.withLock {
            if $0.failure == nil && !$0.ended { $0.failure = error }
            $0.mixer = nil
        }
        end(error)
    }

    /// Reports the end to the reader, once.
    private func end(_ failure: ReelError?) {
        let report = state.withLock { s -> (@Sendable (ReelError?) -> Void)? in
            defer { s.finished = nil }
            return s.finished
        }
        report?(failure)
    }

    /// The next block of the mix; nil at the end.
    public func next(isolation actor: isolated (any Actor)? = #isolation) async throws(ReelError) -> AssetReaderSample? {
        let taken = try state.withLock { (s) throws(ReelError) -> AudioMixer? in
            if let failure = s.failure { throw failure }
            guard s.started else {
                throw ReelError(.invalidArgument, "the output is not reading yet: add it to an AssetReader and call startReading()")
            }
            if s.ended { return nil }
            defer { s.mixer = nil }
            return s.mixer
        }
        guard let mixer = taken else {
            end(nil)
            return nil
        }
        let block: DecodedAudio?
        do throws(ReelError) {
            block = try await mixer.next()
        } catch {
            state.withLock { if $0.failure == nil { $0.failure = error } }
            end(error)
            throw error
        }
        let cancelled = state.withLock { (s) -> ReelError? in
            if let failure = s.failure { return failure }
            if block == nil { s.ended = true } else { s.mixer = mixer }
            return nil
        }
        if let cancelled { throw cancelled }
        guard let block else {
            end(nil)
            return nil
        }
        return sample(block)
    }

    /// `block` in the settings' sample format.
    private func sample(_ block: DecodedAudio) -> AssetReaderSample {
        guard audioSettings?.sampleFormat == .int16 else { return .audio(block) }
        var data = Data(count: block.samples.count * 2)
        data.withUnsafeMutableBytes { raw in
            for (i, x) in block.samples.enumerated() {
                let v = Int16(Swift.max(-32768, Swift.min(32767, (Double(x) * 32768).rounded())))
                raw.storeBytes(of: v.littleEndian, toByteOffset: i * 2, as: Int16.self)
            }
        }
        return .sampleBuffer(SampleBuffer(data: data, presentationTime: block.presentationTime, duration: block.duration, format: "sowt"))
    }

    public struct AsyncIterator: AsyncIteratorProtocol {
        let output: AssetReaderAudioMixOutput

        public mutating func next(isolation actor: isolated (any Actor)?) async throws(ReelError) -> AssetReaderSample? {
            try await output.next(isolation: actor)
        }

        public mutating func next() async throws(ReelError) -> AssetReaderSample? {
            try await output.next(isolation: nil)
        }
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(output: self) }
}
