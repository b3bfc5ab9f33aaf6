/// One sample of a timed-metadata track: the decoded group and, when known, its raw bytes.
/// From a ``TimedMetadataSource`` both carry source times; in an
/// ``AsynchronousVideoCompositionRequest`` (``AsynchronousVideoCompositionRequest/sourceTimedMetadata(byTrackID:)``,
/// ``AsynchronousVideoCompositionRequest/sourceSampleBuffer(byTrackID:)``), composition times.
public struct TimedMetadataSample: Sendable, Hashable {
    /// The decoded metadata group, with its time range.
    public var group: TimedMetadataGroup
    /// The sample's raw bytes as stored in the track; nil when not known.
    public var sampleBuffer: SampleBuffer?

    /// A sample of `group`, with its raw bytes when known.
    public init(group: TimedMetadataGroup, sampleBuffer: SampleBuffer? = nil) {
        self.group = group
        self.sampleBuffer = sampleBuffer
    }
}

/// Frames of one source video track, asked for by source time. The render engine asks for
/// mostly increasing times, a few at a time; a file-backed source decodes ahead by a bounded
/// number of frames and seeks when asked to go back.
public protocol VideoFrameSource: Sendable {
    /// The frame showing at `sourceTime` (whose range holds it), or nil when the track shows
    /// nothing then (before its first frame, after its last).
    func frame(at sourceTime: MediaTime) async throws(ReelError) -> VideoFrame?

    /// The same, preferably in one of `acceptedFormats` (the compositor's
    /// `sourcePixelBufferAttributes`, most preferred first; nil accepts any). A file-backed
    /// source converts with its scaler here, off the engine's path; the default ignores the
    /// hint, and the engine converts whatever is not accepted.
    func frame(at sourceTime: MediaTime, acceptedFormats: [PixelFormat]?) async throws(ReelError) -> VideoFrame?

    /// The same, for a seek: the frame is wanted before the frames after it, as a player
    /// shows a seek's frame alone until it plays on (``RenderEngine/Options/firstFrameIsSeek``).
    /// A source that has to seek for it may then give it sooner and the frames after it
    /// later (a file-backed source drains its decoder at it). The default is
    /// ``frame(at:acceptedFormats:)``.
    func seekFrame(at sourceTime: MediaTime, acceptedFormats: [PixelFormat]?) async throws(ReelError) -> VideoFrame?

    /// The latest time at or before `sourceTime` from which the source reaches a frame
    /// without decoding the pictures before it: the time the last keyframe up to
    /// `sourceTime` shows. Nil when the source does not know, or every frame is as quick to
    /// reach (the default). Tolerant seeks land there (``SeekLanding``).
    func randomAccessTime(atOrBefore sourceTime: MediaTime) async -> MediaTime?

    /// Called by a render once it has asked for every frame it needs from the source (the
    /// composition's last segment of this track has begun rendering): a file-backed source
    /// stops its readers and lets go of the frames it decoded, so a join of many files holds
    /// one file's decoder at a time. A later request starts reading again. Nothing by
    /// default.
    func close() async
}

extension VideoFrameSource {
    public func close() async {}

    public func frame(at sourceTime: MediaTime, acceptedFormats: [PixelFormat]?) async throws(ReelError) -> VideoFrame? {
        try await frame(at: sourceTime)
    }

    public func randomAccessTime(atOrBefore sourceTime: MediaTime) async -> MediaTime? { nil }

    public func seekFrame(at sourceTime: MediaTime, acceptedFormats: [PixelFormat]?) async throws(ReelError) -> VideoFrame? {
        try await frame(at: sourceTime, acceptedFormats: acceptedFormats)
    }
}

/// Timed metadata of one source metadata track, asked for by source time.
public protocol TimedMetadataSource: Sendable {
    /// The sample whose group's time range holds `sourceTime` (half-open), or nil. A
    /// previous sample does not carry forward: the engine drops a group that does not hold
    /// the time.
    func sample(at sourceTime: MediaTime) async throws(ReelError) -> TimedMetadataSample?
    /// Every sample whose group overlaps `range` (source time), in order: what an export
    /// writes. By default a source cannot list its samples (`.unsupportedFormat`), and an
    /// export leaves its track out with a warning.
    func samples(in range: TimeRange) async throws(ReelError) -> [TimedMetadataSample]
}

extension TimedMetadataSource {
    public func samples(in range: TimeRange) async throws(ReelError) -> [TimedMetadataSample] {
        throw ReelError(.unsupportedFormat, "its source gives its groups one time at a time and cannot list them (implement samples(in:))")
    }
}

/// The captions of one source caption track. A caption track is small: the engine asks
/// for all of it once per render and keeps it.
public protocol CaptionSource: Sendable {
    /// Every caption of the track, in source time.
    func captions() async throws(ReelError) -> [Caption]
}

/// Finds the source for each track a composition refers to: in-memory sources in tests,
/// file readers in the module that opens files.
public protocol RenderSourceProvider: Sendable {
    /// The frames of a video track; nil when there is no source for it.
    func videoFrameSource(for reference: SourceTrackReference) -> (any VideoFrameSource)?
    /// The samples of a timed-metadata track; nil when there is no source for it.
    func timedMetadataSource(for reference: SourceTrackReference) -> (any TimedMetadataSource)?
    /// The captions of a caption track; none by default.
    func captionSource(for reference: SourceTrackReference) -> (any CaptionSource)?
    /// The sound of an audio track, when it is held in memory (an export reads files'
    /// sound itself); none by default.
    func soundSource(for reference: SourceTrackReference) -> (any SoundSource)?
}

extension RenderSourceProvider {
    public func captionSource(for reference: SourceTrackReference) -> (any CaptionSource)? { nil }
    public func soundSource(for reference: SourceTrackReference) -> (any SoundSource)? { nil }
}

/// A ``RenderSourceProvider`` that is a table of sources by reference.
public struct RenderSources: RenderSourceProvider {
    /// The video frame sources, by source track.
    public var videoSources: [SourceTrackReference: any VideoFrameSource]
    /// The timed-metadata sources, by source track.
    public var metadataSources: [SourceTrackReference: any TimedMetadataSource]
    /// The caption sources, by source track.
    public var captionSources: [SourceTrackReference: any CaptionSource]
    /// The sound sources, by source track.
    public var soundSources: [SourceTrackReference: any SoundSource]

    /// A table of the given sources; every table is empty by default.
    public init(
        videoSources: [SourceTrackReference: any VideoFrameSource] = [:],
        metadataSources: [SourceTrackReference: any TimedMetadataSource] = [:],
        captionSources: [SourceTrackReference: any CaptionSource] = [:],
        soundSources: [SourceTrackReference: any SoundSource] = [:]
    ) {
        self.videoSources = videoSources
        self.metadataSources = metadataSources
        self.captionSources = captionSources
        self.soundSources = soundSources
    }

    /// Adds or replaces the video frame source for `reference`.
    public mutating func add(_ source: any VideoFrameSource, for reference: SourceTrackReference) {
        videoSources[reference] = source
    }

    /// Adds or replaces the timed-metadata source for `reference`.
    public mutating func add(_ source: any TimedMetadataSource, for reference: SourceTrackReference) {
        metadataSources[reference] = source
    }

    /// Adds or replaces the caption source for `reference`.
    public mutating func add(_ source: any CaptionSource, for reference: SourceTrackReference) {
        captionSources[reference] = source
    }

    /// Adds or replaces the sound source for `reference`.
    public mutating func add(_ source: any SoundSource, for reference: SourceTrackReference) {
        soundSources[reference] = source
    }

    /// The video frame source added for `reference`, if any.
    public func videoFrameSource(for reference: SourceTrackReference) -> (any VideoFrameSource)? { videoSources[reference] }
    public func captionSource(for reference: SourceTrackReference) -> (any CaptionSource)? { captionSources[reference] }
    /// The timed-metadata source added for `reference`, if any.
    public func timedMetadataSource(for reference: SourceTrackReference) -> (any TimedMetadataSource)? { metadataSources[reference] }
    public func soundSource(for reference: SourceTrackReference) -> (any SoundSource)? { soundSources[reference] }
}
