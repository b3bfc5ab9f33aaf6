import Foundation
import ReelTestSupport

/// Runs the built `reel` (and ffmpeg tools) as a user would, in a scratch folder.
enum ReelProcess {
    typealias Output = TestTools.Output

    /// The `reel` binary built beside the tests, or the package's debug build.
    static var reel: URL? { TestFiles.reelBinary }

    static func reel(_ arguments: [String], in folder: URL, environment: [String: String] = [:]) throws -> Output {
        guard let reel else { throw TestTools.ToolFailed(description: "the reel binary is not built: run `swift build` first") }
        return try TestTools.run(reel, arguments, in: folder, environment: environment)
    }

    /// `ffmpeg -f framemd5`: one hash per decoded frame, in order.
    static func frameHashes(_ file: String, in folder: URL) throws -> [String] {
        guard let ffmpeg = TestTools.which("ffmpeg") else { return [] }
        let out = try TestTools.run(ffmpeg, ["-v", "error", "-i", file, "-map", "0:v:0", "-f", "framemd5", "-"], in: folder)
        return out.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap {
            $0.split(separator: ",").last.map { String($0).trimmingCharacters(in: .whitespaces) }
        }
    }
}
