import Foundation
import ReelComposition
import ReelCore
import ReelIO

/// Pictures of a file or a composition at given times (AVAssetImageGenerator), as
/// `PixelBuffer`s (yuv420p), or written as PNG or JPEG.
///
/// ```swift
/// let generator = try await AssetImageGenerator(asset: Asset(url: url))
/// generator.requestedTimeToleranceBefore = .zero
/// generator.requestedTimeToleranceAfter = .zero
/// let (image, actual) = try await generator.image(at: MediaTime(value: 3, timescale: 2))
/// try ImageEncoder.write(image, to: png, as: .png)
/// ```
///
/// The picture is always the one showing at the requested time (decoded from the keyframe
/// before it, frame-exactly). The tolerances say which time may be reported and rendered:
/// with a tolerance the frame's own start (or the video composition's frame-grid time) is
/// used when it lies within `[time - before, time + after]`; with zero tolerances the
/// picture is rendered for, and reported at, exactly the requested time.
public final class AssetImageGenerator: Sendable {
    public let composition: Composition
    /// Where frames come from; kept between calls, so times in order decode sequentially.
    public let sources: AssetRenderSources

    struct Settings: Sendable {
        var before: MediaTime = .positiveInfinity
        var after: MediaTime = .positiveInfinity
        var maximumSize: Size = .zero
        var appliesPreferredTrackTransform = false
        var videoComposition: VideoComposition?
        var apertureMode = ApertureMode.cleanAperture
    }
    private let settings = Lock(Settings())
    /// Batches under way and how many times everything was cancelled (AssetImageGenerator+Batch).
    let batches = Lock(BatchState())
    /// Width over height of one stored pixel of the video track, when not square.
    let pixelAspectRatio: Double?

    /// A generator over `composition`, reading its sources with `sources`.
    public convenience init(composition: Composition, sources: AssetRenderSources = AssetRenderSources()) {
        self.init(composition: composition, sources: sources, pixelAspectRatio: nil)
    }

    init(composition: Composition, sources: AssetRenderSources, pixelAspectRatio: Double?) {
        self.composition = composition
        self.sources = sources
        self.pixelAspectRatio = pixelAspectRatio.flatMap { $0.isFinite && $0 > 0 && $0 != 1 ? $0 : nil }
    }

    /// A generator over every track of `asset`. The first video track's pixel aspect ratio
    /// is kept for ``apertureMode``.
    public convenience init(asset: Asset) async throws(ReelError) {
        let video = try await asset.load(.tracks).first { $0.mediaType == .video }
        let ratio = video?.formatDescriptions.first?.sampleAspectRatio.flatMap(Self.ratio(of:))
        self.init(composition: try await Composition(asset: asset), sources: AssetRenderSources(), pixelAspectRatio: ratio)
    }

    /// Which part of the picture to give (`AVAssetImageGenerator.ApertureMode`).
    public enum ApertureMode: String, Sendable, Hashable, CaseIterable {
        /// The picture as it is meant to be seen: square pixels, the clean aperture. FFmpeg
        /// does not report a track's clean-aperture (`clap`) box, so this is the production
        /// aperture.
        case cleanAperture
        /// The whole picture with square pixels: a track whose pixels are not square is
        /// stretched to its display width.
        case productionAperture
        /// The stored pixels as they are, however wide each pixel is meant to be.
        case encodedPixels
    }

    /// Which part of the picture to give; `.cleanAperture` by default, as in AVFoundation.
    /// It matters only for a file whose pixels are not square (anamorphic video), made
    /// with ``init(asset:)`` and no ``videoComposition`` set.
    public var apertureMode: ApertureMode {
        get { settings.withLock { $0.apertureMode } }
        set { settings.withLock { $0.apertureMode = newValue } }
    }

    /// How much earlier than asked the reported time may be; infinite by default.
    public var requestedTimeToleranceBefore: MediaTime {
        get { settings.withLock { $0.before } }
        set { settings.withLock { $0.before = newValue } }
    }

    /// How much later than asked the reported time may be; infinite by default.
    public var requestedTimeToleranceAfter: MediaTime {
        get { settings.withLock { $0.after } }
        set { settings.withLock { $0.after = newValue } }
    }

    /// The largest picture wanted; the aspect ratio is kept. `.zero` (the default) means the
    /// render size. It bounds the picture as returned, after any turn by the track's
    /// preferred transform.
    public var maximumSize: Size {
        get { settings.withLock { $0.maximumSize } }
        set { settings.withLock { $0.maximumSize = newValue } }
    }

    /// Turn pictures as the track's preferred transform (its display matrix) says, so that
    /// phone footage comes out upright; false by default, as in AVFoundation. Used when no
    /// ``videoComposition`` is set. A single video track turned by a multiple of 90°,
    /// mirrored or not, is turned exactly (`PixelOrientation`, no resampling); other
    /// transforms are drawn by the built-in compositor.
    public var appliesPreferredTrackTransform: Bool {
        get { settings.withLock { $0.appliesPreferredTrackTransform } }
        set { settings.withLock { $0.appliesPreferredTrackTransform = newValue } }
    }

    /// How pictures are composed; the composition's properties when nil.
    public var videoComposition: VideoComposition? {
        get { settings.withLock { $0.videoComposition } }
        set { settings.withLock { $0.videoComposition = newValue } }
    }

    /// The picture at `time` and the time it stands for.
    public func image(at time: MediaTime) async throws(ReelError) -> (image: PixelBuffer, actualTime: MediaTime) {
        let s = settings.withLock { $0 }
        guard time.isNumeric else { throw ReelError(.invalidArgument, "cannot make a picture at \(time): the time must be a number", time: time) }
        guard !(time < .zero), time < composition.duration else {
            throw ReelError(
                .invalidArgument, "\(time.secondsDescription) is outside the composition (0 to \(composition.duration.secondsDescription))", time: time)
        }
        let orientation = s.videoComposition == nil && s.appliesPreferredTrackTransform ? composition.videoOrientation : nil
        let video = s.videoComposition ?? defaultVideoComposition(applyingTransform: s.appliesPreferredTrackTransform && orientation == nil)
        let renderTime = try await chooseTime(for: time, video: video, settings: s)
        var options = RenderEngine.Options(maximumRequestsInFlight: 1)
        let end = MediaTime.minimum(renderTime + video.frameDuration, composition.duration)
        options.timeRange = TimeRange(start: renderTime, end: end)
        let engine = RenderEngine(composition: composition, videoComposition: video, sources: sources, options: options)
        var iterator = try engine.frames().makeAsyncIterator()
        guard let frame = try await iterator.next() else {
            throw ReelError(.internalError, "the render gave no frame at \(renderTime.secondsDescription)", time: time)
        }
        let stored = try aperture(frame.pixelBuffer, mode: s.videoComposition == nil ? s.apertureMode : .encodedPixels)
        let shown = orientation.map { stored.oriented($0) } ?? stored
        let image = try fit(shown, within: s.maximumSize)
        return (image, renderTime)
    }

    /// Writes the picture at `time` to `url` as PNG or JPEG; returns the time it stands for.
    @discardableResult
    public func writeImage(at time: MediaTime, to url: URL, as type: ImageFileType, overwrite: Bool = false) async throws(ReelError) -> MediaTime {
        let (image, actual) = try await self.image(at: time)
        try ImageEncoder.write(image, to: url, as: type, overwrite: overwrite)
        return actual
    }

    // MARK: Internals

    /// The time to render: the start of the frame showing at `time` (or the video
    /// composition's grid time before it) when the tolerances allow, else `time` itself.
    private func chooseTime(for time: MediaTime, video: VideoComposition, settings s: Settings) async throws(ReelError) -> MediaTime {
        let earliest = s.before.isPositiveInfinity ? MediaTime.negativeInfinity : time - s.before
        let latest = s.after.isPositiveInfinity ? MediaTime.positiveInfinity : time + s.after
        func allowed(_ t: MediaTime) -> Bool { !(t < earliest) && !(latest < t) && !(t < .zero) }
        // A single video track: its frame's own start.
        let tracks = composition.tracks(withMediaType: .video).filter(\.isEnabled)
        if tracks.count == 1, let track = tracks.first, let segment = track.segment(forTrackTime: time),
            let ref = segment.sourceTrack, let sourceTime = segment.sourceTime(forCompositionTime: time),
            let source = sources.videoFrameSource(for: ref),
            let frame = try await source.frame(at: sourceTime),
            let start = segment.compositionTime(forSourceTime: frame.timeRange.start)
        {
            let clamped = MediaTime.maximum(start, segment.target.start)
            if allowed(clamped) { return clamped }
            return time
        }
        // Otherwise the frame grid of the video composition.
        let fd = video.frameDuration
        if fd.isNumeric, fd > .zero {
            let n = Int64((time.seconds / fd.seconds).rounded(.down))
            let grid = fd * Int32(clamping: n)
            if !(time < grid), allowed(grid) { return grid }
        }
        return time
    }

    /// The composition's own video composition, turned upright when asked.
    private func defaultVideoComposition(applyingTransform: Bool) -> VideoComposition {
        var v = VideoComposition(propertiesOf: composition)
        if applyingTransform { v.turnUpright(for: composition) }
        return v
    }

    /// `image` stretched to square pixels unless `mode` asks for the encoded pixels.
    private func aperture(_ image: PixelBuffer, mode: ApertureMode) throws(ReelError) -> PixelBuffer {
        guard mode != .encodedPixels, let ratio = pixelAspectRatio else { return image }
        let width = max(2, Int((Double(image.width) * ratio).rounded()) & ~1)
        return width == image.width ? image : try ImageEncoder.scaled(image, width: width, height: image.height)
    }

    /// `num:den` as a number, when both are positive.
    static func ratio(of text: String) -> Double? {
        let parts = text.split(separator: ":").compactMap { Double($0) }
        guard parts.count == 2, parts[0] > 0, parts[1] > 0 else { return nil }
        return parts[0] / parts[1]
    }

    /// `image` scaled down to fit `maximum` (aspect kept, even sizes), or as it is.
    private func fit(_ image: PixelBuffer, within maximum: Size) throws(ReelError) -> PixelBuffer {
        guard maximum.width > 0 || maximum.height > 0 else { return image }
        let w = Double(image.width), h = Double(image.height)
        let sx = maximum.width > 0 ? maximum.width / w : .infinity
        let sy = maximum.height > 0 ? maximum.height / h : .infinity
        let scale = min(sx, sy)
        guard scale < 1 else { return image }
        let width = max(2, Int((w * scale).rounded()) & ~1), height = max(2, Int((h * scale).rounded()) & ~1)
        return try ImageEncoder.scaled(image, width: width, height: height)
    }
}
