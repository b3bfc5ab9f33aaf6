import ArgumentParser
import Foundation
import Reel
import ReelDocuments
import ReelPreview

/// `reel preview COMPOSITION.json [--source ...] [--port N] [--scale S]` and
/// `reel preview FILE`: a local page that shows the composition's frames as `reel render`
/// draws them, its timeline, and the timed metadata each frame's compositor received.
public struct PreviewCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "preview",
        abstract: "Preview a composition file (or a media file) in the browser.",
        discussion: """
            Serves a page on http://127.0.0.1:PORT (the first line printed gives it): the \
            picture at preview scale with play, pause, frame steps (← →), J/K/L and a scrubber; \
            the tracks, segments and instructions; and beside the picture the timed-metadata \
            groups its compositor received. Saving the composition file shows the new frame; \
            a file that no longer loads shows its error and keeps the last good picture. \
            Ctrl-C stops the server.
            """
    )

    @Argument(help: "A composition file (.json), or a media file to play with its metadata tracks.")
    var input: String

    @Option(name: .customLong("source"), help: "With a composition file: NAME=PATH replaces the source called NAME; a bare PATH replaces the first source.")
    var sources: [String] = []

    @Option(help: "The port to listen on (0: any free one).")
    var port: Int = 0

    @Option(help: "The address to listen on. Anything but loopback lets other machines see the preview.")
    var host: String = "127.0.0.1"

    @Option(help: "The preview's size as a part of the render size (0.5: half; 1: full).")
    var scale: Double = 0.5

    public init() {}

    public func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port \(port): expected 0 to 65535") }
        guard scale.isFinite, scale > 0, scale <= 1 else { throw ValidationError("--scale \(scale): expected more than 0, at most 1") }
    }

    public func run() async throws {
        FFmpegLogging.setQuiet()
        let origin: PreviewDocument.Origin
        if input.lowercased().hasSuffix(".json") {
            origin = .compositionFile(path: CLIInput.path(input), overrides: sources.map(CLIInput.sourceOverride))
        } else {
            if !sources.isEmpty {
                CLIOutput.line("--source goes with a composition file (.json)")
                throw ExitStatus.usage
            }
            origin = .mediaFile(CLIInput.url(for: input))
        }
        let document = PreviewDocument(origin: origin, registry: ReelCLI.registry)
        let state: PreviewDocument.State
        do {
            state = try await document.load()
        } catch {
            CLIOutput.line(error)
            throw input.lowercased().hasSuffix(".json") ? ExitStatus.usage : ExitStatus.failure
        }
        let renderer = PreviewRenderer(state: state, scale: scale)
        let server = PreviewServer(document: document, renderer: renderer, host: host, port: port)
        let loopback = ["127.0.0.1", "localhost", "::1"].contains(host)
        do {
            try await server.run { host, port in
                let shown = host.contains(":") ? "[\(host)]" : host
                // The first line: where the page is (and, off loopback, who can see it).
                let line =
                    loopback
                    ? "reel preview: http://\(shown):\(port)/"
                    : "reel preview: http://\(shown):\(port)/ (listening on \(host), not only this machine: anyone who can reach it sees the preview)"
                CLIOutput.print(line)
            }
        } catch {
            CLIOutput.line("reel preview: \(error)")
            throw ExitStatus.failure
        }
    }
}
