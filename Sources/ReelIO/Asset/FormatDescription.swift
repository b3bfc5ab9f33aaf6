/// What the samples of a track are: codec, sample entry and layout (CMFormatDescription).
public struct FormatDescription: Sendable, Hashable, Codable {
    /// The kind of media described.
    public var mediaType: MediaType
    /// FFmpeg's codec name (`h264`, `aac`, `bin_data`, `klv`), or `none` for a data
    /// track FFmpeg has no codec for (`mebx`, `camm`, `tmcd`, `fdsc`).
    public var codec: String
    /// The sample format as the container names it: the sample-entry FourCC in MP4/MOV
    /// (`avc1`, `mp4a`, `gpmd`, `mebx`, `camm`, `tmcd`), `klv` for MISB KLV in MPEG-TS,
    /// else the codec name.
    public var format: String
    /// The track's handler name (MP4/MOV `hdlr`), trimmed, e.g. `GoPro MET`.
    public var handlerName: String?
    /// Encoded picture size in pixels (video).
    public var width: Int?
    public var height: Int?
    /// Pixel format name (`yuv420p`), for video.
    public var pixelFormat: String?
    /// Sample aspect ratio as `num:den`, when not square.
    public var sampleAspectRatio: String?
    /// Samples per second (audio).
    public var sampleRate: Int?
    /// Channel count (audio).
    public var channels: Int?
    /// Channel layout name (`mono`, `stereo`, `5.1`), for audio.
    public var channelLayout: String?
    /// Sample format name (`fltp`), for audio.
    public var sampleFormat: String?
    /// The codec's profile name (`High`, `LC`), where FFmpeg knows it.
    public var profile: String?

    public init(mediaType: MediaType, codec: String, format: String, handlerName: String? = nil) {
        self.mediaType = mediaType
        self.codec = codec
        self.format = format
        self.handlerName = handlerName
    }
}
