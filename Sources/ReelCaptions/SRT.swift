import Foundation

/// SubRip (`.srt`) files: numbered cues with `HH:MM:SS,mmm --> HH:MM:SS,mmm` timing and
/// `<b>`, `<i>`, `<u>`, `<font color>` markup.
///
/// SRT has no formal specification; this follows the de-facto format players accept:
/// the cue number is optional when reading, `.` is accepted for `,`, an `{\anN}` tag at the
/// start of the text places the cue (7-9 top, 1-3 bottom) and other `{\...}` tags are
/// dropped. Cues that overlap are kept and reported as warnings, since SRT players show one
/// cue at a time.
public enum SRT {
    /// The captions of an SRT file.
    /// - Throws: `.captionFormat` naming the line when a timing line is malformed or a
    ///   cue ends before it starts; the file is not UTF-8.
    public static func read(_ data: Data) throws(ReelError) -> CaptionDocument {
        let blocks = try CueBlocks(data, format: .srt).blocks
        let markup = CueMarkup(isWebVTT: false)
        var captions: [Caption] = []
        var warnings: [CaptionWarning] = []
        var lastEnd: (ms: Int64, line: Int)?
        for block in blocks {
            var lines = block[...]
            if let first = lines.first, first.text.trimmingCharacters(in: .whitespaces).allSatisfy(\.isASCIIDigit),
                lines.count > 1, !first.text.contains("-->")
            {
                lines = lines.dropFirst()
            }
            guard let timing = lines.first else { continue }
            guard timing.text.contains("-->") else {
                throw .captionFormat(.srt, "expected a timing line \"HH:MM:SS,mmm --> HH:MM:SS,mmm\", found \"\(timing.text.prefix(60))\"", line: timing.number)
            }
            let (start, end) = try times(timing)
            let body = lines.dropFirst().map { String($0.text) }.joined(separator: "\n")
            var (text, placement) = positionTags(body)
            text = text.trimmingCharacters(in: .newlines)
            if let lastEnd, start < lastEnd.ms {
                warnings.append(
                    CaptionWarning(.srt, "cue starts before the cue ending at line \(lastEnd.line) has ended", line: timing.number, time: CueClock.time(start)))
            }
            lastEnd = (max(end, lastEnd?.ms ?? end), timing.number)
            let range = TimeRange(start: CueClock.time(start), end: CueClock.time(end))
            captions.append(Caption(spans: markup.spans(text), timeRange: range, region: placement?.region, textAlignment: placement?.alignment))
        }
        return CaptionDocument(captions: captions, warnings: warnings)
    }

    static func times(_ line: CueBlocks.Line) throws(ReelError) -> (Int64, Int64) {
        let parts = line.text.components(separatedBy: "-->")
        let startText = parts[0].trimmingCharacters(in: .whitespaces)
        // Anything after the end time (SRT position extensions such as X1:...) is ignored.
        let endText = parts.count == 2 ? (parts[1].split(separator: " ", omittingEmptySubsequences: true).first.map(String.init) ?? "") : ""
        guard parts.count == 2, let start = CueClock.milliseconds(Substring(startText), separators: [",", "."], hoursOptional: false),
            let end = CueClock.milliseconds(Substring(endText), separators: [",", "."], hoursOptional: false)
        else {
            throw .captionFormat(.srt, "malformed timing line \"\(line.text.prefix(60))\" (expected HH:MM:SS,mmm --> HH:MM:SS,mmm)", line: line.number)
        }
        guard end >= start else {
            throw .captionFormat(.srt, "cue ends (\(endText)) before it starts (\(startText))", line: line.number, time: CueClock.time(start))
        }
        return (start, end)
    }

    /// The text without `{\...}` override tags, and the placement an `{\anN}` (or SSA
    /// `{\aN}`) tag asks for (``CaptionPlacement``).
    static func positionTags(_ text: String) -> (String, (region: CaptionRegion, alignment: Caption.TextAlignment?)?) {
        guard text.contains("{\\") else { return (text, nil) }
        var out = "", placement: (region: CaptionRegion, alignment: Caption.TextAlignment?)?
        var i = text.startIndex
        while i < text.endIndex {
            if text[i...].hasPrefix("{\\"), let close = text[i...].firstIndex(of: "}") {
                for tag in text[text.index(after: i)..<close].split(separator: "\\") {
                    if tag.hasPrefix("an"), let n = Int(tag.dropFirst(2)), let p = CaptionPlacement.keypad(n) {
                        placement = p
                    } else if tag.hasPrefix("a"), let n = Int(tag.dropFirst()), let k = CaptionPlacement.keypad(legacy: n) {
                        placement = CaptionPlacement.keypad(k)
                    }
                }
                i = text.index(after: close)
            } else {
                out.append(text[i])
                i = text.index(after: i)
            }
        }
        return (out, placement)
    }

    /// An SRT file: cues numbered from 1 in the order given, times to the millisecond.
    /// A caption placed elsewhere than bottom centre gets an `{\anN}` tag: its region's row
    /// (top, middle, bottom) and its alignment's column (`CaptionPlacement`).
    public static func write(_ captions: [Caption]) -> Data {
        let markup = CueMarkup(isWebVTT: false)
        var out = ""
        for (n, caption) in captions.enumerated() {
            let start = CueClock.milliseconds(caption.timeRange.start), end = CueClock.milliseconds(caption.timeRange.end)
            out += "\(n + 1)\n"
            out += CueClock.string(milliseconds: start, separator: ",") + " --> " + CueClock.string(milliseconds: end, separator: ",") + "\n"
            out += CaptionPlacement.keypadTag(of: caption) + markup.markup(caption.spans) + "\n\n"
        }
        return Data(out.utf8)
    }
}
