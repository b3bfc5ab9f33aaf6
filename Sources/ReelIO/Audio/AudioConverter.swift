internal import CFFmpeg
import ReelCore

/// Converts interleaved 32-bit float PCM between sample rates and channel counts with
/// libswresample (`swr_alloc_set_opts2` + `swr_init`; `deinit` calls `swr_free`).
///
/// Channels map through FFmpeg's default layout for each count (mono, stereo, 5.1, ...)
/// and libswresample's standard rematrixing. The output is aligned with the input: the
/// first output sample plays when the first input sample does, and ``flush()`` gives what
/// the filter still holds at the end. Not thread-safe: one converter per stream of audio.
public final class AudioConverter {
    private let resampler: Resampler
    public let inputSampleRate: Int
    public let inputChannelCount: Int
    public let outputSampleRate: Int
    public let outputChannelCount: Int

    /// A converter from `inputSampleRate` Hz, `inputChannelCount` channels to
    /// `outputSampleRate` Hz, `outputChannelCount` channels. Rates are 1 Hz to 2^31-1 Hz
    /// (any ratio, so a stretch of audio can be resampled to another duration); channel
    /// counts 1 to 64.
    public init(inputSampleRate: Int, inputChannelCount: Int, outputSampleRate: Int, outputChannelCount: Int) throws(ReelError) {
        guard (1...Int(Int32.max)).contains(inputSampleRate), (1...Int(Int32.max)).contains(outputSampleRate),
            (1...64).contains(inputChannelCount), (1...64).contains(outputChannelCount)
        else {
            throw ReelError(
                .invalidArgument,
                "cannot convert \(inputChannelCount) channels at \(inputSampleRate) Hz to \(outputChannelCount) channels at \(outputSampleRate) Hz")
        }
        var inLayout = AVChannelLayout()
        var outLayout = AVChannelLayout()
        av_channel_layout_default(&inLayout, Int32(inputChannelCount))
        av_channel_layout_default(&outLayout, Int32(outputChannelCount))
        defer {
            av_channel_layout_uninit(&inLayout)
            av_channel_layout_uninit(&outLayout)
        }
        do {
            resampler = try Resampler(
                from: inLayout, AV_SAMPLE_FMT_FLT, Int32(inputSampleRate), to: outLayout, AV_SAMPLE_FMT_FLT, Int32(outputSampleRate))
        } catch {
            throw ReelError(
                .unsupportedFormat,
                "libswresample cannot convert \(inputChannelCount) channels at \(inputSampleRate) Hz to \(outputChannelCount) channels at \(outputSampleRate) Hz",
                underlying: error)
        }
        self.inputSampleRate = inputSampleRate
        self.inputChannelCount = inputChannelCount
        self.outputSampleRate = outputSampleRate
        self.outputChannelCount = outputChannelCount
    }

    /// Converts `samples` (interleaved, a whole number of input frames); returns what is
    /// ready, which may be less than the whole (`swr_convert`).
    public func convert(_ samples: [Float]) throws(ReelError) -> [Float] {
        let frames = samples.count / inputChannelCount
        guard frames > 0 else { return [] }
        let result = samples.withUnsafeBytes { raw in Result { () throws(ReelError) in try run(input: raw.baseAddress, frames: frames) } }
        return try result.get()
    }

    /// What the converter still holds, once the input has ended (`swr_convert` with no input).
    public func flush() throws(ReelError) -> [Float] {
        try run(input: nil, frames: 0)
    }

    private func run(input: UnsafeRawPointer?, frames: Int) throws(ReelError) -> [Float] {
        var planes: [UnsafePointer<UInt8>?] = [input?.assumingMemoryBound(to: UInt8.self)]
        let result = planes.withUnsafeMutableBufferPointer { i in
            Result { () throws(FFmpegError) in try resampler.interleavedFloats(from: input == nil ? nil : i.baseAddress, count: Int32(clamping: frames)) }
        }
        do { return try result.get() } catch { throw ReelError(.internalError, "libswresample failed", underlying: error) }
    }
}
