import ArgumentParser
import Foundation
import Reel

/// `reel plan COMPOSITION.json (--chunks N | --chunk-seconds S) -o plan.json
/// [--work-folder DIR] [--emit slurm|k8s|aws-batch]`: splits a render into keyframe-aligned
/// pieces for separate machines (docs/scale-out.md).
public struct PlanCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "plan",
        abstract: "Split a render into pieces for a batch scheduler.",
        discussion: """
        The pieces are cut on the output's keyframes and balanced by frame count. The plan \
        records the composition's SHA-256 and every source's size and modification time: a \
        piece rendered from a changed input is refused. Render piece K with \
        `reel render --plan plan.json --chunk K`, then `reel join plan.json -o OUT`. \
        --emit writes the scheduler files beside the plan: a Slurm array script and its join \
        job (slurm), an Indexed Job and a join Job (k8s), or an AWS Batch job definition and \
        submission script (aws-batch).
        """
    )

    @Argument(help: "The composition file (JSON).")
    var composition: String

    @Option(help: "Cut this many pieces.")
    var chunks: Int?

    @Option(help: "Cut pieces of about this many seconds.")
    var chunkSeconds: Double?

    @Option(name: [.short, .customLong("output")], help: "The plan file to write (JSON).")
    var output: String

    @Option(help: "Where the pieces go (shared by every machine); by default PLAN.pieces beside the plan.")
    var workFolder: String?

    @Option(name: .customLong("source"), help: "NAME=PATH replaces the source called NAME; a bare PATH replaces the first source.")
    var sources: [String] = []

    @Option(help: "Also write the files to submit the plan to a scheduler: slurm, k8s or aws-batch.")
    var emit: [SchedulerKind] = []

    @Option(help: "With --emit k8s or aws-batch: the container image that holds reel.")
    var image = "reel:latest"

    @Option(help: "With --emit: the file the join job writes (PLAN.mp4 beside the plan by default).")
    var joinOutput: String?

    @Flag(help: "Replace the plan (and emitted files) if they exist.")
    var overwrite = false

    public init() {}

    public func validate() throws {
        switch (chunks, chunkSeconds) {
        case (nil, nil): throw ValidationError("give --chunks N or --chunk-seconds S")
        case (.some, .some): throw ValidationError("give --chunks or --chunk-seconds, not both")
        case (let n?, nil) where n < 1: throw ValidationError("--chunks \(n): expected 1 or more")
        case (nil, let s?) where !(s > 0 && s.isFinite): throw ValidationError("--chunk-seconds \(s): expected a positive number")
        default: break
        }
    }

    public func run() async throws {
        FFmpegLogging.setQuiet()
        let planURL = URL(fileURLWithPath: output).standardizedFileURL
        let work = workFolder.map { URL(fileURLWithPath: $0, isDirectory: true) }
            ?? planURL.deletingPathExtension().appendingPathExtension("pieces")
        let plan: RenderPlan
        do throws(ReelError) {
            let loaded = try await LoadedComposition.load(path: composition, overrides: sources.map(CompositionFile.SourceOverride.init(argument:)),
                                                          registry: ReelCLI.registry)
            plan = try RenderPlan.make(for: loaded, compositionPath: composition,
                                       split: chunks.map { .pieces($0) } ?? .seconds(chunkSeconds ?? 1), workFolder: work)
        } catch {
            CLIOutput.line(error.description)
            throw ExitStatus.usage
        }
        let files = try emit.map { kind throws(ReelError) in (kind, try plan.schedulerFiles(kind, planPath: planURL.path, reel: Self.reelPath, image: image,
                                                                                           joinOutput: joinOutput.map { URL(fileURLWithPath: $0).standardizedFileURL.path })) }
        let targets = [planURL] + files.flatMap { $0.1.map { planURL.deletingLastPathComponent().appendingPathComponent($0.name) } }
        for url in targets { _ = try CLIOutput.checkOutput(url.path, overwrite: overwrite) }
        do throws(ReelError) {
            try plan.write(to: planURL)
            for (_, list) in files {
                for file in list {
                    try file.write(in: planURL.deletingLastPathComponent())
                }
            }
        } catch {
            CLIOutput.line(error.description)
            throw ExitStatus.failure
        }
        let sizes = plan.pieces.map(\.frameCount)
        CLIOutput.line("wrote \(output): \(plan.pieces.count) pieces of \(sizes.min() ?? 0) to \(sizes.max() ?? 0) frames (\(plan.frameCount) in all, a keyframe every \(plan.video.keyframeInterval)); pieces go to \(plan.workFolder)")
        for url in targets.dropFirst() { CLIOutput.line("wrote \(url.path)") }
    }
}

extension PlanCommand {
    /// This `reel`, as an absolute path, for the Slurm scripts (nodes share the install).
    static var reelPath: String {
        let argument = CommandLine.arguments.first ?? "reel"
        guard argument.contains("/") else { return argument }
        return URL(fileURLWithPath: argument).standardizedFileURL.resolvingSymlinksInPath().path
    }
}

extension SchedulerKind: ExpressibleByArgument {}
