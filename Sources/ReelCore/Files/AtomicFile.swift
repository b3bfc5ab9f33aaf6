import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A file put in place in one step, so that a failure never leaves half a file and never
/// loses the file that was there: the content goes to a hidden temporary file beside the
/// destination (same folder, so same file system), is flushed to disk, then renamed over
/// the destination. An existing destination is replaced only when asked.
///
/// Either hand the temporary path to something that writes files (``temporaryURL``), then
/// ``commit()`` or ``discard()``; or write bytes with ``write(_:)``.
package struct AtomicFile: Sendable {
    /// Where the file goes.
    package let destination: URL
    /// The hidden file beside `destination` that holds the content until ``commit()``.
    package let temporaryURL: URL
    /// Whether ``commit()`` may replace a file already at `destination`.
    package let replacing: Bool

    /// Checks the destination (its folder exists; it is not a folder; no file is there
    /// unless `replacing`) and names the temporary file. Nothing is created yet.
    package init(_ destination: URL, replacing: Bool) throws(ReelError) {
        let path = destination.path
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            if isDirectory.boolValue { throw ReelError(.notAFile, "the output path is a folder", path: path) }
            if !replacing { throw ReelError(.outputExists, "the output file exists (pass overwrite: true to replace it)", path: path) }
        }
        let folder = destination.deletingLastPathComponent()
        guard FileManager.default.fileExists(atPath: folder.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw ReelError(.fileNotFound, "the output folder does not exist", path: path)
        }
        self.destination = destination
        self.replacing = replacing
        temporaryURL = folder.appendingPathComponent(".\(destination.lastPathComponent).\(UUID().uuidString.prefix(8)).reel-partial")
    }

    /// Writes `data` to `destination` in one step (see the type's description).
    package static func write(_ data: Data, to destination: URL, replacing: Bool) throws(ReelError) {
        try AtomicFile(destination, replacing: replacing).write(data)
    }

    /// Writes `data` to the temporary file and commits it.
    package func write(_ data: Data) throws(ReelError) {
        do {
            try data.write(to: temporaryURL)
        } catch {
            discard()
            throw ReelError(
                .outputFailed, "could not write the file (\((error as NSError).localizedDescription))",
                path: destination.path, underlying: error)
        }
        try commit()
    }

    /// Flushes the temporary file to disk and renames it to the destination; the temporary
    /// file is gone afterwards, whether this succeeds or throws.
    /// - Throws: `.outputExists` when a file appeared at the destination and `replacing` is
    ///   false (that file is kept), `.outputFailed` when the file cannot be flushed or moved.
    package func commit() throws(ReelError) {
        let temporary = temporaryURL.path, path = destination.path
        do throws(ReelError) {
            try Self.flush(temporary, destination: path)
            if replacing {
                // rename(2) replaces an existing file in one step.
                guard rename(temporary, path) == 0 else { throw Self.failure("could not move the written file into place", path: path) }
            } else {
                try Self.moveWithoutReplacing(temporary, to: path)
            }
        } catch {
            discard()
            throw error
        }
        Self.flushFolder(of: destination)
    }

    /// Removes the temporary file, if there is one.
    package func discard() {
        unlink(temporaryURL.path)
    }

    /// fsync(2) on the file, so that the rename never publishes a file whose data is not on disk.
    private static func flush(_ file: String, destination: String) throws(ReelError) {
        let fd = open(file, O_RDONLY)
        guard fd >= 0 else { throw failure("could not open the written file to flush it", path: destination) }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw failure("could not flush the written file to disk", path: destination) }
    }

    /// link(2) fails when the destination exists, so no file that appears meanwhile is
    /// replaced; file systems without hard links get a check, then rename(2).
    private static func moveWithoutReplacing(_ temporary: String, to path: String) throws(ReelError) {
        if link(temporary, path) == 0 {
            unlink(temporary)
            return
        }
        let code = errno
        if code == EEXIST { throw ReelError(.outputExists, "a file appeared at the output path while writing", path: path) }
        guard code == EPERM || code == EOPNOTSUPP || code == ENOTSUP || code == EXDEV || code == EMLINK else {
            throw failure("could not move the written file into place", path: path, code: code)
        }
        if FileManager.default.fileExists(atPath: path) {
            throw ReelError(.outputExists, "a file appeared at the output path while writing", path: path)
        }
        guard rename(temporary, path) == 0 else { throw failure("could not move the written file into place", path: path) }
    }

    /// fsync(2) on the folder, so that the rename itself survives a crash (best effort: not
    /// every file system lets a folder be opened or flushed).
    private static func flushFolder(of destination: URL) {
        let fd = open(destination.deletingLastPathComponent().path, O_RDONLY)
        guard fd >= 0 else { return }
        _ = fsync(fd)
        close(fd)
    }

    private static func failure(_ what: String, path: String, code: Int32 = errno) -> ReelError {
        ReelError(.outputFailed, "\(what) (\(String(cString: strerror(code))))", path: path)
    }
}
