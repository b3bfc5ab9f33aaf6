import Reel

/// A batch scheduler `reel plan --emit` writes submission files for; each runs piece K of a
/// plan as array task K, with K in the variable it sets (``RenderPlan/indexVariables``).
public enum SchedulerKind: String, Sendable, Hashable, CaseIterable {
    /// Slurm job arrays (`SLURM_ARRAY_TASK_ID`), joined by a job that depends on the array.
    case slurm
    /// Kubernetes Indexed Jobs (`JOB_COMPLETION_INDEX`), joined by a second Job.
    case k8s
    /// AWS Batch array jobs (`AWS_BATCH_JOB_ARRAY_INDEX`), joined by a dependent job.
    case awsBatch = "aws-batch"
}

/// A file `reel plan --emit` writes beside the plan.
public struct SchedulerFile: Sendable, Hashable {
    /// The file's name, beside the plan.
    public var name: String
    public var contents: String
    /// Whether it is a script to run (mode 755).
    public var isExecutable: Bool
}
