import Foundation
import Testing
import ReelTestSupport

@Suite("reel plan", .serialized)
struct PlanCommandTests {
    @Test(.requires(.reelBinary))
    func writesThePlanAndTheSchedulerFiles() throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let c = try JoinCommandTests.dashboard(video: JoinCommandTests.qp, in: folder)
        let out = try ReelProcess.reel(["plan", c, "--chunk-seconds", "0.5", "-o", "plan.json", "--emit", "slurm", "--emit", "k8s", "--emit", "aws-batch"], in: folder)
        #expect(out.status == 0, "\(out.stderr)")
        #expect(out.stderr.contains("4 pieces of 10 to 20 frames (60 in all, a keyframe every 10)"), "\(out.stderr)")
        for name in ["plan.json", "plan.render.sbatch", "plan.join.sbatch", "plan.submit-slurm.sh", "plan.k8s.yaml", "plan.k8s-join.yaml",
                     "plan.submit-k8s.sh", "plan.aws-batch.json", "plan.submit-aws-batch.sh"] {
            #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent(name).path), "\(name)")
        }
        let script = try String(contentsOf: folder.appendingPathComponent("plan.render.sbatch"), encoding: .utf8)
        #expect(script.contains("#SBATCH --array=0-3"))
        // Not replaced without --overwrite.
        let again = try ReelProcess.reel(["plan", c, "--chunks", "2", "-o", "plan.json"], in: folder)
        #expect(again.status == 1 && again.stderr.contains("--overwrite"), "\(again.stderr)")
    }

    @Test(.requires(.reelBinary),
          arguments: [(["--chunks", "7"], "6 keyframe intervals"), ([], "--chunks N or --chunk-seconds S"),
                      (["--chunks", "2", "--chunk-seconds", "1"], "not both"), (["--chunks", "0"], "expected 1 or more")])
    func badSplitsAreOneLineAndWriteNothing(arguments: [String], mentions: String) throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let c = try JoinCommandTests.dashboard(video: JoinCommandTests.qp, in: folder)
        let out = try ReelProcess.reel(["plan", c, "-o", "plan.json"] + arguments, in: folder)
        #expect(out.status == 2)
        #expect(out.stderr.contains(mentions), "\(out.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("plan.json").path))
    }
}
