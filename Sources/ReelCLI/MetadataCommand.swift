import ArgumentParser
import Foundation
import Reel
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `reel metadata export|import`: timed metadata (GPS) out of a file as JSON, CSV or GPX,
/// and a GPX or CSV track into a video as a GPMF track.
struct MetadataCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "metadata",
        abstract: "Export a file's timed metadata (GPS) or import a GPS track into a video.",
        subcommands: [MetadataExportCommand.self, MetadataImportCommand.self]
    )

    /// Reports `error` as one line, naming each file as the user typed it.
    static func failure(_ error: ReelError, files: [(typed: String, url: URL)]) -> ExitCode {
        var shown = error
        if let path = shown.path, let file = files.first(where: { $0.url.path == path || $0.url.standardizedFileURL.path == path }) {
            shown.path = file.typed
        }
        return CommandFailure.report(shown)
    }

    /// Writes `text` to `path` (beside it first, then moved into place), or to stdout
    /// when `path` is nil or `-`.
    static func write(_ text: String, to path: String?) throws(ReelError) {
        guard let path, path != "-" else {
            FileHandle.standardOutput.write(Data(text.utf8))
            return
        }
        let url = URL(fileURLWithPath: path)
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw ReelError(.notAFile, "the output path is a folder", path: path)
        }
        let folder = url.deletingLastPathComponent()
        guard FileManager.default.fileExists(atPath: folder.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw ReelError(.fileNotFound, "the output folder does not exist", path: path)
        }
        let partial = folder.appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString.prefix(8)).reel-partial")
        do {
            try Data(text.utf8).write(to: partial)
        } catch {
            try? FileManager.default.removeItem(at: partial)
            throw ReelError(.outputFailed, "could not write the file (\((error as NSError).localizedDescription))", path: path)
        }
        // rename(2) replaces an existing file in one step.
        if rename(partial.path, url.path) != 0 {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(at: partial)
            throw ReelError(.outputFailed, "could not move the written file into place (\(reason))", path: path)
        }
    }
}
