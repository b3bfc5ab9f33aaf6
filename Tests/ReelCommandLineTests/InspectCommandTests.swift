import Foundation
import ReelTestSupport
import Testing

/// `reel inspect` run as a user runs it: the built binary, its output and exit status.
@Suite("reel inspect")
struct InspectCommandTests {

    /// A scratch folder holding the bad inputs.
    static func scratchFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("reel-inspect-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    enum BadInput: String, CaseIterable, CustomTestStringConvertible {
        case missing, directory, textFile, emptyFile, truncated
        var testDescription: String { rawValue }

        /// Creates the input in `folder`; returns the argument to pass and the words the
        /// error line must contain.
        func make(in folder: URL) throws -> (argument: String, words: String) {
            switch self {
            case .missing:
                return ("missing.mp4", "no such file")
            case .directory:
                try FileManager.default.createDirectory(at: folder.appendingPathComponent("clips.mp4"), withIntermediateDirectories: true)
                return ("clips.mp4", "folder")
            case .textFile:
                try Data("Just some notes, not a video.\n".utf8).write(to: folder.appendingPathComponent("clip.mp4"))
                return ("clip.mp4", "not a media file")
            case .emptyFile:
                try Data().write(to: folder.appendingPathComponent("empty.mp4"))
                return ("empty.mp4", "empty")
            case .truncated:
                let whole = try Data(contentsOf: TestFiles.fixtures.appendingPathComponent("counter-320x240.mp4"))
                try whole.prefix(whole.count / 20).write(to: folder.appendingPathComponent("cut.mp4"))
                return ("cut.mp4", "cut short")
            }
        }
    }

    @Test("bad input: one line on stderr naming the file and the problem, exit status 1", arguments: BadInput.allCases)
    func badInput(_ input: BadInput) async throws {
        let folder = try Self.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (argument, words) = try input.make(in: folder)
        for extra in [[], ["--json"]] {
            let result = await ReelProcess.reel(["inspect", argument] + extra, in: folder)
            #expect(result.status == 1)
            let lines = result.stderr.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.isEmpty }
            #expect(lines.count == 1, "stderr: \(result.stderr)")
            #expect(result.stderr.hasSuffix("\n"))
            #expect(lines.first?.hasPrefix("reel: \(argument): ") == true, "stderr: \(result.stderr)")
            #expect(lines.first?.contains(words) == true, "stderr: \(result.stderr)")
            #expect(result.stdout.isEmpty)
        }
    }

    @Test(
        "every fixture cut short: exit 0 or 1 with one line, never a crash",
        arguments: CLITestSupport.fixtureNames)
    func cutShort(_ name: String) async throws {
        let folder = try Self.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let whole = try Data(contentsOf: TestFiles.fixtures.appendingPathComponent(name))
        for percent in [2, 30, 70, 98] {
            let cut = "cut-\(percent)-\(name)"
            try whole.prefix(whole.count * percent / 100).write(to: folder.appendingPathComponent(cut))
            let result = await ReelProcess.reel(["inspect", cut], in: folder)
            #expect(result.status == 0 || result.status == 1, "\(cut): status \(result.status): \(result.stderr)")
            if result.status == 1 {
                #expect(result.stderr.split(separator: "\n").count == 1, "\(cut): \(result.stderr)")
                #expect(result.stderr.hasPrefix("reel: \(cut): "))
            }
        }
    }

    @Test("--verbose lets FFmpeg speak; the last line is still Reel's", .requires(.reelBinary))
    func verbose() throws {
        let folder = try Self.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        _ = try BadInput.truncated.make(in: folder)
        // FFmpeg logs to the process's standard error: only a launched reel shows it.
        let result = try ReelProcess.launch(["inspect", "cut.mp4", "--verbose"], in: folder)
        #expect(result.status == 1)
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count > 1, "FFmpeg said nothing: \(result.stderr)")
        #expect(lines.last?.hasPrefix("reel: cut.mp4: ") == true)
    }

    @Test("text output: container, duration, tracks, metadata, chapters")
    func text() async throws {
        let counter = await ReelProcess.reel(["inspect", "Fixtures/counter-320x240.mp4"], in: TestFiles.packageRoot)
        #expect(counter.status == 0)
        #expect(counter.stderr.isEmpty)
        let text = counter.stdout
        #expect(text.hasPrefix("Fixtures/counter-320x240.mp4: QuickTime / MOV"))
        #expect(text.contains("duration: 2 s"))
        #expect(text.contains("tracks: 2"))
        #expect(text.contains("track 1 [#0] video: h264 (avc1, High), 320x240, yuv420p, 30 fps"))
        #expect(text.contains("track 2 [#1] audio: aac (mp4a, LC), 48000 Hz, 1 channel (mono)"))
        #expect(text.contains("handler \"VideoHandler\""))
        #expect(text.contains("common/title: Reel counter"))

        let mkv = await ReelProcess.reel(["inspect", "Fixtures/chapters.mkv"], in: TestFiles.packageRoot)
        #expect(mkv.stdout.contains("chapters:\n  1. 0 s"))
        #expect(mkv.stdout.contains(": Opening\n"))
        #expect(mkv.stdout.contains(": Closing\n"))
    }

    @Test(
        "GoPro: data and metadata tracks with their formats and handlers",
        .requires(.sharedMedia))
    func goPro() async throws {
        let file = TestFiles.sharedMedia.appendingPathComponent("gpmf-parser_max-heromode.mp4").path
        let result = await ReelProcess.reel(["inspect", file])
        #expect(result.status == 0)
        #expect(result.stdout.contains("track 3 [#2] timecode: none (tmcd)"))
        #expect(result.stdout.contains("track 4 [#3] metadata: bin_data (gpmd)"))
        #expect(result.stdout.contains("handler \"GoPro MET\""))
        #expect(result.stdout.contains("track 5 [#4] data: none (fdsc)"))
        #expect(result.stdout.contains("common/location: +33.1268-117.3273/"))
    }

    @Test("JSON output is stable: the same file prints the same text twice")
    func stableJSON() async throws {
        let args = ["inspect", "--json", "Fixtures/counter-320x240.mp4"]
        let a = await ReelProcess.reel(args, in: TestFiles.packageRoot)
        let b = await ReelProcess.reel(args, in: TestFiles.packageRoot)
        #expect(a.status == 0)
        #expect(a.stdout == b.stdout)
        let object = try JSONSerialization.jsonObject(with: Data(a.stdout.utf8)) as? [String: Any]
        #expect((object?["tracks"] as? [Any])?.count == 2)
    }
}
