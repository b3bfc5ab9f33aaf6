internal import CFFmpeg
import ReelCore

/// A failed FFmpeg call: the function, its return code and FFmpeg's words for it.
public struct FFmpegError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The negative `AVERROR` code the call returned.
    public let code: Int32
    /// The FFmpeg function that returned it.
    public let function: String

    init(code: Int32, function: String) {
        self.code = code
        self.function = function
    }

    /// FFmpeg's message for the code (`av_strerror`).
    public var words: String {
        var buffer = [CChar](repeating: 0, count: 256)
        return buffer.withUnsafeMutableBufferPointer { buf in
            String(cString: reel_err2str(code, buf.baseAddress!, buf.count))
        }
    }

    public var description: String { "\(words) (\(function) returned \(code))" }

    /// The POSIX errno behind the code, when it is one (`AVERROR(e) == -e`).
    var errno: Int32? { code < 0 && code > -4096 ? -code : nil }

    static let eof = reel_averror_eof()
    static let again = reel_averror_eagain()
    var isEOF: Bool { code == Self.eof }
    var isAgain: Bool { code == Self.again }
    /// `AVERROR_INVALIDDATA`: what a decoder answers to a damaged packet.
    var isInvalidData: Bool { code == reel_averror_invaliddata() }
}

/// What an FFmpeg call that can also say "not now" or "no more" produced.
enum FFmpegState: Equatable {
    case ok
    /// `AVERROR(EAGAIN)`: feed more input, or read output first.
    case again
    /// `AVERROR_EOF`: the stream is over.
    case endOfStream
}

/// The error for return code `code` of `function`: the one place an FFmpeg code becomes a
/// Swift error. Callers use ``ffCheck(_:_:)``; a caller that must clean up first, or whose
/// call gave no code (an allocation that returned NULL: `AVERROR(ENOMEM)`), throws this.
func ffFailure(_ code: Int32, _ function: String) -> FFmpegError {
    FFmpegError(code: code, function: function)
}

/// Returns `code` when it is 0 or more; a negative code throws.
@discardableResult
func ffCheck(_ code: Int32, _ function: String) throws(FFmpegError) -> Int32 {
    if code < 0 { throw ffFailure(code, function) }
    return code
}

/// ``ffCheck(_:_:)`` for a caller that says what failed: a negative code throws the error
/// `failure` makes, with the ``FFmpegError`` as its cause.
@discardableResult
func ffCheck(_ code: Int32, _ function: String, or failure: (FFmpegError) -> ReelError) throws(ReelError) -> Int32 {
    if code < 0 { throw failure(ffFailure(code, function)) }
    return code
}

/// Like ``ffCheck(_:_:)``, but `EAGAIN` and `EOF` are states, not errors.
func ffState(_ code: Int32, _ function: String) throws(FFmpegError) -> FFmpegState {
    if code == FFmpegError.again { return .again }
    if code == FFmpegError.eof { return .endOfStream }
    try ffCheck(code, function)
    return .ok
}

/// FFmpeg's own logging: quiet unless asked for.
public enum FFmpegLogging {
    /// Quiet (the default): FFmpeg prints nothing; Reel reports errors itself.
    public static func setQuiet() { av_log_set_level(AV_LOG_QUIET) }
    /// Let FFmpeg print its warnings and errors to stderr (`--verbose`).
    public static func setVerbose() { av_log_set_level(AV_LOG_WARNING) }
}
