import ArgumentParser
import Foundation
import Reel

/// `reel inspect FILE [--json] [--verbose]`: the container, duration, every track (data and
/// metadata tracks too), the container's tags and chapters.
struct InspectCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Show a media file's container, tracks, metadata and chapters.",
        discussion: "With --json, prints one JSON object (described in docs/inspect-json.md)."
    )

    @Argument(help: "The media file to inspect, or a URL FFmpeg reads (http://, https://, ...).")
    var file: String

    @Flag(help: "Print JSON instead of text.")
    var json = false

    @Flag(help: "Let FFmpeg print its own warnings to stderr.")
    var verbose = false

    @Flag(help: "Read every packet for exact track times and frame durations (slower).")
    var precise = false

    @Option(
        name: .customLong("network-timeout"),
        help: "For a URL: give up when the server sends nothing for this many seconds (default 30).")
    var networkTimeout: Double = 30

    func run() async throws {
        if verbose { FFmpegLogging.setVerbose() } else { FFmpegLogging.setQuiet() }
        let url = Self.url(for: file)
        guard networkTimeout > 0, networkTimeout.isFinite else {
            throw ValidationError("--network-timeout takes a number of seconds above 0")
        }
        let asset = Asset(
            url: url,
            options: .init(
                preferPreciseDurationAndTiming: precise,
                networkTimeout: .milliseconds(Int64(networkTimeout * 1000))))
        let report: InspectReport
        do {
            let (format, duration, tracks, metadata, common, chapters) =
                try await asset.load(.containerFormat, .duration, .tracks, .metadata, .commonMetadata, .chapters)
            var captioned: [Int32] = []
            if url.isFileURL {
                for track in tracks where track.mediaType == .video && AssetReaderOutputCaptionAdaptor.closedCaptionVideoCodecs.contains(track.codec) {
                    // A picture that does not decode only means no captions are listed.
                    if (try? await AssetReaderOutputCaptionAdaptor.videoCarriesClosedCaptions(url: url, trackID: track.trackID)) == true {
                        captioned.append(track.trackID)
                    }
                }
            }
            if !format.isSeekable {
                CLIOutput.line(
                    "warning: \(file): the server ignores byte-range requests (Range:), so the file was read from start to end only; "
                        + "what needs reading out of order may be missing: track references, edit lists, the container's own metadata boxes, "
                        + "codec details, a duration read from the end")
            }
            report = InspectReport(
                file: file, format: format, duration: duration, tracks: tracks,
                metadata: metadata, commonMetadata: common, chapters: chapters, closedCaptionVideoTrackIDs: captioned)
        } catch {
            throw CLIOutput.report(error, userPath: file, resolvedPath: url.isFileURL ? url.path : url.absoluteString)
        }
        let text: String
        do { text = json ? try report.jsonText() : report.text() } catch {
            throw CLIOutput.report(error)
        }
        CLIOutput.print(text, terminator: json ? "\n" : "")
    }

    /// A `scheme://` argument as the URL it is, anything else as a file path.
    static func url(for argument: String) -> URL { CLIInput.url(for: argument) }
}
