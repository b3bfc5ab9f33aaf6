import Foundation

/// Runs the built `reel` binary and `ffprobe`, and finds the media the CLI tests use.
enum CLITestSupport {
    static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static let fixturesFolder = packageRoot.appendingPathComponent("Fixtures")
    static let sharedMediaFolder = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/media")

    /// Whether `../shared/media` is there (it is not in a user's clone).
    static var isSharedMediaAvailable: Bool {
        FileManager.default.fileExists(atPath: sharedMediaFolder.appendingPathComponent("README.md").path)
    }

    /// The container extensions the fixture checks cover.
    static let mediaExtensions: Set<String> = ["mp4", "mov", "m4v", "ts", "mkv"]

    /// Every media file in Fixtures/ (not the README, golden files, GPX or CSV tracks).
    static var fixtureNames: [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: fixturesFolder.path)) ?? []
        return names.filter { mediaExtensions.contains(($0 as NSString).pathExtension.lowercased()) }.sorted()
    }

    /// The containers in ../shared/media (mp4, mov, ts).
    static var sharedContainerNames: [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: sharedMediaFolder.path)) ?? []
        return names.filter { ["mp4", "mov", "ts"].contains(($0 as NSString).pathExtension.lowercased()) }.sorted()
    }

    /// The `reel` binary built beside the test bundle (`.build/<triple>/debug/reel`), or
    /// the package's `.build/debug/reel`.
    static var reelBinary: URL? {
        var candidates: [URL] = []
        if let exe = Bundle.main.executableURL?.resolvingSymlinksInPath() {
            var folder = exe.deletingLastPathComponent()
            // On Linux the test runner may be inside a `.xctest` bundle folder.
            while folder.pathExtension == "xctest" || folder.lastPathComponent == "MacOS" || folder.lastPathComponent == "Contents" {
                folder = folder.deletingLastPathComponent()
            }
            candidates.append(folder.appendingPathComponent("reel"))
        }
        candidates.append(packageRoot.appendingPathComponent(".build/debug/reel"))
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    /// The path of a program on PATH.
    static func which(_ program: String) -> URL? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { URL(fileURLWithPath: String($0)).appendingPathComponent(program) }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    static var hasFFprobe: Bool { which("ffprobe") != nil }

    struct Output {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// Runs `executable` with `arguments`, collecting its output (through temporary files,
    /// so a large output never blocks the child).
    static func run(_ executable: URL, _ arguments: [String], in folder: URL? = nil) throws -> Output {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("reel-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let outURL = scratch.appendingPathComponent("stdout"), errURL = scratch.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let out = try FileHandle(forWritingTo: outURL), err = try FileHandle(forWritingTo: errURL)
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let folder { process.currentDirectoryURL = folder }
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        try out.close()
        try err.close()
        return Output(status: process.terminationStatus,
                      stdout: String(decoding: try Data(contentsOf: outURL), as: UTF8.self),
                      stderr: String(decoding: try Data(contentsOf: errURL), as: UTF8.self))
    }
}
