internal import CFFmpeg
import Foundation
import ReelCaptions
import ReelCore

/// One output stream of a writer: turns appended media into packets for the muxer.
/// Made on the caller's thread before the header is written, then used only on the
/// writer thread.
protocol TrackWriter: AnyObject {
    var streamIndex: Int32 { get }
    /// Called once the header is written: the muxer may have changed the stream's time base.
    func headerWritten(_ output: OutputFormatContext)
    /// Gives out what the encoder still holds.
    func finish(_ output: OutputFormatContext) throws(ReelError)
}

/// Encodes `frame` (nil: the end) and hands the packets, in the stream's time base, to the muxer.
func encode(
    _ frame: Frame?, with encoder: Encoder, packet: Packet, streamIndex: Int32, streamTimeBase: AVRational,
    into output: OutputFormatContext
) throws(ReelError) {
    try encoder.encode(frame, into: packet, path: output.path) { (packet) throws(ReelError) in
        av_packet_rescale_ts(packet.pointer, encoder.timeBase, streamTimeBase)
        packet.pointer.pointee.stream_index = streamIndex
        try output.write(packet)
    }
}

/// Encodes pixel buffers with libx264/libx265/prores_ks/ffv1.
final class VideoTrackWriter: TrackWriter {
    let streamIndex: Int32
    private var encoder: Encoder
    /// Opens an encoder with the track's settings: once, and again at every keyframe when
    /// groups are coded independently.
    private let makeEncoder: () throws(ReelError) -> Encoder
    /// Frames per independently coded group (nil: one encoder for the whole track).
    private let groupLength: Int?
    private var framesWritten = 0
    private let scaler = Scaler()
    private let frame = Frame()
    private let packet = Packet()
    private var streamTimeBase: AVRational
    private var lastPTS = Int64.min
    /// The matrix and range of the coded samples, which the stream is tagged with.
    private let encoding: YCbCrEncoding

    init(_ settings: VideoEncoderSettings, output: OutputFormatContext) throws(ReelError) {
        guard settings.width > 0, settings.height > 0, settings.width <= 16384, settings.height <= 16384 else {
            throw ReelError(.invalidArgument, "video size \(settings.width)x\(settings.height) is out of range", path: output.path)
        }
        guard settings.timescale > 0, settings.frameDuration.isNumeric, settings.frameDuration > .zero else {
            throw ReelError(.invalidArgument, "the frame duration and timescale must be positive", path: output.path)
        }
        let codecFormat: AVPixelFormat
        switch settings.codec {
        case .proRes(let profile): codecFormat = profile == .p4444 ? AV_PIX_FMT_YUVA444P10LE : AV_PIX_FMT_YUV422P10LE
        case .ffv1: codecFormat = settings.pixelFormat.avPixelFormat
        case .h264, .hevc:
            guard settings.pixelFormat.isYUV else {
                throw ReelError(.invalidArgument, "H.264 and HEVC code YUV: use .yuv420p, .nv12 or .gray8", path: output.path)
            }
            switch settings.bitDepth {
            case 8: codecFormat = settings.pixelFormat.avPixelFormat
            case 10 where settings.pixelFormat == .yuv420p: codecFormat = AV_PIX_FMT_YUV420P10LE
            default:
                throw ReelError(
                    .invalidArgument, "\(settings.bitDepth)-bit \(settings.pixelFormat) is not coded: 8 bits, or 10 bits in .yuv420p",
                    path: output.path)
            }
        }
        guard settings.bitDepth == 8 || settings.codec == .h264 || settings.codec == .hevc else {
            throw ReelError(.invalidArgument, "bitDepth \(settings.bitDepth) applies to H.264 and HEVC only", path: output.path)
        }
        let globalHeader = output.wantsGlobalHeader
        let color = settings.colorProperties ?? ColorProperties()
        let encoding = color.encoding(width: settings.width, height: settings.height)
        self.encoding = encoding
        let rate = settings.frameDuration
        let path = output.path
        makeEncoder = { () throws(ReelError) -> Encoder in
            try Encoder(name: settings.codec.encoderName) { (ctx) throws(ReelError) in
                ctx.pointee.width = Int32(settings.width)
                ctx.pointee.height = Int32(settings.height)
                ctx.pointee.pix_fmt = codecFormat
                ctx.pointee.time_base = AVRational(num: 1, den: settings.timescale)
                ctx.pointee.framerate = AVRational(num: rate.timescale, den: Int32(clamping: rate.value))
                Self.tag(ctx, color, encoding)
                if let gop = settings.keyframeInterval { ctx.pointee.gop_size = Int32(clamping: gop) }
                if globalHeader { ctx.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER }
                switch settings.quality {
                case .crf(let crf)?:
                    guard settings.codec == .h264 || settings.codec == .hevc else {
                        throw ReelError(.invalidArgument, "crf applies to H.264 and HEVC only", path: path)
                    }
                    try Encoder.setOption(ctx, "crf", String(crf))
                case .bitRate(let rate)?: ctx.pointee.bit_rate = Int64(rate)
                case nil: break
                }
                if let preset = settings.preset { try Encoder.setOption(ctx, "preset", preset) }
                var options = settings.encoderOptions
                if settings.codec == .hevc { options["x265-params"] = Self.x265Parameters(options["x265-params"]) }
                if settings.codec == .h264 { options["x264-params"] = Self.x264Parameters(options["x264-params"]) }
                for key in options.keys.sorted() { try Encoder.setOption(ctx, key, options[key] ?? "") }
                if case .proRes(let profile) = settings.codec { ctx.pointee.profile = profile.rawValue }
            }
        }
        encoder = try makeEncoder()
        let isX26x = settings.codec == .h264 || settings.codec == .hevc
        groupLength = settings.codesGroupsIndependently && isX26x ? settings.keyframeInterval.flatMap { $0 > 1 ? $0 : nil } : nil
        let stream = try output.addStream()
        streamIndex = stream.pointee.index
        do { try encoder.copyParameters(to: stream) } catch {
            throw ReelError(.outputFailed, "could not describe the video stream", path: output.path, underlying: error)
        }
        // HEVC in MP4/MOV is `hvc1`, the sample entry Apple's players take (FFmpeg's muxer
        // says `hev1`): with a global header every parameter set is in the sample
        // description and none in the samples, which is what `hvc1` promises.
        if settings.codec == .hevc, globalHeader, output.family == .quickTime {
            stream.pointee.codecpar.pointee.codec_tag = fourCCTag("hvc1") ?? 0
        }
        stream.pointee.time_base = encoder.timeBase
        stream.pointee.avg_frame_rate = encoder.pointer.pointee.framerate
        streamTimeBase = encoder.timeBase
    }

    /// Tags the encoder with `encoding` (its matrix and range) and `color`'s primaries and
    /// transfer function when FFmpeg knows their names, else those that go with the matrix.
    private static func tag(_ ctx: UnsafeMutablePointer<AVCodecContext>, _ color: ColorProperties, _ encoding: YCbCrEncoding) {
        ctx.pointee.colorspace = encoding.matrix.avColorSpace
        ctx.pointee.color_range = encoding.fullRange ? AVCOL_RANGE_JPEG : AVCOL_RANGE_MPEG
        let primaries = color.primaries.map { av_color_primaries_from_name($0) } ?? -1
        let transfer = color.transferFunction.map { av_color_transfer_from_name($0) } ?? -1
        ctx.pointee.color_primaries = primaries >= 0 ? AVColorPrimaries(rawValue: UInt32(primaries)) : encoding.matrix.avPrimaries
        ctx.pointee.color_trc = transfer >= 0 ? AVColorTransferCharacteristic(rawValue: UInt32(transfer)) : encoding.matrix.avTransfer
    }

    /// libx264's parameters: the caller's, and on a processor with AVX-512, x264's code for
    /// AVX2 and below (`asm=AVX2`) unless the caller chose.
    ///
    /// libx264 0.164's AVX-512 code reads memory it has not written when the macroblock
    /// tree and B-frames are on: the same input coded twice gives other pictures whenever
    /// the allocator hands out other memory (the ffmpeg CLI too, under glibc's
    /// `MALLOC_PERTURB_`; Valgrind, which has no AVX-512, sees nothing). In a render, other
    /// threads' allocations move that memory from run to run, so renders, and pieces coded
    /// apart, would not decode to the same frames. Without AVX-512 every run is the same;
    /// x264 then runs as fast within measurement noise (a 10 s 1080p `veryfast` encode:
    /// 10.4-10.7 s with it, 9.9-11.2 s without) and writes a file of the same size.
    static func x264Parameters(_ caller: String?, processorHasAVX512: Bool = VideoTrackWriter.processorHasAVX512) -> String? {
        let callerChose = caller?.split(separator: ":").contains { $0.hasPrefix("asm=") || $0.hasPrefix("no-asm") } ?? false
        let asm = processorHasAVX512 && !callerChose ? "asm=AVX2" : nil
        let joined = [caller, asm].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: ":")
        return joined.isEmpty ? nil : joined
    }

    /// Whether FFmpeg finds AVX-512 on this processor (`av_get_cpu_flags`), as x264 does.
    static let processorHasAVX512 = reel_cpu_has_avx512() != 0

    /// libx265's parameters: quiet logging, then the caller's (later ones win). One string,
    /// because each `av_opt_set` of `x265-params` replaces the one before.
    static func x265Parameters(_ caller: String?) -> String {
        ["log-level=error", caller].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: ":")
    }

    func headerWritten(_ output: OutputFormatContext) {
        streamTimeBase = output.stream(Int(streamIndex)).pointee.time_base
    }

    /// Encodes `buffer` at `time` (relative to the session start): its own planes when it
    /// has the encoder's format, size and Y'CbCr encoding, else converted into an encoder
    /// frame by libswscale.
    func write(_ buffer: PixelBuffer, at time: MediaTime, into output: OutputFormatContext) throws(ReelError) {
        guard let pts = time.ffmpegTimestamp(in: encoder.timeBase), pts > lastPTS else {
            throw ReelError(
                .invalidArgument, "frame time \(time.secondsDescription) does not come after the previous frame in the 1/\(encoder.timeBase.den) time base",
                path: output.path, time: time)
        }
        lastPTS = pts
        if let groupLength, framesWritten > 0, framesWritten % groupLength == 0 {
            // A keyframe: the group before it is finished and the next starts afresh.
            try finish(output)
            encoder = try makeEncoder()
        }
        framesWritten += 1
        let e = encoder.pointer.pointee
        let borrowed =
            buffer.format.avPixelFormat == e.pix_fmt && buffer.width == Int(e.width) && buffer.height == Int(e.height)
            && (!buffer.format.isYUV || buffer.ycbcrEncoding == encoding)
        if borrowed {
            // The encoder reads the buffer's own planes: no copy.
            guard frame.reference(buffer) else {
                throw ReelError(.encoderFailed, "out of memory for a frame", path: output.path)
            }
        } else {
            // A frame of the encoder's own, reused when the encoder no longer holds it.
            if av_frame_is_writable(frame.pointer) == 0 {
                frame.unref()
                frame.pointer.pointee.format = e.pix_fmt.rawValue
                frame.pointer.pointee.width = e.width
                frame.pointer.pointee.height = e.height
                let code = av_frame_get_buffer(frame.pointer, 0)
                try ffCheck(code, "av_frame_get_buffer") { ReelError(.encoderFailed, "out of memory for a frame", path: output.path, underlying: $0) }
            }
            try scaler.convert(buffer, into: frame, as: encoding)
        }
        // The encoder takes a reference of its own: a borrowed buffer is let go once sent,
        // not kept until the next frame comes.
        defer { if borrowed { frame.unref() } }
        frame.pointer.pointee.pts = pts
        try encode(frame, with: encoder, packet: packet, streamIndex: streamIndex, streamTimeBase: streamTimeBase, into: output)
    }

    func finish(_ output: OutputFormatContext) throws(ReelError) {
        try encode(nil, with: encoder, packet: packet, streamIndex: streamIndex, streamTimeBase: streamTimeBase, into: output)
    }
}

/// Encodes interleaved float PCM to AAC, ALAC or integer PCM: libswresample (`swr_convert`)
/// turns the floats into the encoder's sample format (planar float for AAC, planar 16-bit
/// for ALAC, 16-bit or 32-bit interleaved integers for `pcm_s16le`/`pcm_s24le`), in frames
/// of the encoder's size (4096 for ALAC). The PCM encoders take any size: they get 20 ms frames where the rate allows
/// (960 samples at 48 kHz), so that every packet starts on a whole millisecond, which is
/// as fine as Matroska's timestamps go; else 1024 samples.
final class AudioTrackWriter: TrackWriter {
    let streamIndex: Int32
    private let encoder: Encoder
    /// From interleaved float to the encoder's format, at the same rate.
    private let converter: Resampler
    private let frame = Frame()
    private let packet = Packet()
    private var streamTimeBase: AVRational
    private let channels: Int
    private let frameSize: Int
    /// Interleaved samples waiting for a full frame.
    private var fifo: [Float] = []
    private var nextPTS: Int64?
    /// Which packets are written, and the encoder's packets so far.
    private let window: AudioPacketWindow?
    private var packetsOut = 0

    init(_ settings: AudioEncoderSettings, output: OutputFormatContext) throws(ReelError) {
        guard (1...8).contains(settings.channelCount), (8000...192_000).contains(settings.sampleRate) else {
            throw ReelError(.invalidArgument, "audio of \(settings.channelCount) channels at \(settings.sampleRate) Hz is out of range", path: output.path)
        }
        let globalHeader = output.wantsGlobalHeader
        let sampleFormat: AVSampleFormat
        switch settings.codec {
        case .aac: sampleFormat = AV_SAMPLE_FMT_FLTP
        case .pcm16: sampleFormat = AV_SAMPLE_FMT_S16
        // pcm_s24le takes 32-bit samples and keeps their top 24 bits.
        case .pcm24: sampleFormat = AV_SAMPLE_FMT_S32
        // 16-bit ALAC: planar 16-bit samples.
        case .alac: sampleFormat = AV_SAMPLE_FMT_S16P
        }
        encoder = try Encoder(name: settings.codec.encoderName) { (ctx) throws(ReelError) in
            ctx.pointee.sample_fmt = sampleFormat
            ctx.pointee.sample_rate = Int32(settings.sampleRate)
            av_channel_layout_default(&ctx.pointee.ch_layout, Int32(settings.channelCount))
            if settings.codec == .aac { ctx.pointee.bit_rate = Int64(settings.bitRate) }
            if settings.codec == .pcm24 { ctx.pointee.bits_per_raw_sample = 24 }
            ctx.pointee.time_base = AVRational(num: 1, den: Int32(settings.sampleRate))
            if globalHeader { ctx.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER }
        }
        let layout = encoder.pointer.pointee.ch_layout
        let rate = Int32(settings.sampleRate)
        do { converter = try Resampler(from: layout, AV_SAMPLE_FMT_FLT, rate, to: layout, sampleFormat, rate) } catch {
            throw ReelError(
                .encoderFailed, "libswresample cannot convert float samples for the \(settings.codec.encoderName) encoder", path: output.path,
                underlying: error)
        }
        channels = settings.channelCount
        let size = Int(encoder.pointer.pointee.frame_size)
        frameSize = size > 0 ? size : (settings.sampleRate % 50 == 0 ? settings.sampleRate / 50 : 1024)
        let stream = try output.addStream()
        streamIndex = stream.pointee.index
        do { try encoder.copyParameters(to: stream) } catch {
            throw ReelError(.outputFailed, "could not describe the audio stream", path: output.path, underlying: error)
        }
        stream.pointee.time_base = encoder.timeBase
        streamTimeBase = encoder.timeBase
        window = settings.packetWindow
    }

    func headerWritten(_ output: OutputFormatContext) {
        streamTimeBase = output.stream(Int(streamIndex)).pointee.time_base
    }

    /// Encodes `audio`, which starts at `time` (from the session start). Audio before the
    /// session start is dropped, unless a packet window asks for a pre-roll.
    func write(_ audio: DecodedAudio, at time: MediaTime, into output: OutputFormatContext) throws(ReelError) {
        if time < .zero && window == nil { return }
        if nextPTS == nil { nextPTS = time.ffmpegTimestamp(in: encoder.timeBase) ?? 0 }
        fifo += audio.samples.prefix(audio.frameCount * channels)
        while fifo.count >= frameSize * channels { try emit(frameSize, into: output) }
    }

    private func emit(_ count: Int, into output: OutputFormatContext) throws(ReelError) {
        frame.unref()
        frame.pointer.pointee.nb_samples = Int32(count)
        frame.pointer.pointee.format = encoder.pointer.pointee.sample_fmt.rawValue
        frame.pointer.pointee.sample_rate = encoder.pointer.pointee.sample_rate
        av_channel_layout_copy(&frame.pointer.pointee.ch_layout, &encoder.pointer.pointee.ch_layout)
        let code = av_frame_get_buffer(frame.pointer, 0)
        try ffCheck(code, "av_frame_get_buffer") { ReelError(.encoderFailed, "out of memory for an audio frame", path: output.path, underlying: $0) }
        let converted = fifo.withUnsafeBytes { src in
            var planes: [UnsafePointer<UInt8>?] = [src.bindMemory(to: UInt8.self).baseAddress]
            return planes.withUnsafeMutableBufferPointer { p in
                Result { () throws(FFmpegError) in
                    try converter.convert(into: frame.pointer.pointee.extended_data, capacity: Int32(count), from: p.baseAddress, count: Int32(count))
                }
            }
        }
        let done: Int32
        do { done = try converted.get() } catch {
            throw ReelError(.encoderFailed, "libswresample could not convert \(count) audio samples", path: output.path, underlying: error)
        }
        guard done == Int32(count) else {
            throw ReelError(.encoderFailed, "libswresample converted \(done) of \(count) audio samples", path: output.path)
        }
        fifo.removeFirst(count * channels)
        frame.pointer.pointee.pts = nextPTS ?? 0
        nextPTS = (nextPTS ?? 0) + Int64(count)
        try encode(frame, into: output)
    }

    func finish(_ output: OutputFormatContext) throws(ReelError) {
        if !fifo.isEmpty { try emit(fifo.count / channels, into: output) }
        try encode(nil, into: output)
    }

    /// Encodes `frame` (nil: the end) and writes the packets the window keeps.
    private func encode(_ frame: Frame?, into output: OutputFormatContext) throws(ReelError) {
        guard let window else {
            return try ReelIO.encode(frame, with: encoder, packet: packet, streamIndex: streamIndex, streamTimeBase: streamTimeBase, into: output)
        }
        try encoder.encode(frame, into: packet, path: output.path) { (packet) throws(ReelError) in
            let index = packetsOut
            packetsOut += 1
            guard index >= window.firstPacket, window.packetCount.map({ index < window.firstPacket + $0 }) ?? true else { return }
            av_packet_rescale_ts(packet.pointer, encoder.timeBase, streamTimeBase)
            packet.pointer.pointee.stream_index = streamIndex
            try output.write(packet)
        }
    }
}

/// Writes samples' bytes unchanged: timed metadata (gpmd, KLV) and passthrough packets.
final class PacketTrackWriter: TrackWriter {
    let streamIndex: Int32
    private var streamTimeBase: AVRational
    private let packet = Packet()
    private var lastDTS = Int64.min
    /// Whether packets are copied from another file: they keep their decode times and
    /// keyframe flags. Metadata samples are all keyframes, decoded when presented.
    private let copiesPackets: Bool
    /// Whether two packets may share a decode time: caption cues copied into Matroska,
    /// which holds cues that start together (ASS events on separate layers or lines).
    private var allowsEqualDecodeTimes = false

    /// A `gpmd` track (MP4/MOV): BIN_DATA, tag `gpmd`, time base 1/1000, handler "GoPro MET".
    /// A `klv` track (MPEG-TS): SMPTE_KLV in private-data PES with a KLVA registration and a
    /// time stamp on every packet, 1/90000. Not the synchronous form (stream type 0x15):
    /// FFmpeg 5.1's muxer writes its packets without the 5-byte metadata AU cell header its
    /// demuxer then strips, so each packet would lose its first five bytes.
    init(metadataFormat format: MetadataFormat, output: OutputFormatContext) throws(ReelError) {
        let stream = try output.addStream()
        let par = stream.pointee.codecpar!
        par.pointee.codec_type = AVMEDIA_TYPE_DATA
        switch format {
        case .gpmd:
            par.pointee.codec_id = AV_CODEC_ID_BIN_DATA
            par.pointee.codec_tag = fourCCTag(format.rawValue) ?? 0
            stream.pointee.time_base = AVRational(num: 1, den: 1000)
            av_dict_set(&stream.pointee.metadata, "handler_name", "GoPro MET", 0)
        case .klv:
            par.pointee.codec_id = AV_CODEC_ID_SMPTE_KLV
            stream.pointee.time_base = AVRational(num: 1, den: 90000)
        default:
            throw ReelError(.invalidArgument, "no writer for \(format) metadata", path: output.path)
        }
        streamIndex = stream.pointee.index
        streamTimeBase = stream.pointee.time_base
        copiesPackets = false
    }

    /// A caption track, time base 1/1000: 3GPP timed text (mov_text) with Reel's sample
    /// entry (``CaptionSample/movTextSampleEntry``) as its extradata, or SubRip or WebVTT.
    init(captionFormat format: CaptionFormat, output: OutputFormatContext) throws(ReelError) {
        let stream = try output.addStream()
        let par = stream.pointee.codecpar!
        par.pointee.codec_type = AVMEDIA_TYPE_SUBTITLE
        switch format {
        case .movText:
            par.pointee.codec_id = AV_CODEC_ID_MOV_TEXT
            // `tx3g` in MOV too: FFmpeg's MOV muxer would otherwise tag it `text`, the older
            // QuickTime text format, whose sample description is laid out differently.
            par.pointee.codec_tag = fourCCTag("tx3g") ?? 0
            let entry = CaptionSample.movTextSampleEntry
            guard let extradata = av_mallocz(entry.count + Int(AV_INPUT_BUFFER_PADDING_SIZE))?.assumingMemoryBound(to: UInt8.self) else {
                throw ReelError(.outputFailed, "out of memory for the caption track's sample description", path: output.path)
            }
            entry.withUnsafeBytes { extradata.update(from: $0.bindMemory(to: UInt8.self).baseAddress!, count: entry.count) }
            // The stream's codec parameters own the block from here (avcodec_parameters_free frees it).
            par.pointee.extradata = extradata
            par.pointee.extradata_size = Int32(entry.count)
        case .srt: par.pointee.codec_id = AV_CODEC_ID_SUBRIP
        case .webVTT: par.pointee.codec_id = AV_CODEC_ID_WEBVTT
        case .itt, .scc: throw ReelError(.invalidArgument, "\(format) captions are files, not tracks", path: output.path)
        }
        stream.pointee.time_base = AVRational(num: 1, den: 1000)
        streamIndex = stream.pointee.index
        streamTimeBase = stream.pointee.time_base
        copiesPackets = false
    }

    /// A copy of a reader's track: its codec parameters, its packets as they are.
    init(passthrough description: FormatDescription, output: OutputFormatContext) throws(ReelError) {
        let stream = try output.addStream()
        let code = avcodec_parameters_copy(stream.pointee.codecpar, description.parameters.pointer)
        try ffCheck(code, "avcodec_parameters_copy") {
            ReelError(.outputFailed, "could not copy the track's codec parameters", path: output.path, underlying: $0)
        }
        // The source container's tag may mean nothing in this one: let the muxer choose;
        // but a 3GPP text track stays `tx3g` (FFmpeg's MOV muxer would say `text`, QuickTime
        // text, whose sample description is laid out differently), and an HEVC track `hev1`
        // (its samples carry parameter sets the sample description does not).
        let tag = stream.pointee.codecpar.pointee.codec_tag
        let keepsTag =
            (description.codecName == "mov_text" && tag == fourCCTag("tx3g")) || (description.codecName == "hevc" && tag == fourCCTag("hev1"))
        stream.pointee.codecpar.pointee.codec_tag = keepsTag ? tag : 0
        stream.pointee.time_base = description.parameters.timeBase
        // The muxer counts a timecode track at it, and players show it.
        stream.pointee.avg_frame_rate = description.parameters.frameRate
        streamIndex = stream.pointee.index
        streamTimeBase = stream.pointee.time_base
        copiesPackets = true
        allowsEqualDecodeTimes = description.isCaptionFormat && output.allowsNonStrictTimestamps
    }

    func headerWritten(_ output: OutputFormatContext) {
        streamTimeBase = output.stream(Int(streamIndex)).pointee.time_base
    }

    func write(_ sample: SampleBuffer, at time: MediaTime, into output: OutputFormatContext) throws(ReelError) {
        let decodeTime = copiesPackets && sample.decodeTime.isNumeric ? sample.decodeTime : time
        guard let ts = time.ffmpegTimestamp(in: streamTimeBase), let dts = decodeTime.ffmpegTimestamp(in: streamTimeBase),
            dts > lastDTS || (allowsEqualDecodeTimes && dts == lastDTS)
        else {
            throw ReelError(
                .invalidArgument, "sample time \(decodeTime.secondsDescription) does not come after the previous sample in the track's time base",
                path: output.path, time: time)
        }
        guard sample.data.count <= Int(Int32.max) - 64 else {
            throw ReelError(.invalidArgument, "a sample of \(sample.data.count) bytes is too large", path: output.path, time: time)
        }
        lastDTS = dts
        packet.unref()
        let code = av_new_packet(packet.pointer, Int32(sample.data.count))
        try ffCheck(code, "av_new_packet") { ReelError(.outputFailed, "out of memory for a packet", path: output.path, underlying: $0) }
        if !sample.data.isEmpty, let dst = packet.pointer.pointee.data {
            sample.data.withUnsafeBytes { src in dst.update(from: src.bindMemory(to: UInt8.self).baseAddress!, count: sample.data.count) }
        }
        for (type, text) in [(AV_PKT_DATA_WEBVTT_SETTINGS, sample.cueSettings), (AV_PKT_DATA_WEBVTT_IDENTIFIER, sample.cueIdentifier)] {
            guard let text, !text.isEmpty else { continue }
            guard packet.addSideData(type, text: text) else {
                throw ReelError(.outputFailed, "out of memory for a cue's settings", path: output.path, time: time)
            }
        }
        packet.pointer.pointee.pts = ts
        packet.pointer.pointee.dts = dts
        if sample.duration.isNumeric, let d = sample.duration.ffmpegTimestamp(in: streamTimeBase), d > 0 {
            packet.pointer.pointee.duration = d
        }
        if !copiesPackets || sample.isSync { packet.pointer.pointee.flags |= AV_PKT_FLAG_KEY }
        packet.pointer.pointee.stream_index = streamIndex
        try output.write(packet)
    }

    func finish(_ output: OutputFormatContext) throws(ReelError) {}
}
