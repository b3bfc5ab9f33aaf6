import ArgumentParser
import Foundation
import Reel
import ReelCommandLine

/// How every `reel` subcommand reports a failure: one line on stderr,
/// `reel: FILE: what went wrong`, then exit status 1 (``ExitStatus/failure``).
enum CommandFailure {
    /// Prints `error` as one line, naming the file as the user typed it (`userPath`)
    /// rather than as the library resolved it, and returns the exit code to throw.
    static func report(_ error: ReelError, userPath: String? = nil, resolvedPath: String? = nil) -> ExitCode {
        var shown = error
        if let userPath, shown.path == nil || shown.path == resolvedPath { shown.path = userPath }
        printLine(shown.description)
        return ExitStatus.failure
    }

    /// Prints `reel: message` as a single line on stderr.
    static func printLine(_ message: String) {
        let oneLine = message.split(whereSeparator: \.isNewline).joined(separator: " ")
        FileHandle.standardError.write(Data("reel: \(oneLine)\n".utf8))
    }
}
