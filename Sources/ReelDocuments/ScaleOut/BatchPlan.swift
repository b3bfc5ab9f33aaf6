import Foundation
import ReelCore

/// Batch work on many machines (docs/scale-out.md, "Batch plans"): one job per input file,
/// each a whole render of a template composition whose first source is replaced by the
/// input (as `reel render --source PATH` does), written to an output of its own.
///
/// The plan pins what the jobs are a function of: the template's SHA-256, the size and
/// modification time of every input and of the template's other sources, so a job whose
/// input changed is refused. Job `K` is a pure function of the plan and `K`; there is
/// nothing to join, and `reel join` of a batch plan checks that every output is complete.
public struct BatchPlan: Sendable, Hashable, Codable {
    /// The plan file format this code writes and reads.
    public static let currentVersion = 1

    public var version: Int
    /// The template composition file, as an absolute path.
    public var composition: String
    /// The SHA-256 of the template's bytes.
    public var compositionSHA256: String
    /// The name of the template's source each job replaces (its first).
    public var replacedSource: String
    /// The template's other sources, which every job reads.
    public var sources: [RenderPlan.SourceStamp]
    /// Where the jobs' stamps go, as an absolute path.
    public var workFolder: String
    /// The jobs, in the inputs' order; job `K` is `jobs[K]`.
    public var jobs: [Job]

    /// One input and the render it becomes.
    public struct Job: Sendable, Hashable, Codable {
        public var index: Int
        /// The input, as the plan saw it (named as the replaced source).
        public var input: RenderPlan.SourceStamp
        /// The file the job writes, as an absolute path.
        public var output: String
    }
}

extension BatchPlan: PlanFile {
    public var taskCount: Int { jobs.count }

    public var sharedPaths: [String] { [composition] + sources.map(\.path) + jobs.flatMap { [$0.input.path, $0.output] } }

    public func joinArguments(planPath: String, output: String) -> [String] { ["join", planPath] }

    /// Reads a batch plan file.
    public static func load(path: String) throws(ReelError) -> BatchPlan {
        guard case .batch(let plan) = try AnyPlanFile.load(path: path) else {
            throw ReelError(.invalidArgument, "is a render plan cut into pieces, not a batch plan (`reel plan --inputs`)", path: path)
        }
        return plan
    }

    /// A batch plan from the bytes of a plan file (read from `path`), checked: this version,
    /// at least one job, jobs numbered in order, absolute paths, and no two jobs writing
    /// the same output or an output that is an input.
    public static func decode(_ data: Data, path: String) throws(ReelError) -> BatchPlan {
        let plan = try decodeJSON(data, path: path)
        func broken(_ what: String, _ field: String) -> ReelError {
            ReelError(.invalidArgument, "\(what) (make the plan again with `reel plan --inputs`)", path: path, field: field)
        }
        guard !plan.jobs.isEmpty else { throw broken("has no jobs", "jobs") }
        guard plan.composition.hasPrefix("/"), plan.workFolder.hasPrefix("/") else { throw broken("has a relative path", "composition") }
        let inputs = Set(plan.jobs.map(\.input.path) + plan.sources.map(\.path))
        var outputs: Set<String> = []
        for (i, job) in plan.jobs.enumerated() {
            guard job.index == i, job.input.path.hasPrefix("/"), job.output.hasPrefix("/"), !job.output.hasSuffix("/") else {
                throw broken("job \(i) is not numbered in order or has a relative path", "jobs[\(i)]")
            }
            guard !inputs.contains(job.output) else { throw broken("job \(i) would write over an input, \(job.output)", "jobs[\(i)].output") }
            guard outputs.insert(job.output).inserted else { throw broken("two jobs write \(job.output)", "jobs[\(i)].output") }
        }
        return plan
    }

    /// The job `index` names: an error naming the valid range when it is out of range.
    public func job(_ index: Int) throws(ReelError) -> Job {
        guard jobs.indices.contains(index) else {
            throw ReelError(.invalidArgument, "job \(index) is out of range: the plan has \(jobs.count) jobs, 0 to \(jobs.count - 1)")
        }
        return jobs[index]
    }

    /// Job `index`'s stamp, written once its output is complete.
    public func stampURL(_ index: Int) -> URL {
        workFolderURL.appendingPathComponent(String(format: "job-%05d.json", index))
    }

    /// The output file name `pattern` gives `input` as job `index`: `{name}` is the input's
    /// file name without its extension, `{index}` the job's index.
    public static func outputName(_ pattern: String, input: URL, index: Int) -> String {
        pattern.replacingOccurrences(of: "{name}", with: input.deletingPathExtension().lastPathComponent)
            .replacingOccurrences(of: "{index}", with: String(index))
    }
}
