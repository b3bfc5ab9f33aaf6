import ArgumentParser
import Foundation
import Reel
// A package that builds its own `reel` registers compositors (`CompositorRegistry`) with this
// module alone.
@_exported import ReelDocuments

/// The `reel` command line as a library: every command, and the compositor registry that
/// `reel render` uses.
///
/// A package with its own compositors builds its own `reel` in a few lines (see
/// docs/plugins.md):
///
/// ```swift
/// import ReelCommandLine
///
/// @main enum Main {
///     static func main() async { await ReelCLI.main(registering: [Sepia.registration]) }
/// }
/// ```
public enum ReelCLI {
    private static let store = Lock(CompositorRegistry())

    /// The compositors `reel render` knows: the built-in ones plus every registration added.
    public static var registry: CompositorRegistry { store.withLock { $0 } }

    /// Adds compositors to ``registry``.
    public static func register(_ registrations: [CompositorRegistry.Registration]) {
        store.withLock { registry in
            for r in registrations { registry.register(r) }
        }
    }

    /// Every subcommand of `reel`.
    public static let commands: [any ParsableCommand.Type] = [
        InspectCommand.self, MetadataCommand.self, CaptionsCommand.self, RenderCommand.self, ExportCommand.self,
        ThumbnailCommand.self, PreviewCommand.self, PlanCommand.self, JoinCommand.self, ConvertCommand.self,
    ]

    /// Registers `registrations` and runs `reel` with the process's arguments; exits when done.
    public static func main(registering registrations: [CompositorRegistry.Registration]) async {
        FrameMemory.configureAllocator()
        register(registrations)
        await ExitStatus.main(ReelCommand.self)
    }

    /// Runs `reel ARGUMENTS` in this process, in `environment` (its working folder, its
    /// variables, its output streams), and returns the exit status `reel` would end with: how
    /// a test runs a command without launching the binary.
    public static func run(_ arguments: [String], in environment: CommandEnvironment) async -> Int32 {
        await ExitStatus.run(ReelCommand.self, arguments: arguments, in: environment).rawValue
    }
}

/// The root command: `reel` and its subcommands (``ReelCLI/commands``).
struct ReelCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reel",
        abstract: "Inspect, composite and render video with timed metadata.",
        subcommands: ReelCLI.commands
    )
}

/// The input argument of a command that reads a media file.
public enum CLIInput {
    /// A `scheme://` argument as the URL it is (`http://`, `https://`, any input protocol
    /// FFmpeg has: `Asset` checks the scheme), anything else as a file path relative to the
    /// command's working folder (``CommandEnvironment/workingFolder``).
    public static func url(for argument: String) -> URL {
        if argument.contains("://"), let url = URL(string: argument), let scheme = url.scheme, scheme.count > 1 { return url }
        return CommandEnvironment.current.fileURL(argument)
    }

    /// A path argument as an absolute path, relative to the command's working folder.
    public static func path(_ argument: String) -> String { CommandEnvironment.current.absolutePath(argument) }

    /// A `--source NAME=PATH` argument, its path relative to the command's working folder.
    public static func sourceOverride(_ argument: String) -> CompositionFile.SourceOverride {
        CompositionFile.SourceOverride(argument: argument, relativeTo: CommandEnvironment.current.workingFolder)
    }
}
