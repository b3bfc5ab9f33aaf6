import Foundation
import Reel
import ReelTestSupport
import Testing

@testable import ReelDocuments

@Suite("BatchPlan")
struct BatchPlanTests {
    /// A template whose first source is a clip, and `count` copies of the clip as inputs.
    static func plan(count: Int = 2, folder: URL, pattern: String = "{name}.mp4") async throws -> BatchPlan {
        let json = """
            {"version": 1, "sources": [{"name": "camera", "path": "\(TestFiles.fixture("counter-gps.mp4").path)"}],
             "tracks": [{"trackID": 1, "mediaType": "video", "segments": [{"source": "camera"}]}],
             "instructions": [{"timeRange": {"start": 0, "end": "end"}, "layerInstructions": [{"trackID": 1}]}],
             "output": {"video": {"codec": "h264", "qp": 20, "keyframeInterval": 10}}}
            """
        let path = folder.appendingPathComponent("t.json").path
        try Data(json.utf8).write(to: URL(fileURLWithPath: path))
        var inputs: [URL] = []
        for i in 0..<count {
            let url = folder.appendingPathComponent("clip\(i).MP4")
            try FileManager.default.copyItem(at: TestFiles.fixture("counter-gps.mp4"), to: url)
            inputs.append(url)
        }
        let loaded = try await LoadedComposition.load(path: path)
        return try BatchPlan.make(
            template: loaded, templatePath: path, inputs: inputs, outputFolder: folder.appendingPathComponent("out"),
            outputName: pattern, workFolder: folder.appendingPathComponent("work"), overwrite: false)
    }

    @Test func aBatchPlanHasOneJobPerInputAndReadsBackAsOne() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let plan = try await Self.plan(count: 3, folder: folder, pattern: "{index}-{name}.mov")
        #expect(plan.jobs.map(\.index) == [0, 1, 2])
        #expect(plan.jobs.map { URL(fileURLWithPath: $0.output).lastPathComponent } == ["0-clip0.mov", "1-clip1.mov", "2-clip2.mov"])
        #expect(plan.replacedSource == "camera" && plan.sources.isEmpty && plan.taskCount == 3)
        #expect(plan.overrides(forJob: 1).last?.path == folder.appendingPathComponent("clip1.MP4").standardizedFileURL.path)
        let url = folder.appendingPathComponent("plan.json")
        try plan.write(to: url)
        #expect(try BatchPlan.load(path: url.path) == plan)
        guard case .batch = try AnyPlanFile.load(path: url.path) else { Issue.record("read as a render plan"); return }
        expectReelError(.invalidArgument) { try RenderPlan.load(path: url.path) }
        try plan.checkInputs(ofJob: 2, planPath: url.path)
        expectReelError(.invalidArgument) { try plan.job(3) }
        #expect(plan.stampURL(2).lastPathComponent == "job-00002.json")
    }

    @Test func aChangedInputIsRefused() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let plan = try await Self.plan(folder: folder)
        try Data("x".utf8).write(to: folder.appendingPathComponent("clip1.MP4"))
        try plan.checkInputs(ofJob: 0, planPath: "plan.json")
        expectReelError(.invalidArgument) { try plan.checkInputs(ofJob: 1, planPath: "plan.json") }
    }

    @Test func twoInputsWithOneOutputAreRefused() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let plan = try await Self.plan(folder: folder)
        let loaded = try await LoadedComposition.load(path: plan.composition)
        let other = folder.appendingPathComponent("sub")
        try FileManager.default.createDirectory(at: other, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: TestFiles.fixture("counter-gps.mp4"), to: other.appendingPathComponent("clip0.MP4"))
        expectReelError(.invalidArgument) {
            try BatchPlan.make(
                template: loaded, templatePath: plan.composition,
                inputs: [folder.appendingPathComponent("clip0.MP4"), other.appendingPathComponent("clip0.MP4")],
                outputFolder: folder, outputName: "{name}.mp4", workFolder: folder, overwrite: false)
        }
    }

    @Test func aPlanFileThatBreaksTheRulesIsOneError() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var plan = try await Self.plan(folder: folder)
        var twice = plan
        twice.jobs[1].output = twice.jobs[0].output
        var overInput = plan
        overInput.jobs[0].output = overInput.jobs[1].input.path
        var unordered = plan
        unordered.jobs[1].index = 5
        var empty = plan
        empty.jobs = []
        for (broken, mentions) in [(twice, "two jobs write"), (overInput, "over an input"), (unordered, "numbered"), (empty, "no jobs")] {
            #expect { try BatchPlan.decode(try broken.encoded(), path: "plan.json") } throws: { error in
                (error as? ReelError)?.message.contains(mentions) ?? false
            }
        }
        plan.version = 7
        expectReelError(.invalidArgument) { try BatchPlan.decode(try plan.encoded(), path: "plan.json") }
    }
}
