internal import CFFmpeg
import Foundation
import ReelCore

/// Owns an opened decoder (`AVCodecContext` from `avcodec_alloc_context3` +
/// `avcodec_open2`); `deinit` frees it with `avcodec_free_context`.
///
/// Uses FFmpeg's own frame and slice threading, one thread per core by default
/// (``defaultThreadCount``). Not thread-safe: one reader thread drives it.
final class Decoder {
    /// One thread per core the process may run on. FFmpeg's own choice (`thread_count = 0`)
    /// is one more than the cores, to keep them busy through a thread's stalls, but every
    /// frame thread holds a picture: a video decoder always shares the cores with an
    /// encoder, a compositor or a second decoder, so the extra thread adds a frame in
    /// memory and no speed (a 1080p transcode: 8 MB less at the peak, the same time).
    static let defaultThreadCount = Int32(clamping: max(1, ProcessInfo.processInfo.activeProcessorCount))
    /// For a reader that seeks (a player's, a preview's): two more than the cores. A seek
    /// decodes a chain of pictures, each referring to the ones before, and a frame thread
    /// waits for the rows its picture refers to; the extra threads keep the cores busy
    /// through those waits. Over 200 random seeks of a 1080p H.264 clip (40 Mbit/s, 1 s
    /// groups of pictures) on two cores, a fourth thread took the mean time from a seek's
    /// request to its frame from 226 to 221 ms and from 203 to 190 in two rounds, and the
    /// 95th percentile from 431 to 410 and from 412 to 377 (a third thread, against two,
    /// had taken about 10 ms off the median); each thread holds one more picture a reader.
    static let seekingThreadCount = defaultThreadCount + 2

    let pointer: UnsafeMutablePointer<AVCodecContext>
    /// The time base of the packets fed in and of the frames' timestamps.
    let timeBase: AVRational
    /// The decoder's short name (`h264`, `aac`, ...).
    let name: String

    /// Opens a decoder for the stream parameters `parameters` whose packets are timed in
    /// `timeBase` (`avcodec_find_decoder`, `avcodec_parameters_to_context`, `avcodec_open2`).
    init(parameters: UnsafePointer<AVCodecParameters>, timeBase: AVRational, threadCount: Int32 = Decoder.defaultThreadCount) throws(FFmpegError) {
        guard let codec = avcodec_find_decoder(parameters.pointee.codec_id) else {
            throw ffFailure(reel_averror_decoder_not_found(), "avcodec_find_decoder")
        }
        guard let context = avcodec_alloc_context3(codec) else {
            throw ffFailure(reel_averror(ENOMEM), "avcodec_alloc_context3")
        }
        var owned: UnsafeMutablePointer<AVCodecContext>? = context
        do {
            try ffCheck(avcodec_parameters_to_context(context, parameters), "avcodec_parameters_to_context")
            context.pointee.pkt_timebase = timeBase
            context.pointee.thread_count = threadCount
            // Frame threading where the codec has it, else slices.
            context.pointee.thread_type = FF_THREAD_FRAME | FF_THREAD_SLICE
            try ffCheck(avcodec_open2(context, codec, nil), "avcodec_open2")
        } catch {
            avcodec_free_context(&owned)
            throw error
        }
        self.pointer = context
        self.timeBase = timeBase
        self.name = String(cString: codec.pointee.name)
    }

    deinit {
        var owned: UnsafeMutablePointer<AVCodecContext>? = pointer
        avcodec_free_context(&owned)
    }

    /// Feeds one packet (`avcodec_send_packet`). `.again` means frames must be received
    /// first; `.endOfStream` that the decoder was already drained.
    func send(_ packet: Packet) throws(FFmpegError) -> FFmpegState {
        try ffState(avcodec_send_packet(pointer, packet.pointer), "avcodec_send_packet")
    }

    /// Tells the decoder no more packets come, so it gives out what it holds.
    func sendEndOfStream() throws(FFmpegError) -> FFmpegState {
        try ffState(avcodec_send_packet(pointer, nil), "avcodec_send_packet")
    }

    /// Takes the next decoded frame into `frame` (`avcodec_receive_frame`). `.again`: feed
    /// more packets; `.endOfStream`: drained.
    func receive(into frame: Frame) throws(FFmpegError) -> FFmpegState {
        try ffState(avcodec_receive_frame(pointer, frame.pointer), "avcodec_receive_frame")
    }

    /// Drops everything buffered, for a seek (`avcodec_flush_buffers`).
    func flush() { avcodec_flush_buffers(pointer) }

    /// Whether the packets fed from now on that hold pictures no other picture refers to
    /// are dropped undecoded (`skip_frame` = `AVDISCARD_NONREF`): for the frames decoded
    /// after a seek only to reach the one asked for. Frame threads take the setting with
    /// each packet.
    var skipsNonReferenceFrames: Bool {
        get { pointer.pointee.skip_frame == AVDISCARD_NONREF }
        set { pointer.pointee.skip_frame = newValue ? AVDISCARD_NONREF : AVDISCARD_DEFAULT }
    }
}
