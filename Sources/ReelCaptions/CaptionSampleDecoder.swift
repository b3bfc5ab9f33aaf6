import Foundation

/// Reads the samples of one caption track into captions with their placement: what
/// ``CaptionSample/spans(_:format:)`` reads, plus where each caption sits and what the
/// track's header says about all of them.
///
/// - SubRip: an `{\anN}` tag at the start of the text (`CaptionPlacement`).
/// - ASS/SSA: `{\anN}` or `{\aN}` in the text, else the `Alignment` of the event's named
///   style in the track header (the script's `[V4+ Styles]`, the track's codec private data).
/// - WebVTT: the cue's settings (`line`, `align`), which Matroska keeps beside the cue text
///   (`SampleBuffer/cueSettings`).
/// - 3GPP timed text: the sample entry's justification (vertical: top, centre, bottom;
///   horizontal: left, centre, right) places every caption of the track (bottom centre, the
///   default place, is no region and no alignment), its default style
///   (bold, italic, underline, colour) is the style under the sample's style records, and a
///   record's font size is read as a percentage of the default style's.
public struct CaptionSampleDecoder: Sendable {
    /// The sample format, as ``CaptionSample/readableFormats`` names them.
    public let format: String
    private var styleAlignments: [String: Int] = [:]
    private var movText: MovTextEntry?

    /// What a 3GPP text sample entry says about every sample of its track.
    struct MovTextEntry: Sendable {
        var region: CaptionRegion?
        var alignment: Caption.TextAlignment?
        var style: CaptionStyle
        var fontSize: Int
    }

    /// A decoder for samples in `format`, with the track's header (`trackHeader`: an ASS
    /// track's script header, a 3GPP text track's sample entry after its SampleEntry fields,
    /// as FFmpeg keeps them; empty when there is none).
    /// - Throws: `.unsupportedFormat` for a format ``CaptionSample`` does not read.
    public init(format: String, trackHeader: Data = Data()) throws(ReelError) {
        guard CaptionSample.readableFormats.contains(format) else {
            throw ReelError(.unsupportedFormat, "no caption decoder for samples in format \"\(format)\"")
        }
        self.format = format
        switch format {
        case "ass", "ssa": styleAlignments = ASSDialogue.styleAlignments(header: String(decoding: trackHeader, as: UTF8.self))
        // A `text` track's sample description may be QuickTime text's, laid out otherwise
        // (FFmpeg reads both as mov_text): only a `tx3g` entry is read.
        case "tx3g", "mov_text": movText = Self.movTextEntry(trackHeader)
        default: break
        }
    }

    /// The caption of one sample shown over `timeRange`, with the WebVTT `cueSettings`
    /// Matroska keeps beside a WebVTT cue; nil for a gap (an empty sample).
    /// - Throws: `.captionFormat` when the bytes break the format.
    public func caption(_ data: Data, timeRange: TimeRange, cueSettings: String? = nil) throws(ReelError) -> Caption? {
        var spans: [Caption.Span]
        var region: CaptionRegion?
        var alignment: Caption.TextAlignment?
        switch format {
        case "subrip", "srt":
            let (text, placement) = SRT.positionTags(try CaptionSample.text(data, .srt))
            spans = CueMarkup(isWebVTT: false).spans(text)
            (region, alignment) = (placement?.region, placement?.alignment)
        case "webvtt", "wvtt":
            spans = CueMarkup(isWebVTT: true).spans(try CaptionSample.text(data, .webVTT))
            if let cueSettings { (region, alignment) = WebVTT.placement(settings: cueSettings.split(whereSeparator: { $0 == " " || $0 == "\t" })) }
        case "ass", "ssa":
            let (read, placement) = ASSDialogue.read(try CaptionSample.text(data, .srt), styleAlignments: styleAlignments)
            spans = read
            (region, alignment) = (placement?.region, placement?.alignment)
        default:
            spans = try CaptionSample.movTextSpans(data, defaultStyle: movText?.style ?? .plain, defaultFontSize: movText?.fontSize)
            (region, alignment) = (movText?.region, movText?.alignment)
        }
        guard spans.contains(where: { !$0.text.isEmpty }) else { return nil }
        return Caption(spans: spans, timeRange: timeRange, region: region, textAlignment: alignment)
    }

    /// The placement and default style of a 3GPP text sample entry (TS 26.245 5.16): display
    /// flags (4 bytes), horizontal and vertical justification (signed: 0 left/top, 1 centre,
    /// -1 right/bottom), background colour (4), default text box (8), default style record
    /// (12: characters, font id, face flags, size, colour). Nil when it is shorter than that.
    static func movTextEntry(_ header: Data) -> MovTextEntry? {
        let b = [UInt8](header)
        guard b.count >= 30 else { return nil }
        let horizontal = Int8(bitPattern: b[4]), vertical = Int8(bitPattern: b[5])
        let region: CaptionRegion? =
            switch vertical {
            case 0: .top
            case 1: CaptionPlacement.middle
            default: nil  // -1, the bottom, is where a caption without a region goes
            }
        let alignment: Caption.TextAlignment? =
            switch horizontal {
            case 0: .left
            case -1: .right
            default: nil
            }
        let face = b[24]
        var style = CaptionStyle.plain
        if face & 1 != 0 { style.fontWeight = .bold }
        if face & 2 != 0 { style.italic = true }
        if face & 4 != 0 { style.underline = true }
        let color = CaptionColor(red: b[26], green: b[27], blue: b[28], alpha: b[29])
        if color != .white { style.textColor = color }
        return MovTextEntry(region: region, alignment: alignment, style: style, fontSize: Int(b[25]))
    }
}
