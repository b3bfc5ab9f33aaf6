import ReelComposition
import ReelCore

/// A media source that lives in memory: video tracks of synthetic (or given) frames,
/// timed-metadata tracks of groups, caption tracks and sound tracks, described for a composition and served
/// to the render engine (and, through `AssetRenderSources(inMemory:)`, to an export). No files, no FFmpeg.
///
/// ```swift
/// var clip = InMemorySource(identifier: "clip")
/// try clip.addCounterVideoTrack(trackID: 1, frameCount: 30, frameDuration: MediaTime(value: 1, timescale: 30),
///                               width: 64, height: 36)
/// try clip.addMetadataTrack(trackID: 2, groups: try SyntheticMetadata.gpsGroups(gpx: gpxText))
/// var composition = Composition()
/// try composition.insertTimeRange(clip.timeRange, of: clip.description, at: .zero)
/// ```
///
/// Each frame of a counter track shows its index (``readCounter(from:)`` reads it back), so
/// a test can tell which source frame the engine picked for each output time.
public struct InMemorySource: RenderSourceProvider {
    /// Names the source in track references.
    public let identifier: String
    /// The tracks added so far, in order, as a composition sees them.
    public private(set) var tracks: [SourceTrackDescription] = []
    private var videoSources: [Int32: InMemoryVideoFrameSource] = [:]
    private var metadataSources: [Int32: InMemoryTimedMetadataSource] = [:]
    private var captionSources: [Int32: InMemoryCaptionSource] = [:]
    private var soundSources: [Int32: InMemorySoundSource] = [:]

    /// An empty source named `identifier`; add tracks with the `add...Track` methods.
    public init(identifier: String = "memory") {
        self.identifier = identifier
    }

    /// The source as a composition sees it (`SourceDescription`, like an asset's tracks).
    public var description: SourceDescription { SourceDescription(identifier: identifier, tracks: tracks) }

    /// From zero to the end of the longest track.
    public var timeRange: TimeRange {
        TimeRange(start: .zero, end: tracks.map(\.timeRange.end).max() ?? .zero)
    }

    /// The reference of track `trackID` of this source.
    public func reference(_ trackID: Int32) -> SourceTrackReference {
        SourceTrackReference(sourceIdentifier: identifier, trackID: trackID)
    }

    /// Adds a video track of `frameCount` counter frames (frame `i` shows `i`), each lasting
    /// `frameDuration`, from time zero.
    public mutating func addCounterVideoTrack(
        trackID: Int32, frameCount: Int, frameDuration: MediaTime, width: Int, height: Int,
        format: PixelFormat = .bgra,
        background: FramePattern = .solid(Color(red: 0.5, green: 0.5, blue: 0.5))
    ) throws(ReelError) {
        guard frameCount > 0 else { throw ReelError(.invalidArgument, "a counter track needs at least one frame", trackID: trackID) }
        let frames = (0..<frameCount).map { SyntheticFrame.make(background, width: width, height: height, format: format, counter: $0) }
        try addVideoTrack(trackID: trackID, frames: frames, frameDuration: frameDuration)
    }

    /// Adds a video track of `frames`, each lasting `frameDuration`, from time zero.
    public mutating func addVideoTrack(trackID: Int32, frames: [PixelBuffer], frameDuration: MediaTime) throws(ReelError) {
        guard frameDuration.isNumeric, frameDuration > .zero else {
            throw ReelError(.invalidArgument, "frame duration must be a positive time, not \(frameDuration)", trackID: trackID)
        }
        var timed: [VideoFrame] = []
        var time = MediaTime.zero
        for frame in frames {
            timed.append(VideoFrame(pixelBuffer: frame, timeRange: TimeRange(start: time, duration: frameDuration)))
            time = time + frameDuration
        }
        try addVideoTrack(trackID: trackID, frames: timed, nominalFrameDuration: frameDuration)
    }

    /// Adds a video track of frames with their own time ranges (variable frame rate, gaps).
    public mutating func addVideoTrack(trackID: Int32, frames: [VideoFrame], nominalFrameDuration: MediaTime = .invalid) throws(ReelError) {
        try checkNew(trackID)
        guard let first = frames.first else { throw ReelError(.invalidArgument, "a video track needs at least one frame", trackID: trackID) }
        let source = InMemoryVideoFrameSource(frames: frames)
        let start = source.frames.map(\.timeRange.start).min() ?? .zero
        let end = source.frames.map(\.timeRange.end).max() ?? .zero
        tracks.append(
            SourceTrackDescription(
                reference: reference(trackID), mediaType: .video, timeRange: TimeRange(start: start, end: end),
                naturalSize: Size(width: first.pixelBuffer.width, height: first.pixelBuffer.height),
                nominalFrameDuration: nominalFrameDuration))
        videoSources[trackID] = source
    }

    /// Adds a timed-metadata track holding `groups` (times are the source's own).
    public mutating func addMetadataTrack(trackID: Int32, groups: [TimedMetadataGroup]) throws(ReelError) {
        try checkNew(trackID)
        guard !groups.isEmpty else { throw ReelError(.invalidArgument, "a metadata track needs at least one group", trackID: trackID) }
        let start = groups.map(\.timeRange.start).min() ?? .zero
        let end = groups.map(\.timeRange.end).max() ?? .zero
        tracks.append(SourceTrackDescription(reference: reference(trackID), mediaType: .metadata, timeRange: TimeRange(start: start, end: end)))
        metadataSources[trackID] = InMemoryTimedMetadataSource(groups: groups)
    }

    /// Adds a caption track (a subtitle track) holding `captions` (times are the source's
    /// own), from zero to the end of the last caption.
    public mutating func addCaptionTrack(trackID: Int32, captions: [Caption]) throws(ReelError) {
        try checkNew(trackID)
        guard !captions.isEmpty else { throw ReelError(.invalidArgument, "a caption track needs at least one caption", trackID: trackID) }
        let end = captions.map(\.timeRange.end).max() ?? .zero
        tracks.append(SourceTrackDescription(reference: reference(trackID), mediaType: .subtitle, timeRange: TimeRange(start: .zero, end: end)))
        captionSources[trackID] = InMemoryCaptionSource(captions: captions)
    }

    /// Adds a sound track of `sound` (interleaved float samples from time zero).
    public mutating func addSoundTrack(trackID: Int32, sound: InMemorySoundSource) throws(ReelError) {
        try checkNew(trackID)
        let frames = sound.interleaved.count / sound.channelCount
        guard frames > 0, sound.sampleRate > 0 else { throw ReelError(.invalidArgument, "a sound track needs at least one sample", trackID: trackID) }
        let duration = MediaTime(value: Int64(frames), timescale: Int32(clamping: sound.sampleRate))
        tracks.append(SourceTrackDescription(reference: reference(trackID), mediaType: .audio, timeRange: TimeRange(start: .zero, duration: duration)))
        soundSources[trackID] = sound
    }

    private func checkNew(_ trackID: Int32) throws(ReelError) {
        guard !tracks.contains(where: { $0.trackID == trackID }) else {
            throw ReelError(.invalidArgument, "the source \(identifier) already has a track \(trackID)", trackID: trackID)
        }
    }

    /// The frames of the referenced video track; nil when the reference names another
    /// source or no video track of this one.
    public func videoFrameSource(for reference: SourceTrackReference) -> (any VideoFrameSource)? {
        reference.sourceIdentifier == identifier ? videoSources[reference.trackID] : nil
    }

    /// The groups of the referenced metadata track; nil when the reference names another
    /// source or no metadata track of this one.
    public func timedMetadataSource(for reference: SourceTrackReference) -> (any TimedMetadataSource)? {
        reference.sourceIdentifier == identifier ? metadataSources[reference.trackID] : nil
    }

    public func captionSource(for reference: SourceTrackReference) -> (any CaptionSource)? {
        reference.sourceIdentifier == identifier ? captionSources[reference.trackID] : nil
    }

    public func soundSource(for reference: SourceTrackReference) -> (any SoundSource)? {
        reference.sourceIdentifier == identifier ? soundSources[reference.trackID] : nil
    }
}

/// Several in-memory sources served together (a composition that mixes clips).
public struct InMemorySources: RenderSourceProvider {
    /// The sources, asked in order.
    public var sources: [InMemorySource]

    /// Serves `sources` together; where two have the same track, the first wins.
    public init(_ sources: [InMemorySource]) { self.sources = sources }

    /// The frames of the referenced video track from the first source that has it; nil when none has.
    public func videoFrameSource(for reference: SourceTrackReference) -> (any VideoFrameSource)? {
        sources.lazy.compactMap { $0.videoFrameSource(for: reference) }.first
    }

    /// The groups of the referenced metadata track from the first source that has it; nil when none has.
    public func timedMetadataSource(for reference: SourceTrackReference) -> (any TimedMetadataSource)? {
        sources.lazy.compactMap { $0.timedMetadataSource(for: reference) }.first
    }

    public func captionSource(for reference: SourceTrackReference) -> (any CaptionSource)? {
        sources.lazy.compactMap { $0.captionSource(for: reference) }.first
    }

    public func soundSource(for reference: SourceTrackReference) -> (any SoundSource)? {
        sources.lazy.compactMap { $0.soundSource(for: reference) }.first
    }
}
