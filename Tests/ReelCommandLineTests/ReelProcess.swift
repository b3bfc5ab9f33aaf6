import Foundation
import GPSDashboard
import ReelCommandLine
import ReelCore
import ReelTestSupport

/// Runs `reel` commands as a user would, in a scratch folder: in this process
/// (``reel(_:in:environment:)``, what nearly every test does), or by launching the built
/// binary (``launch(_:in:environment:)``, for what only a process shows: signals, its exit,
/// the allocator's environment variables, the scripts `reel plan --emit` writes).
enum ReelProcess {
    typealias Output = TestTools.Output

    /// The `reel` binary built beside the tests, or the package's debug build.
    static var binary: URL? { TestFiles.reelBinary }

    /// The compositors the `reel` binary has built in (ReelMain): the GPS dashboard example's.
    private static let registered: Void = ReelCLI.register([GPSDashboardCompositor.registration])

    /// Runs `reel ARGUMENTS` in this process with `folder` (by default the test's working
    /// directory) as its working folder and `environment` as its variables; returns what it
    /// printed and its exit status.
    static func reel(_ arguments: [String], in folder: URL? = nil, environment: [String: String] = [:]) async -> Output {
        _ = registered
        let stdout = Collected(), stderr = Collected()
        let status = await ReelCLI.run(
            arguments,
            in: CommandEnvironment(
                workingFolder: folder ?? URL(fileURLWithPath: FileManager.default.currentDirectoryPath), variables: environment,
                executable: binary?.path ?? "reel",
                standardOutput: { stdout.append($0) }, standardError: { stderr.append($0) }))
        return Output(status: status, stdoutData: stdout.data, stderr: String(decoding: stderr.data, as: UTF8.self))
    }

    /// Launches the built `reel` with `arguments` in `folder`; `environment` adds to the
    /// test's own.
    static func launch(_ arguments: [String], in folder: URL, environment: [String: String] = [:]) throws -> Output {
        guard let binary else { throw TestTools.ToolFailed(description: "the reel binary is not built: run `swift build` first") }
        return try TestTools.run(binary, arguments, in: folder, environment: environment)
    }

    /// `ffmpeg -f framemd5`: one hash per decoded frame, in order.
    static func frameHashes(_ file: String, in folder: URL) throws -> [String] {
        guard let ffmpeg = TestTools.which("ffmpeg") else { return [] }
        let out = try TestTools.run(ffmpeg, ["-v", "error", "-i", file, "-map", "0:v:0", "-f", "framemd5", "-"], in: folder)
        return out.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap {
            $0.split(separator: ",").last.map { String($0).trimmingCharacters(in: .whitespaces) }
        }
    }

    /// What a command wrote on one of its streams, from any thread.
    private final class Collected: Sendable {
        private let bytes = Lock(Data())
        func append(_ data: Data) { bytes.withLock { $0.append(data) } }
        var data: Data { bytes.withLock { $0 } }
    }
}
