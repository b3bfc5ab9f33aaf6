import ArgumentParser
import Foundation
import Reel

/// `reel metadata import TRACK.gpx|TRACK.csv --into VIDEO -o OUT [--offset SECONDS] [--overwrite]`.
struct MetadataImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Add a GPX or CSV track to a video as a GPMF (gpmd) GPS track.",
        discussion: """
        Video and audio are copied without re-encoding. GPX times are placed against the \
        video's creation time; a CSV's time column is media seconds. --offset moves the \
        track later (or earlier, when negative).
        """
    )

    @Argument(help: "The GPS track: a .gpx or .csv file.")
    var track: String

    @Option(help: "The video to add the track to.")
    var into: String

    @Option(name: [.short, .customLong("output")], help: "The file to write (.mp4 or .mov).")
    var output: String

    @Option(parsing: .unconditional, help: "Seconds added to every point's media time (negative: earlier).")
    var offset: Double = 0

    @Flag(help: "Replace the output file if it exists.")
    var overwrite = false

    func run() async throws {
        FFmpegLogging.setQuiet()
        let trackURL = URL(fileURLWithPath: track), videoURL = URL(fileURLWithPath: into), outputURL = URL(fileURLWithPath: output)
        let files = [(track, trackURL), (into, videoURL), (output, outputURL)]
        do {
            let result = try await MetadataImporter(trackURL: trackURL, videoURL: videoURL)
                .write(to: outputURL, options: .init(offset: offset, overwrite: overwrite))
            for note in result.notes { CommandFailure.printLine(note) }
        } catch {
            var shown = error
            if shown.code == .outputExists { shown.message = "the output file exists (use --overwrite to replace it)" }
            throw MetadataCommand.failure(shown, files: files)
        }
    }
}
