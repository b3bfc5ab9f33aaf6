import Foundation

/// Runs the built `reel` (and ffmpeg tools) as a user would, in a scratch folder.
enum ReelProcess {
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let sharedMedia = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/media")
    static var hasSharedMedia: Bool { FileManager.default.fileExists(atPath: sharedMedia.appendingPathComponent("README.md").path) }

    /// The `reel` binary built beside the tests, or the package's debug build.
    static var reel: URL? {
        var candidates: [URL] = []
        if let exe = Bundle.main.executableURL?.resolvingSymlinksInPath() {
            var folder = exe.deletingLastPathComponent()
            while folder.pathExtension == "xctest" || ["MacOS", "Contents"].contains(folder.lastPathComponent) {
                folder = folder.deletingLastPathComponent()
            }
            candidates.append(folder.appendingPathComponent("reel"))
        }
        candidates.append(packageRoot.appendingPathComponent(".build/debug/reel"))
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    static func which(_ program: String) -> URL? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { URL(fileURLWithPath: String($0)).appendingPathComponent(program) }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    static var hasReelAndFFmpeg: Bool { reel != nil && which("ffmpeg") != nil && which("ffprobe") != nil }

    struct Output {
        var status: Int32
        var stdout: String
        var stderr: String
        var stderrLines: [Substring] { stderr.split(separator: "\n") }
    }

    /// A fresh empty folder, removed by the caller.
    static func scratch() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("reel-render-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Starts `executable`; output goes to files in a scratch folder.
    static func start(_ executable: URL, _ arguments: [String], in folder: URL, environment: [String: String] = [:]) throws -> (Process, URL, URL) {
        let outURL = folder.appendingPathComponent(".stdout-\(UUID().uuidString)"), errURL = folder.appendingPathComponent(".stderr-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if !environment.isEmpty { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        process.currentDirectoryURL = folder
        process.standardOutput = try FileHandle(forWritingTo: outURL)
        process.standardError = try FileHandle(forWritingTo: errURL)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return (process, outURL, errURL)
    }

    static func finish(_ process: Process, _ outURL: URL, _ errURL: URL) throws -> Output {
        process.waitUntilExit()
        defer {
            try? FileManager.default.removeItem(at: outURL)
            try? FileManager.default.removeItem(at: errURL)
        }
        return Output(status: process.terminationStatus,
                      stdout: String(decoding: try Data(contentsOf: outURL), as: UTF8.self),
                      stderr: String(decoding: try Data(contentsOf: errURL), as: UTF8.self))
    }

    static func run(_ executable: URL, _ arguments: [String], in folder: URL, environment: [String: String] = [:]) throws -> Output {
        let (p, o, e) = try start(executable, arguments, in: folder, environment: environment)
        return try finish(p, o, e)
    }

    static func reel(_ arguments: [String], in folder: URL, environment: [String: String] = [:]) throws -> Output {
        guard let reel else { throw CocoaError(.fileNoSuchFile) }
        return try run(reel, arguments, in: folder, environment: environment)
    }

    /// `ffmpeg -f framemd5`: one hash per decoded frame, in order.
    static func frameHashes(_ file: String, in folder: URL) throws -> [String] {
        guard let ffmpeg = which("ffmpeg") else { return [] }
        let out = try run(ffmpeg, ["-v", "error", "-i", file, "-map", "0:v:0", "-f", "framemd5", "-"], in: folder)
        return out.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { $0.split(separator: ",").last.map { String($0).trimmingCharacters(in: .whitespaces) } }
    }
}
