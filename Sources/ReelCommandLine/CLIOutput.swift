import ArgumentParser
import Foundation
import Reel

/// What every command writes besides its media: text on the command's standard output,
/// one-line messages and errors on its standard error (both those of
/// ``CommandEnvironment/current``), the checks that end a command with
/// ``ExitStatus/failure`` before any work, and small output files written whole or not at all.
enum CLIOutput {
    /// Prints `reel: message` as a single line on standard error.
    static func line(_ message: String) {
        let oneLine = message.split(whereSeparator: \.isNewline).joined(separator: " ")
        error("reel: \(oneLine)\n")
    }

    /// Prints `error` as a single line on standard error, naming its file as the user typed it.
    static func line(_ error: ReelError) {
        var shown = error
        if let path = shown.path { shown.path = CommandEnvironment.current.typed(path) }
        line(shown.description)
    }

    /// Writes `text` on standard error as it is.
    static func error(_ text: String) { CommandEnvironment.current.standardError(Data(text.utf8)) }

    /// Writes `text` and a newline on standard output.
    static func print(_ text: String, terminator: String = "\n") {
        CommandEnvironment.current.standardOutput(Data((text + terminator).utf8))
    }

    /// Prints `error` as one line, `reel: FILE: what went wrong`, naming the file as the user
    /// typed it (`userPath`) rather than as the library resolved it, and returns the exit code
    /// to throw (``ExitStatus/failure``).
    static func report(_ error: ReelError, userPath: String? = nil, resolvedPath: String? = nil) -> ExitCode {
        var shown = error
        if let userPath, shown.path == nil || shown.path == resolvedPath { shown.path = userPath }
        line(shown)
        return ExitStatus.failure
    }

    /// Writes a small output file (a metadata document, a caption file) to `path` (relative
    /// to the working folder), or to standard output when `path` is nil or `-`. The file is written beside the destination
    /// and moved into place in one step, so a failure never leaves half a file; an existing
    /// file is replaced only when `overwrite`.
    static func write(_ data: Data, to path: String?, overwrite: Bool) throws(ReelError) {
        guard let path, path != "-" else {
            CommandEnvironment.current.standardOutput(data)
            return
        }
        do {
            try AtomicFile.write(data, to: CommandEnvironment.current.fileURL(path), replacing: overwrite)
        } catch {
            var shown = error
            shown.path = path  // as the user wrote it
            if shown.code == .outputExists { shown.message = "the output file exists (use --overwrite to replace it)" }
            throw shown
        }
    }

    static var standardErrorIsTerminal: Bool { CommandEnvironment.current.standardErrorIsTerminal }

    /// Checks, before any work, that `path` (relative to the working folder) can be written:
    /// its folder exists, it is not a folder, and it does not exist unless `overwrite`.
    /// Prints the problem and exits 1.
    static func checkOutput(_ path: String, overwrite: Bool) throws(ExitCode) -> URL {
        let url = CommandEnvironment.current.fileURL(path)
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
