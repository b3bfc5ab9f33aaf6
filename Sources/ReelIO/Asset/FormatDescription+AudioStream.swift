internal import CFFmpeg
import ReelCore

extension FormatDescription {
    /// The audio stream basic description, for audio
    /// (`CMAudioFormatDescriptionGetStreamBasicDescription`); nil for other media.
    ///
    /// Linear PCM is described from FFmpeg's PCM codec (`pcm_s16le`: signed, 16 bits,
    /// little-endian, packed, interleaved; `_planar` codecs are non-interleaved); the
    /// bits per sample come from `av_get_bits_per_sample`.
    public var audioStreamBasicDescription: AudioStreamBasicDescription? {
        let par = parameters.pointer.pointee
        guard par.codec_type == AVMEDIA_TYPE_AUDIO else { return nil }
        let channels = UInt32(max(0, par.ch_layout.nb_channels))
        let rate = Double(max(0, par.sample_rate))
        if let pcm = PCMLayout(codecName: codecName) {
            let bits = UInt32(max(0, av_get_bits_per_sample(par.codec_id)))
            var flags: AudioFormatFlags = [.isPacked]
            if pcm.isFloat { flags.insert(.isFloat) } else if pcm.isSigned { flags.insert(.isSignedInteger) }
            if pcm.isBigEndian && bits > 8 { flags.insert(.isBigEndian) }
            if pcm.isPlanar { flags.insert(.isNonInterleaved) }
            let bytesPerFrame = bits / 8 * (pcm.isPlanar ? 1 : channels)
            return AudioStreamBasicDescription(
                sampleRate: rate, formatID: AudioStreamBasicDescription.linearPCM, formatFlags: flags,
                bytesPerPacket: bytesPerFrame, framesPerPacket: 1, bytesPerFrame: bytesPerFrame,
                channelsPerFrame: channels, bitsPerChannel: bits)
        }
        var flags: AudioFormatFlags = []
        // CoreAudio puts the MPEG-4 audio object type in the flags of AAC: the profile + 1
        // (FF_PROFILE_AAC_LOW is 1, object type 2).
        if par.codec_id == AV_CODEC_ID_AAC, par.profile >= 0 { flags = AudioFormatFlags(rawValue: UInt32(par.profile + 1)) }
        return AudioStreamBasicDescription(
            sampleRate: rate, formatID: Self.coreAudioFormatIDs[codecName] ?? codecName, formatFlags: flags,
            bytesPerPacket: 0, framesPerPacket: UInt32(max(0, par.frame_size)), bytesPerFrame: 0,
            channelsPerFrame: channels, bitsPerChannel: 0)
    }

    /// CoreAudio's format IDs for FFmpeg's compressed audio codecs.
    static let coreAudioFormatIDs: [String: String] = [
        "aac": "aac ", "mp3": ".mp3", "mp2": ".mp2", "mp1": ".mp1", "ac3": "ac-3", "eac3": "ec-3", "alac": "alac",
        "flac": "flac", "opus": "opus", "pcm_mulaw": "ulaw", "pcm_alaw": "alaw", "amr_nb": "samr", "amr_wb": "sawb",
        "adpcm_ima_qt": "ima4", "gsm": "agsm", "qdm2": "QDM2", "qdmc": "QDMC",
    ]
}

/// How an FFmpeg linear PCM codec stores samples, read from its name: `pcm_` then `s`,
/// `u` or `f`, the bits, then `le` or `be`, and `_planar` for one buffer per channel
/// (`pcm_s16le`, `pcm_f32be`, `pcm_s24le_planar`, `pcm_u8`).
struct PCMLayout: Hashable {
    var isFloat: Bool
    var isSigned: Bool
    var isBigEndian: Bool
    var isPlanar: Bool

    init(isFloat: Bool, isSigned: Bool, isBigEndian: Bool, isPlanar: Bool) {
        self.isFloat = isFloat
        self.isSigned = isSigned
        self.isBigEndian = isBigEndian
        self.isPlanar = isPlanar
    }

    init?(codecName: String) {
        guard codecName.hasPrefix("pcm_") else { return nil }
        var rest = codecName.dropFirst(4)
        isPlanar = rest.hasSuffix("_planar")
        if isPlanar { rest = rest.dropLast(7) }
        guard let kind = rest.first, "suf".contains(kind) else { return nil }
        rest = rest.dropFirst()
        let digits = rest.prefix { $0.isNumber }
        guard !digits.isEmpty else { return nil }
        let order = rest.dropFirst(digits.count)
        guard order.isEmpty || order == "le" || order == "be" else { return nil }
        isFloat = kind == "f"
        isSigned = kind == "s"
        isBigEndian = order == "be"
    }
}
