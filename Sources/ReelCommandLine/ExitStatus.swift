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
    /// the table's status. ArgumentParser's own usage errors (an unknown option, a missing
    /// argument, a failed `validate()`) exit ``usage``, not its `EX_USAGE` (64).
    public static func main(_ root: any ParsableCommand.Type) async -> Never {
        do {
            var command = try root.parseAsRoot()
            if var asynchronous = command as? any AsyncParsableCommand {
                try await asynchronous.run()
            } else {
                try command.run()
            }
            exit(0)
        } catch {
            let code = status(for: error, root: root)
            guard code != root.exitCode(for: error) else { root.exit(withError: error) }
            FileHandle.standardError.write(Data((root.fullMessage(for: error) + "\n").utf8))
            exit(code.rawValue)
        }
    }

    /// The table's status for an error `root` reports: ArgumentParser's usage code becomes
    /// ``usage``; every other code is kept.
    static func status(for error: any Error, root: any ParsableCommand.Type) -> ExitCode {
        let code = root.exitCode(for: error)
        return code == .validationFailure ? usage : code
    }
}
