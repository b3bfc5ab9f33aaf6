import Foundation

/// One caption sample of a track inside a media file, as the container stores it: 3GPP
/// timed text (`tx3g`, FFmpeg's mov_text) in MP4/MOV, and in Matroska SubRip text, WebVTT
/// cue text or an ASS dialogue event. Bytes in, styled runs out; and 3GPP samples back.
///
/// 3GPP timed text follows 3GPP TS 26.245: a 16-bit length, the text (UTF-8, or UTF-16
/// after a byte order mark), then boxes, of which `styl` (style records over character
/// ranges: bold, italic, underline, colour; size written only) is read and written; the others
/// (highlight, karaoke, scroll, hyperlink, box) are skipped. An empty sample is a gap.
/// ``CaptionSampleDecoder`` reads samples with their placement and the track's header.
public enum CaptionSample {
    /// The default font size of 3GPP text samples Reel writes (FFmpeg's mov_text encoder uses
    /// the same), which a style record's size is a percentage of.
    public static let movTextDefaultFontSize = 18

    /// The sample formats ``spans(_:format:)`` reads.
    public static let readableFormats: Set<String> = ["tx3g", "mov_text", "text", "subrip", "srt", "webvtt", "wvtt", "ass", "ssa"]

    /// The styled runs of a sample in `format` (`tx3g`/`mov_text`, `subrip`/`srt`,
    /// `webvtt`/`wvtt`, `ass`/`ssa`); empty for a gap.
    /// - Throws: `.captionFormat` when the bytes break the format (a length past the end,
    ///   text that is not UTF-8); `.unsupportedFormat` for other formats.
    public static func spans(_ data: Data, format: String) throws(ReelError) -> [Caption.Span] {
        switch format {
        // QuickTime text samples (`text`, as FFmpeg tags mov_text in MOV) share the layout.
        case "tx3g", "mov_text", "text": return try movTextSpans(data)
        case "subrip", "srt":
            return CueMarkup(isWebVTT: false).spans(SRT.positionTags(try text(data, .srt)).0)
        case "webvtt", "wvtt": return CueMarkup(isWebVTT: true).spans(try text(data, .webVTT))
        case "ass", "ssa": return ASSDialogue.spans(try text(data, .srt))
        default: throw ReelError(.unsupportedFormat, "no caption decoder for samples in format \"\(format)\"")
        }
    }

    static func text(_ data: Data, _ format: CaptionFormat) throws(ReelError) -> String {
        guard let s = String(data: data, encoding: .utf8) else { throw .captionFormat(format, "a sample's text is not UTF-8") }
        return s.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n").trimmingCharacters(in: .newlines)
    }

    // MARK: 3GPP timed text

    /// The runs of a 3GPP text sample: characters no style record covers take
    /// `defaultStyle` (the sample entry's), those a record covers the record's style, its
    /// font size a percentage of `defaultFontSize` when that is known.
    static func movTextSpans(_ data: Data, defaultStyle: CaptionStyle = .plain, defaultFontSize: Int? = nil) throws(ReelError) -> [Caption.Span] {
        let b = [UInt8](data)
        guard b.count >= 2 else { return [] }
        let length = Int(b[0]) << 8 | Int(b[1])
        guard 2 + length <= b.count else {
            throw .captionFormat(.movText, "the text length \(length) runs past the sample's \(b.count) bytes")
        }
        let textBytes = Data(b[2..<(2 + length)])
        let text: String?
        if textBytes.starts(with: [0xFE, 0xFF]) {
            text = String(data: textBytes.dropFirst(2), encoding: .utf16BigEndian)
        } else {
            text = String(data: textBytes, encoding: .utf8)
        }
        guard let text else { throw .captionFormat(.movText, "the sample's text is not UTF-8 or UTF-16") }
        // Style records count Unicode scalars.
        let scalars = Array(text.unicodeScalars)
        var styles = [CaptionStyle](repeating: .plain, count: scalars.count)
        var covered = [Bool](repeating: false, count: scalars.count)
        var at = 2 + length
        while at + 8 <= b.count {
            let size = Int(b[at]) << 24 | Int(b[at + 1]) << 16 | Int(b[at + 2]) << 8 | Int(b[at + 3])
            let type = String(decoding: b[(at + 4)..<(at + 8)], as: UTF8.self)
            guard size >= 8, at + size <= b.count else {
                throw .captionFormat(.movText, "box \"\(type)\" of \(size) bytes does not fit the sample")
            }
            if type == "styl", size >= 10 {
                let count = Int(b[at + 8]) << 8 | Int(b[at + 9])
                var r = at + 10
                for _ in 0..<count where r + 12 <= at + size {
                    let start = Int(b[r]) << 8 | Int(b[r + 1]), end = Int(b[r + 2]) << 8 | Int(b[r + 3])
                    // b[r + 7], the size, is relative to the track's default style, which is in
                    // the sample description, not the sample: read only when that is known.
                    let flags = b[r + 6]
                    var style = CaptionStyle.plain
                    if let defaultFontSize, defaultFontSize > 0, b[r + 7] > 0, Int(b[r + 7]) != defaultFontSize {
                        style.fontSizePercent = (Double(b[r + 7]) * 100 / Double(defaultFontSize)).rounded()
                    }
                    if flags & 1 != 0 { style.fontWeight = .bold }
                    if flags & 2 != 0 { style.italic = true }
                    if flags & 4 != 0 { style.underline = true }
                    let color = CaptionColor(red: b[r + 8], green: b[r + 9], blue: b[r + 10], alpha: b[r + 11])
                    if color != .white { style.textColor = color }
                    // A record may reach past the text (or start after it): only the characters there are styled.
                    let upper = min(end, scalars.count)
                    if start < upper {
                        for k in start..<upper {
                            styles[k] = styles[k].merging(style)
                            covered[k] = true
                        }
                    }
                    r += 12
                }
            }
            at += size
        }
        if !defaultStyle.isPlain { for k in styles.indices where !covered[k] { styles[k] = defaultStyle } }
        var spans: [Caption.Span] = []
        var scalarText = String.UnicodeScalarView()
        var current: CaptionStyle?
        for (k, scalar) in scalars.enumerated() {
            if let c = current, c != styles[k] {
                spans.append(Caption.Span(String(scalarText), c))
                scalarText = String.UnicodeScalarView()
            }
            current = styles[k]
            scalarText.append(scalar)
        }
        if let current, !scalarText.isEmpty { spans.append(Caption.Span(String(scalarText), current)) }
        return spans
    }

    /// The sample a caption track of `format` stores for `caption`: a 3GPP timed-text sample
    /// (`CaptionFormat/movText`), or the cue text with its markup for SubRip and WebVTT
    /// tracks (Matroska); a SubRip cue placed elsewhere than bottom centre starts with its
    /// `{\anN}` tag. A WebVTT cue's placement goes beside it (``cueSettings(for:format:)``).
    /// - Throws: `.unsupportedFormat` for iTT and SCC, which are files, not track samples.
    public static func data(for caption: Caption, format: CaptionFormat) throws(ReelError) -> Data {
        switch format {
        case .movText: return movTextSample(caption)
        case .srt: return Data((CaptionPlacement.keypadTag(of: caption) + CueMarkup(isWebVTT: false).markup(caption.spans)).utf8)
        case .webVTT: return Data(CueMarkup(isWebVTT: true).markup(caption.spans).utf8)
        case .itt, .scc: throw ReelError(.unsupportedFormat, "\(format) captions are files, not samples of a track: write 3GPP timed text, SubRip or WebVTT")
        }
    }

    /// The WebVTT cue settings that place `caption` (`line:0`, `align:`) for a WebVTT track,
    /// which Matroska stores beside the cue text (`SampleBuffer/cueSettings`); nil for
    /// other formats and for a caption at the default place.
    public static func cueSettings(for caption: Caption, format: CaptionFormat) -> String? {
        guard format == .webVTT else { return nil }
        let settings = WebVTT.settings(for: caption)
        return settings.isEmpty ? nil : settings
    }

    /// A 3GPP timed-text sample for a caption: its UTF-8 text and a `styl` box with a record
    /// for each styled run (bold, italic, underline, colour, size). Text past the 65535
    /// bytes a sample holds is cut at a character.
    public static func movTextSample(_ caption: Caption) -> Data {
        var text = ""
        var records: [(Int, Int, CaptionStyle)] = []
        var scalarCount = 0
        for span in caption.spans {
            guard text.utf8.count + span.text.utf8.count <= 65535 else { break }
            let n = span.text.unicodeScalars.count
            let s = span.style.normalized
            if !s.isPlain, scalarCount + n <= 65535 { records.append((scalarCount, scalarCount + n, s)) }
            text += span.text
            scalarCount += n
        }
        var out = Data()
        func u16(_ v: Int) { out.append(UInt8(v >> 8 & 0xFF)); out.append(UInt8(v & 0xFF)) }
        func u32(_ v: Int) { u16(v >> 16); u16(v & 0xFFFF) }
        u16(text.utf8.count)
        out.append(contentsOf: Array(text.utf8))
        let kept = records.prefix(65535)
        if !kept.isEmpty {
            u32(10 + 12 * kept.count)
            out.append(contentsOf: Array("styl".utf8))
            u16(kept.count)
            for (start, end, s) in kept {
                u16(start)
                u16(end)
                u16(1)
                out.append((s.fontWeight == .bold ? 1 : 0) | (s.italic == true ? 2 : 0) | (s.underline == true ? 4 : 0))
                let size = s.fontSizePercent.map { Int(($0 * Double(movTextDefaultFontSize) / 100).rounded()) } ?? movTextDefaultFontSize
                out.append(UInt8(clamping: max(1, size)))
                let c = s.textColor ?? .white
                out.append(contentsOf: [c.red, c.green, c.blue, c.alpha])
            }
        }
        return out
    }

    /// The 3GPP text sample entry's fields after the sample entry header (what FFmpeg keeps
    /// as mov_text extradata): centred at the bottom, no background, the default style
    /// (font 1, white, ``movTextDefaultFontSize``) and a font table naming font 1 "Serif".
    public static let movTextSampleEntry: Data = {
        var out = Data([0, 0, 0, 0, 0x01, 0xFF, 0, 0, 0, 0])  // display flags, centred, bottom, background
        out.append(contentsOf: [UInt8](repeating: 0, count: 8))  // default text box
        out.append(contentsOf: [0, 0, 0, 0, 0, 1, 0, UInt8(movTextDefaultFontSize), 0xFF, 0xFF, 0xFF, 0xFF])
        out.append(contentsOf: [0, 0, 0, 18] + Array("ftab".utf8) + [0, 1, 0, 1, 5] + Array("Serif".utf8))
        return out
    }()
}
