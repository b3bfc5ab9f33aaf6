import Foundation
import Reel

/// Paths of the fixtures and a scratch folder for outputs.
enum TestMedia {
    static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func fixture(_ name: String) -> URL {
        packageRoot.appendingPathComponent("Fixtures").appendingPathComponent(name)
    }

    /// A new empty folder under the system's temporary folder.
    static func scratchFolder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("reel-tests-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}

extension TestMedia {
    /// The path of an installed command-line tool (`ffmpeg`, `ffprobe`), or nil.
    static func tool(_ name: String) -> String? {
        ["/usr/bin/\(name)", "/usr/local/bin/\(name)"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Runs `name` with `arguments` and returns its standard output; throws when it fails.
    @discardableResult
    static func run(_ name: String, _ arguments: [String]) throws -> Data {
        guard let path = tool(name) else { throw ReelError(.invalidArgument, "\(name) is not installed") }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw ReelError(.invalidArgument, "\(name) \(arguments.joined(separator: " ")) exited with \(process.terminationStatus)")
        }
        return data
    }
}
