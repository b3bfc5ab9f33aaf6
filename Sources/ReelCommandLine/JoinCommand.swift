import ArgumentParser
import Foundation
import Reel
import ReelDocuments

/// `reel join plan.json -o OUT [--overwrite] [--metadata-format F]`: checks every piece of a
/// render plan and joins them into the whole render (docs/scale-out.md).
public struct JoinCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "join",
        abstract: "Join the pieces of a render plan into the whole render.",
        discussion: """
            Every piece is checked first (rendered for this plan, complete, its frames continuous, \
            the same codec configuration as the others); a missing or bad piece is named in one \
            line (exit 2) and nothing is written. The video is copied from the pieces; the sound \
            is mixed and the timed metadata tracks written once over the whole timeline, as a \
            single `reel render` writes them. The output appears only when complete. For a batch \
            plan (`reel plan --inputs`) there is nothing to join: it checks that every job's \
            output is complete and names the missing and bad ones (exit 2); -o is not used.
            """
    )

    @Argument(help: "The render plan (made by `reel plan`).")
    var plan: String

    @Option(name: [.short, .customLong("output")], help: "The video to write (.mp4, .mov, .mkv); not used for a batch plan.")
    var output: String?

    @Flag(help: "Replace the output file if it exists.")
    var overwrite = false

    @Option(help: "The format of the metadata tracks written: auto (default), gpmd, mebx, camm or klv; overrides output.metadataFormat.")
    var metadataFormat: String?

    public init() {}

    public func run() async throws {
        FFmpegLogging.setQuiet()
        let runner = ExportRunner()
        defer { runner.remove() }
        let renderPlan: RenderPlan
        let loaded: LoadedComposition
        let fileType: AssetWriter.FileType
        let audioCodec: AudioEncoderSettings.Codec
        let format: MetadataOutputFormat
        let output: String
        let file: AnyPlanFile
        do throws(ReelError) { file = try AnyPlanFile.load(path: CLIInput.path(plan)) } catch {
            CLIOutput.line(error)
            throw ExitStatus.usage
        }
        switch file {
        case .batch(let batch): return try await checkJobs(of: batch)
        case .render(let render): renderPlan = render
        }
        do throws(ReelError) {
            guard let path = self.output else { throw ReelError(.invalidArgument, "give the output: -o OUT") }
            output = path
            try renderPlan.checkInputs(planPath: CLIInput.path(plan))
            loaded = try await LoadedComposition.load(
                path: renderPlan.composition, overrides: renderPlan.sourceOverrides,
                registry: ReelCLI.registry)
            let out = loaded.file.output ?? CompositionFile.Output()
            do throws(ReelError) {
                fileType = try out.fileType(forOutputPath: output)
                audioCodec = try out.audioEncoderCodec(for: fileType)
                if let name = metadataFormat {
                    guard let parsed = MetadataOutputFormat(rawValue: name.lowercased()) else {
                        throw ReelError(
                            .invalidArgument,
                            "--metadata-format \(name): expected one of \(MetadataOutputFormat.allCases.map(\.rawValue).joined(separator: ", "))")
                    }
                    format = parsed
                } else {
                    format = try out.metadataOutputFormat()
                }
            } catch {
                var e = error
                if e.path == nil, e.field != nil { e.path = renderPlan.composition }
                throw e
            }
        } catch {
            CLIOutput.line(error)
            throw ExitStatus.usage
        }
        try runner.checkInterrupted()
        let outputURL = try CLIOutput.checkOutput(output, overwrite: overwrite)
        let session: AssetExportSession
        do throws(ReelError) {
            session = try await renderPlan.joinSession(
                loaded: loaded, identity: try renderPlan.identity(), audioCodec: audioCodec,
                metadataFormat: format, overwrite: overwrite)
        } catch {
            CLIOutput.line(error)
            throw error.code == .invalidArgument ? ExitStatus.usage : ExitStatus.failure
        }
        let seconds = try await runner.run(session, to: outputURL, as: fileType, shown: output, frameCount: renderPlan.frameCount)
        CLIOutput.line("joined \(renderPlan.pieces.count) pieces into \(output): \(renderPlan.frameCount) frames in \(String(format: "%.1f", seconds)) s")
    }

    /// A batch plan's join: every job's output checked, nothing written.
    func checkJobs(of batch: BatchPlan) async throws {
        do throws(ReelError) {
            if output != nil { throw ReelError(.invalidArgument, "a batch plan's jobs write their own outputs: drop -o") }
            try batch.checkInputs(planPath: CLIInput.path(plan))
            try await batch.checkJobs(identity: try batch.identity())
        } catch {
            CLIOutput.line(error)
            throw ExitStatus.usage
        }
        CLIOutput.line("all \(batch.jobs.count) jobs of \(plan) are complete")
    }
}
