import ArgumentParser
import Foundation
import Reel
import ReelDocuments

/// `reel metadata export FILE [--track ID] --format json|csv|gpx [-o OUT]`.
struct MetadataExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write a file's timed-metadata track as JSON, CSV or GPX.",
        discussion: """
            Reads the first track holding GPS (gpmd, mebx, camm, klv) unless --track names one. \
            A file whose only location is the movie's static one (udta ©xyz, QuickTime ISO 6709) \
            gives that one point, with a note on stderr. Samples that do not decode are skipped, \
            each with a warning on stderr naming its track and time. \
            CSV columns: time,latitude,longitude,altitude,speed2d,speed3d,fix,dop,gps_time (time in \
            seconds from the start of the media, gps_time ISO 8601 UTC), then course, velocity_north, \
            velocity_east, velocity_up, horizontal_accuracy, vertical_accuracy, speed_accuracy, \
            satellites, relative_altitude, device_time, heading, pitch, roll, airspeed (empty where \
            the source has no value). JSON is described in \
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
        let url = CommandEnvironment.current.fileURL(file)
        do {
            // Probing first refuses a file cut short, as export and render do, instead of
            // exporting the samples before the cut as if they were the whole track.
            _ = try await Asset(url: url).load(.tracks)
            let exporter = MetadataExporter(url: url)
            let read = try await exporter.readTrack(trackID: track)
            let text = try exporter.document(read, format: format, name: (file as NSString).lastPathComponent)
            try MetadataCommand.write(text, to: output)
            for warning in read.warnings { MetadataReadWarning.standardErrorLogger(warning) }
            if format != .json, read.usesStaticLocation, let location = read.staticLocation {
                CLIOutput.line("note: \(file): no timed GPS; wrote the movie's static location \(location.iso6709) as one point")
            }
        } catch {
            throw MetadataCommand.failure(error, files: [(file, url)])
        }
    }
}

extension MetadataExporter.Format: ExpressibleByArgument {}
