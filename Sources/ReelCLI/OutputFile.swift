import Foundation
import Reel

/// Writing a small output file (a metadata document, a caption file) so that a failure never
/// leaves half a file: written beside the destination, then moved into place in one step.
enum OutputFile {
    /// Writes `data` to `path`, or to stdout when `path` is nil or `-`. An existing file is
    /// replaced only when `overwrite`.
    static func write(_ data: Data, to path: String?, overwrite: Bool) throws(ReelError) {
        guard let path, path != "-" else {
            FileHandle.standardOutput.write(data)
            return
        }
        do {
            try AtomicFile.write(data, to: URL(fileURLWithPath: path), replacing: overwrite)
        } catch {
            var shown = error
            shown.path = path  // as the user wrote it
            if shown.code == .outputExists { shown.message = "the output file exists (use --overwrite to replace it)" }
            throw shown
        }
    }
}
