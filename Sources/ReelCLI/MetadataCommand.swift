import ArgumentParser
import Foundation
import Reel

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
        let partial = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString.prefix(8)).reel-partial")
        do {
            try Data(text.utf8).write(to: partial)
            if FileManager.default.fileExists(atPath: url.path) {
                _ = try FileManager.default.replaceItemAt(url, withItemAt: partial)
            } else {
                try FileManager.default.moveItem(at: partial, to: url)
            }
        } catch {
            try? FileManager.default.removeItem(at: partial)
            throw ReelError(.outputFailed, "could not write the file (\((error as NSError).localizedDescription))", path: path)
        }
    }
}
