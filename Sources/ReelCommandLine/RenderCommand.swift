import ArgumentParser
import Foundation
import Reel
import ReelDocuments

/// `reel render COMPOSITION.json -o OUT [--source NAME=PATH | --source PATH] [--overwrite]
/// [--range START..END]`: renders a composition file (docs/composition-file.md).
/// `reel render --plan plan.json [--chunk K]` renders one piece of a render plan
/// (docs/scale-out.md).
public struct RenderCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "render",
        abstract: "Render a composition file into a video.",
        discussion: """
            A broken composition file is reported as one line naming the JSON path at fault \
            (exit status 2) and nothing is written. --range renders a piece cut on keyframe \
            boundaries: pieces rendered with the same cut points join by stream copy \
            (ffmpeg -f concat -i list.txt -c copy -copyts), sound included, into the whole render. Ctrl-C stops the render and \
            leaves no output file. --plan renders piece --chunk K of a plan made by `reel plan` \
            into the plan's work folder (K defaults to SLURM_ARRAY_TASK_ID, JOB_COMPLETION_INDEX \
            or AWS_BATCH_JOB_ARRAY_INDEX); a piece already complete is not rendered again.
            """
    )

    @Argument(help: "The composition file (JSON) or OpenTimelineIO timeline (.otio); with --plan, checked against the plan's.")
    var composition: String?

    @Option(name: [.short, .customLong("output")], help: "The video to write (.mp4, .mov, .mkv).")
    var output: String?

    @Option(help: "Render one piece of this render plan (made by `reel plan`) into its work folder.")
    var plan: String?

    // Unconditional: `--chunk -1` reads -1 as the value (and is refused as out of range on
    // one line) instead of as an unknown option.
    @Option(parsing: .unconditional, help: "The piece of --plan to render, from 0; by default the scheduler's array index.")
    var chunk: Int?

    @Option(name: .customLong("source"), help: "NAME=PATH replaces the source called NAME; a bare PATH replaces the first source.")
    var sources: [String] = []

    @Flag(help: "Replace the output file if it exists.")
    var overwrite = false

    @Option(help: "Render only START..END (seconds or rationals; either may be empty), moved onto keyframe boundaries.")
    var range: String?

    @Option(help: "The format of the metadata tracks written: auto (default), gpmd, mebx, camm or klv; overrides output.metadataFormat.")
    var metadataFormat: String?

    @Option(help: "Render with this compositor (a name from --list-compositors), replacing the file's.")
    var compositor: String?

    @Option(help: "The compositor's parameters as a JSON object, replacing the file's (with --compositor, or for the file's compositor).")
    var parameters: String?

    @Option(
        help:
            "auto: copy the groups of pictures the composition leaves untouched and encode only what it changes (H.264 or HEVC into MP4/MOV); off: render every frame. Overrides output.video.smartRender (default off)."
    )
    var smartRender: String?

    @Flag(help: "With smart render, print each stretch of the timeline: copied or encoded, and why.")
    var explain = false

    @Flag(help: "List the compositors this reel knows, and exit.")
    var listCompositors = false

    public init() {}

    public func validate() throws {
        if plan != nil {
            if output != nil { throw ValidationError("--plan renders into the plan's work folder: drop -o (`reel join` writes the output)") }
            if range != nil { throw ValidationError("--plan renders the plan's pieces: drop --range") }
            if !sources.isEmpty { throw ValidationError("--plan uses the plan's sources: drop --source") }
        } else if !listCompositors {
            if composition == nil { throw ValidationError("Missing expected argument '<composition>'") }
            if output == nil { throw ValidationError("Missing expected argument '--output <output>'") }
            if chunk != nil { throw ValidationError("--chunk goes with --plan") }
        }
        if let smartRender, SmartRendering(rawValue: smartRender.lowercased()) == nil {
            throw ValidationError("--smart-render \(smartRender): expected auto or off")
        }
        if let range, RangeArgument(range) == nil {
            throw ValidationError("--range \(range): expected START..END with START before END, such as 0..4 or 4.004..")
        }
    }

    public func run() async throws {
        FFmpegLogging.setQuiet()
        let registry = ReelCLI.registry
        if listCompositors {
            for r in registry.registrations { CLIOutput.print("\(r.name)\t\(r.summary)") }
            return
        }
        // Ctrl-C from here on cancels cleanly: before the export starts nothing is written;
        // once it runs the session removes its partial file.
        let runner = ExportRunner()
        defer { runner.remove() }
        if let plan {
            try await renderPiece(planPath: CLIInput.path(plan), runner: runner)
            return
        }
        guard let composition, let output else { return }
        // 1. The composition: any problem here is the file's (or the command line's): exit 2.
        let loaded: LoadedComposition
        let settings: VideoEncoderSettings
        let fileType: AssetWriter.FileType
        let metadataOutputFormat: MetadataOutputFormat
        let audioCodec: AudioEncoderSettings.Codec
        var smartRendering = SmartRendering.off
        do throws(ReelError) {
            loaded = try await loadComposition(
                CLIInput.path(composition), overrides: sources.map(CLIInput.sourceOverride),
                registry: registry)
            let video = loaded.videoComposition
            let size = video.renderPixelSize
            let out = loaded.file.output ?? CompositionFile.Output()
            do {
                settings = try out.videoSettings(width: size.width, height: size.height, frameDuration: video.frameDuration, piece: range != nil)
                fileType = try out.fileType(forOutputPath: output)
                metadataOutputFormat = try out.metadataOutputFormat()
                audioCodec = try out.audioEncoderCodec(for: fileType)
                smartRendering = try out.smartRendering()
            } catch {
                var e = error
                e.path = composition
                throw e
            }
        } catch {
            CLIOutput.line(error)
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
        try runner.checkInterrupted()
        let outputURL = try CLIOutput.checkOutput(output, overwrite: overwrite)

        // 2. The range, on keyframe boundaries.
        let video = loaded.videoComposition
        let total = loaded.renderRange
        var renderRange = total
        if let text = range, let asked = RangeArgument(text) {
            let gop = video.frameDuration * Int32(clamping: settings.keyframeInterval ?? 1)
            renderRange = asked.aligned(gop: gop, total: total)
            guard renderRange.duration > .zero else {
                CLIOutput.line(
                    "--range \(text): nothing to render between keyframes at \(renderRange.start.secondsDescription) (keyframes every \(gop.secondsDescription))"
                )
                throw ExitStatus.usage
            }
            if renderRange.start != (asked.start ?? .zero) || (asked.end.map { $0 < total.end } ?? false && renderRange.end != asked.end) {
                CLIOutput.line(
                    "rendering \(renderRange.start.secondsDescription) to \(renderRange.end.secondsDescription): --range is moved onto keyframes, every \(gop.secondsDescription)"
                )
            }
        }

        // 3. The export.
        let session = await loaded.makeExportSession(
            settings: settings, audioCodec: audioCodec, metadataFormat: metadataFormatChoice,
            overwrite: overwrite)
        session.timeRange = renderRange
        session.smartRendering = smartRender.flatMap { SmartRendering(rawValue: $0.lowercased()) } ?? smartRendering
        // A piece's sound is coded on the whole timeline's frames, so pieces join seamlessly.
        if range != nil { session.wholeTimeRange = total }
        let frameCount = Int((renderRange.duration.seconds / video.frameDuration.seconds).rounded(.up))
        let seconds = try await runner.run(session, to: outputURL, as: fileType, shown: output, frameCount: frameCount)
        if let summary = session.smartRenderSummary, summary.fallbackReason == nil {
            if explain { for line in summary.lines { CLIOutput.line(line) } }
            CLIOutput.line("smart render: \(summary.copiedFrameCount) frames copied, \(summary.encodedFrameCount) encoded")
        }
        CLIOutput.line(ExportRunner.summary(wrote: output, frames: frameCount, seconds: seconds))
    }
}
