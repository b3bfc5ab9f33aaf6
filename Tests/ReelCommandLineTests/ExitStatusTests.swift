import ArgumentParser
import Foundation
import ReelTestSupport
import Testing

@testable import ReelCommandLine

/// The exit-status table, through the built `reel` as a user runs it, and the same command
/// run in process: both end alike and say the same.
@Suite("reel exit statuses")
struct ExitStatusTests {
    static let composition = TestFiles.packageRoot.appendingPathComponent("Examples/gps-dashboard/composition.json").path
    static let clip = TestFiles.packageRoot.appendingPathComponent("Fixtures/counter-320x240.mp4").path

    struct Case: Sendable, CustomTestStringConvertible {
        var arguments: [String]
        var status: Int32
        var testDescription: String { "reel \(arguments.joined(separator: " ")) exits \(status)" }
    }

    static let cases: [Case] = [
        Case(arguments: ["render", composition, "-o", "out.mp4", "--range", "5..1"], status: 2),
        Case(arguments: ["render", composition, "-o", "out.mp4", "--no-such-option"], status: 2),
        Case(arguments: ["render", composition], status: 2),
        Case(arguments: ["inspect", "--no-such-option", clip], status: 2),
        Case(arguments: ["thumbnail", clip, "-o", "t.png"], status: 2),
        Case(arguments: ["thumbnail", clip, "--at", "soon", "-o", "t.png"], status: 2),
        Case(arguments: ["export", clip, "-o", "x.mp4", "--preset", "fast"], status: 2),
        Case(arguments: ["no-such-command"], status: 2),
        Case(arguments: ["inspect", "/nonexistent/reel/clip.mp4"], status: 1),
        Case(arguments: ["inspect", "--json", "/nonexistent/reel/clip.mp4"], status: 1),
        Case(arguments: ["thumbnail", clip, "--at", "9", "-o", "late.png"], status: 1),
        Case(arguments: ["inspect", "--help"], status: 0),
        Case(arguments: ["inspect", "--json", clip], status: 0),
    ]

    @Test(.requires(.reelBinary), arguments: cases)
    func status(_ c: Case) async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = try ReelProcess.launch(c.arguments, in: folder)
        #expect(out.status == c.status, "\(out.stderr)")
        if c.status != 0 { #expect(!out.stderr.isEmpty, "a failure says why") }
        let inProcess = await ReelProcess.reel(c.arguments, in: folder)
        #expect(inProcess.status == out.status, "\(inProcess.stderr)")
        #expect(inProcess.stderr == out.stderr)
        #expect(inProcess.stdout == out.stdout)
    }

    @Test("ArgumentParser's usage code maps to the table's; others are kept")
    func mapping() {
        #expect(ExitStatus.status(for: ValidationError("bad"), root: ReelCommand.self) == ExitStatus.usage)
        #expect(ExitStatus.status(for: ExitStatus.failure, root: ReelCommand.self) == ExitStatus.failure)
        #expect(ExitStatus.status(for: ExitStatus.interrupted, root: ReelCommand.self) == ExitStatus.interrupted)
    }
}
