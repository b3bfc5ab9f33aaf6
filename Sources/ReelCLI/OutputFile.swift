import Foundation
import Reel
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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
        let url = URL(fileURLWithPath: path)
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) {
            if isDirectory.boolValue { throw ReelError(.notAFile, "the output path is a folder", path: path) }
            if !overwrite { throw ReelError(.outputExists, "the output file exists (use --overwrite to replace it)", path: path) }
        }
        let folder = url.deletingLastPathComponent()
        guard FileManager.default.fileExists(atPath: folder.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw ReelError(.fileNotFound, "the output folder does not exist", path: path)
        }
        let partial = folder.appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString.prefix(8)).reel-partial")
        do {
            try data.write(to: partial)
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
