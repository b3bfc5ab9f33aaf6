import ArgumentParser
import Foundation
import Reel

/// `reel render COMPOSITION.json -o OUT [--source NAME=PATH | --source PATH] [--overwrite]
/// [--range START..END]`: renders a composition file (docs/composition-file.md).
public struct RenderCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "render",
        abstract: "Render a composition file into a video.",
        discussion: """
        A broken composition file is reported as one line naming the JSON path at fault \
        (exit status 2) and nothing is written. --range renders a piece cut on keyframe \
        boundaries: pieces rendered with the same cut points join by stream copy \
        (ffmpeg -f concat -c copy) into the whole render. Ctrl-C stops the render and \
        leaves no output file.
        """
    )

    @Argument(help: "The composition file (JSON).")
    var composition: String

    @Option(name: [.short, .customLong("output")], help: "The video to write (.mp4, .mov, .mkv).")
    var output: String

    @Option(name: .customLong("source"), help: "NAME=PATH replaces the source called NAME; a bare PATH replaces the first source.")
    var sources: [String] = []

    @Flag(help: "Replace the output file if it exists.")
    var overwrite = false

    @Option(help: "Render only START..END (seconds or rationals; either may be empty), moved onto keyframe boundaries.")
    var range: String?

    @Option(help: "The format of the metadata tracks written: auto (default), gpmd, mebx, camm or klv; overrides output.metadataFormat.")
    var metadataFormat: String?

    @Flag(help: "List the compositors this reel knows, and exit.")
    var listCompositors = false

    public init() {}

    public func validate() throws {
        if let range, RangeArgument(range) == nil {
            throw ValidationError("--range \(range): expected START..END with START before END, such as 0..4 or 4.004..")
        }
    }

    public func run() async throws {
        FFmpegLogging.setQuiet()
        let registry = ReelCLI.registry
        if listCompositors {
            for r in registry.registrations { print("\(r.name)\t\(r.summary)") }
            return
        }
        // Ctrl-C from here on cancels cleanly: before the export starts nothing is written;
        // once it runs the session removes its partial file.
        let current = Lock<AssetExportSession?>(nil)
        let interrupts = InterruptHandler { current.withLock { $0 }?.cancelExport() }
        defer { interrupts.remove() }
        func checkInterrupted() throws {
            if interrupts.wasInterrupted {
                CLIOutput.line("interrupted: nothing was written")
                throw ExitStatus.interrupted
            }
        }
        // 1. The composition: any problem here is the file's (or the command line's): exit 2.
        let loaded: LoadedComposition
        let settings: VideoEncoderSettings
        let fileType: AssetWriter.FileType
        let metadataOutputFormat: MetadataOutputFormat
        let audioCodec: AudioEncoderSettings.Codec
        do throws(ReelError) {
            loaded = try await LoadedComposition.load(path: composition, overrides: sources.map(CompositionFile.SourceOverride.init(argument:)),
                                                      registry: registry)
            let video = loaded.videoComposition
            let size = video.renderPixelSize
            let out = loaded.file.output ?? CompositionFile.Output()
            do {
                settings = try out.videoSettings(width: size.width, height: size.height, frameDuration: video.frameDuration)
                fileType = try out.fileType(forOutputPath: output)
                metadataOutputFormat = try out.metadataOutputFormat()
                audioCodec = try out.audioEncoderCodec(for: fileType)
            } catch {
                var e = error
                e.path = composition
                throw e
            }
        } catch {
            CLIOutput.line(error.description)
            throw ExitStatus.usage
        }
        let metadataFormatChoice: MetadataOutputFormat
        if let name = metadataFormat {
            guard let parsed = MetadataOutputFormat(rawValue: name.lowercased()) else {
                CLIOutput.line("--metadata-format \(name): expected one of \(MetadataOutputFormat.allCases.map(\.rawValue).joined(separator: ", "))")
                throw ExitStatus.usage
            }
            metadataFormatChoice = parsed
        } else {
            metadataFormatChoice = metadataOutputFormat
        }
        try checkInterrupted()
        let outputURL = try CLIOutput.checkOutput(output, overwrite: overwrite)

        // 2. The range, on keyframe boundaries.
        let video = loaded.videoComposition
        let total = loaded.renderRange
        var renderRange = total
        if let text = range, let asked = RangeArgument(text) {
            let gop = video.frameDuration * Int32(clamping: settings.keyframeInterval ?? 1)
            renderRange = asked.aligned(gop: gop, total: total)
            guard renderRange.duration > .zero else {
                CLIOutput.line("--range \(text): nothing to render between keyframes at \(renderRange.start.secondsDescription) (keyframes every \(gop.secondsDescription))")
                throw ExitStatus.usage
            }
            if renderRange.start != (asked.start ?? .zero) || (asked.end.map { $0 < total.end } ?? false && renderRange.end != asked.end) {
                CLIOutput.line("rendering \(renderRange.start.secondsDescription) to \(renderRange.end.secondsDescription): --range is moved onto keyframes, every \(gop.secondsDescription)")
            }
        }

        // 3. The export.
        let session = AssetExportSession(composition: loaded.composition, preset: .custom(settings),
                                         sources: AssetRenderSources(videoOptions: .init(lookahead: 8), files: loaded.sourceURLs))
        session.videoComposition = video
        session.audioMix = loaded.audioMix
        session.includesAudio = loaded.audioMix != nil
        session.audioCodec = audioCodec
        // Deeper buffers between decoding, compositing and encoding keep each busy when
        // another stalls for a moment.
        var engineOptions = session.renderOptions
        engineOptions.maximumRequestsInFlight = 6
        session.renderOptions = engineOptions
        session.timeRange = renderRange
        session.overwrite = overwrite
        session.metadataTrackIDs = loaded.file.output?.metadataTrackIDs ?? loaded.composition.tracks(withMediaType: .metadata).map(\.trackID)
        session.metadataFormat = metadataFormatChoice
        // The first source's container tags (creation date, location, make, model) carry over.
        if let first = loaded.file.sources.first, let url = loaded.sourceURLs[first.name] {
            if let (common, all) = try? await Asset(url: url).load(.commonMetadata, .metadata) { session.metadata = common + all }
        }
        let frameCount = Int((renderRange.duration.seconds / video.frameDuration.seconds).rounded(.up))
        let progress = ProgressReporter(totalFrames: frameCount)
        current.withLock { $0 = session }
        try checkInterrupted()
        progress.watch(session.progressUpdates())
        do {
            try await session.export(to: outputURL, as: fileType)
            await progress.finish()
        } catch {
            await progress.finish(cancelling: true)
            if error.code == .cancelled || interrupts.wasInterrupted {
                CLIOutput.line("interrupted: the render was cancelled and \(output) was not written")
                throw ExitStatus.interrupted
            }
            var shown = error
            if shown.path == outputURL.path { shown.path = output }
            CLIOutput.line(shown.description)
            throw ExitStatus.failure
        }
        let seconds = progress.elapsed
        CLIOutput.line("wrote \(output): \(frameCount) frames in \(String(format: "%.1f", seconds)) s (\(String(format: "%.1f", seconds > 0 ? Double(frameCount) / seconds : 0)) fps)")
    }
}
