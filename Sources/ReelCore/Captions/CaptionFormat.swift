/// A caption file or track format, with the rules a caption must follow to be written in
/// it (what `AVCaptionConversionValidator` checks).
public enum CaptionFormat: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// iTunes Timed Text: the TTML profile Apple's tools read and write (`.itt`).
    case itt
    /// Scenarist Closed Captions: CEA-608 byte pairs with SMPTE timecodes (`.scc`).
    case scc
    /// SubRip (`.srt`).
    case srt
    /// WebVTT (`.vtt`).
    case webVTT = "vtt"
    /// 3GPP timed text (`tx3g`, FFmpeg's mov_text), the caption track of MP4 and MOV files.
    case movText = "mov_text"

    public var description: String {
        switch self {
        case .itt: "iTT"
        case .scc: "SCC"
        case .srt: "SRT"
        case .webVTT: "WebVTT"
        case .movText: "3GPP timed text (mov_text)"
        }
    }

    /// The format a file name's extension names (`itt`, `ttml`, `scc`, `srt`, `vtt`).
    public init?(fileExtension: String) {
        switch fileExtension.lowercased() {
        case "itt", "ttml", "xml": self = .itt
        case "scc": self = .scc
        case "srt": self = .srt
        case "vtt", "webvtt": self = .webVTT
        default: return nil
        }
    }

    /// The usual file name extension.
    public var fileExtension: String {
        switch self {
        case .itt: "itt"
        case .scc: "scc"
        case .srt: "srt"
        case .webVTT: "vtt"
        case .movText: "mp4"
        }
    }

    /// The style attributes the format can hold.
    public var supportedStyles: CaptionStyle.Attributes {
        switch self {
        case .itt: .all
        case .scc: [.italic, .underline, .textColor]
        case .srt: [.bold, .italic, .underline, .textColor]
        case .webVTT: [.bold, .italic, .underline, .textColor, .backgroundColor, .ruby]
        case .movText: [.bold, .italic, .underline, .textColor, .fontSize]
        }
    }

    /// The text colours the format can hold; nil when any colour can be written.
    public var supportedTextColors: [CaptionColor]? {
        switch self {
        case .scc: [.white, .green, .blue, .cyan, .red, .yellow, .magenta]
        default: nil
        }
    }

    /// Whether two captions may show at once. SCC shows one screen at a time; SRT and
    /// 3GPP timed text are a sequence of cues, one after the other.
    public var allowsOverlappingCaptions: Bool {
        switch self {
        case .itt, .webVTT: true
        case .scc, .srt, .movText: false
        }
    }

    /// The most lines a caption may have (CEA-608: four rows of pop-on text).
    public var maximumLines: Int? { self == .scc ? 4 : nil }

    /// The most characters a line may have (CEA-608: 32 columns).
    public var maximumLineLength: Int? { self == .scc ? 32 : nil }

    /// The time grid captions snap to in the format: SCC's 29.97 fps frames, else milliseconds.
    public var timeGrid: MediaTime {
        self == .scc ? MediaTime(value: 1001, timescale: 30000) : MediaTime(value: 1, timescale: 1000)
    }
}
