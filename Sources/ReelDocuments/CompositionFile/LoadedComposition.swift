import Foundation
import Reel

/// A composition file opened against its media: the files found and probed, the
/// composition and video composition built and validated, the compositor made, and the
/// timed metadata of the sample-data tracks read (for the compositor and for the output).
///
/// ```swift
/// var registry = CompositorRegistry()
/// registry.register(MyCompositor.registration)
/// let loaded = try await LoadedComposition.load(path: "composition.json", registry: registry)
/// ```
public struct LoadedComposition: Sendable {
    /// The file as decoded.
    public var file: CompositionFile
    /// The path the file was read from, as given.
    public var path: String
    /// Each source's file, by source name.
    public var sourceURLs: [String: URL]
    public var composition: Composition
    public var videoComposition: VideoComposition
    /// The groups of every metadata track of the composition, in composition time.
    public var timedMetadata: [Int32: [TimedMetadataGroup]]
    /// The compositor's registry name.
    public var compositorName: String
    /// How the audio tracks are mixed (every one at volume 1 unless the file's `audioMix`
    /// says otherwise); nil when the file's `output.audio` is `false`.
    public var audioMix: AudioMix? = nil

    /// What a render covers: from zero to the end of the longest video track (a metadata
    /// track running a little past the pictures adds no frames), or the whole composition
    /// when it has no video.
    public var renderRange: TimeRange {
        let videoEnd = composition.tracks(withMediaType: .video).map(\.timeRange.end).max()
        guard let end = videoEnd, end > .zero else { return composition.timeRange }
        return TimeRange(start: .zero, end: end)
    }

    /// Opens the composition file at `path`.
    ///
    /// - Parameters:
    ///   - path: the composition file.
    ///   - overrides: `--source` replacements.
    ///   - registry: where the file's compositor is looked up.
    ///   - timeRange: the part to be rendered (validation checks the instructions cover it);
    ///     the whole composition when nil.
    /// - Throws: `invalidComposition` or `fileNotFound` whose `field` is the JSON path at
    ///   fault, or the source file's own error when it cannot be read.
    public static func load(
        path: String, overrides: [CompositionFile.SourceOverride] = [],
        registry: CompositorRegistry = CompositorRegistry(),
        timeRange: TimeRange? = nil
    ) async throws(ReelError) -> LoadedComposition {
        try await load(file: CompositionFile.load(path: path), path: path, overrides: overrides, registry: registry, timeRange: timeRange)
    }

    /// Opens `file`, read from (or made for) `path`: sources are relative to its folder.
    public static func load(
        file: CompositionFile, path: String, overrides: [CompositionFile.SourceOverride] = [],
        registry: CompositorRegistry = CompositorRegistry(),
        timeRange: TimeRange? = nil
    ) async throws(ReelError) -> LoadedComposition {
        let base = URL(fileURLWithPath: path).deletingLastPathComponent()
        let files = try file.sourceFiles(relativeTo: base, overrides: overrides, path: path)
        var descriptions: [String: SourceDescription] = [:]
        for (i, source) in files.enumerated() {
            do {
                descriptions[source.name] = try await Self.describe(name: source.name, url: source.url)
            } catch {
                var e = error
                if e.field == nil { e.field = "sources[\(i)].path" }
                if e.path == source.url.path || e.path == nil { e.path = source.shownPath }
                throw e
            }
        }
        let made = try file.addingSourceAudio(to: file.makeComposition(sources: descriptions, path: path), sources: descriptions)
        let composition = file.disablingCaptionTracks(of: try file.addingSourceCaptions(to: made, sources: descriptions))
        let urls = Dictionary(files.map { ($0.name, $0.url) }, uniquingKeysWith: { a, _ in a })
        var metadata: [Int32: [TimedMetadataGroup]] = [:]
        for track in composition.tracks(withMediaType: .metadata) {
            metadata[track.trackID] = try await Self.timedMetadata(of: track, urls: urls)
        }
        let name = file.compositor?.name ?? "standard"
        let sampleDataIDs = Set(file.sourceSampleDataTrackIDs ?? [])
        let configuration = CompositorConfiguration(
            name: name, parameters: file.compositor?.parameters ?? .object([:]), composition: composition,
            renderSize: file.renderSize ?? composition.tracks(withMediaType: .video).first?.naturalSize ?? .zero,
            timedMetadata: metadata.filter { sampleDataIDs.contains($0.key) }, baseDirectory: base)
        let compositor: any VideoCompositing
        do {
            compositor = try registry.makeCompositor(configuration)
        } catch {
            var e = error
            if e.path == nil { e.path = path }
            if e.code != .fileNotFound { e.code = .invalidComposition }
            throw e
        }
        var loaded = LoadedComposition(
            file: file, path: path, sourceURLs: urls, composition: composition,
            videoComposition: VideoComposition(frameDuration: .zero, renderSize: .zero, instructions: []),
            timedMetadata: metadata, compositorName: name,
            audioMix: try file.makeAudioMix(for: composition, path: path))
        loaded.videoComposition = try file.makeVideoComposition(
            for: composition, compositor: compositor,
            timeRange: timeRange ?? loaded.renderRange, path: path)
        return loaded
    }

    /// What a media file holds, as the composition layer sees it; tracks refer to the
    /// source by `name`. A caption file (iTT, SCC, SRT, WebVTT, by extension) is one
    /// subtitle track, 1.
    public static func describe(name: String, url: URL) async throws(ReelError) -> SourceDescription {
        if AssetCaptionSource.isCaptionFile(url) { return try SourceDescription.captionFile(url, identifier: name) }
        var source = try await SourceDescription(asset: Asset(url: url), identifier: name)
        if source.tracks(withMediaType: .metadata).count > 1 {
            // The track `reel metadata export` reads, so a render carries what it shows.
            source.preferredMetadataTrackID = try await MetadataExporter(url: url).defaultTrack()?.trackID
        }
        return source
    }

    /// Every group of a metadata composition track, read from its sources and moved to
    /// composition time (a group is kept when it starts inside its segment).
    static func timedMetadata(of track: CompositionTrack, urls: [String: URL]) async throws(ReelError) -> [TimedMetadataGroup] {
        var out: [TimedMetadataGroup] = []
        var cache: [SourceTrackReference: [TimedMetadataGroup]] = [:]
        for segment in track.segments {
            guard let ref = segment.sourceTrack, !segment.isEmpty, let url = urls[ref.sourceIdentifier] else { continue }
            let groups: [TimedMetadataGroup]
            if let cached = cache[ref] {
                groups = cached
            } else {
                groups = try await readGroups(url: url, trackID: ref.trackID)
                cache[ref] = groups
            }
            let source = segment.timeMapping.source
            for var g in groups where source.containsTime(g.timeRange.start) {
                guard let range = segment.compositionTimeRange(forSourceTimeRange: g.timeRange) else { continue }
                g.timeRange = range
                for i in g.items.indices where g.items[i].time.isNumeric {
                    if let t = segment.compositionTime(forSourceTime: g.items[i].time) { g.items[i].time = t }
                }
                out.append(g)
            }
        }
        return out
    }

    /// All groups of metadata track `trackID` of a file, in its own time (read and decoded
    /// once for the process: the render's engine and export take the same track).
    public static func readGroups(url: URL, trackID: Int32) async throws(ReelError) -> [TimedMetadataGroup] {
        try await readGroups(url: url, trackID: trackID, decodedTracks: .shared)
    }

    /// All groups of metadata track `trackID` of a file, kept in `decodedTracks`.
    static func readGroups(url: URL, trackID: Int32, decodedTracks: DecodedMetadataTracks) async throws(ReelError) -> [TimedMetadataGroup] {
        try await decodedTracks.track(url: url, trackID: trackID).groups
    }
}
