import ArgumentParser
import Foundation
import Reel
import ReelDocuments

/// `reel export IN -o OUT [--start T] [--duration T] [--preset NAME]`: re-encodes or copies
/// (part of) a file with an `AssetExportSession`; metadata tracks come along.
public struct ExportCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Export (part of) a video with a preset, keeping its timed-metadata tracks.",
        discussion:
            "Presets: passthrough, h264 (default), hevc, prores, lossless, and AVFoundation's: LowQuality, MediumQuality, HighestQuality, HEVCHighestQuality, 640x480, 960x540, 1280x720, 1920x1080, 3840x2160, HEVC1920x1080, HEVC3840x2160, AppleM4A."
    )

    @Argument(help: "The video to export: a file, or a URL FFmpeg reads (http://, https://, ...).")
    var input: String

    @Option(name: [.short, .customLong("output")], help: "The file to write.")
    var output: String

    @Option(help: "Where to start: seconds or a rational.")
    var start: String?

    @Option(help: "How long: seconds or a rational.")
    var duration: String?

    @Option(help: "passthrough, h264, hevc, prores, lossless, or an AVFoundation preset name (1920x1080, HighestQuality, AppleM4A, ...).")
    var preset: String = "h264"

    @Option(help: "The format of the metadata tracks written: auto (default: each track's own where the container holds it), gpmd, mebx, camm or klv.")
    var metadataFormat: String = "auto"

    @Flag(help: "Leave the timed-metadata tracks out (for a container that holds none, such as .mkv).")
    var noMetadata = false

    @Flag(help: "Replace the output file if it exists.")
    var overwrite = false

    @Option(
        help:
            "auto: with an H.264 or HEVC preset, copy the groups of pictures the range holds whole and encode only those its ends cut (a frame-exact smart trim, docs/smart-render.md); off (default): encode every frame."
    )
    var smartRender: String?

    public init() {}

    static func preset(named name: String) -> ExportPreset? {
        switch name.lowercased() {
        case "passthrough": .passthrough
        case "h264": .h264()
        case "hevc": .hevc()
        case "prores": .prores()
        case "lossless", "ffv1": .lossless
        default: ExportPreset(name: name)
        }
    }

    public func run() async throws {
        FFmpegLogging.setQuiet()
        guard let exportPreset = Self.preset(named: preset) else {
            CLIOutput.line(
                "--preset \(preset): expected passthrough, h264, hevc, prores, lossless or an AVFoundation preset name (1920x1080, HEVC3840x2160, HighestQuality, AppleM4A, ...)"
            )
            throw ExitStatus.usage
        }
        guard let metadataOutputFormat = MetadataOutputFormat(rawValue: metadataFormat.lowercased()) else {
            CLIOutput.line("--metadata-format \(metadataFormat): expected one of \(MetadataOutputFormat.allCases.map(\.rawValue).joined(separator: ", "))")
            throw ExitStatus.usage
        }
        var startTime = MediaTime.zero
        if let start {
            guard let t = MediaTime(parsing: start), t.isNumeric, !(t < .zero) else {
                CLIOutput.line("--start \(start): expected a time such as 2.5 or 1001/500")
                throw ExitStatus.usage
            }
            startTime = t
        }
        var length: MediaTime?
        if let duration {
            guard let t = MediaTime(parsing: duration), t.isNumeric, t > .zero else {
                CLIOutput.line("--duration \(duration): expected a positive time such as 2.5")
                throw ExitStatus.usage
            }
            length = t
        }
        var smartRendering = SmartRendering.off
        if let smartRender {
            guard let mode = SmartRendering(rawValue: smartRender.lowercased()) else {
                CLIOutput.line("--smart-render \(smartRender): expected auto or off")
                throw ExitStatus.usage
            }
            smartRendering = mode
        }
        let outputURL = try CLIOutput.checkOutput(output, overwrite: overwrite)
        let fileType = AssetWriter.FileType(pathExtension: outputURL.pathExtension) ?? .mp4
        do {
            let session = try await AssetExportSession(asset: Asset(url: CLIInput.url(for: input)), preset: exportPreset)
            if start != nil || length != nil {
                let end = length.map { startTime + $0 } ?? session.composition.duration
                session.timeRange = TimeRange(start: startTime, end: end)
            }
            session.overwrite = overwrite
            session.smartRendering = smartRendering
            session.metadataFormat = metadataOutputFormat
            session.metadataLeaveOut = "--no-metadata"
            if noMetadata { session.metadataTrackIDs = [] }
            let interrupts = InterruptHandler { session.cancelExport() }
            defer { interrupts.remove() }
            try await session.export(to: outputURL, as: fileType)
        } catch {
            if error.code == .cancelled {
                CLIOutput.line("interrupted: the export was cancelled and \(output) was not written")
                throw ExitStatus.interrupted
            }
            var shown = error
            if shown.path == CLIInput.url(for: input).path || shown.path == CLIInput.url(for: input).absoluteString { shown.path = input }
            if shown.path == outputURL.path { shown.path = output }
            CLIOutput.line(shown)
            throw ExitStatus.failure
        }
    }
}
