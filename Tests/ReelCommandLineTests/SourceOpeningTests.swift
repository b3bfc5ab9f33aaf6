import Foundation
import ReelTestSupport
import Testing

/// How often a render opens its source file, counted by the kernel (`strace -e trace=openat`).
@Suite("A render opens its source file once")
struct SourceOpeningTests {
    /// The GPS dashboard example over a copy of its clip (video, sound, a GPS track) of this
    /// test's own; `audio` false leaves the sound out.
    static func renderCountingOpens(audio: Bool) throws -> (opens: Int, output: String) {
        let (folder, clip) = try TestFiles.copyOfFixture("counter-gps.mp4", as: "camera.mp4")
        defer { try? FileManager.default.removeItem(at: folder) }
        let example = try String(contentsOf: TestFiles.packageRoot.appendingPathComponent("Examples/gps-dashboard/composition.json"), encoding: .utf8)
        var json = example.replacingOccurrences(of: "\"../../Fixtures/counter-gps.mp4\"", with: "\"\(clip.path)\"")
        #expect(json != example)
        if !audio {
            json = json.replacingOccurrences(of: "\"output\": {", with: "\"output\": {\"audio\": false, ")
        }
        try json.write(to: folder.appendingPathComponent("c.json"), atomically: true, encoding: .utf8)
        let strace = try #require(TestTools.which("strace"))
        let reel = try #require(TestFiles.reelBinary)
        let run = try TestTools.run(strace, ["-f", "-e", "trace=openat", "-o", "trace.txt", reel.path, "render", "c.json", "-o", "out.mp4"], in: folder)
        #expect(run.status == 0, "\(run.stderr)")
        let trace = try String(contentsOf: folder.appendingPathComponent("trace.txt"), encoding: .utf8)
        let opens = trace.split(separator: "\n").filter { $0.contains("\"\(clip.path)\"") && !$0.contains("ENOENT") }
        let probe = try TestTools.run(
            try #require(TestTools.which("ffprobe")), ["-v", "error", "-show_entries", "stream=codec_type", "-of", "csv=p=0", "out.mp4"], in: folder)
        return (opens.count, probe.stdout)
    }

    @Test("the dashboard without sound: one opening for the probes, the GPS track and the video", .requires(.reelBinary, .strace, .ffprobe))
    func onceWithoutSound() throws {
        let (opens, streams) = try Self.renderCountingOpens(audio: false)
        #expect(streams.contains("video") && streams.contains("data") && !streams.contains("audio"), "\(streams)")
        #expect(opens == 1, "opened \(opens) times")
    }

    @Test("the dashboard with its sound: one more opening, for the sound read beside the video", .requires(.reelBinary, .strace, .ffprobe))
    func twiceWithSound() throws {
        let (opens, streams) = try Self.renderCountingOpens(audio: true)
        #expect(streams.contains("audio"), "\(streams)")
        #expect(opens == 2, "opened \(opens) times")
    }
}
