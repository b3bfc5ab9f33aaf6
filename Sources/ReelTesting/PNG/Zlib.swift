internal import CZlib
import ReelCore

/// zlib streams (RFC 1950) around DEFLATE data (RFC 1951), what a PNG's IDAT chunks hold,
/// through the system zlib (`libz`).
enum Zlib {
    /// `data` as one zlib stream (`.fixedHuffman` is zlib's `Z_FIXED` strategy).
    static func compress(_ data: [UInt8], method: PNG.Compression = .standard) -> [UInt8] {
        var stream = z_stream()
        let level = method == .stored ? Z_NO_COMPRESSION : Z_DEFAULT_COMPRESSION
        let strategy = method == .fixedHuffman ? Z_FIXED : Z_DEFAULT_STRATEGY
        // Only running out of memory makes initialisation fail.
        guard reel_deflate_init(&stream, level, strategy) == Z_OK else { fatalError("zlib: cannot allocate a deflate stream") }
        defer { deflateEnd(&stream) }
        var out = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(data.count))))
        var result = Z_OK
        data.withUnsafeBufferPointer { input in
            out.withUnsafeMutableBufferPointer { output in
                stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
                stream.next_out = output.baseAddress
                var inputLeft = input.count, outputLeft = output.count
                // `avail_in`/`avail_out` are 32-bit: feed larger buffers in pieces.
                repeat {
                    let inPiece = min(inputLeft, Int(UInt32.max)), outPiece = min(outputLeft, Int(UInt32.max))
                    stream.avail_in = uInt(inPiece)
                    stream.avail_out = uInt(outPiece)
                    result = deflate(&stream, inPiece == inputLeft ? Z_FINISH : Z_NO_FLUSH)
                    inputLeft -= inPiece - Int(stream.avail_in)
                    outputLeft -= outPiece - Int(stream.avail_out)
                } while result == Z_OK
            }
        }
        // deflateBound leaves room for the whole stream, so Z_FINISH always reaches its end.
        precondition(result == Z_STREAM_END, "zlib: deflate returned \(result)")
        out.removeLast(out.count - Int(stream.total_out))
        return out
    }

    /// Inflates a zlib stream, refusing to produce more than `maximumOutputCount` bytes.
    ///
    /// - Parameter context: names the data in errors (`"frame.png IDAT"`).
    /// - Throws: `.corruptData` for a damaged or truncated stream (zlib's own message, e.g.
    ///   "incorrect data check"), a preset dictionary, or output beyond the limit.
    static func decompress(_ data: [UInt8], maximumOutputCount: Int, context: String) throws(ReelError) -> [UInt8] {
        func fail(_ message: String) -> ReelError { ReelError(.corruptData, "\(context): \(message)") }
        var stream = z_stream()
        guard reel_inflate_init(&stream) == Z_OK else { throw ReelError(.internalError, "\(context): cannot allocate an inflate stream") }
        defer { inflateEnd(&stream) }
        var out: [UInt8] = []
        var piece = [UInt8](repeating: 0, count: 1 << 16)
        var failure: ReelError?
        data.withUnsafeBufferPointer { input in
            stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
            var inputLeft = input.count
            while failure == nil {
                let inPiece = min(inputLeft, Int(UInt32.max))
                stream.avail_in = uInt(inPiece)
                let result = piece.withUnsafeMutableBufferPointer { output in
                    stream.next_out = output.baseAddress
                    stream.avail_out = uInt(output.count)
                    return inflate(&stream, Z_NO_FLUSH)
                }
                inputLeft -= inPiece - Int(stream.avail_in)
                out += piece[..<(piece.count - Int(stream.avail_out))]
                if out.count > maximumOutputCount {
                    failure = fail("zlib stream inflates to more than the \(maximumOutputCount) bytes expected")
                    return
                }
                switch result {
                case Z_STREAM_END: return
                case Z_OK: continue
                case Z_BUF_ERROR: failure = fail("zlib stream is cut short (no end of stream after \(data.count) bytes)")
                case Z_NEED_DICT: failure = fail("zlib preset dictionary is not supported")
                case Z_MEM_ERROR: failure = ReelError(.internalError, "\(context): out of memory while inflating")
                default: failure = fail("zlib stream is damaged (\(stream.msg.map { String(cString: $0) } ?? "error \(result)"))")
                }
            }
        }
        if let failure { throw failure }
        return out
    }
}
