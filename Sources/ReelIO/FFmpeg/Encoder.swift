internal import CFFmpeg
import ReelCore

/// Owns an opened encoder (`AVCodecContext` from `avcodec_alloc_context3` +
/// `avcodec_open2`); `deinit` frees it with `avcodec_free_context`.
///
/// The caller fills the context's fields in `configure` before it is opened. Uses
/// FFmpeg's own threading (`thread_count = 0`). Not thread-safe: the writer thread
/// alone drives it.
final class Encoder {
    let pointer: UnsafeMutablePointer<AVCodecContext>
    let name: String

    /// Finds encoder `name` (`libx264`, `prores_ks`, `aac`, ...), lets `configure` set its
    /// fields and private options, and opens it.
    init(name: String, configure: (UnsafeMutablePointer<AVCodecContext>) throws(ReelError) -> Void) throws(ReelError) {
        guard let codec = avcodec_find_encoder_by_name(name) else {
            throw ReelError(.encoderFailed, "this FFmpeg has no \(name) encoder")
        }
        guard let context = avcodec_alloc_context3(codec) else {
            throw ReelError(.encoderFailed, "out of memory for the \(name) encoder")
        }
        var owned: UnsafeMutablePointer<AVCodecContext>? = context
        do throws(ReelError) {
            context.pointee.thread_count = 0
            try configure(context)
            let code = avcodec_open2(context, codec, nil)
            try ffCheck(code, "avcodec_open2") { ReelError(.encoderFailed, "could not open the \(name) encoder with these settings", underlying: $0) }
        } catch {
            avcodec_free_context(&owned)
            throw error
        }
        self.pointer = context
        self.name = name
    }

    deinit {
        var owned: UnsafeMutablePointer<AVCodecContext>? = pointer
        avcodec_free_context(&owned)
    }

    /// Whether FFmpeg has an encoder called `name`.
    static func exists(_ name: String) -> Bool { avcodec_find_encoder_by_name(name) != nil }

    var timeBase: AVRational { pointer.pointee.time_base }

    /// Sets a private option of the encoder (`av_opt_set` on `priv_data`).
    static func setOption(_ context: UnsafeMutablePointer<AVCodecContext>, _ key: String, _ value: String) throws(ReelError) {
        let code = av_opt_set(context.pointee.priv_data, key, value, 0)
        try ffCheck(code, "av_opt_set") { ReelError(.invalidArgument, "the encoder does not accept \(key)=\(value)", underlying: $0) }
    }

    /// Feeds a frame, or nil to drain (`avcodec_send_frame`).
    func send(_ frame: Frame?) throws(FFmpegError) -> FFmpegState {
        try ffState(avcodec_send_frame(pointer, frame?.pointer), "avcodec_send_frame")
    }

    /// Takes the next packet (`avcodec_receive_packet`): `.again` feed more, `.endOfStream` drained.
    func receive(into packet: Packet) throws(FFmpegError) -> FFmpegState {
        try ffState(avcodec_receive_packet(pointer, packet.pointer), "avcodec_receive_packet")
    }

    /// Sends `frame` (nil: the end of the stream) and hands every packet the encoder gives
    /// to `write`, in the encoder's time base; `path` names the output in errors. When the
    /// encoder answers `EAGAIN`, its packets are taken and the frame is sent again.
    func encode(_ frame: Frame?, into packet: Packet, path: String, write: (Packet) throws(ReelError) -> Void) throws(ReelError) {
        _ = try CodecExchange.feed(
            send: { () throws(ReelError) -> FFmpegState in
                do { return try send(frame) } catch {
                    throw ReelError(.encoderFailed, "the \(name) encoder refused a frame", path: path, underlying: error)
                }
            },
            receive: { () throws(ReelError) -> FFmpegState in
                do { return try receive(into: packet) } catch {
                    throw ReelError(.encoderFailed, "the \(name) encoder failed", path: path, underlying: error)
                }
            },
            take: { () throws(ReelError) -> Bool in
                try write(packet)
                return true
            },
            stuck: { ReelError(.encoderFailed, "the \(name) encoder took no frame and gave no packet", path: path) })
    }

    /// Copies the opened encoder's parameters to the output stream.
    func copyParameters(to stream: UnsafeMutablePointer<AVStream>) throws(FFmpegError) {
        try ffCheck(avcodec_parameters_from_context(stream.pointee.codecpar, pointer), "avcodec_parameters_from_context")
    }
}
