import Foundation
import Reel
import ReelDocuments

extension RenderCommand {
    /// `reel render --plan plan.json [--chunk K]`: renders piece K into the plan's work
    /// folder, unless it is already complete. Problems with the plan, the index or the
    /// inputs are one line and exit 2; a work folder that cannot be written, exit 1.
    func renderPiece(planPath: String, runner: ExportRunner) async throws {
        let file: AnyPlanFile
        let index: Int
        do throws(ReelError) {
            file = try AnyPlanFile.load(path: planPath)
            index = try taskIndex()
        } catch {
            CLIOutput.line(error)
            throw ExitStatus.usage
        }
        let plan: RenderPlan
        switch file {
        case .batch(let batch): return try await renderJob(index, of: batch, planPath: planPath, runner: runner)
        case .render(let render): plan = render
        }
        do throws(ReelError) {
            _ = try plan.piece(index)
            try plan.checkInputs(compositionPath: composition.map(CLIInput.path), planPath: planPath)
        } catch {
            CLIOutput.line(error)
            throw ExitStatus.usage
        }
        let piece = plan.pieces[index]
        let pieceURL = plan.pieceURL(index)
        guard
            let identity = try await identityUnlessComplete(
                plan, task: "piece \(index)", shown: pieceURL.path,
                state: {
                    await plan.checkPiece(index, identity: $0)
                })
        else { return }
        let loaded = try await loadComposition(plan, overrides: plan.sourceOverrides)
        try runner.checkInterrupted()
        let session: AssetExportSession
        do throws(ReelError) {
            session = try await plan.pieceSession(index, loaded: loaded)
        } catch {
            CLIOutput.line(error)
            throw ExitStatus.failure
        }
        let seconds = try await runner.run(session, to: pieceURL, as: .mov, shown: pieceURL.path, frameCount: piece.frameCount)
        do throws(ReelError) {
            try await plan.finishPiece(index, identity: identity)
        } catch {
            CLIOutput.line(error)
            throw ExitStatus.failure
        }
        if let summary = session.smartRenderSummary, summary.fallbackReason == nil {
            CLIOutput.line("smart render: \(summary.copiedFrameCount) frames copied, \(summary.encodedFrameCount) encoded")
        }
        CLIOutput.line(ExportRunner.summary(wrote: "piece \(index) (\(pieceURL.path))", frames: piece.frameCount, seconds: seconds))
    }

    /// The task index: --chunk, else the scheduler's array index.
    func taskIndex() throws(ReelError) -> Int {
        var asked = chunk
        if asked == nil { asked = try RenderPlan.pieceIndex(in: CommandEnvironment.current.variables) }
        guard let k = asked else {
            throw ReelError(.invalidArgument, "which piece? give --chunk K, or run as an array job (\(RenderPlan.indexVariables.joined(separator: ", ")))")
        }
        return k
    }

    /// Renders job `index` of a batch plan whole into its output, unless it is already
    /// complete. Exits as ``renderPiece(planPath:runner:)`` does.
    func renderJob(_ index: Int, of plan: BatchPlan, planPath: String, runner: ExportRunner) async throws {
        let job: BatchPlan.Job
        do throws(ReelError) {
            job = try plan.job(index)
            try plan.checkInputs(ofJob: index, compositionPath: composition.map(CLIInput.path), planPath: planPath)
        } catch {
            CLIOutput.line(error)
            throw ExitStatus.usage
        }
        guard
            let identity = try await identityUnlessComplete(
                plan, task: "job \(index)", shown: job.output,
                state: {
                    await plan.checkJob(index, identity: $0)
                })
        else { return }
        let loaded = try await loadComposition(plan, overrides: plan.overrides(forJob: index))
        try runner.checkInterrupted()
        let render: BatchPlan.JobRender
        do throws(ReelError) {
            render = try await plan.jobRender(index, loaded: loaded)
        } catch {
            CLIOutput.line(error)
            throw ExitStatus.failure
        }
        let seconds = try await runner.run(
            render.session, to: CommandEnvironment.current.fileURL(job.output), as: render.fileType, shown: job.output,
            frameCount: render.frameCount)
        do throws(ReelError) {
            try await plan.finishJob(index, frameCount: render.frameCount, identity: identity)
        } catch {
            CLIOutput.line(error)
            throw ExitStatus.failure
        }
        CLIOutput.line(ExportRunner.summary(wrote: "job \(index) (\(job.output))", frames: render.frameCount, seconds: seconds))
    }

    /// The plan's identity once its work folder is ready (exit 1 when it cannot be made or
    /// written), or nil when the task is already complete, which is said.
    func identityUnlessComplete(
        _ plan: some PlanFile, task: String, shown: String,
        state: (String) async -> RenderPlan.PieceState
    ) async throws -> String? {
        let identity: String
        do throws(ReelError) {
            try plan.prepareWorkFolder()
            identity = try plan.identity()
        } catch {
            CLIOutput.line(error)
            throw ExitStatus.failure
        }
        guard case .complete = await state(identity) else { return identity }
        CLIOutput.line("\(task) is already complete: \(shown)")
        return nil
    }

    /// The plan's composition opened with `overrides` (exit 2 when it cannot be).
    func loadComposition(_ plan: some PlanFile, overrides: [CompositionFile.SourceOverride]) async throws -> LoadedComposition {
        do throws(ReelError) {
            return try await LoadedComposition.load(path: plan.composition, overrides: overrides, registry: ReelCLI.registry)
        } catch {
            CLIOutput.line(error)
            throw ExitStatus.usage
        }
    }
}
