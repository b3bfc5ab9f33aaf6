import Foundation
import Reel
import ReelCore

extension PlanFile {
    /// The files that submit this plan to `scheduler`: the array of tasks (a render plan's
    /// pieces, a batch plan's jobs) and the join that runs when all have succeeded. The
    /// user submits them with the scheduler's own tool (docs/scale-out.md).
    ///
    /// - Parameters:
    ///   - scheduler: the scheduler the files are for.
    ///   - planPath: the plan file, as every machine sees it.
    ///   - reel: the `reel` command the Slurm scripts run (the containers run `reel`).
    ///   - image: the container image holding `reel` (Kubernetes, AWS Batch).
    ///   - joinOutput: what the join writes; the plan's name with `.mp4` beside it when nil.
    public func schedulerFiles(
        _ scheduler: SchedulerKind, planPath: String, reel: String = "reel", image: String = "reel:latest",
        joinOutput: String? = nil
    ) throws(ReelError) -> [SchedulerFile] {
        let planURL = URL(fileURLWithPath: planPath).standardizedFileURL
        let base = planURL.deletingPathExtension().lastPathComponent
        let output = joinOutput ?? planURL.deletingPathExtension().appendingPathExtension("mp4").path
        let name = Self.jobName(base)
        let count = taskCount
        let render = [reel, "render", "--plan", planURL.path]
        let join = [reel] + joinArguments(planPath: planURL.path, output: output)
        switch scheduler {
        case .slurm:
            let log = workFolderURL.appendingPathComponent("slurm-%A_%a.out").path
            let renderScript = """
                #!/bin/bash
                # Renders task $SLURM_ARRAY_TASK_ID of \(planURL.path); a requeued or rerun
                # task finds its output complete and does nothing.
                #SBATCH --job-name=reel-render-\(name)
                #SBATCH --array=0-\(count - 1)
                #SBATCH --requeue
                #SBATCH --output=\(log)
                set -euo pipefail
                mkdir -p \(Self.shellQuoted(workFolder))
                exec \(Self.shell(render))

                """
            let joinScript = """
                #!/bin/bash
                # Joins (or checks) the outputs of \(planURL.path) once every array task has succeeded.
                #SBATCH --job-name=reel-join-\(name)
                #SBATCH --output=\(workFolderURL.appendingPathComponent("slurm-join-%j.out").path)
                set -euo pipefail
                exec \(Self.shell(join))

                """
            let submit = """
                #!/bin/sh
                # Submits the task array, then the join, which waits for every piece (afterok).
                set -e
                cd "$(dirname "$0")"
                mkdir -p \(Self.shellQuoted(workFolder))
                array=$(sbatch --parsable \(base).render.sbatch)
                array=${array%%;*}
                join=$(sbatch --parsable --dependency=afterok:$array \(base).join.sbatch)
                echo "submitted render array $array (\(count) tasks) and join ${join%%;*}"

                """
            return [
                SchedulerFile(name: "\(base).render.sbatch", contents: renderScript, isExecutable: false),
                SchedulerFile(name: "\(base).join.sbatch", contents: joinScript, isExecutable: false),
                SchedulerFile(name: "\(base).submit-slurm.sh", contents: submit, isExecutable: true),
            ]
        case .k8s:
            let root = try sharedRoot(planPath: planURL.path, for: scheduler)
            func job(_ jobName: String, _ command: [String], indexed: Bool) -> String {
                var spec = ""
                if indexed {
                    spec += """
                          completionMode: Indexed
                          completions: \(count)
                          parallelism: \(count)
                          backoffLimitPerIndex: 3
                          maxFailedIndexes: 0

                        """
                } else {
                    spec += "  backoffLimit: 3\n"
                }
                return """
                    apiVersion: batch/v1
                    kind: Job
                    metadata:
                      name: \(jobName)
                    spec:
                    \(spec)  template:
                        spec:
                          restartPolicy: Never
                          containers:
                          - name: reel
                            image: \(Self.yaml(image))
                            command: [\(command.map(Self.yaml).joined(separator: ", "))]
                            volumeMounts:
                            - name: shared
                              mountPath: \(Self.yaml(root))
                          volumes:
                          - name: shared
                            persistentVolumeClaim:
                              claimName: reel-shared

                    """
            }
            let header = "# \(planURL.path): \(count) tasks; every pod mounts the claim reel-shared at \(root).\n"
            return [
                SchedulerFile(
                    name: "\(base).k8s.yaml", contents: header + job("reel-render-\(name)", ["reel"] + render.dropFirst(), indexed: true),
                    isExecutable: false),
                SchedulerFile(
                    name: "\(base).k8s-join.yaml", contents: header + job("reel-join-\(name)", ["reel"] + join.dropFirst(), indexed: false),
                    isExecutable: false),
                SchedulerFile(
                    name: "\(base).submit-k8s.sh",
                    contents: """
                        #!/bin/sh
                        # Runs the Indexed Job and waits until it has completed or failed (polling its
                        # conditions every REEL_POLL_SECONDS, 10 by default); runs the join Job only when
                        # every index completed, and exits 1 when the Job failed.
                        set -e
                        cd "$(dirname "$0")"
                        kubectl apply -f \(base).k8s.yaml
                        while :; do
                            state=" $(kubectl get job/reel-render-\(name) -o 'jsonpath={range .status.conditions[?(@.status=="True")]}{.type} {end}') "
                            case "$state" in
                                *" Failed "*)
                                    echo "job/reel-render-\(name) failed: see kubectl describe job/reel-render-\(name); the join was not started" >&2
                                    exit 1 ;;
                                *" Complete "*) break ;;
                            esac
                            sleep "${REEL_POLL_SECONDS:-10}"
                        done
                        kubectl apply -f \(base).k8s-join.yaml

                        """, isExecutable: true),
            ]
        case .awsBatch:
            let root = try sharedRoot(planPath: planURL.path, for: scheduler)
            // An array of one is not allowed: a single piece is named on the command line.
            let pieceCommand = ["reel"] + render.dropFirst() + (count == 1 ? ["--chunk", "0"] : [])
            let definition: [String: Any] = [
                "jobDefinitionName": "reel-\(name)",
                "type": "container",
                "retryStrategy": ["attempts": 3],
                "containerProperties": [
                    "image": image,
                    "command": pieceCommand,
                    "resourceRequirements": [["type": "VCPU", "value": "4"], ["type": "MEMORY", "value": "8192"]],
                    "volumes": [["name": "shared", "efsVolumeConfiguration": ["fileSystemId": "fs-REPLACE-ME", "rootDirectory": "/"]]],
                    "mountPoints": [["sourceVolume": "shared", "containerPath": root]],
                ] as [String: Any],
            ]
            let data: Data
            do { data = try JSONSerialization.data(withJSONObject: definition, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]) } catch {
                throw ReelError(.internalError, "could not encode the AWS Batch job definition: \(error)")
            }
            let joinOverride = Self.jsonText(["command": ["reel"] + join.dropFirst()])
            let arrayOption = count > 1 ? " --array-properties size=\(count)" : ""
            let submit = """
                #!/bin/sh
                # Registers the job definition, submits the task array and the join that depends on it.
                # Set JOB_QUEUE; the definition mounts an EFS file system at \(root) (set its fileSystemId).
                set -e
                cd "$(dirname "$0")"
                : "${JOB_QUEUE:?set JOB_QUEUE to an AWS Batch job queue}"
                aws batch register-job-definition --cli-input-json file://\(base).aws-batch.json > /dev/null
                array=$(aws batch submit-job --job-name reel-render-\(name) --job-queue "$JOB_QUEUE" --job-definition reel-\(name)\(arrayOption) --query jobId --output text)
                join=$(aws batch submit-job --job-name reel-join-\(name) --job-queue "$JOB_QUEUE" --job-definition reel-\(name) --depends-on jobId=$array --container-overrides \(Self.shellQuoted(joinOverride)) --query jobId --output text)
                echo "submitted render array $array (\(count) tasks) and join $join"

                """
            return [
                SchedulerFile(name: "\(base).aws-batch.json", contents: String(decoding: data, as: UTF8.self) + "\n", isExecutable: false),
                SchedulerFile(name: "\(base).submit-aws-batch.sh", contents: submit, isExecutable: true),
            ]
        }
    }

    /// The deepest folder holding the plan, the composition, every source and the work
    /// folder: what a container mounts from shared storage, at the same path. An error when
    /// that is `/`: a container would mount the whole file system over its own.
    func sharedRoot(planPath: String, for scheduler: SchedulerKind) throws(ReelError) -> String {
        let paths = [planPath, workFolder + "/"] + sharedPaths
        func folders(_ path: String) -> [String] { URL(fileURLWithPath: path).deletingLastPathComponent().pathComponents }
        var common = folders(planPath)
        for path in paths.dropFirst() {
            common = Array(zip(common, folders(path)).prefix { $0 == $1 }.map(\.0))
            // Only `/` is left: this path and the plan share nothing below it; name both.
            guard common.count > 1 else {
                let other = path == workFolder + "/" ? "the work folder \(workFolder)" : path
                throw ReelError(
                    .invalidArgument,
                    "--emit \(scheduler.rawValue): the plan \(planPath) and \(other) share no folder but /, "
                        + "which a container cannot mount from shared storage; put the plan, its work folder, the composition "
                        + "and the sources under one shared folder")
            }
        }
        return NSString.path(withComponents: common)
    }

    /// A name Kubernetes, Slurm and AWS Batch all accept: lower-case letters, digits, `-`.
    static func jobName(_ text: String) -> String {
        let mapped = text.lowercased().map { ($0.isASCII && ($0.isLetter || $0.isNumber)) ? $0 : "-" }
        let trimmed = String(mapped).split(separator: "-").joined(separator: "-")
        return trimmed.isEmpty ? "plan" : String(trimmed.prefix(40))
    }

    static func shellQuoted(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'" }

    static func shell(_ words: [String]) -> String { words.map(shellQuoted).joined(separator: " ") }

    /// A YAML scalar: a JSON string, which YAML reads as the same text.
    static func yaml(_ text: String) -> String { jsonText(text) }

    static func jsonText(_ value: Any) -> String {
        guard let data = try? JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed, .sortedKeys, .withoutEscapingSlashes]) else {
            return "\"\""
        }
        return String(decoding: data, as: UTF8.self)
    }
}

extension SchedulerFile {
    /// Writes the file into `folder` atomically, executable when it is a script.
    public func write(in folder: URL) throws(ReelError) {
        let url = folder.appendingPathComponent(name)
        let file = try AtomicFile(url, replacing: true)
        do {
            try Data(contents.utf8).write(to: file.temporaryURL)
            if isExecutable { try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: file.temporaryURL.path) }
        } catch {
            file.discard()
            throw ReelError(.outputFailed, "could not write: \(error.localizedDescription)", path: url.path)
        }
        try file.commit()
    }
}
