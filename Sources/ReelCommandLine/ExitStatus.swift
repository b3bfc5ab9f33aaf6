import ArgumentParser
import Foundation
import Reel

/// The exit statuses of every `reel` command, in one table (also in README.md):
///
/// | status | meaning |
/// |---|---|
/// | 0 | done |
/// | 1 | ``failure``: the work failed (an unreadable input, an encoder error, an output that cannot be written) |
/// | 2 | ``usage``: the command line or a composition file cannot be used, nothing was done |
/// | 130 | ``interrupted``: Ctrl-C stopped the command, nothing was written |
public enum ExitStatus {
    public static let failure = ExitCode(1)
    public static let usage = ExitCode(2)
    public static let interrupted = ExitCode(130)

    /// Parses the process's arguments with `root`, runs the chosen command and exits with
    /// the table's status (see ``run(_:arguments:in:)``).
    public static func main(_ root: any ParsableCommand.Type) async -> Never {
        exit(await run(root, arguments: Array(CommandLine.arguments.dropFirst()), in: .process).rawValue)
    }

    /// Parses `arguments` with `root`, runs the chosen command in `environment` and returns
    /// the table's status; help, usage errors and the command's output go to the
    /// environment's streams. ArgumentParser's own usage errors (an unknown option, a missing
    /// argument, a failed `validate()`) are ``usage``, not its `EX_USAGE` (64).
    public static func run(_ root: any ParsableCommand.Type, arguments: [String], in environment: CommandEnvironment) async -> ExitCode {
        let warnings = WarningOutput { environment.standardError(Data($0.utf8)) }
        return await CommandEnvironment.$current.withValue(environment) {
            await WarningOutput.$current.withValue(warnings) { await parseAndRun(root, arguments: arguments) }
        }
    }

    /// ``run(_:arguments:in:)`` inside its environment.
    private static func parseAndRun(_ root: any ParsableCommand.Type, arguments: [String]) async -> ExitCode {
        do {
            var command = try root.parseAsRoot(arguments)
            if var asynchronous = command as? any AsyncParsableCommand {
                try await asynchronous.run()
            } else {
                try command.run()
            }
            return .success
        } catch {
            let code = status(for: error, root: root)
            let message = root.fullMessage(for: error)
            if !message.isEmpty {
                let environment = CommandEnvironment.current
                let stream = code == .success ? environment.standardOutput : environment.standardError
                stream(Data((message + "\n").utf8))
            }
            return code
        }
    }

    /// The table's status for an error `root` reports: ArgumentParser's usage code becomes
    /// ``usage``; every other code is kept.
    static func status(for error: any Error, root: any ParsableCommand.Type) -> ExitCode {
        let code = root.exitCode(for: error)
        return code == .validationFailure ? usage : code
    }
}
