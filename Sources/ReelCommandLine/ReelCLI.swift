import ArgumentParser
import Foundation
import Reel

/// The `reel` command line as a library: the render, export, thumbnail, plan and join commands, and the
/// compositor registry they use.
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

    /// The subcommands this library provides.
    public static let commands: [any ParsableCommand.Type] = [RenderCommand.self, ExportCommand.self, ThumbnailCommand.self, PreviewCommand.self,
                                                              PlanCommand.self, JoinCommand.self, ConvertCommand.self]

    /// Registers `registrations` and runs `reel` with the process's arguments (render, export,
    /// thumbnail); exits when done.
    public static func main(registering registrations: [CompositorRegistry.Registration]) async {
        FrameMemory.returnFreedFramesToTheSystem()
        register(registrations)
        await ExitStatus.main(PluginCommand.self)
    }
}

/// The root command of a `reel` built with ``ReelCLI/main(registering:)``.
struct PluginCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reel",
        abstract: "Render compositions with your own compositors.",
        subcommands: ReelCLI.commands
    )
}

/// The input argument of a command that reads a media file.
public enum CLIInput {
    /// A `scheme://` argument as the URL it is (`http://`, `https://`, any input protocol
    /// FFmpeg has: `Asset` checks the scheme), anything else as a file path.
    public static func url(for argument: String) -> URL {
        if argument.contains("://"), let url = URL(string: argument), let scheme = url.scheme, scheme.count > 1 { return url }
        return URL(fileURLWithPath: argument)
    }
}

/// One-line errors on standard error, and the checks that end a command with
/// ``ExitStatus/failure`` before any work.
enum CLIOutput {
    static func line(_ message: String) {
        let oneLine = message.split(whereSeparator: \.isNewline).joined(separator: " ")
        FileHandle.standardError.write(Data("reel: \(oneLine)\n".utf8))
    }

    static var standardErrorIsTerminal: Bool { isatty(STDERR_FILENO) == 1 }

    /// Checks, before any work, that `path` can be written: its folder exists, it is not a
    /// folder, and it does not exist unless `overwrite`. Prints the problem and exits 1.
    static func checkOutput(_ path: String, overwrite: Bool) throws(ExitCode) -> URL {
        let url = URL(fileURLWithPath: path)
        let folder = url.deletingLastPathComponent().path
        var isFolder: ObjCBool = false
        if !FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder) || !isFolder.boolValue {
            line("\(path): the folder \(folder) does not exist")
            throw ExitStatus.failure
        }
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder) {
            if isFolder.boolValue {
                line("\(path): is a folder, not a file")
                throw ExitStatus.failure
            }
            if !overwrite {
                line("\(path): the output file exists (use --overwrite to replace it)")
                throw ExitStatus.failure
            }
        }
        return url
    }
}
