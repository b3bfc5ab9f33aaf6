import Foundation
import Testing
@testable import Reel
import ReelTestSupport

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

    static func dashboardPlan(pieces: Int = 3, folder: URL) async throws -> RenderPlan {
        let json = """
        {"version": 1, "sources": [{"name": "camera", "path": "\(TestFiles.fixture("counter-gps.mp4").path)"}],
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
        #expect(plan.sources.first?.size == Int64((try FileManager.default.attributesOfItem(atPath: TestFiles.fixture("counter-gps.mp4").path)[.size] as? NSNumber)?.intValue ?? 0))
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
        let plan = try await Self.dashboardPlan(pieces: 3, folder: folder)
        let planPath = folder.appendingPathComponent("plan.json").path
        let k8s = try plan.schedulerFiles(.k8s, planPath: planPath, image: "registry/reel:1")
        #expect(k8s[0].contents.contains("completionMode: Indexed") && k8s[0].contents.contains("completions: 3"))
        #expect(k8s[0].contents.contains("image: \"registry/reel:1\""))
        #expect(k8s[1].contents.contains("\"join\"") && !k8s[1].contents.contains("Indexed"))
        // The shared root holds the plan, the work folder and the fixture.
        let root = plan.sharedRoot(planPath: planPath)
        let prefix = root.hasSuffix("/") ? root : root + "/"
        #expect(planPath.hasPrefix(prefix) && TestFiles.fixture("counter-gps.mp4").path.hasPrefix(prefix))
        #expect(k8s[0].contents.contains("mountPath: \"\(root)\""))
        var inside = plan
        inside.sources = []
        inside.composition = folder.appendingPathComponent("c.json").path
        #expect(inside.sharedRoot(planPath: planPath) == folder.path)
        let batch = try plan.schedulerFiles(.awsBatch, planPath: planPath)
        let definition = try #require(try JSONSerialization.jsonObject(with: Data(batch[0].contents.utf8)) as? [String: Any])
        let container = try #require(definition["containerProperties"] as? [String: Any])
        #expect(container["command"] as? [String] == ["reel", "render", "--plan", planPath])
        #expect(batch[1].contents.contains("--array-properties size=3") && batch[1].contents.contains("--depends-on jobId=$array"))
        #expect(RenderPlan.jobName("My Plan_2026!") == "my-plan-2026")
    }
}
