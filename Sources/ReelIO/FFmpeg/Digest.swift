internal import CFFmpeg
import Foundation
import ReelCore

/// A SHA-256 digest, computed by libavutil's hash API (`av_hash_alloc("SHA256")`,
/// `av_hash_update`, `av_hash_final_hex`; the context is freed with `av_hash_freep` before
/// returning). Used to recognise a file or a document again: a render plan records its
/// composition's digest so that pieces of another composition are refused.
public struct Digest: Sendable, Hashable, CustomStringConvertible {
    /// The digest as 64 lower-case hexadecimal digits.
    public let hex: String

    public var description: String { hex }

    /// The digest of `data`.
    public init(sha256 data: Data) throws(ReelError) {
        hex = try Self.compute(path: nil) { update in
            data.withUnsafeBytes { update($0) }
            return true
        }
    }

    /// The digest of the file at `url`, read in 1 MiB blocks.
    public init(sha256OfFileAt url: URL) throws(ReelError) {
        guard let handle = FileHandle(forReadingAtPath: url.path) else {
            let exists = FileManager.default.fileExists(atPath: url.path)
            throw ReelError(exists ? .unreadable : .fileNotFound, exists ? "cannot be read" : "does not exist", path: url.path)
        }
        defer { try? handle.close() }
        hex = try Self.compute(path: url.path) { update in
            while true {
                // nil or empty at the end of the file; a read error throws.
                let block: Data?
                do { block = try handle.read(upToCount: 1 << 20) } catch { return false }
                guard let block, !block.isEmpty else { return true }
                block.withUnsafeBytes { update($0) }
            }
        }
    }

    /// Runs `feed`, which hands every block to the update function it is given and says
    /// whether it read everything.
    private static func compute(path: String?, _ feed: ((UnsafeRawBufferPointer) -> Void) -> Bool) throws(ReelError) -> String {
        var context: OpaquePointer?
        let code = av_hash_alloc(&context, "SHA256")
        guard code >= 0, let context else {
            throw ReelError(.internalError, "libavutil has no SHA-256", path: path, underlying: ffFailure(code, "av_hash_alloc"))
        }
        defer {
            var owned: OpaquePointer? = context
            av_hash_freep(&owned)
        }
        av_hash_init(context)
        let complete = feed { bytes in
            guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
            av_hash_update(context, base.assumingMemoryBound(to: UInt8.self), bytes.count)
        }
        guard complete else { throw ReelError(.unreadable, "could not be read to the end", path: path) }
        var text = [UInt8](repeating: 0, count: 2 * 64 + 1)
        av_hash_final_hex(context, &text, Int32(text.count))
        return String(decoding: text.prefix { $0 != 0 }, as: UTF8.self)
    }
}
