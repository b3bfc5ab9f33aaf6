import Foundation
import ReelComposition
import ReelCore
import ReelIO

/// Finds the frames, metadata and captions a composition refers to in files: each
/// `SourceTrackReference`'s `sourceIdentifier` is a file path (or a name given a URL in
/// `files`), and each referenced track gets one ``AssetVideoFrameSource``,
/// ``AssetTimedMetadataSource`` or ``AssetCaptionSource``, made on first use and kept for
/// the render. Captions given in memory (`captions`, by source identifier) are that
/// source's caption track, and a reference with a source in `inMemory` (frames, metadata,
/// captions or sound) is read from there, not from a file: an export of a composition
/// made in memory writes a file from no file at all.
///
/// ```swift
/// let sources = AssetRenderSources()
/// let engine = RenderEngine(composition: c, videoComposition: v, sources: sources)
/// ```
public final class AssetRenderSources: RenderSourceProvider {
    /// How video tracks are decoded.
    public let videoOptions: AssetVideoFrameSource.Options
    /// Files by source identifier; identifiers not listed are file paths.
    public let files: [String: URL]
    /// Where metadata sources report samples skipped because they do not decode.
    public let metadataWarnings: @Sendable (MetadataReadWarning) -> Void
    /// Caption tracks held in memory, by source identifier (any track ID of it).
    public let captions: [String: [Caption]]
    /// Sources held in memory (a `RenderSources` table, ReelTesting's `InMemorySource`); a
    /// reference they give a source for is read from them, before any file.
    public let inMemory: (any RenderSourceProvider)?

    private struct Table {
        var video: [SourceTrackReference: AssetVideoFrameSource] = [:]
        var metadata: [SourceTrackReference: AssetTimedMetadataSource] = [:]
        var captions: [SourceTrackReference: AssetCaptionSource] = [:]
    }
    private let table = Lock(Table())

    public init(
        videoOptions: AssetVideoFrameSource.Options = .init(), files: [String: URL] = [:],
        metadataWarnings: @escaping @Sendable (MetadataReadWarning) -> Void = MetadataReadWarning.standardErrorLogger,
        captions: [String: [Caption]] = [:], inMemory: (any RenderSourceProvider)? = nil
    ) {
        self.videoOptions = videoOptions
        self.files = files
        self.metadataWarnings = metadataWarnings
        self.captions = captions
        self.inMemory = inMemory
    }

    /// Whether `reference` is read from memory (``inMemory`` holds a source for it), so no
    /// file is opened for it.
    public func isInMemory(_ reference: SourceTrackReference) -> Bool {
        if captions[reference.sourceIdentifier] != nil { return true }
        guard let inMemory else { return false }
        return inMemory.videoFrameSource(for: reference) != nil || inMemory.timedMetadataSource(for: reference) != nil
            || inMemory.captionSource(for: reference) != nil || inMemory.soundSource(for: reference) != nil
    }

    /// The file a source identifier names: as `files` maps it, else a URL the identifier
    /// spells out (`https://...`, a remote asset's), else the path it is.
    public func url(for sourceIdentifier: String) -> URL {
        if let url = files[sourceIdentifier] { return url }
        if sourceIdentifier.contains("://"), let url = URL(string: sourceIdentifier), let scheme = url.scheme, scheme.count > 1, scheme != "file" {
            return url
        }
        return URL(fileURLWithPath: sourceIdentifier)
    }

    public func videoFrameSource(for reference: SourceTrackReference) -> (any VideoFrameSource)? {
        if let source = inMemory?.videoFrameSource(for: reference) { return source }
        return table.withLock { t in
            if let source = t.video[reference] { return source }
            let source = AssetVideoFrameSource(url: url(for: reference.sourceIdentifier), trackID: reference.trackID, options: videoOptions)
            t.video[reference] = source
            return source
        }
    }

    public func timedMetadataSource(for reference: SourceTrackReference) -> (any TimedMetadataSource)? {
        inMemory?.timedMetadataSource(for: reference) ?? metadataSource(for: reference)
    }

    /// The file's metadata source for `reference`, as its concrete type.
    public func metadataSource(for reference: SourceTrackReference) -> AssetTimedMetadataSource {
        table.withLock { t in
            if let source = t.metadata[reference] { return source }
            let source = AssetTimedMetadataSource(
                url: url(for: reference.sourceIdentifier), trackID: reference.trackID,
                warnings: metadataWarnings)
            t.metadata[reference] = source
            return source
        }
    }

    public func captionSource(for reference: SourceTrackReference) -> (any CaptionSource)? {
        if let source = inMemory?.captionSource(for: reference) { return source }
        if let list = captions[reference.sourceIdentifier] { return InMemoryCaptionSource(captions: list) }
        return table.withLock { t in
            if let source = t.captions[reference] { return source }
            let source = AssetCaptionSource(url: url(for: reference.sourceIdentifier), trackID: reference.trackID)
            t.captions[reference] = source
            return source
        }
    }

    public func soundSource(for reference: SourceTrackReference) -> (any SoundSource)? {
        inMemory?.soundSource(for: reference)
    }

    /// Stops every reader opened so far (they are reopened when asked again).
    public func close() async {
        let videos = table.withLock { Array($0.video.values) }
        for source in videos { await source.close() }
    }
}
