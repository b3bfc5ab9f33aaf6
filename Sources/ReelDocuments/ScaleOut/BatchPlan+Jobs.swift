import Foundation
import Reel
import ReelCore
import ReelIO

extension BatchPlan {
    /// A plan with one job per file of `inputs` (in that order): `template` (opened from
    /// `templatePath` with its first source replaced by any one input) rendered with the
    /// input as its first source into `outputFolder`/``outputName(_:input:index:)``.
    ///
    /// - Throws: `invalidArgument` when there are no inputs, the template has no source,
    ///   two inputs give the same output, an output is an input, or an output exists and
    ///   `overwrite` is false; `fileNotFound` for an input that cannot be read.
    public static func make(
        template: LoadedComposition, templatePath: String, inputs: [URL], outputFolder: URL,
        outputName pattern: String, workFolder: URL, overwrite: Bool
    ) throws(ReelError) -> BatchPlan {
        guard let replaced = template.file.sources.first?.name else {
            throw ReelError(.invalidComposition, "has no source for the inputs to replace", path: templatePath)
        }
        guard !inputs.isEmpty else { throw ReelError(.invalidArgument, "--inputs: no input files") }
        guard pattern.contains("{name}") || pattern.contains("{index}"), !pattern.contains("/") else {
            throw ReelError(.invalidArgument, "--output-name \(pattern): expected a file name with {name} or {index}, such as {name}.mp4")
        }
        var stamps: [RenderPlan.SourceStamp] = []
        for source in template.file.sources.dropFirst() {
            guard let url = template.sourceURLs[source.name] else { continue }
            stamps.append(try RenderPlan.SourceStamp(name: source.name, url: url))
        }
        let folder = outputFolder.standardizedFileURL
        var jobs: [Job] = []
        var taken: [String: String] = [:]
        let inputPaths = Set(inputs.map(\.standardizedFileURL.path) + stamps.map(\.path))
        for (i, url) in inputs.enumerated() {
            let input = try RenderPlan.SourceStamp(name: replaced, url: url)
            let output = folder.appendingPathComponent(outputName(pattern, input: url, index: i)).path
            if let other = taken[output] {
                throw ReelError(.invalidArgument, "\(other) and \(input.path) would both be written to \(output): use {index} in --output-name")
            }
            guard !inputPaths.contains(output) else { throw ReelError(.invalidArgument, "the output of \(input.path) would replace an input", path: output) }
            if !overwrite, FileManager.default.fileExists(atPath: output) {
                throw ReelError(.outputExists, "already exists (add --overwrite to replace the outputs)", path: output)
            }
            taken[output] = input.path
            jobs.append(Job(index: i, input: input, output: output))
        }
        let templateURL = URL(fileURLWithPath: templatePath).standardizedFileURL
        return BatchPlan(
            version: currentVersion, composition: templateURL.path,
            compositionSHA256: try Digest(sha256OfFileAt: templateURL).hex, replacedSource: replaced, sources: stamps,
            workFolder: workFolder.standardizedFileURL.path, jobs: jobs)
    }

    /// The `--source` overrides of job `index`: the template's sources as the plan saw them,
    /// and the job's input in place of the first.
    public func overrides(forJob index: Int) -> [CompositionFile.SourceOverride] {
        sourceOverrides + [CompositionFile.SourceOverride(name: replacedSource, path: jobs[index].input.path)]
    }

    /// Checks the template, its sources and job `index`'s input against the plan.
    ///
    /// - Throws: `invalidArgument` naming the file that changed.
    public func checkInputs(ofJob index: Int, compositionPath: String? = nil, planPath: String) throws(ReelError) {
        try checkInputs(compositionPath: compositionPath, planPath: planPath)
        try jobs[index].input.checkUnchanged(planPath: planPath)
    }

    /// A job's render: the session (the whole composition, sound and metadata tracks as
    /// `reel render` writes them), the container it writes and its frames.
    public struct JobRender {
        public var session: AssetExportSession
        public var fileType: AssetWriter.FileType
        public var frameCount: Int
    }

    /// The render of job `index` of `loaded` (opened with ``overrides(forJob:)``) into the
    /// job's output (replaced if it is there: the plan refused outputs that existed unless
    /// made with `--overwrite`). Removes the job's old stamp first. Run it, then
    /// ``finishJob(_:frameCount:identity:)``.
    public func jobRender(_ index: Int, loaded: LoadedComposition) async throws(ReelError) -> JobRender {
        let job = try job(index)
        try removeStamp(at: stampURL(index))
        let video = loaded.videoComposition
        let out = loaded.file.output ?? CompositionFile.Output()
        let settings: VideoEncoderSettings, fileType: AssetWriter.FileType, audioCodec: AudioEncoderSettings.Codec, format: MetadataOutputFormat
        do {
            settings = try out.videoSettings(width: video.renderPixelSize.width, height: video.renderPixelSize.height, frameDuration: video.frameDuration)
            fileType = try out.fileType(forOutputPath: job.output)
            audioCodec = try out.audioEncoderCodec(for: fileType)
            format = try out.metadataOutputFormat()
        } catch {
            var e = error
            e.path = composition
            throw e
        }
        let session = await loaded.makeExportSession(settings: settings, audioCodec: audioCodec, metadataFormat: format, overwrite: true)
        session.timeRange = loaded.renderRange
        return JobRender(
            session: session, fileType: fileType,
            frameCount: RenderPlan.frameCount(of: loaded.renderRange.duration, frameDuration: video.frameDuration))
    }

    /// Stamps job `index` complete once its output is in place and opens as a video.
    public func finishJob(_ index: Int, frameCount: Int, identity: String) async throws(ReelError) {
        let url = URL(fileURLWithPath: jobs[index].output)
        _ = try await openOutput(of: index)
        let bytes = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.int64Value ?? -1
        try writeStamp(RenderPlan.PieceStamp(plan: identity, piece: index, frameCount: frameCount, bytes: bytes), to: stampURL(index))
    }

    /// Checks job `index` against the plan whose ``identity()`` is `identity`: stamped for
    /// this plan, the output the size it was stamped with, and it opens with a video track.
    public func checkJob(_ index: Int, identity: String) async -> RenderPlan.PieceState {
        await taskState(index, output: URL(fileURLWithPath: jobs[index].output), stamp: stampURL(index), identity: identity) { () async throws(ReelError) in
            try await openOutput(of: index)
        }
    }

    /// Job `index`'s output's video codec configuration.
    private func openOutput(of index: Int) async throws(ReelError) -> RenderPlan.PieceVideo {
        let reader = try await AssetReader.open(url: URL(fileURLWithPath: jobs[index].output))
        defer { reader.cancelReading() }
        guard let track = reader.tracks(withMediaType: .video).first else {
            throw ReelError(.corruptData, "has no video track", path: jobs[index].output)
        }
        return RenderPlan.PieceVideo(codecConfiguration: track.formatDescription.codecConfiguration, reorderDelay: 0)
    }

    /// Checks every job's output: nothing when all are complete and made from their
    /// inputs as they are now.
    ///
    /// - Throws: `invalidArgument` naming every missing and bad job.
    public func checkJobs(identity: String) async throws(ReelError) {
        var missing: [String] = []
        var bad: [String] = []
        for job in jobs {
            switch await checkJob(job.index, identity: identity) {
            case .missing: missing.append("\(job.index) (\(job.output))")
            case .bad(let why): bad.append("job \(job.index) (\(why))")
            case .complete:
                do throws(ReelError) { try job.input.checkUnchanged(planPath: "") } catch {
                    bad.append("job \(job.index) (its input \(job.input.path) changed after the plan was made)")
                }
            }
        }
        if let error = incompleteError(
            "not every job is complete: ", missing: missing, missingNoun: "job", bad: bad,
            advice: "run them again with `reel render --plan ... --chunk K`")
        {
            throw error
        }
    }
}
