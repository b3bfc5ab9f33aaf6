import ReelCaptions
import ReelCore
import ReelMetadata

/// One track of an ``AssetWriter``'s file, and the way samples are appended to it
/// (AVAssetWriterInput).
///
/// `append` suspends while the writer's queue is full (back-pressure; a video frame's
/// until the writer's thread has taken it, so no frame waits made), and throws at
/// once for misuse: appending before the session started, after ``markAsFinished()``
/// or after the writer finished, or with a timestamp not after the previous one.
public final class AssetWriterInput: Sendable {
    /// What the track holds and how its samples are coded.
    public enum Settings: Sendable {
        /// Frames encoded with `VideoEncoderSettings`.
        case video(VideoEncoderSettings)
        /// Interleaved float PCM encoded to AAC or PCM (``AudioEncoderSettings/Codec``).
        case audio(AudioEncoderSettings)
        /// Packets copied unchanged from a reader's `.passthrough` output of an audio, video
        /// or caption track (3GPP timed text into MP4/MOV; SubRip, WebVTT, ASS into Matroska); `FormatDescription` is that output's ``AssetReaderTrackOutput/formatDescription``.
        case passthrough(FormatDescription)
        /// Timed metadata samples of `format`: `gpmd`, `mebx` or `camm` (MP4/MOV), or `klv`
        /// (MPEG-TS). A `mebx` input's keys come from its ``AssetWriterInput/sourceFormatHint``
        /// and from the items its metadata adaptor meets.
        case metadata(format: MetadataFormat)
        /// A caption track: 3GPP timed text (`CaptionFormat/movText`, MP4/MOV), or SubRip
        /// or WebVTT (Matroska). Append captions with an ``AssetWriterInputCaptionAdaptor``.
        case captions(CaptionFormat)
    }

    public let settings: Settings

    struct State {
        weak var writer: AssetWriter?
        var index = -1
        var lastTime: MediaTime = .invalid
        var finished = false
        var transform: Transform2D = .identity
        var languageCode: String?
        var startTimecode: Timecode?
        var metadataKeys = QuickTimeMetadataKeyTable()
    }
    let state = Lock(State())

    /// How the video is to be displayed (AVAssetWriterInput.transform): written as the
    /// track's display matrix (MP4/MOV `tkhd`) when not the identity. Set it before the
    /// writer's `startWriting()`; video and passthrough video inputs only.
    public var transform: Transform2D {
        get { state.withLock { $0.transform } }
        set { state.withLock { $0.transform = newValue } }
    }

    /// The track's language, an ISO 639-2/T code such as `fra` (AVAssetWriterInput's
    /// `languageCode`), written as the stream's `language` tag. Set it before the writer's
    /// `startWriting()`.
    public var languageCode: String? {
        get { state.withLock { $0.languageCode } }
        set { state.withLock { $0.languageCode = newValue } }
    }

    /// The SMPTE timecode of the first frame, for a video input: the writer adds a timecode
    /// track (`tmcd`) timing this track, counted at its frame rate (the encoder's, or a
    /// passthrough source's), as a camera's is. MP4 and MOV only: other containers keep no
    /// timecode track. Set it before the writer's `startWriting()`. (AVFoundation writes
    /// timecode as samples of a separate timecode input; one start label is what FFmpeg's
    /// muxer writes, and what cameras record.)
    public var startTimecode: Timecode? {
        get { state.withLock { $0.startTimecode } }
        set { state.withLock { $0.startTimecode = newValue } }
    }

    /// The sample description of the track the samples come from, for a metadata input
    /// (AVAssetWriterInput's `sourceFormatHint`): a `mebx` source's keys, so that its raw
    /// samples, copied unchanged, keep meaning what they meant.
    public let sourceFormatHint: MP4SampleEntry?

    public init(settings: Settings, sourceFormatHint: MP4SampleEntry? = nil) {
        self.settings = settings
        self.sourceFormatHint = sourceFormatHint
        state.withLock { $0.metadataKeys = QuickTimeMetadataKeyTable(keys: sourceFormatHint?.metadataKeys ?? []) }
    }

    /// The keys of a `mebx` input's samples: the source format hint's, then those added
    /// as the metadata adaptor met new identifiers. Written into the track's sample entry.
    public var metadataKeys: [QuickTimeMetadataKey] { state.withLock { $0.metadataKeys.keys } }

    /// Runs `body` on the input's key table, under its lock.
    func withMetadataKeys<T>(_ body: (inout QuickTimeMetadataKeyTable) throws(ReelError) -> T) throws(ReelError) -> T {
        try state.withLock { (s) throws(ReelError) -> T in try body(&s.metadataKeys) }
    }

    /// The kind of track this input makes.
    public var mediaType: MediaType {
        switch settings {
        case .video: .video
        case .audio: .audio
        case .passthrough(let description): description.mediaType
        case .metadata: .metadata
        case .captions(let format): format == .movText ? .text : .subtitle
        }
    }

    /// Whether an append would go through without waiting.
    public var isReadyForMoreMediaData: Bool {
        guard let writer = state.withLock({ $0.writer }) else { return false }
        return writer.hasRoom
    }

    /// Says no more samples come for this input.
    public func markAsFinished() {
        state.withLock { $0.finished = true }
    }

    /// Checks an append is allowed and records its time; returns the writer and the
    /// input's index.
    /// `equalTimesIn`: the file type in which a sample may have the time of the one before
    /// (caption cues copied into Matroska).
    private func admit(_ time: MediaTime, what: String, equalTimesIn: AssetWriter.FileType? = nil) throws(ReelError) -> (AssetWriter, Int) {
        try state.withLock { (s) throws(ReelError) -> (AssetWriter, Int) in
            guard let writer = s.writer else {
                throw ReelError(.writerState, "add the input to an AssetWriter before appending")
            }
            if s.finished {
                throw ReelError(.writerState, "cannot append \(what) after markAsFinished()", path: writer.outputURL.path, time: time)
            }
            try writer.checkAccepting()
            guard time.isNumeric else {
                throw ReelError(.invalidArgument, "cannot append \(what) without a valid time", path: writer.outputURL.path)
            }
            if s.lastTime.isValid, !(time > s.lastTime), !(time == s.lastTime && equalTimesIn == writer.fileType) {
                throw ReelError(
                    .invalidArgument, "timestamps must increase: \(what) at \(time.secondsDescription) comes after \(s.lastTime.secondsDescription)",
                    path: writer.outputURL.path, time: time)
            }
            s.lastTime = time
            return (writer, s.index)
        }
    }

    /// Appends a video frame shown from `presentationTime`. The buffer may be in any
    /// format and size: it is converted to the encoder's.
    public func append(_ pixelBuffer: PixelBuffer, withPresentationTime presentationTime: MediaTime) async throws(ReelError) {
        guard case .video = settings else { throw ReelError(.invalidArgument, "this input takes no video frames") }
        let (writer, index) = try admit(presentationTime, what: "a frame")
        try await writer.submit(.video(input: index, buffer: pixelBuffer, time: presentationTime))
    }

    /// Appends a decoded frame (from an ``AssetReaderTrackOutput``) at its own time.
    public func append(_ frame: VideoFrame) async throws(ReelError) {
        try await append(frame.pixelBuffer, withPresentationTime: frame.presentationTime)
    }

    /// Appends interleaved float PCM at its presentation time; its rate and channel
    /// count must match the input's settings.
    public func append(_ audio: DecodedAudio) async throws(ReelError) {
        guard case .audio(let s) = settings else { throw ReelError(.invalidArgument, "this input takes no PCM audio") }
        guard audio.sampleRate == s.sampleRate, audio.channelCount == s.channelCount else {
            throw ReelError(
                .invalidArgument, "audio is \(audio.channelCount) ch at \(audio.sampleRate) Hz; the input encodes \(s.channelCount) ch at \(s.sampleRate) Hz")
        }
        let (writer, index) = try admit(audio.presentationTime, what: "audio")
        try await writer.submit(.audio(input: index, audio: audio))
    }

    /// Appends a sample's bytes unchanged (metadata, passthrough packets).
    ///
    /// Passthrough packets come in decode order: their decode times (or, without one,
    /// their presentation times) must increase, and each keeps its keyframe flag. None is
    /// dropped for lying before the session start: a stream copy needs them to decode
    /// what follows (a GOP's keyframe, AAC priming), and the MP4/MOV muxer hides the
    /// negative times with an edit list. Caption cues copied into Matroska may start
    /// together (ASS events on different lines), so there a cue may have the time of the
    /// one before.
    public func append(_ sampleBuffer: SampleBuffer) async throws(ReelError) {
        let copiesPackets: Bool
        var equalTimesIn: AssetWriter.FileType?
        switch settings {
        case .passthrough(let description):
            copiesPackets = true
            if description.isCaptionFormat { equalTimesIn = .mkv }
        case .metadata, .captions: copiesPackets = false
        default: throw ReelError(.invalidArgument, "this input encodes its samples: append frames or audio")
        }
        let order = copiesPackets && sampleBuffer.decodeTime.isNumeric ? sampleBuffer.decodeTime : sampleBuffer.presentationTime
        let (writer, index) = try admit(order, what: "a sample", equalTimesIn: equalTimesIn)
        try await writer.submit(copiesPackets ? .packet(input: index, sample: sampleBuffer) : .sample(input: index, sample: sampleBuffer))
    }
}
