internal import CFFmpeg
import Foundation
import ReelCore

/// What opening a URL that is not a local file takes: its scheme checked against FFmpeg's
/// input protocols, and the options that bound every network wait.
enum NetworkInput {
    /// The schemes this FFmpeg build reads (`avio_enum_protocols`): `http`, `https`,
    /// `ftp`, `rtmp`, ... as configured.
    static let inputProtocols: Set<String> = {
        var names: Set<String> = []
        var opaque: UnsafeMutableRawPointer? = nil
        while let name = avio_enum_protocols(&opaque, 0) { names.insert(String(cString: name)) }
        return names
    }()

    /// Where `url` is, for messages: the path of a file, else the whole URL.
    static func location(_ url: URL) -> String { url.isFileURL ? url.path : url.absoluteString }

    /// Throws a clear error when FFmpeg has no input protocol for `url`'s scheme.
    static func checkScheme(_ url: URL) throws(ReelError) {
        let scheme = url.scheme?.lowercased() ?? ""
        guard inputProtocols.contains(scheme) else {
            throw ReelError(
                .unsupportedFormat,
                "this FFmpeg cannot read \"\(scheme)\" URLs (it reads: \(inputProtocols.sorted().joined(separator: ", ")))",
                path: location(url))
        }
    }

    /// The protocol options for `url`: a network read or connection that waits longer than
    /// `timeout` fails (`rw_timeout`, and the socket `timeout` of http and tcp), in microseconds.
    static func options(timeout: Duration) -> [(String, String)] {
        let micros = max(1, timeout.components.seconds * 1_000_000 + timeout.components.attoseconds / 1_000_000_000_000)
        return [("rw_timeout", String(micros)), ("timeout", String(micros))]
    }

    /// Runs `body` with an `AVDictionary` of `options`, freed afterwards (what FFmpeg did not
    /// use stays in it and goes with it).
    static func withOptions<T>(_ options: [(String, String)], _ body: (inout OpaquePointer?) throws(ReelError) -> T) throws(ReelError) -> T {
        var dict: OpaquePointer? = nil
        for (key, value) in options { av_dict_set(&dict, key, value, 0) }
        defer { av_dict_free(&dict) }
        return try body(&dict)
    }
}

/// Stops every later network wait once a read of the stream has failed, through
/// FFmpeg's interrupt callback (`AVIOInterruptCB`): after a failed read a demuxer tries
/// elsewhere in the file (the MP4 demuxer seeks to the index), and each try would wait the
/// whole timeout again. Keeps the first failure, which later interrupted reads overwrite.
///
/// Used on the thread that reads the stream only.
final class NetworkWatch {
    var context: UnsafeMutablePointer<AVIOContext>?
    private(set) var firstError: Int32 = 0

    /// 1 (interrupt) once the stream has recorded a read error other than its end.
    func check() -> Int32 {
        if firstError == 0, let error = context?.pointee.error, error < 0, error != reel_averror_eof() { firstError = error }
        return firstError < 0 ? 1 : 0
    }
}

/// FFmpeg's interrupt callback for a ``NetworkWatch`` (the opaque pointer, unretained).
private func networkInterrupt(_ opaque: UnsafeMutableRawPointer?) -> Int32 {
    guard let opaque else { return 0 }
    return Unmanaged<NetworkWatch>.fromOpaque(opaque).takeUnretainedValue().check()
}

/// Owns an FFmpeg byte stream opened on a URL (`avio_open2`; `deinit` calls
/// `avio_closep`): for reading ranges of a remote file (the MP4 boxes FFmpeg does not
/// expose), and as the byte stream an ``InputFormatContext`` of a URL demuxes.
final class NetworkByteSource: @unchecked Sendable {
    // @unchecked: the AVIO context is used only inside `lock`, one seek and read at a time,
    // or by the one demuxer it is lent to.
    private(set) var context: UnsafeMutablePointer<AVIOContext>?
    private let lock = NSLock()
    let location: String
    /// The stream's size in bytes (`avio_size`); nil when the server does not say.
    let size: Int64?
    let timeout: Duration
    private let watch = NetworkWatch()

    init(url: URL, timeout: Duration) throws(ReelError) {
        location = NetworkInput.location(url)
        self.timeout = timeout
        var opened: UnsafeMutablePointer<AVIOContext>? = nil
        let path = location
        var callback = AVIOInterruptCB(callback: networkInterrupt, opaque: Unmanaged.passUnretained(watch).toOpaque())
        let code = try NetworkInput.withOptions(NetworkInput.options(timeout: timeout)) { (dict: inout OpaquePointer?) throws(ReelError) in
            avio_open2(&opened, path, AVIO_FLAG_READ, &callback, &dict)
        }
        guard code >= 0, let opened else {
            throw ReelError(.unreadable, "could not open the URL", path: location, underlying: ffFailure(code, "avio_open2"))
        }
        context = opened
        watch.context = opened
        let total = avio_size(opened)
        size = total > 0 ? total : nil
    }

    /// The interrupt callback that stops waiting once this stream has failed, for a
    /// demuxer reading it. Valid while this source lives.
    var interruptCallback: AVIOInterruptCB {
        AVIOInterruptCB(callback: networkInterrupt, opaque: Unmanaged.passUnretained(watch).toOpaque())
    }

    /// Why reading the stream stopped, when the server or the network stopped it: it timed
    /// out, failed, or ended before the size the server gave. Nil when it did not.
    func connectionFailure() -> ReelError? {
        guard let context else { return nil }
        _ = watch.check()
        let error = watch.firstError
        let position = context.pointee.pos
        let of = size.map { " of \($0)" } ?? ""
        if error == reel_averror(ETIMEDOUT) {
            return ReelError(.unreadable, "timed out: the server sent nothing for \(timeout) (at byte \(position)\(of))", path: location)
        }
        if error < 0 {
            return ReelError(
                .unreadable, "the connection was lost at byte \(position)\(of)", path: location,
                underlying: ffFailure(error, "avio_read"))
        }
        if context.pointee.eof_reached != 0, let size, position < size {
            return ReelError(
                .unreadable, "the connection was lost at byte \(position) of \(size): the server ended it before the end of the file",
                path: location)
        }
        return nil
    }

    deinit {
        // avio_close frees the context and then closes the connection, which can still call
        // the interrupt callback (a TLS session sends its closing alert): the watch must no
        // longer read the freed context by then.
        watch.context = nil
        avio_closep(&context)
    }

    /// Exactly the bytes of `range` (`avio_seek` + `avio_read`).
    func read(_ range: Range<Int64>) throws(ReelError) -> [UInt8] {
        lock.lock()
        defer { lock.unlock() }
        guard let context else { throw ReelError(.internalError, "the byte stream is closed", path: location) }
        let sought = avio_seek(context, range.lowerBound, SEEK_SET)
        guard sought >= 0 else {
            throw ReelError(
                .unreadable, "could not seek to byte \(range.lowerBound)", path: location,
                underlying: ffFailure(Int32(truncatingIfNeeded: sought), "avio_seek"))
        }
        let total = range.count
        var bytes = [UInt8](repeating: 0, count: total)
        var filled = 0
        while filled < total {
            let want = Int32(min(total - filled, 1 << 20))
            let got = bytes.withUnsafeMutableBufferPointer { buffer in avio_read(context, buffer.baseAddress! + filled, want) }
            guard got > 0 else {
                let cause: (any Error & Sendable)? = got < 0 ? ffFailure(got, "avio_read") : nil
                throw ReelError(
                    .unreadable, "the connection ended reading bytes \(range.lowerBound)..<\(range.upperBound)",
                    path: location, underlying: cause)
            }
            filled += Int(got)
        }
        return bytes
    }
}
