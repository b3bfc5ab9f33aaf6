import ArgumentParser
import Foundation
import Reel
import ReelDocuments

/// `reel thumbnail IN --at T -o OUT.png [--exact] [--no-transform]`: one frame of a video
/// as a PNG, upright as players show it; or the frame of a composition file (`.json`) at T
/// as `reel render` draws it, its compositor included.
public struct ThumbnailCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "thumbnail",
        abstract: "Write the frame of a video, or of a composition file, at a time as a PNG.",
        discussion: """
            By default the time may move by up to half a frame, to the nearest frame start at \
            the video's nominal rate; with --exact the picture is the frame showing at exactly \
            that time. The picture is turned as the video's display matrix says (phone \
            footage comes out upright, as players show it); --no-transform gives the picture \
            as it is stored. Given a composition file (.json), the picture is the composition's \
            frame at that time, drawn by its compositor as `reel render` draws it.
            """
    )

    @Argument(help: "The video: a file, or a URL FFmpeg reads (http://, https://, ...); or a composition file (.json).")
    var input: String

    @Option(name: .customLong("source"), help: "With a composition file: NAME=PATH replaces the source called NAME; a bare PATH replaces the first source.")
    var sources: [String] = []

    @Option(help: "The time: seconds (2.5) or a rational (1001/500).")
    var at: String

    @Option(name: [.short, .customLong("output")], help: "The PNG to write.")
    var output: String

    @Flag(help: "The frame showing at exactly --at, not the nearest frame start.")
    var exact = false

    @Flag(name: .customLong("no-transform"), help: "Ignore the display matrix: the picture as stored, not as shown.")
    var noTransform = false

    @Flag(help: "Replace the output file if it exists.")
    var overwrite = false

    public init() {}

    public func run() async throws {
        FFmpegLogging.setQuiet()
        guard let requested = MediaTime(parsing: at), requested.isNumeric, !(requested < .zero) else {
            CLIOutput.line("--at \(at): expected a time such as 2.5 or 1001/500")
            throw ExitStatus.usage
        }
        let outputURL = try CLIOutput.checkOutput(output, overwrite: overwrite)
        if input.lowercased().hasSuffix(".json") {
            try await compositionFrame(at: requested, to: outputURL)
            return
        }
        if !sources.isEmpty {
            CLIOutput.line("--source goes with a composition file (.json)")
            throw ExitStatus.usage
        }
        do {
            let url = CLIInput.url(for: input)
            let composition = try await Composition(asset: Asset(url: url))
            let video = VideoComposition(propertiesOf: composition)
            guard !composition.tracks(withMediaType: .video).isEmpty else {
                throw ReelError(.unsupportedFormat, "has no video track", path: input)
            }
            var time = requested
            if !exact {
                // The nearest frame start on the nominal frame grid.
                let d = video.frameDuration
                let n = (requested.seconds / d.seconds).rounded()
                time = d * Int32(clamping: Int64(n))
                // Within half a frame of the end the nearest start is the end: the last frame.
                if !(time < composition.duration), requested < composition.duration {
                    time = d * Int32(clamping: Int64((requested.seconds / d.seconds).rounded(.down)))
                }
            }
            guard time < composition.duration else {
                throw ReelError(
                    .invalidArgument, "--at \(requested.secondsDescription) is past the end of the video (\(composition.duration.secondsDescription))",
                    path: input)
            }
            let generator = AssetImageGenerator(composition: composition)
            generator.requestedTimeToleranceBefore = .zero
            generator.requestedTimeToleranceAfter = .zero
            generator.appliesPreferredTrackTransform = !noTransform
            // checkOutput above refused an existing file unless --overwrite was given.
            try await generator.writeImage(at: time, to: outputURL, as: .png, overwrite: true)
        } catch let error as ReelError {
            var shown = error
            if shown.path == CLIInput.url(for: input).path || shown.path == CLIInput.url(for: input).absoluteString { shown.path = input }
            CLIOutput.line(shown)
            throw ExitStatus.failure
        }
    }

    /// The frame of the composition file `input` at `time` (exactly: the composition's
    /// frame grid does not move it), drawn by its compositor, written as a PNG.
    private func compositionFrame(at time: MediaTime, to outputURL: URL) async throws {
        let loaded: LoadedComposition
        do {
            loaded = try await LoadedComposition.load(
                path: CLIInput.path(input), overrides: sources.map(CLIInput.sourceOverride),
                registry: ReelCLI.registry)
        } catch {
            CLIOutput.line(error)
            throw ExitStatus.usage
        }
        do {
            let range = loaded.renderRange
            guard range.containsTime(time) else {
                throw ReelError(
                    .invalidArgument,
                    "--at \(time.secondsDescription) is outside the composition (\(range.start.secondsDescription) to \(range.end.secondsDescription))",
                    path: input)
            }
            let generator = AssetImageGenerator(
                composition: loaded.composition,
                sources: AssetRenderSources(files: loaded.sourceURLs))
            generator.videoComposition = loaded.videoComposition
            generator.requestedTimeToleranceBefore = .zero
            generator.requestedTimeToleranceAfter = .zero
            // checkOutput above refused an existing file unless --overwrite was given.
            try await generator.writeImage(at: time, to: outputURL, as: .png, overwrite: true)
        } catch let error as ReelError {
            CLIOutput.line(error)
            throw ExitStatus.failure
        }
    }
}
