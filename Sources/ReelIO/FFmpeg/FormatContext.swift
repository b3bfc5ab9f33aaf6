internal import CFFmpeg
import Foundation
import ReelCore

/// Owns an opened input (`AVFormatContext` from `avformat_open_input`); `deinit` closes it
/// with `avformat_close_input`.
///
/// Not thread-safe: one reader uses it at a time. Streams are read through this owner and
/// never outlive it.
final class InputFormatContext {
    let pointer: UnsafeMutablePointer<AVFormatContext>
    let path: String
    /// The byte stream of a URL (custom I/O: closed after the demuxer, by its owner).
    private let network: NetworkByteSource?

    /// Opens `url` and probes its streams (`avformat_open_input` +
    /// `avformat_find_stream_info`). Missing files, folders and unreadable files are
    /// reported before FFmpeg sees them, so the error says exactly what is wrong.
    ///
    /// A URL that is not a file (`http`, `https`, any input protocol this FFmpeg has) is
    /// read through FFmpeg's own protocol; no connection or read waits longer than
    /// `networkTimeout`, and a connection that fails while probing is an error.
    init(url: URL, networkTimeout: Duration = .seconds(30)) throws(ReelError) {
        let isFile = url.isFileURL
        let path = NetworkInput.location(url)
        self.path = path
        if isFile { try Self.checkReadableFile(path) } else { try NetworkInput.checkScheme(url) }
        var context: UnsafeMutablePointer<AVFormatContext>? = nil
        // A URL is demuxed from a byte stream of Reel's own, so that a failure says what the
        // server or the network did (FFmpeg reports a stream cut short as invalid data).
        let network = isFile ? nil : try NetworkByteSource(url: url, timeout: networkTimeout)
        if let network {
            guard let allocated = avformat_alloc_context() else { throw ReelError(.internalError, "could not allocate the demuxer", path: path) }
            allocated.pointee.pb = network.context
            allocated.pointee.flags |= AVFMT_FLAG_CUSTOM_IO
            allocated.pointee.interrupt_callback = network.interruptCallback
            context = allocated
        }
        self.network = network
        let openCode = avformat_open_input(&context, path, nil, nil)
        guard openCode >= 0, let context else {
            let cause = ffFailure(openCode, "avformat_open_input")
            if let network {
                throw network.connectionFailure() ?? ReelError(.unreadable, "could not read the URL", path: path, underlying: cause)
            }
            if Self.looksLikeISOBMFF(path) {
                throw ReelError(
                    .corruptData, "an MP4/MOV file with no readable movie header (moov): damaged or cut short",
                    path: path, underlying: cause)
            }
            throw ReelError(.unsupportedFormat, "not a media file FFmpeg can read", path: path, underlying: cause)
        }
        // Probe before `pointer` is set: a throw after every stored property is set runs
        // `deinit`, which would close the context a second time.
        let infoCode = avformat_find_stream_info(context, nil)
        // FFmpeg's probe stops quietly at a read error (a server gone mid-file, a timeout);
        // the byte stream keeps the error.
        if let failure = network?.connectionFailure() {
            var owned: UnsafeMutablePointer<AVFormatContext>? = context
            avformat_close_input(&owned)
            throw failure
        }
        if infoCode < 0 {
            var owned: UnsafeMutablePointer<AVFormatContext>? = context
            avformat_close_input(&owned)
            throw ReelError(
                .corruptData, "could not read the stream information", path: path,
                underlying: ffFailure(infoCode, "avformat_find_stream_info"))
        }
        // MPEG program streams leave the presentation time out of most I- and P-pictures'
        // packets; FFmpeg fills it in from the packets after them (the next such picture's
        // decode time) when asked to.
        if let format = context.pointee.iformat, String(cString: format.pointee.name) == "mpeg" {
            context.pointee.flags |= AVFMT_FLAG_GENPTS
        }
        self.pointer = context
    }

    deinit {
        var owned: UnsafeMutablePointer<AVFormatContext>? = pointer
        avformat_close_input(&owned)
    }

    /// Throws a clear error when `path` is missing, a folder, or cannot be opened for reading.
    static func checkReadableFile(_ path: String) throws(ReelError) {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw ReelError(.fileNotFound, "no such file", path: path)
        }
        if isDirectory.boolValue { throw ReelError(.notAFile, "is a folder, not a media file", path: path) }
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw ReelError(.unreadable, "permission denied", path: path)
        }
        if let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber, size.intValue == 0 {
            throw ReelError(.corruptData, "the file is empty", path: path)
        }
    }

    /// Whether the file starts like an MP4/MOV (an `ftyp`, `moov`, `mdat`, `free` or
    /// `wide` box), so that a failed open means a damaged file rather than another format.
    static func looksLikeISOBMFF(_ path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        guard let head = try? handle.read(upToCount: 8), head.count == 8 else { return false }
        let type = String(decoding: head.suffix(4), as: UTF8.self)
        return ["ftyp", "moov", "mdat", "free", "wide"].contains(type)
    }

    var streamCount: Int { Int(pointer.pointee.nb_streams) }

    /// The stream at `index` (`AVFormatContext.streams[index]`), owned by this context.
    func stream(_ index: Int) -> UnsafeMutablePointer<AVStream> {
        precondition(index >= 0 && index < streamCount, "stream index out of range")
        return pointer.pointee.streams[index]!
    }

    /// The container's short format name (`mov,mp4,m4a,3gp,3g2,mj2`, `mpegts`, ...).
    var formatName: String { String(cString: pointer.pointee.iformat.pointee.name) }

    /// Reads the next packet into `packet` (`av_read_frame`); false at end of file.
    func readPacket(into packet: Packet) throws(ReelError) -> Bool {
        let code = av_read_frame(pointer, packet.pointer)
        do {
            switch try ffState(code, "av_read_frame") {
            case .ok: return true
            case .endOfStream: return false
            case .again: return try readPacket(into: packet)
            }
        } catch {
            throw ReelError(.corruptData, "could not read a packet", path: path, underlying: error)
        }
    }

    /// Seeks so that the next packets of `streamIndex` start at or before `timestamp`
    /// (in the stream's time base), on a keyframe (`avformat_seek_file`).
    func seek(streamIndex: Int32, timestamp: Int64) throws(ReelError) {
        let code = avformat_seek_file(pointer, streamIndex, Int64.min, timestamp, timestamp, 0)
        try ffCheck(code, "avformat_seek_file") { ReelError(.corruptData, "could not seek", path: path, trackID: nil, underlying: $0) }
    }
}

/// Owns an `AVPacket` (`av_packet_alloc` / `av_packet_free`).
final class Packet {
    let pointer: UnsafeMutablePointer<AVPacket>

    init() {
        guard let p = av_packet_alloc() else { fatalError("av_packet_alloc: out of memory") }
        pointer = p
    }

    deinit {
        var owned: UnsafeMutablePointer<AVPacket>? = pointer
        av_packet_free(&owned)
    }

    /// Drops the payload, keeping the allocation (`av_packet_unref`).
    func unref() { av_packet_unref(pointer) }

    var streamIndex: Int32 { pointer.pointee.stream_index }
    var pts: Int64 { pointer.pointee.pts }
    var dts: Int64 { pointer.pointee.dts }
    var duration: Int64 { pointer.pointee.duration }
    var isKeyframe: Bool { pointer.pointee.flags & AV_PKT_FLAG_KEY != 0 }

    /// For the second field of a frame coded as two field pictures, the first field's
    /// presentation time, which is the frame's; nil for any other packet (``FieldPairing``).
    var secondFieldOf: Int64?
    /// Whether the packet is the first field of a frame coded as two field pictures.
    var isFirstField = false

    /// The presentation time of the frame the packet's picture is part of: the first
    /// field's for a second field, else its own.
    var framePTS: Int64 { secondFieldOf ?? pts }

    /// The packet's side data of `type` as UTF-8 text (WebVTT cue settings and
    /// identifiers); nil when it has none.
    func sideDataText(_ type: AVPacketSideDataType) -> String? {
        var size: Int = 0
        guard let bytes = av_packet_get_side_data(pointer, type, &size), size > 0 else { return nil }
        return String(decoding: UnsafeBufferPointer(start: bytes, count: size), as: UTF8.self)
    }

    /// Adds `text` as side data of `type` (`av_packet_new_side_data`, which the packet owns).
    func addSideData(_ type: AVPacketSideDataType, text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard let dst = av_packet_new_side_data(pointer, type, bytes.count) else { return false }
        dst.update(from: bytes, count: bytes.count)
        return true
    }

    /// A copy of the payload bytes.
    var data: Data {
        guard let d = pointer.pointee.data, pointer.pointee.size > 0 else { return Data() }
        return Data(bytes: d, count: Int(pointer.pointee.size))
    }
}

/// Owns an `AVFrame` (`av_frame_alloc` / `av_frame_free`).
final class Frame {
    let pointer: UnsafeMutablePointer<AVFrame>

    init() {
        guard let p = av_frame_alloc() else { fatalError("av_frame_alloc: out of memory") }
        pointer = p
    }

    deinit {
        var owned: UnsafeMutablePointer<AVFrame>? = pointer
        av_frame_free(&owned)
    }

    func unref() { av_frame_unref(pointer) }
}

extension AVMediaType {
    static let video = AVMEDIA_TYPE_VIDEO
}
