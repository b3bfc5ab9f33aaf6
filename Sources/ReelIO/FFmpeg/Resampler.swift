internal import CFFmpeg
import ReelCore

/// The one owner of a libswresample context (`swr_alloc_set_opts2` + `swr_init`; `deinit`
/// calls `swr_free`): every conversion of sample format, rate or channel layout goes
/// through it. ``AudioConverter`` (float to float, any rate and channel count), the reader's
/// decoded frames to interleaved floats, and the writer's floats to an encoder's format
/// are each a Resampler with their own formats.
final class Resampler {
    private var context: OpaquePointer?
    /// The channel count and rate it converts to.
    let outputChannelCount: Int
    let outputSampleRate: Int

    /// A context from `inFormat` at `inRate` Hz in `inLayout` to `outFormat` at `outRate`
    /// Hz in `outLayout`.
    init(
        from inLayout: AVChannelLayout, _ inFormat: AVSampleFormat, _ inRate: Int32,
        to outLayout: AVChannelLayout, _ outFormat: AVSampleFormat, _ outRate: Int32
    ) throws(FFmpegError) {
        var inLayout = inLayout
        var outLayout = outLayout
        var swr: OpaquePointer?
        let code = swr_alloc_set_opts2(&swr, &outLayout, outFormat, outRate, &inLayout, inFormat, inRate, 0, nil)
        let initCode = code < 0 ? code : swr_init(swr)
        if initCode < 0 {
            swr_free(&swr)
            throw ffFailure(initCode, code < 0 ? "swr_alloc_set_opts2" : "swr_init")
        }
        context = swr
        outputChannelCount = Int(outLayout.nb_channels)
        outputSampleRate = Int(outRate)
    }

    deinit { swr_free(&context) }

    /// The most samples (per channel) a conversion of `inputCount` more can give
    /// (`swr_get_out_samples`).
    func outputCapacity(forInput inputCount: Int32) -> Int {
        Int(swr_get_out_samples(context, inputCount))
    }

    /// Converts `inputCount` samples per channel from `input`'s planes (nil to drain what
    /// the filter holds) into `output`'s, at most `outputCapacity`; returns how many it
    /// wrote (`swr_convert`).
    func convert(
        into output: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?, capacity outputCapacity: Int32,
        from input: UnsafeMutablePointer<UnsafePointer<UInt8>?>?, count inputCount: Int32
    ) throws(FFmpegError) -> Int32 {
        let produced = swr_convert(context, output, outputCapacity, input, inputCount)
        try ffCheck(produced, "swr_convert")
        return produced
    }

    /// Converts into a new buffer of interleaved floats (when that is the output format),
    /// sized by ``outputCapacity(forInput:)``; `input` nil drains the filter.
    func interleavedFloats(from input: UnsafeMutablePointer<UnsafePointer<UInt8>?>?, count inputCount: Int32) throws(FFmpegError) -> [Float] {
        let channelCount = outputChannelCount
        let capacity = outputCapacity(forInput: inputCount)
        guard capacity > 0 else { return [] }
        var out = [Float](repeating: 0, count: capacity * channelCount)
        let result = out.withUnsafeMutableBytes { raw in
            var planes: [UnsafeMutablePointer<UInt8>?] = [raw.baseAddress?.assumingMemoryBound(to: UInt8.self)]
            return planes.withUnsafeMutableBufferPointer { p in
                Result { () throws(FFmpegError) in try convert(into: p.baseAddress, capacity: Int32(capacity), from: input, count: inputCount) }
            }
        }
        let produced = try result.get()
        out.removeLast(out.count - Int(produced) * channelCount)
        return out
    }
}

extension Resampler {
    /// A converter for the frames a decoder with `codec` produces: interleaved 32-bit float
    /// PCM at the same rate and channel layout.
    convenience init(decoder codec: UnsafeMutablePointer<AVCodecContext>) throws(FFmpegError) {
        let layout = codec.pointee.ch_layout
        if layout.nb_channels <= 0 { throw ffFailure(reel_averror_invaliddata(), "AVCodecContext.ch_layout") }
        let rate = codec.pointee.sample_rate
        try self.init(from: layout, codec.pointee.sample_fmt, rate, to: layout, AV_SAMPLE_FMT_FLT, rate)
    }

    /// A decoded frame's samples as interleaved floats.
    func interleavedFloats(of frame: Frame) throws(FFmpegError) -> [Float] {
        let input = frame.pointer.pointee.extended_data.map { UnsafeMutableRawPointer($0) }
        return try interleavedFloats(from: input?.assumingMemoryBound(to: UnsafePointer<UInt8>?.self), count: frame.pointer.pointee.nb_samples)
    }
}
