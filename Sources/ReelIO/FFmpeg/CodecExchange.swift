/// libavcodec's send/receive exchange for one input, the same for decoding
/// (`avcodec_send_packet`, `avcodec_receive_frame`) and encoding (`avcodec_send_frame`,
/// `avcodec_receive_packet`).
///
/// A codec that answers `EAGAIN` to a send holds output that must be taken first: the
/// exchange takes it, then sends the same input again, so no input is lost. `EAGAIN` from
/// a receive means the codec wants more input; `EOF`, that it is drained.
enum CodecExchange {
    /// Sends one input (`send`), then receives (`receive`) and hands on (`take`) every
    /// output ready. Returns false when `take` asked to stop, true otherwise.
    ///
    /// - Parameters:
    ///   - send: sends the input (nil to drain, for the caller); `.again` means "take my
    ///     output first".
    ///   - receive: receives the next output into the caller's frame or packet.
    ///   - take: uses the output just received; false to stop.
    ///   - stuck: the error when the codec refuses the input yet gives no output, which
    ///     would otherwise loop for ever.
    static func feed<E: Error>(
        send: () throws(E) -> FFmpegState, receive: () throws(E) -> FFmpegState,
        take: () throws(E) -> Bool, stuck: () -> E
    ) throws(E) -> Bool {
        while true {
            let sent = try send() != .again
            var received = false
            while try receive() == .ok {
                received = true
                if try !take() { return false }
            }
            if sent { return true }
            if !received { throw stuck() }
        }
    }
}
