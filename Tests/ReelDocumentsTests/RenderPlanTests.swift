import Foundation
import Reel
import ReelTestSupport
import Testing

@testable import ReelDocuments

@Suite("RenderPlan")
struct RenderPlanTests {
    // MARK: Cutting

    @Test(arguments: [(60, 10, 4), (60, 10, 6), (61, 10, 3), (300, 30, 7), (1800, 60, 6), (25, 10, 3), (7, 10, 1)])
    func cutsAreKeyframesBalancedByFrameCount(frames: Int, gop: Int, pieces: Int) throws {
        let cuts = try RenderPlan.cuts(frames: frames, keyframeInterval: gop, pieces: pieces)
        #expect(cuts.count == pieces)
        #expect(cuts.first == 0)
        #expect(cuts.allSatisfy { $0 % gop == 0 && $0 < frames })
        #expect(zip(cuts, cuts.dropFirst()).allSatisfy { $0 < $1 })
        // Each piece is within one keyframe interval of the ideal share.
        let sizes = zip(cuts, cuts.dropFirst() + [frames]).map { $1 - $0 }
        let ideal = Double(frames) / Double(pieces)
        #expect(sizes.allSatisfy { abs(Double($0) - ideal) <= Double(gop) }, "\(sizes)")
    }

    @Test func morePiecesThanKeyframeIntervalsAreRefused() {
        expectReelError(.invalidArgument) { try RenderPlan.cuts(frames: 60, keyframeInterval: 30, pieces: 3) }
        do {
            _ = try RenderPlan.cuts(frames: 60, keyframeInterval: 30, pieces: 3)
        } catch {
            #expect(error.message.contains("2 keyframe intervals"), "\(error)")
        }
    }

    @Test func frameCountRoundsUp() {
        let frame = MediaTime(value: 1001, timescale: 30000)
        #expect(RenderPlan.frameCount(of: MediaTime(value: 2, timescale: 1), frameDuration: MediaTime(value: 1, timescale: 30)) == 60)
        #expect(RenderPlan.frameCount(of: MediaTime(value: 60, timescale: 1), frameDuration: frame) == 1799)
        #expect(RenderPlan.frameCount(of: frame * 10, frameDuration: frame) == 10)
        #expect(RenderPlan.frameCount(of: .zero, frameDuration: frame) == 0)
    }

    // MARK: The index

    @Test func theIndexComesFromTheFirstSchedulerVariableSet() throws {
        #expect(try RenderPlan.pieceIndex(in: [:]) == nil)
        #expect(try RenderPlan.pieceIndex(in: ["JOB_COMPLETION_INDEX": "3"]) == 3)
        #expect(try RenderPlan.pieceIndex(in: ["AWS_BATCH_JOB_ARRAY_INDEX": "5", "SLURM_ARRAY_TASK_ID": "2"]) == 2)
        expectReelError(.invalidArgument) { try RenderPlan.pieceIndex(in: ["SLURM_ARRAY_TASK_ID": "two"]) }
    }

    // MARK: Making, saving, loading

    static func dashboardPlan(pieces: Int = 3, folder: URL, source: URL = TestFiles.fixture("counter-gps.mp4")) async throws -> RenderPlan {
        let json = """
            {"version": 1, "sources": [{"name": "camera", "path": "\(source.path)"}],
             "tracks": [{"trackID": 1, "mediaType": "video", "segments": [{"source": "camera"}]},
                        {"trackID": 2, "mediaType": "metadata", "segments": [{"source": "camera"}]}],
             "instructions": [{"timeRange": {"start": 0, "end": "end"}, "layerInstructions": [{"trackID": 1}]}],
             "output": {"video": {"codec": "h264", "qp": 20, "keyframeInterval": 10}}}
            """
        let path = folder.appendingPathComponent("c.json").path
        try Data(json.utf8).write(to: URL(fileURLWithPath: path))
        let loaded = try await LoadedComposition.load(path: path)
        return try RenderPlan.make(for: loaded, compositionPath: path, split: .pieces(pieces), workFolder: folder.appendingPathComponent("work"))
    }

    @Test func aPlanRecordsTheCompositionTheSourcesAndTheCuts() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let plan = try await Self.dashboardPlan(folder: folder)
        #expect(plan.frameCount == 60)
        #expect(plan.pieces.map(\.frameCount) == [20, 20, 20])
        #expect(plan.pieces[1].timeRange.start == MediaTime(value: 20, timescale: 30))
        #expect(plan.pieces.last?.timeRange.end == plan.timeRange.end)
        #expect(plan.video.keyframeInterval == 10 && plan.video.codec == "h264" && plan.video.width == 320)
        #expect(plan.sources.map(\.name) == ["camera"])
        #expect(
            plan.sources.first?.size
                == Int64((try FileManager.default.attributesOfItem(atPath: TestFiles.fixture("counter-gps.mp4").path)[.size] as? NSNumber)?.intValue ?? 0))
        #expect(plan.compositionSHA256.count == 64)
        try plan.checkInputs(planPath: "plan.json")
        // Saved and loaded, it is the same plan with the same identity.
        let url = folder.appendingPathComponent("plan.json")
        try plan.write(to: url)
        let again = try RenderPlan.load(path: url.path)
        #expect(again == plan)
        #expect(try again.identity() == plan.identity())
        #expect(plan.pieceURL(2).lastPathComponent == "piece-0002.mov")
        #expect(plan.stampURL(2).lastPathComponent == "piece-0002.json")
    }

    @Test func aChangedCompositionOrSourceIsRefused() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var plan = try await Self.dashboardPlan(folder: folder)
        try Data("{}".utf8).write(to: folder.appendingPathComponent("other.json"))
        #expect { try plan.checkInputs(compositionPath: folder.appendingPathComponent("other.json").path, planPath: "plan.json") } throws: { error in
            (error as? ReelError)?.message.contains("is not the composition the plan was made for") ?? false
        }
        plan.sources[0].modified += 1
        #expect { try plan.checkInputs(planPath: "plan.json") } throws: { error in
            (error as? ReelError)?.message.contains("source \"camera\"") ?? false
        }
    }

    @Test(arguments: [("", "is not a render plan"), ("{\"version\": 9}", "missing"), ("{]", "is not a render plan")])
    func aBrokenPlanFileIsOneError(text: String, mentions: String) throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("plan.json")
        try Data(text.utf8).write(to: url)
        #expect { try RenderPlan.load(path: url.path) } throws: { error in
            (error as? ReelError)?.message.contains(mentions) ?? false && (error as? ReelError)?.path == url.path
        }
        expectReelError(.fileNotFound) { try RenderPlan.load(path: folder.appendingPathComponent("none.json").path) }
    }

    @Test func aPieceOutOfRangeNamesTheRange() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let plan = try await Self.dashboardPlan(folder: folder)
        #expect { try plan.piece(3) } throws: { error in
            (error as? ReelError)?.message == "piece 3 is out of range: the plan has 3 pieces, 0 to 2"
        }
        #expect(await plan.checkPiece(0, identity: try plan.identity()) == .missing)
    }

    // MARK: Scheduler files

    @Test func slurmFilesAreAnArrayAndAJoinThatWaitsForIt() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let plan = try await Self.dashboardPlan(pieces: 3, folder: folder)
        let files = try plan.schedulerFiles(.slurm, planPath: folder.appendingPathComponent("my plan.json").path, reel: "/opt/reel")
        #expect(files.map(\.name) == ["my plan.render.sbatch", "my plan.join.sbatch", "my plan.submit-slurm.sh"])
        #expect(files[0].contents.contains("#SBATCH --array=0-2\n"))
        #expect(files[0].contents.contains("exec '/opt/reel' 'render' '--plan' '\(folder.path)/my plan.json'"))
        #expect(files[1].contents.contains("'join' '\(folder.path)/my plan.json' '-o' '\(folder.path)/my plan.mp4'"))
        #expect(files[2].contents.contains("--dependency=afterok:$array"))
        #expect(files[2].isExecutable && !files[0].isExecutable)
    }

    @Test func kubernetesAndAWSBatchFilesCarryTheIndexContract() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // The plan, the composition, the source and the work folder all under `folder`.
        let source = folder.appendingPathComponent("media/counter-gps.mp4")
        try FileManager.default.createDirectory(at: source.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: TestFiles.fixture("counter-gps.mp4"), to: source)
        let plan = try await Self.dashboardPlan(pieces: 3, folder: folder, source: source)
        let planPath = folder.appendingPathComponent("plans/plan.json").path
        let k8s = try plan.schedulerFiles(.k8s, planPath: planPath, image: "registry/reel:1")
        #expect(k8s[0].contents.contains("completionMode: Indexed") && k8s[0].contents.contains("completions: 3"))
        #expect(k8s[0].contents.contains("image: \"registry/reel:1\""))
        #expect(k8s[1].contents.contains("\"join\"") && !k8s[1].contents.contains("Indexed"))
        // Every pod mounts the deepest folder holding them all, never `/`.
        #expect(try plan.sharedRoot(planPath: planPath, for: .k8s) == folder.path)
        for file in k8s.prefix(2) {
            let mounts = file.contents.split(separator: "\n").filter { $0.contains("mountPath:") }.map { $0.trimmingCharacters(in: .whitespaces) }
            #expect(mounts == ["mountPath: \"\(folder.path)\""], "\(mounts)")
        }
        var inside = plan
        inside.sources = []
        inside.composition = folder.appendingPathComponent("c.json").path
        #expect(try inside.sharedRoot(planPath: folder.appendingPathComponent("plan.json").path, for: .k8s) == folder.path)
        let batch = try plan.schedulerFiles(.awsBatch, planPath: planPath)
        let definition = try #require(try JSONSerialization.jsonObject(with: Data(batch[0].contents.utf8)) as? [String: Any])
        let container = try #require(definition["containerProperties"] as? [String: Any])
        #expect(container["command"] as? [String] == ["reel", "render", "--plan", planPath])
        let mountPoints = try #require(container["mountPoints"] as? [[String: Any]])
        #expect(mountPoints.map { $0["containerPath"] as? String } == [folder.path])
        #expect(batch[1].contents.contains("--array-properties size=3") && batch[1].contents.contains("--depends-on jobId=$array"))
        #expect(batch[1].contents.contains("EFS file system at \(folder.path)"))
        #expect(RenderPlan.jobName("My Plan_2026!") == "my-plan-2026")
    }

    @Test(arguments: [SchedulerKind.k8s, .awsBatch])
    func filesThatWouldMountTheWholeFileSystemAreRefused(scheduler: SchedulerKind) async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var plan = try await Self.dashboardPlan(pieces: 3, folder: folder)
        plan.composition = "/srv/media/c.json"
        plan.sources[0].path = "/srv/media/camera.mp4"
        plan.workFolder = "/srv/pieces"
        // Everything under /srv but the plan: /home and /srv share only `/`.
        #expect { try plan.schedulerFiles(scheduler, planPath: "/home/ana/plan.json") } throws: { error in
            let error = error as? ReelError
            return error?.code == .invalidArgument
                && error?.message.contains(
                    "--emit \(scheduler.rawValue): the plan /home/ana/plan.json and "
                        + "the work folder /srv/pieces share no folder but /") == true
                && error?.message.contains("\n") == false
        }
        // The work folder beside the plan: the composition is the first path outside.
        plan.workFolder = "/home/ana/pieces"
        #expect { try plan.schedulerFiles(scheduler, planPath: "/home/ana/plan.json") } throws: { error in
            (error as? ReelError)?.message.contains("the plan /home/ana/plan.json and /srv/media/c.json share no folder but /") == true
        }
        // Under one folder they are written, mounting it.
        plan.composition = "/home/ana/c.json"
        plan.sources[0].path = "/home/ana/media/camera.mp4"
        #expect(try plan.sharedRoot(planPath: "/home/ana/plan.json", for: scheduler) == "/home/ana")
        #expect(try plan.schedulerFiles(scheduler, planPath: "/home/ana/plan.json").count >= 2)
        // Slurm mounts nothing: its files are written whatever the paths.
        plan.workFolder = "/srv/pieces"
        #expect(try plan.schedulerFiles(.slurm, planPath: "/home/ana/plan.json").count == 3)
    }

    @Test func theKubernetesSubmissionWaitsForCompleteOrFailed() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var plan = try await Self.dashboardPlan(pieces: 3, folder: folder)
        plan.sources[0].path = folder.appendingPathComponent("camera.mp4").path
        let files = try plan.schedulerFiles(.k8s, planPath: folder.appendingPathComponent("plan.json").path)
        let script = try #require(files.first { $0.name == "plan.submit-k8s.sh" })
        #expect(!script.contents.contains("--timeout=-1s") && script.contents.contains("*\" Failed \"*)") && script.contents.contains("*\" Complete \"*)"))
        for file in files { try file.write(in: folder) }
        // A kubectl that logs its arguments and reports the conditions in $CONDITIONS,
        // one line a call: the Job is running, then complete or failed.
        let bin = folder.appendingPathComponent("bin")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        let kubectl = bin.appendingPathComponent("kubectl")
        try Data(
            """
            #!/bin/sh
            echo "$*" >> "$KUBECTL_LOG"
            [ "$1" = get ] || exit 0
            n=$(grep -c '^get ' "$KUBECTL_LOG")
            [ "$n" -le "$(wc -l < "$CONDITIONS")" ] || exit 3
            printf '%s' "$(sed -n "${n}p" "$CONDITIONS")"

            """.utf8
        ).write(to: kubectl)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: kubectl.path)
        func submit(_ conditions: [String]) throws -> (TestTools.Output, [String]) {
            let log = folder.appendingPathComponent("kubectl.log"), states = folder.appendingPathComponent("conditions")
            try? FileManager.default.removeItem(at: log)
            try Data(conditions.map { $0 + "\n" }.joined().utf8).write(to: states)
            let path = bin.path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
            let out = try TestTools.run(
                URL(fileURLWithPath: "/bin/sh"), [folder.appendingPathComponent(script.name).path],
                environment: ["PATH": path, "KUBECTL_LOG": log.path, "CONDITIONS": states.path, "REEL_POLL_SECONDS": "0"])
            let calls = (try? String(contentsOf: log, encoding: .utf8))?.split(separator: "\n").map(String.init) ?? []
            return (out, calls)
        }
        // Complete after two polls: the join is applied, exit 0.
        let (done, doneCalls) = try submit(["", "SuccessCriteriaMet ", "SuccessCriteriaMet Complete "])
        #expect(done.status == 0, "\(done.stderr)")
        #expect(doneCalls.first == "apply -f plan.k8s.yaml" && doneCalls.last == "apply -f plan.k8s-join.yaml")
        #expect(doneCalls.filter { $0.hasPrefix("get job/reel-render-plan ") }.count == 3)
        // Failed: the script stops, says so on one line, exits 1, and never applies the join.
        let (failed, failedCalls) = try submit(["", "FailureTarget ", "FailureTarget Failed "])
        #expect(failed.status == 1)
        #expect(failed.stderrLines == ["job/reel-render-plan failed: see kubectl describe job/reel-render-plan; the join was not started"])
        #expect(!failedCalls.contains("apply -f plan.k8s-join.yaml") && failedCalls.filter { $0.hasPrefix("get ") }.count == 3)
    }
}
