import ArgumentParser
import Foundation
import Reel

/// `reel metadata export FILE [--track ID] --format json|csv|gpx [-o OUT]`.
struct MetadataExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write a file's timed-metadata track as JSON, CSV or GPX.",
        discussion: """
        Reads the first track holding GPS (gpmd, mebx, camm, klv) unless --track names one. \
        CSV columns: time,latitude,longitude,altitude,speed2d,speed3d,fix,dop,gps_time (time in \
        seconds from the start of the media, gps_time ISO 8601 UTC). JSON is described in \
        docs/metadata-json.md.
        """
    )

    @Argument(help: "The media file to read.")
    var file: String

    @Option(help: "The track ID of the metadata track to read.")
    var track: Int32?

    @Option(help: "json, csv or gpx.")
    var format: MetadataExporter.Format

    @Option(name: [.short, .customLong("output")], help: "Where to write (default: standard output).")
    var output: String?

    func run() async throws {
        FFmpegLogging.setQuiet()
        let url = URL(fileURLWithPath: file)
        do {
            let text = try await MetadataExporter(url: url).export(format: format, trackID: track, name: (file as NSString).lastPathComponent)
            try MetadataCommand.write(text, to: output)
        } catch {
            throw MetadataCommand.failure(error, files: [(file, url)])
        }
    }
}

extension MetadataExporter.Format: ExpressibleByArgument {}
