import ArgumentParser
import Foundation
import Reel
import ReelDocuments

/// `reel convert COMPOSITION.json -o EDIT.otio` and `reel convert EDIT.otio -o
/// COMPOSITION.json`: a composition file to an OpenTimelineIO timeline and back
/// (docs/otio.md). What the other format cannot hold is said in one warning line each.
public struct ConvertCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "convert",
        abstract: "Convert a composition file to an OpenTimelineIO timeline (.otio), or back.",
        discussion: """
            The direction follows the extensions: .json to .otio, or .otio to .json. Media \
            paths are written relative to the output's folder where they lie inside it. What \
            the output format cannot hold is reported in one line each on standard error; a \
            file that cannot be read is one line naming the JSON path at fault (exit status 2) \
            and nothing is written.
            """
    )

    @Argument(help: "The composition file (.json) or OpenTimelineIO timeline (.otio).")
    var input: String

    @Option(name: [.short, .customLong("output")], help: "The file to write (.otio or .json).")
    var output: String

    @Flag(help: "Replace the output file if it exists.")
    var overwrite = false

    public init() {}

    public func run() async throws {
        FFmpegLogging.setQuiet()
        let toOTIO = OTIOTimeline.isOTIOPath(output)
        guard toOTIO != OTIOTimeline.isOTIOPath(input) else {
            CLIOutput.line("convert \(input) -o \(output): one of the two must be an OpenTimelineIO file (.otio) and the other a composition file (.json)")
            throw ExitStatus.usage
        }
        let outputURL = try CLIOutput.checkOutput(output, overwrite: overwrite)
        let data: Data
        do throws(ReelError) {
            let (bytes, warnings) =
                toOTIO
                ? try await Self.otio(fromComposition: CLIInput.path(input), output: outputURL)
                : try await Self.composition(fromOTIO: CLIInput.path(input), output: outputURL)
            data = bytes
            for w in warnings { CLIOutput.line("\(input): \(w)") }
        } catch {
            CLIOutput.line(error)
            throw error.code == .unreadable ? ExitStatus.failure : ExitStatus.usage
        }
        do {
            try AtomicFile.write(data, to: outputURL, replacing: overwrite)
        } catch {
            CLIOutput.line(error)
            throw ExitStatus.failure
        }
    }

    /// The .otio bytes of the composition file at `path`, with the warnings.
    static func otio(fromComposition path: String, output: URL) async throws(ReelError) -> (Data, [String]) {
        let file = try CompositionFile.load(path: path)
        let base = URL(fileURLWithPath: path).deletingLastPathComponent()
        let files = try file.sourceFiles(relativeTo: base, path: path)
        var descriptions: [String: SourceDescription] = [:]
        var ranges: [String: TimeRange] = [:]
        for (i, source) in files.enumerated() {
            do {
                let d = try await LoadedComposition.describe(name: source.name, url: source.url)
                descriptions[source.name] = d
                if let t = d.defaultTrack(withMediaType: .video) ?? d.defaultTrack(withMediaType: .audio) { ranges[source.name] = t.timeRange }
            } catch {
                var e = error
                if e.field == nil { e.field = "sources[\(i)].path" }
                e.path = path
                throw e
            }
        }
        let composition = try file.makeComposition(sources: descriptions, path: path)
        let urls = Dictionary(files.map { ($0.name, $0.url) }, uniquingKeysWith: { a, _ in a })
        let name = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
        let export = file.otioTimeline(
            composition: composition, sourceURLs: urls, outputDirectory: output.deletingLastPathComponent(),
            availableRanges: ranges, name: name)
        return (try export.timeline.encoded(), export.warnings)
    }

    /// The composition-file bytes of the .otio file at `path`, with the warnings.
    static func composition(fromOTIO path: String, output: URL) async throws(ReelError) -> (Data, [String]) {
        let timeline = try OTIOTimeline.load(path: path)
        let base = URL(fileURLWithPath: path).deletingLastPathComponent()
        var converted: OTIOImport
        var warnings: [String] = []
        do {
            converted = try await timeline.probedCompositionFile(otioPath: path)
        } catch  where error.code == .fileNotFound {
            converted = try timeline.compositionFile(baseDirectory: base, otioPath: path)
            warnings.append(
                "\(error.field.map { $0 + ": " } ?? "")\(error.message): converted without looking into the media (no sound or metadata tracks derived from it)"
            )
        }
        // Paths relative to the .otio file become relative to the output's folder.
        let outputFolder = output.deletingLastPathComponent().standardizedFileURL.path
        for i in converted.file.sources.indices where !converted.file.sources[i].path.hasPrefix("/") {
            let absolute = base.appendingPathComponent(converted.file.sources[i].path).standardizedFileURL.path
            let folder = outputFolder.hasSuffix("/") ? outputFolder : outputFolder + "/"
            converted.file.sources[i].path = absolute.hasPrefix(folder) ? String(absolute.dropFirst(folder.count)) : absolute
        }
        warnings += converted.warnings
        return (try converted.file.encoded(), warnings)
    }
}
