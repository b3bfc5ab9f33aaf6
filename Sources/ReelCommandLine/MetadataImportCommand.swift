import ArgumentParser
import Foundation
import Reel
import ReelDocuments

/// `reel metadata import TRACK.gpx|TRACK.csv --into VIDEO -o OUT [--offset SECONDS] [--overwrite]`.
struct MetadataImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Add a GPX or CSV track to a video as a timed-metadata GPS track (gpmd, mebx, camm or KLV).",
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

    @Option(name: [.short, .customLong("output")], help: "The file to write (.mp4, .mov or .ts).")
    var output: String

    @Option(parsing: .unconditional, help: "Seconds added to every point's media time (negative: earlier).")
    var offset: Double = 0

    @Option(help: "The track's format: auto (gpmd in .mp4/.mov, klv in .ts), gpmd, mebx, camm or klv.")
    var metadataFormat: String = "auto"

    @Flag(help: "Replace the output file if it exists.")
    var overwrite = false

    func run() async throws {
        FFmpegLogging.setQuiet()
        let environment = CommandEnvironment.current
        let trackURL = environment.fileURL(track), videoURL = environment.fileURL(into), outputURL = environment.fileURL(output)
        let files = [(track, trackURL), (into, videoURL), (output, outputURL)]
        guard let format = MetadataOutputFormat(rawValue: metadataFormat.lowercased()) else {
            CLIOutput.line("--metadata-format \(metadataFormat): expected one of \(MetadataOutputFormat.allCases.map(\.rawValue).joined(separator: ", "))")
            throw ExitStatus.usage
        }
        do {
            let result = try await MetadataImporter(trackURL: trackURL, videoURL: videoURL)
                .write(to: outputURL, options: .init(offset: offset, overwrite: overwrite, metadataFormat: format))
            for note in result.notes { CLIOutput.line(note) }
        } catch {
            var shown = error
            if shown.code == .outputExists { shown.message = "the output file exists (use --overwrite to replace it)" }
            throw MetadataCommand.failure(shown, files: files)
        }
    }
}
