internal import CFFmpeg
import ReelCore

/// Owns a libswresample context (`swr_alloc_set_opts2` + `swr_init`; `deinit` calls
/// `swr_free`) that turns decoded audio frames into interleaved 32-bit float PCM at the
/// same rate and channel layout.
final class Resampler {
    private var context: OpaquePointer?
    let channelCount: Int
    let sampleRate: Int

    /// A converter for the frames a decoder with `codec` produces.
    init(decoder codec: UnsafeMutablePointer<AVCodecContext>) throws(FFmpegError) {
        var inLayout = codec.pointee.ch_layout
        var outLayout = codec.pointee.ch_layout
        let layout = inLayout
        if layout.nb_channels <= 0 { throw ffFailure(reel_averror_invaliddata(), "AVCodecContext.ch_layout") }
        var swr: OpaquePointer?
        let rate = codec.pointee.sample_rate
        let code = swr_alloc_set_opts2(&swr, &outLayout, AV_SAMPLE_FMT_FLT, rate, &inLayout, codec.pointee.sample_fmt, rate, 0, nil)
        try ffCheck(code, "swr_alloc_set_opts2")
        let initCode = swr_init(swr)
        if initCode < 0 {
            swr_free(&swr)
            throw ffFailure(initCode, "swr_init")
        }
        self.context = swr
        self.channelCount = Int(layout.nb_channels)
        self.sampleRate = Int(rate)
    }

    deinit { swr_free(&context) }

    /// The frame's samples as interleaved floats (`swr_convert`).
    func convert(_ frame: Frame) throws(FFmpegError) -> [Float] {
        let inCount = frame.pointer.pointee.nb_samples
        let capacity = Int(swr_get_out_samples(context, inCount))
        guard capacity > 0 else { return [] }
        var out = [Float](repeating: 0, count: capacity * channelCount)
        let produced = out.withUnsafeMutableBytes { raw -> Int32 in
            var planes: [UnsafeMutablePointer<UInt8>?] = [raw.baseAddress?.assumingMemoryBound(to: UInt8.self)]
            let input = frame.pointer.pointee.extended_data.map { UnsafeMutableRawPointer($0) }
            return planes.withUnsafeMutableBufferPointer { p in
                swr_convert(
                    context, p.baseAddress, Int32(capacity),
                    input?.assumingMemoryBound(to: UnsafePointer<UInt8>?.self), inCount)
            }
        }
        try ffCheck(produced, "swr_convert")
        out.removeLast(out.count - Int(produced) * channelCount)
        return out
    }
}
