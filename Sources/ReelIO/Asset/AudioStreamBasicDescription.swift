/// The layout of an audio stream's samples (CoreAudio's AudioStreamBasicDescription, as
/// `CMAudioFormatDescriptionGetStreamBasicDescription` returns it).
///
/// For linear PCM every field is filled; for a compressed format (AAC, MP3, AC-3) the
/// per-frame sizes are 0, as CoreAudio has them, and ``framesPerPacket`` is the codec's
/// frame size where the stream states it. The fields drop CoreAudio's `m` prefix:
/// `mSampleRate` is ``sampleRate``.
public struct AudioStreamBasicDescription: Sendable, Hashable, CustomStringConvertible {
    /// Sample frames per second.
    public var sampleRate: Double
    /// The format, as CoreAudio's four-character format IDs: `lpcm` for linear PCM,
    /// `aac ` (kAudioFormatMPEG4AAC), `.mp3`, `ac-3`, `ec-3`, `alac`, `flac`, `opus`,
    /// `ulaw`, `alaw`; FFmpeg's codec name for formats CoreAudio has no ID for.
    public var formatID: String
    /// For linear PCM, how each sample is stored; for AAC, the MPEG-4 audio object type
    /// (2 for AAC LC), as CoreAudio puts it there.
    public var formatFlags: AudioFormatFlags
    /// Bytes in one packet: a frame for PCM, 0 when packets vary in size.
    public var bytesPerPacket: UInt32
    /// Sample frames in one packet: 1 for PCM, 1024 for AAC LC, 0 when unknown or varying.
    public var framesPerPacket: UInt32
    /// Bytes in one frame of all channels (one channel when not interleaved); 0 for
    /// compressed formats.
    public var bytesPerFrame: UInt32
    /// Channels in each frame.
    public var channelsPerFrame: UInt32
    /// Bits in one sample of one channel; 0 for compressed formats.
    public var bitsPerChannel: UInt32

    public init(
        sampleRate: Double, formatID: String, formatFlags: AudioFormatFlags = [], bytesPerPacket: UInt32 = 0,
        framesPerPacket: UInt32 = 0, bytesPerFrame: UInt32 = 0, channelsPerFrame: UInt32, bitsPerChannel: UInt32 = 0
    ) {
        self.sampleRate = sampleRate
        self.formatID = formatID
        self.formatFlags = formatFlags
        self.bytesPerPacket = bytesPerPacket
        self.framesPerPacket = framesPerPacket
        self.bytesPerFrame = bytesPerFrame
        self.channelsPerFrame = channelsPerFrame
        self.bitsPerChannel = bitsPerChannel
    }

    /// Whether this is linear PCM (`lpcm`).
    public var isLinearPCM: Bool { formatID == Self.linearPCM }

    /// CoreAudio's kAudioFormatLinearPCM.
    public static let linearPCM = "lpcm"

    public var description: String {
        "\(formatID) \(sampleRate) Hz, \(channelsPerFrame) ch, \(bitsPerChannel) bits, flags 0x\(String(formatFlags.rawValue, radix: 16))"
            + ", \(bytesPerPacket) B/packet, \(framesPerPacket) frames/packet, \(bytesPerFrame) B/frame"
    }
}

/// How linear PCM samples are stored (CoreAudio's AudioFormatFlags; the bits have
/// CoreAudio's values, so `rawValue` compares with ported constants).
public struct AudioFormatFlags: OptionSet, Sendable, Hashable {
    public var rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// IEEE floating point samples (kAudioFormatFlagIsFloat).
    public static let isFloat = AudioFormatFlags(rawValue: 1 << 0)
    /// Big-endian samples (kAudioFormatFlagIsBigEndian).
    public static let isBigEndian = AudioFormatFlags(rawValue: 1 << 1)
    /// Signed integer samples (kAudioFormatFlagIsSignedInteger).
    public static let isSignedInteger = AudioFormatFlags(rawValue: 1 << 2)
    /// Samples fill their bytes, no padding bits (kAudioFormatFlagIsPacked).
    public static let isPacked = AudioFormatFlags(rawValue: 1 << 3)
    /// Each channel in its own buffer (kAudioFormatFlagIsNonInterleaved).
    public static let isNonInterleaved = AudioFormatFlags(rawValue: 1 << 5)
}
