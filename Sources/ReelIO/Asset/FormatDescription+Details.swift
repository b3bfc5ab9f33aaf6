internal import CFFmpeg
import Foundation
import ReelCore

extension FormatDescription {
    /// The sample format as the container names it: the sample-entry FourCC in MP4/MOV
    /// (`avc1`, `mp4a`, `gpmd`, `mebx`, `camm`, `tmcd`), `klv` for MISB KLV (the MP4
    /// `KLVA` included, see `MetadataFormat`), else the codec name (MPEG-TS and Matroska
    /// carry no FourCC).
    public var format: String {
        if parameters.pointer.pointee.codec_id == AV_CODEC_ID_SMPTE_KLV { return MetadataFormat.klv.rawValue }
        let code = codecTag ?? codecName
        return MetadataFormat(knownCode: code)?.rawValue ?? code
    }

    /// Encoded picture width and height in pixels, for video.
    public var dimensions: (width: Int, height: Int)? {
        let par = parameters.pointer.pointee
        guard par.codec_type == AVMEDIA_TYPE_VIDEO else { return nil }
        return (Int(par.width), Int(par.height))
    }

    /// The pixel format name (`yuv420p`), for video.
    public var pixelFormat: String? {
        let par = parameters.pointer.pointee
        guard par.codec_type == AVMEDIA_TYPE_VIDEO else { return nil }
        return av_get_pix_fmt_name(AVPixelFormat(rawValue: par.format)).map { String(cString: $0) }
    }

    /// The colour the stream is tagged with (its primaries, transfer function, matrix and
    /// range, as the container or the codec's parameter sets say), for video; nil when
    /// none is tagged.
    public var colorProperties: ColorProperties? {
        let par = parameters.pointer.pointee
        guard par.codec_type == AVMEDIA_TYPE_VIDEO else { return nil }
        func name(_ c: UnsafePointer<CChar>?) -> String? { c.map { String(cString: $0) } }
        let color = ColorProperties(
            primaries: par.color_primaries == AVCOL_PRI_UNSPECIFIED ? nil : name(av_color_primaries_name(par.color_primaries)),
            transferFunction: par.color_trc == AVCOL_TRC_UNSPECIFIED ? nil : name(av_color_transfer_name(par.color_trc)),
            matrix: par.color_space == AVCOL_SPC_UNSPECIFIED ? nil : name(av_color_space_name(par.color_space)),
            fullRange: par.color_range == AVCOL_RANGE_JPEG || pixelFormat == "yuvj420p")
        return color == ColorProperties() ? nil : color
    }

    /// The sample aspect ratio as `num:den`, when pixels are not square.
    public var sampleAspectRatio: String? {
        let sar = parameters.pointer.pointee.sample_aspect_ratio
        guard sar.num > 0, sar.den > 0, sar.num != sar.den else { return nil }
        return "\(sar.num):\(sar.den)"
    }

    /// Samples per second, for audio.
    public var sampleRate: Int? {
        let par = parameters.pointer.pointee
        return par.codec_type == AVMEDIA_TYPE_AUDIO ? Int(par.sample_rate) : nil
    }

    /// The number of channels, for audio.
    public var channelCount: Int? {
        let par = parameters.pointer.pointee
        return par.codec_type == AVMEDIA_TYPE_AUDIO ? Int(par.ch_layout.nb_channels) : nil
    }

    /// The channel layout's name (`mono`, `stereo`, `5.1`), for audio
    /// (`av_channel_layout_describe`).
    public var channelLayout: String? {
        guard parameters.pointer.pointee.codec_type == AVMEDIA_TYPE_AUDIO else { return nil }
        var buffer = [CChar](repeating: 0, count: 64)
        let written = withUnsafePointer(to: &parameters.pointer.pointee.ch_layout) { layout in
            av_channel_layout_describe(layout, &buffer, buffer.count)
        }
        guard written > 0 else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The audio sample format's name (`fltp`), for audio.
    public var sampleFormat: String? {
        let par = parameters.pointer.pointee
        guard par.codec_type == AVMEDIA_TYPE_AUDIO else { return nil }
        return av_get_sample_fmt_name(AVSampleFormat(rawValue: par.format)).map { String(cString: $0) }
    }

    /// The codec profile's name (`High`, `LC`), where FFmpeg knows it.
    public var profile: String? {
        let par = parameters.pointer.pointee
        return avcodec_profile_name(par.codec_id, par.profile).map { String(cString: $0) }
    }

    /// Bits per second, as the container states it (0 when unknown).
    var bitRate: Int64 { parameters.pointer.pointee.bit_rate }
}
