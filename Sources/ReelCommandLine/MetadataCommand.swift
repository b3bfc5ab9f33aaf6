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
        return CLIOutput.report(shown)
    }

    /// Writes `text` to `path` (beside it first, then moved into place, replacing what was
    /// there), or to stdout when `path` is nil or `-`.
    static func write(_ text: String, to path: String?) throws(ReelError) {
        try CLIOutput.write(Data(text.utf8), to: path, overwrite: true)
    }
}
