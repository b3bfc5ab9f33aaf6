import Foundation
import ReelTestSupport
import Testing

@Suite("reel plan", .serialized)
struct PlanCommandTests {
    @Test()
    func writesThePlanAndTheSchedulerFiles() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // The containers mount the folder holding the plan, the composition and the source.
        let source = folder.appendingPathComponent("camera.mp4")
        try FileManager.default.copyItem(at: TestFiles.packageRoot.appendingPathComponent("Fixtures/counter-gps.mp4"), to: source)
        let c = try JoinCommandTests.dashboard(video: JoinCommandTests.qp, in: folder, source: source.path)
        let out = await ReelProcess.reel(
            ["plan", c, "--chunk-seconds", "0.5", "-o", "plan.json", "--emit", "slurm", "--emit", "k8s", "--emit", "aws-batch"], in: folder)
        #expect(out.status == 0, "\(out.stderr)")
        #expect(out.stderr.contains("4 pieces of 10 to 20 frames (60 in all, a keyframe every 10)"), "\(out.stderr)")
        for name in [
            "plan.json", "plan.render.sbatch", "plan.join.sbatch", "plan.submit-slurm.sh", "plan.k8s.yaml", "plan.k8s-join.yaml",
            "plan.submit-k8s.sh", "plan.aws-batch.json", "plan.submit-aws-batch.sh",
        ] {
            #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent(name).path), "\(name)")
        }
        let script = try String(contentsOf: folder.appendingPathComponent("plan.render.sbatch"), encoding: .utf8)
        #expect(script.contains("#SBATCH --array=0-3"))
        // Not replaced without --overwrite.
        let again = await ReelProcess.reel(["plan", c, "--chunks", "2", "-o", "plan.json"], in: folder)
        #expect(again.status == 1 && again.stderr.contains("--overwrite"), "\(again.stderr)")
        // A work folder sharing only `/` with the plan: no mount point for the containers,
        // one line, nothing written.
        let outside = await ReelProcess.reel(
            ["plan", c, "--chunks", "2", "-o", "other.json", "--work-folder", "/dev/shm/reel-pieces", "--emit", "k8s"], in: folder)
        #expect(outside.status == 2 && outside.stderrLines.count == 1, "\(outside.stderr)")
        #expect(
            outside.stderr.contains("--emit k8s: the plan \(folder.path)/other.json and the work folder /dev/shm/reel-pieces share no folder but /"),
            "\(outside.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("other.json").path))
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("other.k8s.yaml").path))
    }

    @Test(
        arguments: [
            (["--chunks", "7"], "6 keyframe intervals"), ([], "--chunks N or --chunk-seconds S"),
            (["--chunks", "2", "--chunk-seconds", "1"], "not both"), (["--chunks", "0"], "expected 1 or more"),
        ])
    func badSplitsAreOneLineAndWriteNothing(arguments: [String], mentions: String) async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let c = try JoinCommandTests.dashboard(video: JoinCommandTests.qp, in: folder)
        let out = await ReelProcess.reel(["plan", c, "-o", "plan.json"] + arguments, in: folder)
        #expect(out.status == 2)
        #expect(out.stderr.contains(mentions), "\(out.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("plan.json").path))
    }

    // MARK: Batch plans

    /// A batch of two clips in `folder/clips` and the dashboard template.
    static func batchFolder() throws -> (folder: URL, template: String) {
        let folder = try TestFiles.scratchFolder()
        let clips = folder.appendingPathComponent("clips")
        try FileManager.default.createDirectory(at: clips, withIntermediateDirectories: true)
        for name in ["a.MP4", "b.MP4"] {
            try FileManager.default.copyItem(at: TestFiles.fixture("counter-gps.mp4"), to: clips.appendingPathComponent(name))
        }
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("out"), withIntermediateDirectories: true)
        return (folder, try JoinCommandTests.dashboard(video: JoinCommandTests.qp, in: folder))
    }

    @Test(.requires(.ffmpeg))
    func aBatchPlanRendersOneWholeJobPerInputAndItsJoinChecksTheOutputs() async throws {
        let (folder, template) = try Self.batchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let plan = await ReelProcess.reel(
            [
                "plan", "--inputs", "clips/*.MP4", "--composition", template, "-o", "plan.json", "--output-dir", "out",
                "--output-name", "{name}-dash.mp4", "--emit", "slurm",
            ], in: folder)
        #expect(plan.status == 0 && plan.stderr.contains("2 jobs"), "\(plan.stderr)")
        let script = try String(contentsOf: folder.appendingPathComponent("plan.render.sbatch"), encoding: .utf8)
        #expect(script.contains("#SBATCH --array=0-1"), "\(script)")
        let join = try String(contentsOf: folder.appendingPathComponent("plan.join.sbatch"), encoding: .utf8)
        #expect(join.contains("'join' '\(folder.appendingPathComponent("plan.json").standardizedFileURL.path)'\n"), "\(join)")

        // Nothing rendered yet: the join names both jobs.
        let early = await ReelProcess.reel(["join", "plan.json"], in: folder)
        #expect(early.status == 2 && early.stderr.contains("missing jobs 0"), "\(early.stderr)")
        for k in 0..<2 {
            let out = await ReelProcess.reel(["render", "--plan", "plan.json"], in: folder, environment: ["SLURM_ARRAY_TASK_ID": String(k)])
            #expect(out.status == 0 && out.stderr.contains("wrote job \(k)"), "\(out.stderr)")
        }
        // A rerun task does nothing; the join finds every output complete.
        let again = await ReelProcess.reel(["render", "--plan", "plan.json", "--chunk", "1"], in: folder)
        #expect(again.status == 0 && again.stderr.contains("already complete"), "\(again.stderr)")
        let done = await ReelProcess.reel(["join", "plan.json"], in: folder)
        #expect(done.status == 0 && done.stderr.contains("all 2 jobs"), "\(done.stderr)")

        // Each output is the template rendered with the input as its first source.
        #expect(await ReelProcess.reel(["render", template, "--source", "clips/b.MP4", "-o", "single.mp4"], in: folder).status == 0)
        let single = try ReelProcess.frameHashes("single.mp4", in: folder)
        #expect(single.count == 60)
        #expect(try ReelProcess.frameHashes("out/b-dash.mp4", in: folder) == single)
        let a = await ReelProcess.reel(["metadata", "export", "out/a-dash.mp4", "--format", "csv"], in: folder)
        #expect(a.status == 0 && !a.stdout.isEmpty, "\(a.stderr)")

        // A changed input is refused, by its job and by the join, and an output removed is named.
        try Data("changed".utf8).write(to: folder.appendingPathComponent("clips/a.MP4"))
        let changed = await ReelProcess.reel(["render", "--plan", "plan.json", "--chunk", "0"], in: folder)
        #expect(changed.status == 2 && changed.stderr.contains("a.MP4") && changed.stderr.contains("changed"), "\(changed.stderr)")
        try FileManager.default.removeItem(at: folder.appendingPathComponent("out/b-dash.mp4"))
        let gone = await ReelProcess.reel(["join", "plan.json"], in: folder)
        #expect(
            gone.status == 2 && gone.stderr.contains("job 0 (its input")
                && gone.stderr.contains("missing job 1 (\(folder.appendingPathComponent("out/b-dash.mp4").standardizedFileURL.path))"), "\(gone.stderr)")
    }

    @Test(
        arguments: [
            (["--inputs", "nothing/*.MP4"], "matches no file"), (["--inputs", "clips/*.MP4", "--chunks", "2"], "drop --chunks"),
            (["--inputs", "clips/*.MP4", "--output-name", "same.mp4"], "{name}"),
            (["--inputs", "clips/*.MP4", "--output-name", "{name}/x.mp4"], "expected a file name"),
            (["--inputs", "clips/*.MP4", "--output-dir", "clips", "--output-name", "{name}.MP4"], "replace an input"),
        ])
    func badBatchPlansAreOneLineAndWriteNothing(arguments: [String], mentions: String) async throws {
        let (folder, template) = try Self.batchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = await ReelProcess.reel(["plan", "--composition", template, "-o", "plan.json"] + arguments, in: folder)
        #expect(out.status == 2)
        #expect(out.stderr.contains(mentions), "\(out.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("plan.json").path))
    }

    @Test()
    func aBatchPlanDoesNotReplaceOutputsThatExistUnlessAsked() async throws {
        let (folder, template) = try Self.batchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data("mine".utf8).write(to: folder.appendingPathComponent("out/a.mp4"))
        let out = await ReelProcess.reel(["plan", "--inputs", "clips/*.MP4", "--composition", template, "-o", "plan.json", "--output-dir", "out"], in: folder)
        #expect(out.status == 1 && out.stderr.contains("a.mp4") && out.stderr.contains("--overwrite"), "\(out.stderr)")
        #expect(try Data(contentsOf: folder.appendingPathComponent("out/a.mp4")) == Data("mine".utf8))
        let asked = await ReelProcess.reel(
            [
                "plan", "--inputs", "clips/*.MP4", "--composition", template, "-o", "plan.json", "--output-dir", "out",
                "--overwrite",
            ], in: folder)
        #expect(asked.status == 0, "\(asked.stderr)")
    }
}
