import ReelCore

/// How an ``AssetWriterInput`` encodes video.
public struct VideoEncoderSettings: Sendable, Hashable {
    /// The video codec (and the FFmpeg encoder behind it).
    public enum Codec: Sendable, Hashable {
        /// H.264 through libx264.
        case h264
        /// HEVC through libx265 (when FFmpeg was built with it).
        case hevc
        /// Apple ProRes through prores_ks (10-bit 4:2:2, or 4:4:4:4 for `.p4444`).
        case proRes(ProResProfile)
        /// FFV1, lossless.
        case ffv1

        /// Whether this FFmpeg has the encoder (libx265 is optional in FFmpeg builds).
        public var isAvailable: Bool { Encoder.exists(encoderName) }

        /// The FFmpeg encoder that codes it.
        public var encoderName: String {
            switch self {
            case .h264: "libx264"
            case .hevc: "libx265"
            case .proRes: "prores_ks"
            case .ffv1: "ffv1"
            }
        }
    }

    public enum ProResProfile: Int32, Sendable, Hashable {
        case proxy = 0, lt, standard, hq, p4444
    }

    /// Constant quality or a target bit rate.
    public enum Quality: Sendable, Hashable {
        /// libx264/libx265 constant rate factor (lower is better; 23 is the default).
        case crf(Int)
        /// Average bits per second.
        case bitRate(Int)
    }

    public var codec: Codec
    public var width: Int
    public var height: Int
    /// The pixel format the encoder codes (`.yuv420p`, `.nv12` or `.gray8` for H.264,
    /// HEVC and FFV1; ProRes always codes 10-bit YUV). Appended buffers in another format
    /// or size are converted with libswscale.
    public var pixelFormat: PixelFormat
    /// Bits per sample the encoder codes: 8, or 10 for H.264 and HEVC in 4:2:0
    /// (``pixelFormat`` `.yuv420p`; High 10, Main 10). Appended 8-bit buffers are widened
    /// by libswscale.
    public var bitDepth = 8
    public var quality: Quality?
    /// The encoder's speed/size trade-off (`veryfast`, `medium`, ...) for x264/x265.
    public var preset: String?
    /// The nominal frame duration (1/30 s for 30 fps); the timestamps of the appended
    /// frames give the real timing.
    public var frameDuration: MediaTime
    /// The timescale frames are timed in (the encoder's time base is `1/timescale`).
    public var timescale: Int32
    /// Frames between keyframes; nil for the encoder's default.
    public var keyframeInterval: Int?
    /// Whether every group of ``keyframeInterval`` frames is coded by an encoder of its own
    /// (x264/x265 only): the rate control then carries nothing across a keyframe, so any
    /// range that starts on one codes to the same pictures alone as within the whole
    /// render (what `reel plan` pieces rely on with `crf` and `bitRate`). Needs
    /// ``keyframeInterval``; ignored for the other codecs.
    public var codesGroupsIndependently = false
    /// Extra private options of the FFmpeg encoder, set by name after the others
    /// (`["x264-params": "keyint=60:min-keyint=60:scenecut=0"]`).
    public var encoderOptions: [String: String] = [:]
    /// The colour the output is tagged with (a video composition's); nil, or a missing
    /// matrix, for the standard one of the output size
    /// (`ColorProperties/encoding(width:height:)`). Appended buffers in another encoding
    /// are converted into it when libswscale converts them.
    public var colorProperties: ColorProperties?

    public init(
        codec: Codec, width: Int, height: Int, pixelFormat: PixelFormat = .yuv420p, quality: Quality? = nil,
        preset: String? = nil, frameDuration: MediaTime = MediaTime(value: 1, timescale: 30),
        timescale: Int32 = 90000, keyframeInterval: Int? = nil
    ) {
        self.codec = codec
        self.width = width
        self.height = height
        self.pixelFormat = pixelFormat
        self.quality = quality
        self.preset = preset
        self.frameDuration = frameDuration
        self.timescale = timescale
        self.keyframeInterval = keyframeInterval
    }
}

/// How an ``AssetWriterInput`` encodes audio from interleaved float PCM: AAC, or
/// uncompressed PCM (MOV and Matroska).
public struct AudioEncoderSettings: Sendable, Hashable {
    /// The audio codec (and the FFmpeg encoder behind it).
    public enum Codec: String, Sendable, Hashable, CaseIterable {
        /// AAC-LC through FFmpeg's `aac` encoder, at ``AudioEncoderSettings/bitRate``.
        case aac
        /// 16-bit little-endian PCM (`pcm_s16le`; MOV `sowt`, Matroska `A_PCM/INT/LIT`).
        case pcm16
        /// 24-bit little-endian PCM (`pcm_s24le`; MOV `in24`, Matroska `A_PCM/INT/LIT`).
        case pcm24
        /// Apple Lossless, 16-bit (FFmpeg's `alac` encoder; MOV and MP4/M4A `alac`):
        /// decodes to exactly the 16-bit samples encoded. Not Matroska: its packets of
        /// 4096 samples would not start on Matroska's whole milliseconds.
        case alac

        var encoderName: String {
            switch self {
            case .aac: "aac"
            case .pcm16: "pcm_s16le"
            case .pcm24: "pcm_s24le"
            case .alac: "alac"
            }
        }

        /// Whether the codec is uncompressed PCM (MOV and Matroska only).
        public var isPCM: Bool { self == .pcm16 || self == .pcm24 }

        /// Whether the codec is lossy: the one whose packets an export may copy from a
        /// source instead of encoding (lossless outputs are always encoded).
        public var isLossy: Bool { self == .aac }
    }

    public var codec: Codec
    public var sampleRate: Int
    public var channelCount: Int
    /// Bits per second for AAC; PCM's follows from the rate, channels and depth.
    public var bitRate: Int
    /// Which of the encoder's packets are written (nil: all): for a file that is one
    /// stretch of a longer encode, whose pieces join by stream copy.
    public var packetWindow: AudioPacketWindow?

    public init(
        codec: Codec = .aac, sampleRate: Int = 48000, channelCount: Int = 2, bitRate: Int = 128_000,
        packetWindow: AudioPacketWindow? = nil
    ) {
        self.codec = codec
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        self.bitRate = bitRate
        self.packetWindow = packetWindow
    }
}

/// The packets of an audio encode that a file keeps, so that files encoded as stretches
/// of one timeline, laid end to end, hold the packets one encode of the whole would give.
///
/// The encoder starts on the whole timeline's frame grid before the stretch (a pre-roll,
/// appended with times before the session start), so that its state at the first packet
/// kept is near the one the whole encode had there. The packets before ``firstPacket``
/// are dropped and ``packetCount`` are kept (nil: all that follow). A first packet kept
/// that starts before the session start is written with its negative time, which MP4 and
/// MOV hide with an edit list, as they hide AAC's priming.
public struct AudioPacketWindow: Sendable, Hashable {
    /// How many of the encoder's first packets are dropped: the pre-roll's.
    public var firstPacket: Int
    /// How many packets are kept from there (nil: every one to the end).
    public var packetCount: Int?

    public init(firstPacket: Int, packetCount: Int?) {
        self.firstPacket = firstPacket
        self.packetCount = packetCount
    }
}
