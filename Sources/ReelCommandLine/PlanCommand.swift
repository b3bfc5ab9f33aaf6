import ArgumentParser
import Foundation
import Reel
import ReelDocuments

#if canImport(Glibc)
    import Glibc
#endif

/// `reel plan COMPOSITION.json (--chunks N | --chunk-seconds S) -o plan.json
/// [--work-folder DIR] [--emit slurm|k8s|aws-batch]`: splits a render into keyframe-aligned
/// pieces for separate machines; `reel plan --inputs GLOB --composition TEMPLATE.json -o
/// plan.json [--output-dir DIR] [--output-name PATTERN]` plans one job per input file
/// (docs/scale-out.md).
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
            submission script (aws-batch). With --inputs, the plan has one job per input file \
            instead: the template composition with its first source replaced by the input, \
            rendered whole into --output-dir/--output-name; `reel join plan.json` then checks \
            that every output is complete.
            """
    )

    @Argument(help: "The composition file (JSON).")
    var composition: String?

    @Option(name: .customLong("composition"), help: "With --inputs: the template composition file (JSON).")
    var template: String?

    @Option(help: "Plan one job per file these paths or quoted patterns ('clips/*.MP4') match, instead of pieces of one render.")
    var inputs: [String] = []

    @Option(help: "With --inputs: the folder the outputs go to (beside the plan by default).")
    var outputDir: String?

    @Option(help: "With --inputs: each output's file name; {name} is the input's name without its extension, {index} the job's.")
    var outputName = "{name}.mp4"

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

    @Flag(help: "Replace the plan (and emitted files) if they exist; with --inputs, let the jobs replace existing outputs.")
    var overwrite = false

    public init() {}

    public func validate() throws {
        if !inputs.isEmpty {
            if chunks != nil || chunkSeconds != nil { throw ValidationError("--inputs plans one whole render per file: drop --chunks and --chunk-seconds") }
            if composition != nil && template != nil { throw ValidationError("give the template once: as an argument or with --composition") }
            if composition == nil && template == nil { throw ValidationError("--inputs needs the template: --composition TEMPLATE.json") }
            if !sources.isEmpty { throw ValidationError("--inputs replaces the template's first source: drop --source") }
            return
        }
        if template != nil || outputDir != nil { throw ValidationError("--composition and --output-dir go with --inputs") }
        if composition == nil { throw ValidationError("Missing expected argument '<composition>'") }
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
        let environment = CommandEnvironment.current
        let planURL = environment.fileURL(output).standardizedFileURL
        let work =
            workFolder.map { environment.fileURL($0, isDirectory: true) }
            ?? planURL.deletingPathExtension().appendingPathExtension("pieces")
        let plan: any PlanFile
        do throws(ReelError) {
            plan = inputs.isEmpty ? try await splitPlan(work: work) : try await batchPlan(planURL: planURL)
        } catch {
            CLIOutput.line(error)
            throw error.code == .outputExists ? ExitStatus.failure : ExitStatus.usage
        }
        let files: [(SchedulerKind, [SchedulerFile])]
        do throws(ReelError) {
            files = try emit.map { kind throws(ReelError) in
                (
                    kind,
                    try plan.schedulerFiles(
                        kind, planPath: planURL.path, reel: Self.reelPath(environment.executable), image: image,
                        joinOutput: joinOutput.map { environment.fileURL($0).standardizedFileURL.path })
                )
            }
        } catch {
            CLIOutput.line(error)
            throw ExitStatus.usage
        }
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
            CLIOutput.line(error)
            throw ExitStatus.failure
        }
        switch plan {
        case let plan as RenderPlan:
            let sizes = plan.pieces.map(\.frameCount)
            CLIOutput.line(
                "wrote \(output): \(plan.pieces.count) pieces of \(sizes.min() ?? 0) to \(sizes.max() ?? 0) frames (\(plan.frameCount) in all, a keyframe every \(plan.video.keyframeInterval)); pieces go to \(plan.workFolder)"
            )
        case let plan as BatchPlan:
            CLIOutput.line("wrote \(output): \(plan.jobs.count) jobs, one per input, writing \(plan.jobs.first?.output ?? "") ...")
        default:
            break
        }
        for url in targets.dropFirst() { CLIOutput.line("wrote \(url.path)") }
    }
}

extension PlanCommand {
    func splitPlan(work: URL) async throws(ReelError) -> RenderPlan {
        let path = CLIInput.path(composition ?? "")
        let loaded = try await LoadedComposition.load(
            path: path, overrides: sources.map(CLIInput.sourceOverride),
            registry: ReelCLI.registry)
        return try RenderPlan.make(for: loaded, compositionPath: path, split: chunks.map { .pieces($0) } ?? .seconds(chunkSeconds ?? 1), workFolder: work)
    }

    /// The batch plan: the template opened with the first input (so that a template that
    /// cannot render is refused now), one job per input.
    func batchPlan(planURL: URL) async throws(ReelError) -> BatchPlan {
        let environment = CommandEnvironment.current
        let path = environment.absolutePath(template ?? composition ?? "")
        let files = try Self.expand(inputs, in: environment.workingFolder)
        let loaded = try await LoadedComposition.load(
            path: path, overrides: [CompositionFile.SourceOverride(name: nil, path: files[0].path)],
            registry: ReelCLI.registry)
        let folder = outputDir.map { environment.fileURL($0, isDirectory: true) } ?? planURL.deletingLastPathComponent()
        let plan = try BatchPlan.make(
            template: loaded, templatePath: path, inputs: files, outputFolder: folder, outputName: outputName,
            workFolder: workFolder.map { environment.fileURL($0, isDirectory: true) }
                ?? planURL.deletingPathExtension().appendingPathExtension("jobs"),
            overwrite: overwrite)
        return plan
    }

    /// The files `patterns` match (glob(3), sorted, each once), in the patterns' order; a
    /// relative pattern matches in `folder`.
    static func expand(_ patterns: [String], in folder: URL) throws(ReelError) -> [URL] {
        var seen: Set<String> = []
        var files: [URL] = []
        // The folder's own name may hold glob's special characters: they are escaped.
        let base = folder.path.reduce(into: "") { escaped, c in
            if "*?[]\\".contains(c) { escaped.append("\\") }
            escaped.append(c)
        }
        for pattern in patterns {
            var matches = glob_t()
            defer { globfree(&matches) }
            let anchored = pattern.hasPrefix("/") ? pattern : (base.hasSuffix("/") ? base : base + "/") + pattern
            guard glob(anchored, 0, nil, &matches) == 0 else {
                throw ReelError(.fileNotFound, "--inputs \(pattern): matches no file")
            }
            for i in 0..<Int(matches.gl_pathc) {
                guard let text = matches.gl_pathv[i].map({ String(cString: $0) }) else { continue }
                var isFolder: ObjCBool = false
                guard FileManager.default.fileExists(atPath: text, isDirectory: &isFolder), !isFolder.boolValue else { continue }
                let url = URL(fileURLWithPath: text).standardizedFileURL
                if seen.insert(url.path).inserted { files.append(url) }
            }
        }
        guard !files.isEmpty else { throw ReelError(.fileNotFound, "--inputs \(patterns.joined(separator: " ")): matches no file") }
        return files
    }

    /// This `reel` (`executable`, as it was started), as an absolute path, for the Slurm
    /// scripts (nodes share the install).
    static func reelPath(_ executable: String) -> String {
        guard executable.contains("/") else { return executable }
        return CommandEnvironment.current.fileURL(executable).standardizedFileURL.resolvingSymlinksInPath().path
    }
}

extension SchedulerKind: ExpressibleByArgument {}
