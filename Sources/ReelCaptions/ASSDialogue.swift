/// The text of an ASS/SSA dialogue event as Matroska stores it
/// (`ReadOrder,Layer,Style,Name,MarginL,MarginR,MarginV,Effect,Text`, FFmpeg's "ass"
/// packets), read into styled runs.
///
/// Read: `\N` and `\n` line breaks, `\h` hard spaces, the override tags `{\b1}`, `{\i1}`,
/// `{\u1}` (and their `0` forms), `{\c&HBBGGRR&}`/`{\1c...}` colours and `{\r}` (reset);
/// other override tags are dropped. The event's named style is not applied (it lives in
/// the track's header).
enum ASSDialogue {
    static func spans(_ event: String) -> [Caption.Span] {
        // The text is everything after the eighth comma; a bare text (no fields) is taken whole.
        var text = Substring(event)
        var commas = 0
        if let cut = event.firstIndex(where: { c in
            if c == "," { commas += 1 }
            return commas == 8
        }) {
            text = event[event.index(after: cut)...]
        }
        var spans: [Caption.Span] = []
        var style = CaptionStyle.plain
        func append(_ s: String) {
            if let last = spans.last, last.style == style { spans[spans.count - 1].text += s } else { spans.append(Caption.Span(s, style)) }
        }
        var i = text.startIndex
        while i < text.endIndex {
            let c = text[i]
            if c == "{", let close = text[i...].firstIndex(of: "}") {
                for tag in text[text.index(after: i)..<close].split(separator: "\\") { apply(tag, to: &style) }
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
        return spans
    }

    private static func apply(_ tag: Substring, to style: inout CaptionStyle) {
        func flag(_ prefix: String) -> Bool? {
            guard tag.hasPrefix(prefix), let v = Int(tag.dropFirst(prefix.count)) else { return nil }
            return v != 0
        }
        if let b = flag("b") { style.fontWeight = b ? .bold : .normal }
        else if let v = flag("i") { style.italic = v }
        else if let v = flag("u") { style.underline = v }
        else if tag == "r" { style = .plain }
        else if tag.hasPrefix("c&H") || tag.hasPrefix("1c&H") {
            let hex = tag.drop { $0 != "H" }.dropFirst().prefix { $0 != "&" }
            if let v = UInt32(hex, radix: 16), hex.count <= 8 {
                style.textColor = CaptionColor(red: UInt8(v & 0xFF), green: UInt8(v >> 8 & 0xFF), blue: UInt8(v >> 16 & 0xFF))
            }
        }
    }
}
