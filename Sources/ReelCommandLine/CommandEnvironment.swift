import Foundation
import Reel

/// What a `reel` command runs in: the folder its relative paths start from, its environment
/// variables, and where its text goes.
///
/// The `reel` process runs its command in ``process``. ``ReelCLI/run(_:in:)`` runs one in any
/// other environment, in the calling process: a test gives it a scratch folder and collects
/// what the command printed, with no binary launched and no global state changed. Commands
/// read the environment they run in from ``current``; nothing in a command reads the
/// process's working directory, its environment variables or its standard streams directly.
public struct CommandEnvironment: Sendable {
    /// The folder a relative path on the command line is relative to.
    public var workingFolder: URL
    /// The environment variables a command reads (the scheduler's array index).
    public var variables: [String: String]
    /// Receives what the command writes on standard output.
    public var standardOutput: @Sendable (Data) -> Void
    /// Receives what the command writes on standard error.
    public var standardError: @Sendable (Data) -> Void
    /// The `reel` executable as it was started, which the scripts `reel plan --emit` writes run.
    public var executable: String
    /// Whether standard error is a terminal, where a render's progress is a bar redrawn in place.
    public var standardErrorIsTerminal: Bool
    /// Whether Ctrl-C and SIGTERM cancel the command's export. Signals belong to a process,
    /// so only ``process`` takes them.
    var handlesSignals: Bool
    /// The relative path arguments resolved so far, by absolute path.
    private let typedPaths = Lock<[String: String]>([:])

    /// An environment for a command run in process: relative paths start at `workingFolder`,
    /// and output goes to the two closures. Signals are left alone.
    public init(
        workingFolder: URL, variables: [String: String] = [:], executable: String = "reel",
        standardOutput: @escaping @Sendable (Data) -> Void,
        standardError: @escaping @Sendable (Data) -> Void
    ) {
        // A folder URL (a trailing slash), so that relative paths resolve inside it.
        self.workingFolder = URL(fileURLWithPath: workingFolder.standardizedFileURL.path, isDirectory: true)
        self.variables = variables
        self.executable = executable
        self.standardOutput = standardOutput
        self.standardError = standardError
        self.standardErrorIsTerminal = false
        self.handlesSignals = false
    }

    /// The process's own: its working directory, environment variables, standard output and
    /// error, and its signals.
    public static var process: CommandEnvironment {
        var environment = CommandEnvironment(
            workingFolder: URL(fileURLWithPath: FileManager.default.currentDirectoryPath, isDirectory: true),
            variables: ProcessInfo.processInfo.environment, executable: CommandLine.arguments.first ?? "reel",
            standardOutput: { FileHandle.standardOutput.write($0) },
            standardError: { FileHandle.standardError.write($0) })
        environment.standardErrorIsTerminal = isatty(STDERR_FILENO) == 1
        environment.handlesSignals = true
        return environment
    }

    /// The environment of the command running on this task (``process`` outside one run by
    /// ``ReelCLI/run(_:in:)``).
    @TaskLocal public static var current: CommandEnvironment = .process

    /// A path argument as a file URL: relative paths start at ``workingFolder``.
    public func fileURL(_ path: String, isDirectory: Bool = false) -> URL {
        let url = URL(fileURLWithPath: path, isDirectory: isDirectory, relativeTo: workingFolder).absoluteURL
        if !path.hasPrefix("/") { typedPaths.withLock { $0[url.path] = path } }
        return url
    }

    /// `path` as it was typed when it is a path argument resolved by ``fileURL(_:isDirectory:)``:
    /// messages name a file as the user wrote it.
    func typed(_ path: String) -> String { typedPaths.withLock { $0[path] } ?? path }

    /// A path argument as an absolute path (see ``fileURL(_:isDirectory:)``).
    public func absolutePath(_ path: String) -> String { fileURL(path).path }
}
