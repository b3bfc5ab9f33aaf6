import Foundation
import Reel

extension LoadedComposition {
    /// Opens an OpenTimelineIO timeline (`.otio`) as `reel render` does: converted to a
    /// composition file (``OTIOTimeline/compositionFile(baseDirectory:otioPath:media:)``)
    /// with each clip's media probed for sound and timed metadata, then opened.
    ///
    /// - Parameters:
    ///   - path: the .otio file.
    ///   - compositor: replaces the compositor of the timeline's `metadata.reel`.
    ///   - overrides: `--source` replacements.
    ///   - registry: where the compositor is looked up.
    ///   - timeRange: the part to be rendered; the whole timeline when nil.
    /// - Returns: the loaded composition and the conversion (its warnings).
    /// - Throws: `invalidComposition` or `fileNotFound` whose `field` is the JSON path of
    ///   the .otio object at fault (`tracks.children[0].children[2]`), naming the clip.
    public static func load(
        otioPath path: String, compositor: CompositionFile.CompositorReference? = nil,
        overrides: [CompositionFile.SourceOverride] = [], registry: CompositorRegistry = CompositorRegistry(),
        timeRange: TimeRange? = nil
    ) async throws(ReelError) -> (LoadedComposition, OTIOImport) {
        let timeline = try OTIOTimeline.load(path: path)
        let converted = try await timeline.probedCompositionFile(otioPath: path, overrides: overrides)
        var file = converted.file
        if let compositor { file.compositor = compositor }
        do {
            let loaded = try await load(file: file, path: path, overrides: overrides, registry: registry, timeRange: timeRange)
            return (loaded, converted)
        } catch {
            throw converted.translating(error, otioPath: path)
        }
    }
}

extension OTIOTimeline {
    /// The composition file of this timeline, read from `otioPath`, with every clip's media
    /// checked to exist and probed for sound and timed metadata (``OTIOMediaInfo``).
    ///
    /// - Throws: `fileNotFound` naming the first clip that uses a missing file, with its
    ///   `target_url` path; the probe's error for a file that cannot be read.
    public func probedCompositionFile(otioPath: String, overrides: [CompositionFile.SourceOverride] = []) async throws(ReelError) -> OTIOImport {
        let base = URL(fileURLWithPath: otioPath).deletingLastPathComponent()
        let plain = try compositionFile(baseDirectory: base, otioPath: otioPath)
        var infos: [URL: OTIOMediaInfo] = [:]
        var replaced: [String: URL] = [:]
        for o in overrides { replaced[o.name ?? plain.file.sources.first?.name ?? ""] = o.url.standardizedFileURL }
        for (i, source) in plain.file.sources.enumerated() {
            guard let origin = plain.sourceOrigins["sources[\(i)]"], let url = origin.url else { continue }
            let clip = origin.clip.isEmpty ? "" : "clip \"\(origin.clip)\": "
            if let other = replaced[source.name] {
                // --source: the probe reads the replacement, and the conversion asks by the clip's URL.
                if let description = try? await LoadedComposition.describe(name: source.name, url: other) {
                    infos[url] = OTIOMediaInfo(
                        hasAudio: !description.tracks(withMediaType: .audio).isEmpty,
                        hasTimedMetadata: description.defaultTrack(withMediaType: .metadata) != nil)
                }
                continue
            }
            guard FileManager.default.fileExists(atPath: url.path) else {
                throw ReelError(.fileNotFound, "\(clip)no such file \"\(source.path)\" (resolved to \(url.path))", path: otioPath, field: origin.referenceField)
            }
            do {
                let description = try await LoadedComposition.describe(name: source.name, url: url)
                infos[url] = OTIOMediaInfo(
                    hasAudio: !description.tracks(withMediaType: .audio).isEmpty,
                    hasTimedMetadata: description.defaultTrack(withMediaType: .metadata) != nil)
            } catch {
                var e = error
                e.message = "\(clip)\(source.path): \(e.message)"
                e.path = otioPath
                e.field = origin.referenceField
                throw e
            }
        }
        return try compositionFile(baseDirectory: base, otioPath: otioPath) { infos[$0] }
    }
}
