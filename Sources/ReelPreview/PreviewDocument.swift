import Foundation
import Reel
import ReelDocuments

/// What a preview shows: a composition file, reloaded when it is saved, or a media file.
///
/// A document that no longer loads (a composition file saved half-edited) keeps its last
/// good state; ``problem`` says why in one line, with the field's JSON path.
public actor PreviewDocument {
    /// Where the document comes from.
    public enum Origin: Sendable {
        /// A composition file (`reel render`'s), with `--source` replacements.
        case compositionFile(path: String, overrides: [CompositionFile.SourceOverride])
        /// A media file, shown as it plays, with its timed-metadata tracks.
        case mediaFile(URL)
    }

    /// One loaded state of the document: what is rendered and how it is described.
    public struct State: Sendable {
        public var composition: Composition
        public var videoComposition: VideoComposition
        public var sources: AssetRenderSources
        public var audioMix: AudioMix?
        /// The frames shown: `[start, end)` of the render, on the frame grid.
        public var range: TimeRange
        public var frameCount: Int
        /// Counts the loads, so that frames of an earlier state are told apart.
        public var generation: Int
        /// The generation whose sound this state plays: the one before's when a reload left
        /// the sound as it was (an edit of the picture), so the page keeps playing and
        /// buffering the sound it has instead of loading and mixing it all again.
        public var soundGeneration: Int

        /// What the sound is made of: the audio tracks, the mix, their files and the range.
        var soundIdentity: SoundIdentity {
            let tracks = composition.tracks(withMediaType: .audio)
            let identifiers = Set(tracks.flatMap { $0.segments.compactMap(\.sourceTrack?.sourceIdentifier) })
            return SoundIdentity(
                tracks: tracks, audioMix: audioMix, range: range,
                files: Dictionary(uniqueKeysWithValues: identifiers.map { ($0, sources.url(for: $0)) }))
        }
    }

    struct SoundIdentity: Hashable {
        var tracks: [CompositionTrack]
        var audioMix: AudioMix?
        var range: TimeRange
        var files: [String: URL]
    }

    public let origin: Origin
    private let registry: CompositorRegistry
    public private(set) var state: State?
    /// Why the last reload failed; nil when the document loads.
    public private(set) var problem: String?
    private var modified: Date?
    private var generation = 0

    public init(origin: Origin, registry: CompositorRegistry = CompositorRegistry()) {
        self.origin = origin
        self.registry = registry
    }

    /// The path shown on the page.
    public nonisolated var displayName: String {
        switch origin {
        case .compositionFile(let path, _): path
        case .mediaFile(let url): url.isFileURL ? url.path : url.absoluteString
        }
    }

    /// Loads the document. Throws when it does not load; a later ``reloadIfChanged()``
    /// keeps the last good state instead.
    @discardableResult
    public func load() async throws(ReelError) -> State {
        let loaded = try await Self.read(origin, registry: registry, generation: generation + 1)
        generation += 1
        modified = Self.modificationDate(origin)
        state = loaded
        problem = nil
        return loaded
    }

    /// What changed since the last look: the composition file was saved, and loads (the
    /// new state) or does not (the problem; the last good state stays). Nil when nothing
    /// changed, and always for a media file.
    public enum Change: Sendable {
        case reloaded(State)
        case invalid(String)
    }

    public func reloadIfChanged() async -> Change? {
        guard case .compositionFile = origin else { return nil }
        let now = Self.modificationDate(origin)
        guard now != modified else { return nil }
        modified = now
        do {
            var loaded = try await Self.read(origin, registry: registry, generation: generation + 1)
            generation += 1
            if let previous = state, previous.soundIdentity == loaded.soundIdentity { loaded.soundGeneration = previous.soundGeneration }
            state = loaded
            problem = nil
            return .reloaded(loaded)
        } catch {
            problem = error.description
            return .invalid(error.description)
        }
    }

    private static func modificationDate(_ origin: Origin) -> Date? {
        guard case .compositionFile(let path, _) = origin else { return nil }
        return (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date
    }

    private static func read(_ origin: Origin, registry: CompositorRegistry, generation: Int) async throws(ReelError) -> State {
        switch origin {
        case .compositionFile(let path, let overrides):
            let loaded = try await LoadedComposition.load(path: path, overrides: overrides, registry: registry)
            try loaded.videoComposition.validated(for: loaded.composition, timeRange: loaded.renderRange)
            return State(
                composition: loaded.composition, videoComposition: loaded.videoComposition,
                sources: AssetRenderSources(files: loaded.sourceURLs), audioMix: loaded.audioMix,
                range: loaded.renderRange, frameCount: frames(in: loaded.renderRange, loaded.videoComposition.frameDuration),
                generation: generation, soundGeneration: generation)
        case .mediaFile(let url):
            let asset = Asset(url: url)
            let composition = try await Composition(asset: asset)
            guard !composition.tracks(withMediaType: .video).isEmpty else {
                throw ReelError(.unsupportedFormat, "has no video track to show", path: url.isFileURL ? url.path : url.absoluteString)
            }
            // Every timed-metadata track reaches the built-in compositor, so the page shows
            // each one's values at the playhead.
            var video = VideoComposition(propertiesOf: composition)
            let metadata = composition.tracks(withMediaType: .metadata).map(\.trackID)
            video.sourceSampleDataTrackIDs = metadata
            video.instructions = video.instructions.map { instruction in
                guard var standard = instruction as? VideoCompositionInstruction else { return instruction }
                standard.requiredSourceSampleDataTrackIDs = metadata
                return standard
            }
            let audio = composition.tracks(withMediaType: .audio).map(\.trackID)
            let videoComposition = VideoComposition(video)
            let range = composition.timeRange
            return State(
                composition: composition, videoComposition: videoComposition, sources: AssetRenderSources(),
                audioMix: audio.isEmpty ? nil : AudioMix(), range: range,
                frameCount: frames(in: range, videoComposition.frameDuration), generation: generation, soundGeneration: generation)
        }
    }

    /// The frames in `range` at `frameDuration`: one for each start inside it.
    static func frames(in range: TimeRange, _ frameDuration: MediaTime) -> Int {
        guard frameDuration.isNumeric, frameDuration > .zero, range.duration.isNumeric, range.duration > .zero else { return 0 }
        // A first guess in floating point, then made exact in the times' own arithmetic.
        var n = max(Int((range.duration.seconds / frameDuration.seconds).rounded()), 0)
        while frameDuration * Int32(clamping: n) < range.duration { n += 1 }
        while n > 0, !(frameDuration * Int32(clamping: n - 1) < range.duration) { n -= 1 }
        return n
    }
}
