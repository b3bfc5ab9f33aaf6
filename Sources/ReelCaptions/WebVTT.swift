import Foundation

/// WebVTT (`.vtt`) files, after the W3C WebVTT specification: the `WEBVTT` header, cues
/// with `[HH:]MM:SS.mmm --> [HH:]MM:SS.mmm` timing and settings, `NOTE`, `STYLE` and
/// `REGION` blocks, and cue text markup (`<b>`, `<i>`, `<u>`, `<c.class>`, `<ruby>`,
/// `<v>`, `<lang>`).
///
/// Read: `line:` places a cue in the top or bottom region, `align:` gives its text
/// alignment; `::cue(.name)` rules of STYLE blocks with `color`/`background-color` define
/// classes; the WebVTT default colour classes (`yellow`, `bg_blue`, ...) are known.
/// Written: colours as default classes where one exists, else classes a STYLE block defines.
public enum WebVTT {
    /// The captions of a WebVTT file.
    /// - Throws: `.captionFormat` naming the line when the `WEBVTT` header is missing, a
    ///   timing line is malformed or a cue ends before it starts.
    public static func read(_ data: Data) throws(ReelError) -> CaptionDocument {
        let blocks = try CueBlocks(data, format: .webVTT).blocks
        guard let header = blocks.first?.first, header.text.hasPrefix("WEBVTT"),
            header.text.count == 6 || header.text.dropFirst(6).first == " " || header.text.dropFirst(6).first == "\t"
        else {
            throw .captionFormat(.webVTT, "the file does not start with \"WEBVTT\"", line: 1)
        }
        var markup = CueMarkup(isWebVTT: true)
        var captions: [Caption] = []
        var warnings: [CaptionWarning] = []
        // The header block may hold metadata lines; a cue after a blank line.
        for block in blocks.dropFirst() {
            guard let first = block.first else { continue }
            if first.text.hasPrefix("NOTE") { continue }
            if first.text.hasPrefix("STYLE"), !first.text.contains("-->") {
                styleRules(block.dropFirst().map { String($0.text) }.joined(separator: "\n"), into: &markup.classStyles)
                continue
            }
            if first.text.hasPrefix("REGION"), !first.text.contains("-->") { continue }
            var lines = block[...]
            if !first.text.contains("-->") { lines = lines.dropFirst() }  // the cue identifier
            guard let timing = lines.first, timing.text.contains("-->") else {
                warnings.append(CaptionWarning(.webVTT, "block without a timing line skipped: \"\(first.text.prefix(40))\"", line: first.number))
                continue
            }
            let parts = timing.text.components(separatedBy: "-->")
            let startText = parts[0].trimmingCharacters(in: .whitespaces)
            let rest = parts.count == 2 ? parts[1].split(whereSeparator: { $0 == " " || $0 == "\t" }) : []
            guard parts.count == 2, let endText = rest.first,
                let start = CueClock.milliseconds(Substring(startText), separators: ["."], hoursOptional: true),
                let end = CueClock.milliseconds(endText, separators: ["."], hoursOptional: true)
            else {
                throw .captionFormat(
                    .webVTT, "malformed timing line \"\(timing.text.prefix(60))\" (expected [HH:]MM:SS.mmm --> [HH:]MM:SS.mmm)", line: timing.number)
            }
            guard end >= start else {
                throw .captionFormat(.webVTT, "cue ends (\(endText)) before it starts (\(startText))", line: timing.number, time: CueClock.time(start))
            }
            let (region, alignment) = placement(settings: rest.dropFirst())
            let text = lines.dropFirst().map { String($0.text) }.joined(separator: "\n")
            let range = TimeRange(start: CueClock.time(start), end: CueClock.time(end))
            captions.append(Caption(spans: markup.spans(text), timeRange: range, region: region, textAlignment: alignment))
        }
        return CaptionDocument(captions: captions, warnings: warnings)
    }

    /// The region and text alignment of a cue's settings (`line:0 align:start`, split at
    /// spaces): `line` as a percentage or a line number places the cue at the top (above
    /// 50%, or lines 0-7 counted from the top) or the bottom; `align` gives its alignment.
    /// Other settings (`position`, `size`, `vertical`, `region`) are not read.
    static func placement<S: Sequence>(settings: S) -> (CaptionRegion?, Caption.TextAlignment?) where S.Element: StringProtocol {
        var region: CaptionRegion?
        var alignment: Caption.TextAlignment?
        for setting in settings {
            let kv = setting.split(separator: ":", maxSplits: 1)
            guard kv.count == 2 else { continue }
            switch kv[0] {
            case "line":
                let value = kv[1].split(separator: ",").first ?? ""
                if value.hasSuffix("%"), let p = Double(value.dropLast()) {
                    region = p < 50 ? .top : .bottom
                } else if let n = Int(value) {
                    region = n >= 0 && n < 8 ? .top : .bottom
                }
            case "align": alignment = Caption.TextAlignment(rawValue: String(kv[1]) == "middle" ? "center" : String(kv[1]))
            default: break
            }
        }
        return (region, alignment)
    }

    /// The cue settings that place `caption`: `line:0` in the upper half of the picture,
    /// `align:` its alignment; "" for neither.
    static func settings(for caption: Caption) -> String {
        var out: [String] = []
        if let region = caption.region, region.isInUpperHalf(rows: 15) { out.append("line:0") }
        if let alignment = caption.textAlignment { out.append("align:\(alignment.rawValue)") }
        return out.joined(separator: " ")
    }

    /// Adds the classes `::cue(.name) { color: ...; background-color: ... }` rules define.
    static func styleRules(_ css: String, into classes: inout [String: CaptionStyle]) {
        var rest = Substring(css)
        while let sel = rest.range(of: "::cue(."), let close = rest[sel.upperBound...].firstIndex(of: ")"),
            let open = rest[close...].firstIndex(of: "{"), let end = rest[open...].firstIndex(of: "}")
        {
            let name = String(rest[sel.upperBound..<close])
            var style = classes[name] ?? .plain
            for decl in rest[rest.index(after: open)..<end].split(separator: ";") {
                let kv = decl.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
                guard kv.count == 2, let color = CaptionColor(kv[1]) else { continue }
                if kv[0] == "color" { style.textColor = color }
                if kv[0] == "background-color" { style.backgroundColor = color }
            }
            classes[name] = style
            rest = rest[rest.index(after: end)...]
        }
    }

    /// A WebVTT file with one cue per caption, times to the millisecond. A caption in the
    /// upper half of the picture gets `line:0`, an alignment `align:`.
    public static func write(_ captions: [Caption]) -> Data {
        let markup = CueMarkup(isWebVTT: true)
        var out = "WEBVTT\n\n"
        // Colours without a default class get one of their own.
        var rules: [String] = []
        for caption in captions {
            for span in caption.spans {
                let s = span.style.normalized
                for (color, background) in [(s.textColor, false), (s.backgroundColor, true)] {
                    guard let color else { continue }
                    let name = CueMarkup.className(color, background: background)
                    let rule = "::cue(.\(name)) { \(background ? "background-color" : "color"): \(color.hexString); }"
                    if CueMarkup.defaultClasses[name] == nil, !rules.contains(rule) { rules.append(rule) }
                }
            }
        }
        if !rules.isEmpty { out += "STYLE\n" + rules.joined(separator: "\n") + "\n\n" }
        for caption in captions {
            let start = CueClock.milliseconds(caption.timeRange.start), end = CueClock.milliseconds(caption.timeRange.end)
            out += CueClock.string(milliseconds: start, separator: ".") + " --> " + CueClock.string(milliseconds: end, separator: ".")
            let cueSettings = settings(for: caption)
            if !cueSettings.isEmpty { out += " " + cueSettings }
            out += "\n" + markup.markup(caption.spans) + "\n\n"
        }
        return Data(out.utf8)
    }
}
