import Foundation

/// Running programs from tests: the `reel` binary, ffmpeg, ffprobe, exiftool.
public enum TestTools {
    /// What a finished program printed and how it ended.
    public struct Output: Sendable {
        public var status: Int32
        public var stdout: String
        public var stderr: String
        public var stdoutData: Data
        public var stderrLines: [String] { stderr.split(separator: "\n").map(String.init) }

        public init(status: Int32, stdoutData: Data, stderr: String) {
            self.status = status
            self.stdoutData = stdoutData
            self.stdout = String(decoding: stdoutData, as: UTF8.self)
            self.stderr = stderr
        }

        /// This output when the program succeeded; else an error with the end of what it
        /// wrote to standard error.
        public func succeeded(_ command: String) throws -> Output {
            guard status == 0 else { throw ToolFailed(description: "\(command) exited with \(status): \(stderr.suffix(600))") }
            return self
        }
    }

    /// A program a test ran failed.
    public struct ToolFailed: Error, CustomStringConvertible {
        public var description: String
        public init(description: String) { self.description = description }
    }

    /// The program's path on the PATH, if it is there.
    public static func which(_ program: String) -> URL? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { URL(fileURLWithPath: String($0)).appendingPathComponent(program) }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    /// Starts `executable` with its output going to files in a fresh folder (pipes could
    /// fill and block a long-running program); `finish` waits and collects.
    /// `environment` adds to (or replaces entries of) the test's own environment.
    public static func start(
        _ executable: URL, _ arguments: [String], in folder: URL? = nil,
        environment: [String: String] = [:]
    ) throws -> Running {
        let logs = FileManager.default.temporaryDirectory.appendingPathComponent("reel-run-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: logs, withIntermediateDirectories: true)
        let out = logs.appendingPathComponent("stdout"), err = logs.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        _ = FileManager.default.createFile(atPath: err.path, contents: nil)
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let folder { process.currentDirectoryURL = folder }
        if !environment.isEmpty { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return Running(process: process, logs: logs)
    }

    /// A program started by ``start(_:_:in:environment:)``.
    public struct Running: @unchecked Sendable {
        // @unchecked: Process is a reference type used from the test that started it.
        public let process: Process
        let logs: URL

        /// What the program has written to standard output so far.
        public var stdoutSoFar: String {
            (try? String(contentsOf: logs.appendingPathComponent("stdout"), encoding: .utf8)) ?? ""
        }

        /// What the program has written to standard error so far.
        public var stderrSoFar: String {
            (try? String(contentsOf: logs.appendingPathComponent("stderr"), encoding: .utf8)) ?? ""
        }

        /// Waits for the program to end and collects what it printed.
        public func finish() throws -> Output {
            process.waitUntilExit()
            defer { try? FileManager.default.removeItem(at: logs) }
            let out = try Data(contentsOf: logs.appendingPathComponent("stdout"))
            let err = try Data(contentsOf: logs.appendingPathComponent("stderr"))
            return Output(status: process.terminationStatus, stdoutData: out, stderr: String(decoding: err, as: UTF8.self))
        }
    }

    /// Runs `executable` to its end.
    public static func run(
        _ executable: URL, _ arguments: [String], in folder: URL? = nil,
        environment: [String: String] = [:]
    ) throws -> Output {
        try start(executable, arguments, in: folder, environment: environment).finish()
    }

    /// Runs a program found on the PATH (or at a path) to its end.
    public static func run(_ program: String, _ arguments: [String], in folder: URL? = nil) throws -> Output {
        let url = program.contains("/") ? URL(fileURLWithPath: program) : which(program)
        guard let url else { throw ToolFailed(description: "\(program) is not on the PATH") }
        return try run(url, arguments, in: folder)
    }

    /// Runs a program found on the PATH (or at a path) and returns its standard output;
    /// throws when it fails.
    @discardableResult
    public static func output(_ program: String, _ arguments: [String], in folder: URL? = nil) throws -> Data {
        try run(program, arguments, in: folder).succeeded("\(program) \(arguments.joined(separator: " "))").stdoutData
    }

    /// ``output(_:_:in:)`` as text.
    @discardableResult
    public static func outputString(_ program: String, _ arguments: [String], in folder: URL? = nil) throws -> String {
        String(decoding: try output(program, arguments, in: folder), as: UTF8.self)
    }
}
