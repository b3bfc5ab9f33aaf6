/// The kind of media a track holds (AVMediaType), named by its QuickTime handler code.
///
/// A struct rather than an enum so that a file's unusual track kinds (`tmcd`, `fdsc`)
/// still have a value: `MediaType(rawValue: "tmcd")`.
public struct MediaType: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Pictures (`vide`).
    public static let video = MediaType(rawValue: "vide")
    /// Sound (`soun`).
    public static let audio = MediaType(rawValue: "soun")
    /// Timed metadata: GPS and other telemetry (`meta`).
    public static let metadata = MediaType(rawValue: "meta")
    /// Text (`text`).
    public static let text = MediaType(rawValue: "text")
    /// Subtitles (`sbtl`).
    public static let subtitle = MediaType(rawValue: "sbtl")
    /// Timecode (`tmcd`).
    public static let timecode = MediaType(rawValue: "tmcd")

    public var description: String {
        switch self {
        case .video: "video"
        case .audio: "audio"
        case .metadata: "metadata"
        case .text: "text"
        case .subtitle: "subtitle"
        case .timecode: "timecode"
        default: rawValue
        }
    }

    public init(from decoder: any Decoder) throws {
        self.init(rawValue: try decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(rawValue)
    }
}
