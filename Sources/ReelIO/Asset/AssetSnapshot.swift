import ReelCore

/// The container of an asset: its format and size (FFmpeg's `AVInputFormat` and
/// `AVFormatContext` fields).
public struct ContainerFormat: Sendable, Hashable, Codable {
    /// FFmpeg's short format name(s): `mov,mp4,m4a,3gp,3g2,mj2`, `mpegts`, `matroska,webm`.
    public var name: String
    /// FFmpeg's descriptive name: `QuickTime / MOV`.
    public var longName: String?
    /// Size of the file in bytes, when known.
    public var fileSize: Int64?
    /// Overall bit rate in bits per second, when known.
    public var bitRate: Int64?
    /// The earliest presentation time of any track (non-zero in MPEG-TS).
    public var startTime: MediaTime
    /// Whether the file can be read at any byte: false for a URL whose server ignores
    /// byte-range requests (`Range:`), which FFmpeg can then read only from start to end.
    /// What needs reading out of order is then missing: the MP4 boxes Reel reads itself
    /// (track references, edit lists, the container's own metadata key spaces), codec
    /// details from packets the demuxer would seek back to, a duration read from the end.
    public var isSeekable = true

    private enum CodingKeys: String, CodingKey { case name, longName, fileSize, bitRate, startTime }

    public init(name: String, longName: String? = nil, fileSize: Int64? = nil, bitRate: Int64? = nil, startTime: MediaTime = .zero) {
        self.name = name
        self.longName = longName
        self.fileSize = fileSize
        self.bitRate = bitRate
        self.startTime = startTime
    }
}

/// Everything one probe of a file found: what the asset's properties are computed from.
struct AssetSnapshot: Sendable {
    var format: ContainerFormat
    var duration: MediaTime
    /// Tracks without a source; the asset attaches its source when handing them out.
    var tracks: [AssetTrack]
    var metadata: [MetadataItem]
    var chapters: [TimedMetadataGroup]
    /// Cover pictures as artwork items (see ``AssetProbe/pictures(_:family:)``).
    var pictures: [MetadataItem] = []
}
