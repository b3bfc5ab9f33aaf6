/// The text of an ASS/SSA dialogue event as Matroska stores it
/// (`ReadOrder,Layer,Style,Name,MarginL,MarginR,MarginV,Effect,Text`, FFmpeg's "ass"
/// packets), read into styled runs and a placement.
///
/// Read: `\N` and `\n` line breaks, `\h` hard spaces, the override tags `{\b1}`, `{\i1}`,
/// `{\u1}` (and their `0` forms), `{\c&HBBGGRR&}`/`{\1c...}` colours and `{\r}` (reset);
/// the placement of `{\anN}` and `{\aN}` (``CaptionPlacement``), else the `Alignment` of
/// the event's named style in the track's header (``styleAlignments(header:)``); other
/// override tags are dropped. The named style's fonts and colours are not applied.
enum ASSDialogue {
    /// A dialogue event's styled runs, and its placement when an override tag or its named
    /// style (by `styleAlignments`, keypad positions by style name) gives one.
    static func read(_ event: String, styleAlignments: [String: Int] = [:]) -> (
        spans: [Caption.Span], placement: (region: CaptionRegion, alignment: Caption.TextAlignment?)?
    ) {
        // The text is everything after the eighth comma; a bare text (no fields) is taken whole.
        var text = Substring(event)
        var commas = 0
        var styleName: Substring?
        if let cut = event.firstIndex(where: { c in
            if c == "," { commas += 1 }
            return commas == 8
        }) {
            text = event[event.index(after: cut)...]
            let fields = event[..<cut].split(separator: ",", maxSplits: 3, omittingEmptySubsequences: false)
            if fields.count > 2 { styleName = fields[2] }
        }
        var placement = styleName.flatMap { styleAlignments[String($0.trimmingCharacters(in: .whitespaces))] }.flatMap { CaptionPlacement.keypad($0) }
        var spans: [Caption.Span] = []
        var style = CaptionStyle.plain
        func append(_ s: String) {
            if let last = spans.last, last.style == style { spans[spans.count - 1].text += s } else { spans.append(Caption.Span(s, style)) }
        }
        var i = text.startIndex
        while i < text.endIndex {
            let c = text[i]
            if c == "{", let close = text[i...].firstIndex(of: "}") {
                for tag in text[text.index(after: i)..<close].split(separator: "\\") {
                    if tag.hasPrefix("an"), let n = Int(tag.dropFirst(2)) {
                        if let p = CaptionPlacement.keypad(n) { placement = p }
                    } else if tag.hasPrefix("a"), let n = Int(tag.dropFirst()) {
                        if let k = CaptionPlacement.keypad(legacy: n) { placement = CaptionPlacement.keypad(k) }
                    } else {
                        apply(tag, to: &style)
                    }
                }
                i = text.index(after: close)
                continue
            }
            if c == "\\", text.index(after: i) < text.endIndex {
                let n = text[text.index(after: i)]
                if n == "N" || n == "n" { append("\n"); i = text.index(i, offsetBy: 2); continue }
                if n == "h" { append("\u{A0}"); i = text.index(i, offsetBy: 2); continue }
            }
            append(String(c))
            i = text.index(after: i)
        }
        return (spans, placement)
    }

    static func spans(_ event: String) -> [Caption.Span] { read(event).spans }

    /// The keypad position (``CaptionPlacement``) of each style an ASS or SSA script header
    /// (a Matroska ASS track's codec private data) defines, by name: the `Alignment` field
    /// of the `Style:` lines under `[V4+ Styles]` (keypad numbers) or `[V4 Styles]` (SSA's
    /// legacy numbers), found through the section's `Format:` line.
    static func styleAlignments(header: String) -> [String: Int] {
        var result: [String: Int] = [:]
        var legacy = false, inStyles = false
        var nameIndex: Int?, alignmentIndex: Int?
        for raw in header.split(whereSeparator: \.isNewline) {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("[") {
                let section = line.lowercased()
                inStyles = section == "[v4+ styles]" || section == "[v4 styles]"
                legacy = section == "[v4 styles]"
                nameIndex = nil
                alignmentIndex = nil
                continue
            }
            guard inStyles, let colon = line.firstIndex(of: ":") else { continue }
            let key = line[..<colon].lowercased()
            let fields = line[line.index(after: colon)...].split(separator: ",", omittingEmptySubsequences: false)
                .map { $0.trimmingCharacters(in: .whitespaces) }
            if key == "format" {
                nameIndex = fields.firstIndex { $0.lowercased() == "name" }
                alignmentIndex = fields.firstIndex { $0.lowercased() == "alignment" }
            } else if key == "style", let n = nameIndex, let a = alignmentIndex, n < fields.count, a < fields.count,
                let value = Int(fields[a]), let keypad = legacy ? CaptionPlacement.keypad(legacy: value) : value,
                (1...9).contains(keypad)
            {
                result[fields[n]] = keypad
            }
        }
        return result
    }

    private static func apply(_ tag: Substring, to style: inout CaptionStyle) {
        func flag(_ prefix: String) -> Bool? {
            guard tag.hasPrefix(prefix), let v = Int(tag.dropFirst(prefix.count)) else { return nil }
            return v != 0
        }
        if let b = flag("b") {
            style.fontWeight = b ? .bold : .normal
        } else if let v = flag("i") {
            style.italic = v
        } else if let v = flag("u") {
            style.underline = v
        } else if tag == "r" {
            style = .plain
        } else if tag.hasPrefix("c&H") || tag.hasPrefix("1c&H") {
            let hex = tag.drop { $0 != "H" }.dropFirst().prefix { $0 != "&" }
            if let v = UInt32(hex, radix: 16), hex.count <= 8 {
                style.textColor = CaptionColor(red: UInt8(v & 0xFF), green: UInt8(v >> 8 & 0xFF), blue: UInt8(v >> 16 & 0xFF))
            }
        }
    }
}
