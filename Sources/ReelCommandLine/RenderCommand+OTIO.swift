import Foundation
import Reel
import ReelDocuments

extension RenderCommand {
    /// The composition file or OpenTimelineIO timeline at `path`, opened with the
    /// `--compositor` and `--parameters` given; an .otio file's conversion warnings are
    /// printed, one line each.
    func loadComposition(
        _ path: String, overrides: [CompositionFile.SourceOverride],
        registry: CompositorRegistry
    ) async throws(ReelError) -> LoadedComposition {
        if OTIOTimeline.isOTIOPath(path) {
            let timeline = try OTIOTimeline.load(path: path)
            let settings = try timeline.reelSettings()
            let (loaded, converted) = try await LoadedComposition.load(
                otioPath: path, compositor: try compositorOverride(settings.compositor),
                overrides: overrides, registry: registry)
            for warning in converted.warnings { CLIOutput.line("\(CommandEnvironment.current.typed(path)): \(warning)") }
            return loaded
        }
        var file = try CompositionFile.load(path: path)
        if let replaced = try compositorOverride(file.compositor) { file.compositor = replaced }
        return try await LoadedComposition.load(file: file, path: path, overrides: overrides, registry: registry)
    }

    /// The compositor `--compositor` and `--parameters` ask for, over `current`; nil when neither is given.
    func compositorOverride(_ current: CompositionFile.CompositorReference?) throws(ReelError) -> CompositionFile.CompositorReference? {
        guard compositor != nil || parameters != nil else { return nil }
        var reference = current ?? CompositionFile.CompositorReference(name: "standard")
        if let compositor, compositor != reference.name {
            reference = CompositionFile.CompositorReference(name: compositor)
        }
        if let parameters {
            guard let value = try? JSONDecoder().decode(JSONValue.self, from: Data(parameters.utf8)), value.objectValue != nil else {
                throw ReelError(.invalidArgument, "--parameters \(parameters): expected a JSON object such as '{\"units\": \"metric\"}'")
            }
            reference.parameters = value
        }
        return reference
    }
}
