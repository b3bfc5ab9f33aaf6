import Foundation
#if canImport(Glibc)
import Glibc
#endif
import ReelCore

/// Inputs for the reader and writer tests: the shared camera files (when the folder is
/// there) and small clips made on the fly.
enum ReadWriteTestMedia {
    /// The package root, found from this file's path.
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// `../shared/media/NAME` beside the package.
    static func shared(_ name: String) -> URL {
        packageRoot.deletingLastPathComponent().appendingPathComponent("shared/media/\(name)")
    }

    static func hasShared(_ name: String) -> Bool {
        FileManager.default.fileExists(atPath: shared(name).path)
    }

    /// The `ffmpeg` program on PATH, if any (used only to make inputs for tests).
    static let ffmpeg: String? = findProgram("ffmpeg")
    static let ffprobe: String? = findProgram("ffprobe")

    static func findProgram(_ name: String) -> String? {
        let paths = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        for dir in paths {
            let candidate = "\(dir)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// The folder this test process keeps its files in: `reel-rw-tests/<pid>` in the
    /// temporary directory. Folders left by test processes that are gone are removed the
    /// first time it is asked for.
    static let processFolder: URL = {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("reel-rw-tests")
        let own = getpid()
        for name in (try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? [] {
            if let pid = Int32(name), pid != own, kill(pid, 0) != 0, errno == ESRCH {
                try? FileManager.default.removeItem(at: root.appendingPathComponent(name))
            }
        }
        return root.appendingPathComponent(String(own))
    }()

    /// A fresh empty folder for one test's files.
    static func makeTemporaryFolder() throws -> URL {
        let url = processFolder.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    struct ToolFailed: Error, CustomStringConvertible {
        var description: String
    }

    /// Runs a program and returns its standard output; throws when it exits non-zero.
    @discardableResult
    static func run(_ program: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw ToolFailed(description: "\(program) \(arguments.joined(separator: " ")) failed: \(String(decoding: errData, as: UTF8.self).suffix(600))")
        }
        return String(decoding: outData, as: UTF8.self)
    }

    /// Makes a clip with ffmpeg from a lavfi source graph.
    static func lavfi(_ graph: String, _ encode: [String], name: String) throws -> URL {
        guard let ffmpeg else { throw ToolFailed(description: "ffmpeg is not installed") }
        let url = try makeTemporaryFolder().appendingPathComponent(name)
        try run(ffmpeg, ["-hide_banner", "-loglevel", "error", "-f", "lavfi", "-i", graph] + encode + [url.path])
        return url
    }

    /// 60 frames of testsrc2 at 30 fps, 320x240, H.264 with B-frames and a keyframe every
    /// 12 frames.
    static func testPatternClip() throws -> URL {
        try lavfi("testsrc2=size=320x240:rate=30", ["-frames:v", "60", "-c:v", "libx264", "-preset", "ultrafast",
                                                     "-bf", "2", "-g", "12", "-pix_fmt", "yuv420p"], name: "pattern.mp4")
    }

    /// 10 frames of one flat colour (lavfi `0x3366CC`: Y 98, U 177, V 101), 64x48,
    /// losslessly coded.
    static func flatColourClip() throws -> URL {
        try lavfi("color=c=0x3366CC:size=64x48:rate=25", ["-frames:v", "10", "-vf", "scale=out_color_matrix=bt709:out_range=tv,format=yuv420p",
                                                          "-c:v", "libx264", "-qp", "0", "-color_range", "tv", "-colorspace", "bt709",
                                                          "-color_primaries", "bt709", "-color_trc", "bt709"], name: "flat.mp4")
    }
}
