import Foundation

/// The HTML-like markup of SRT and WebVTT cue text (`<b>`, `<i>`, `<u>`, SRT's
/// `<font color>`, WebVTT's `<c.class>` and `<ruby><rt>`), read into styled runs and
/// written back.
///
/// Reading is lenient as players are: an unknown tag is dropped with its text kept, a
/// close tag closes the innermost open tag of its name, and an unclosed tag ends with the
/// cue. The five entities WebVTT names plus numeric references are decoded.
struct CueMarkup {
    /// Colours by WebVTT class name (`yellow`, `bg_blue`, or ones a STYLE block defines).
    var classStyles: [String: CaptionStyle] = CueMarkup.defaultClasses
    let isWebVTT: Bool

    /// The WebVTT default text and background colour classes.
    static let defaultClasses: [String: CaptionStyle] = {
        var d: [String: CaptionStyle] = [:]
        let colors: [(String, CaptionColor)] = [
            ("white", .white), ("lime", .green), ("cyan", .cyan), ("red", .red),
            ("yellow", .yellow), ("magenta", .magenta), ("blue", .blue), ("black", .black),
        ]
        for (name, color) in colors {
            d[name] = CaptionStyle(textColor: color)
            d["bg_" + name] = CaptionStyle(backgroundColor: color)
        }
        return d
    }()

    /// The styled runs of a cue's text (its lines joined by `"\n"`).
    func spans(_ text: String) -> [Caption.Span] {
        var chars: [(Character, CaptionStyle)] = []
        var stack: [(name: String, style: CaptionStyle)] = []
        var rubyStart: Int?
        var rubyText: String?
        var current: CaptionStyle { stack.reduce(.plain) { $0.merging($1.style) } }
        func append(_ s: String) {
            if rubyText != nil { rubyText! += s; return }
            let style = current
            for ch in s { chars.append((ch, style)) }
        }
        var i = text.startIndex
        var plain = ""
        func flush() { if !plain.isEmpty { append(CueMarkup.decodeEntities(plain)); plain = "" } }
        while i < text.endIndex {
            let ch = text[i]
            guard ch == "<", let close = text[i...].firstIndex(of: ">") else {
                plain.append(ch)
                i = text.index(after: i)
                continue
            }
            flush()
            let tag = text[text.index(after: i)..<close]
            i = text.index(after: close)
            if tag.hasPrefix("/") {
                let name = tag.dropFirst().trimmingCharacters(in: .whitespaces).lowercased()
                if name == "rt", let r = rubyText, let start = rubyStart {
                    rubyText = nil
                    for k in start..<chars.count { chars[k].1.ruby = CaptionStyle.Ruby(r) }
                    rubyStart = chars.count
                    continue
                }
                if name == "ruby" { rubyStart = nil; rubyText = nil }
                if let at = stack.lastIndex(where: { $0.name == name }) { stack.removeSubrange(at...) }
                continue
            }
            // A timestamp tag (`<00:00:01.000>`, WebVTT karaoke) or an empty one: no style.
            guard let first = tag.first, first.isLetter else { continue }
            let head = tag.split(whereSeparator: { $0 == " " || $0 == "\t" }).first ?? tag
            let parts = head.split(separator: ".")
            let name = parts.first.map { $0.lowercased() } ?? ""
            var style = CaptionStyle.plain
            switch name {
            case "b": style.fontWeight = .bold
            case "i": style.italic = true
            case "u": style.underline = true
            case "font":
                if let color = CueMarkup.attribute("color", in: tag).flatMap(CaptionColor.init) { style.textColor = color }
            case "ruby": rubyStart = chars.count
            case "rt": if rubyStart != nil { rubyText = "" }
            default: break
            }
            if isWebVTT { for cls in parts.dropFirst() { if let s = classStyles[String(cls)] { style = style.merging(s) } } }
            if name != "rt" { stack.append((name, style)) }
        }
        flush()
        var spans: [Caption.Span] = []
        for (ch, style) in chars {
            if let last = spans.last, last.style == style { spans[spans.count - 1].text.append(ch) } else { spans.append(Caption.Span(String(ch), style)) }
        }
        return spans
    }

    /// The value of `name="..."` (or single-quoted, or bare) in a tag's text.
    static func attribute(_ name: String, in tag: Substring) -> String? {
        let lower = tag.lowercased()
        guard let r = lower.range(of: name + "=") else { return nil }
        var rest = tag[tag.index(tag.startIndex, offsetBy: lower.distance(from: lower.startIndex, to: r.upperBound))...]
        if let q = rest.first, q == "\"" || q == "'" {
            rest = rest.dropFirst()
            return String(rest.prefix { $0 != q })
        }
        return String(rest.prefix { $0 != " " && $0 != ">" })
    }

    static func decodeEntities(_ s: String) -> String {
        guard s.contains("&") else { return s }
        var out = ""
        var i = s.startIndex
        while i < s.endIndex {
            if s[i] == "&", let semi = s[i...].prefix(12).firstIndex(of: ";") {
                let name = s[s.index(after: i)..<semi]
                var value: String?
                switch name {
                case "amp": value = "&"
                case "lt": value = "<"
                case "gt": value = ">"
                case "quot": value = "\""
                case "apos": value = "'"
                case "nbsp": value = "\u{A0}"
                case "lrm": value = "\u{200E}"
                case "rlm": value = "\u{200F}"
                default:
                    if name.hasPrefix("#") {
                        let digits = name.dropFirst()
                        let code = digits.first == "x" || digits.first == "X" ? UInt32(digits.dropFirst(), radix: 16) : UInt32(digits)
                        value = code.flatMap(Unicode.Scalar.init).map { String(Character($0)) }
                    }
                }
                if let value {
                    out += value
                    i = s.index(after: semi)
                    continue
                }
            }
            out.append(s[i])
            i = s.index(after: i)
        }
        return out
    }

    static func escape(_ s: String) -> String {
        var out = ""
        for ch in s {
            switch ch {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            default: out.append(ch)
            }
        }
        return out
    }

    /// The class name a WebVTT writer uses for a colour: a default class where there is one,
    /// else `c_rrggbb` (defined in the file's STYLE block).
    static func className(_ color: CaptionColor, background: Bool) -> String {
        let base = defaultClasses.first { $0.value == (background ? CaptionStyle(backgroundColor: color) : CaptionStyle(textColor: color)) }?.key
        return base ?? ((background ? "bg_" : "") + "c_" + color.hexString.dropFirst())
    }

    /// The markup for styled runs. Lines stay separated by `"\n"` (a carriage return in
    /// the text is a line break, as readers take it); lines that are empty or only spaces
    /// and tabs (which would end the cue) are dropped.
    func markup(_ spans: [Caption.Span]) -> String {
        var out = ""
        for span in spans {
            let s = span.style.normalized
            var open = "", close = ""
            func wrap(_ o: String, _ c: String) { open += o; close = c + close }
            if s.fontWeight == .bold { wrap("<b>", "</b>") }
            if s.italic == true { wrap("<i>", "</i>") }
            if s.underline == true { wrap("<u>", "</u>") }
            if isWebVTT {
                var classes = ""
                if let c = s.textColor { classes += "." + CueMarkup.className(c, background: false) }
                if let c = s.backgroundColor { classes += "." + CueMarkup.className(c, background: true) }
                if !classes.isEmpty { wrap("<c\(classes)>", "</c>") }
            } else if let c = s.textColor {
                wrap("<font color=\"\(c.hexString)\">", "</font>")
            }
            var body = CueMarkup.escape(span.text)
            if isWebVTT, let ruby = s.ruby { body = "<ruby>\(body)<rt>\(CueMarkup.escape(ruby.text))</rt></ruby>" }
            // Tags never span a line break, so each line of the cue is balanced on its own.
            out += body.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" })
                .map { $0.isEmpty ? "" : open + $0 + close }.joined(separator: "\n")
        }
        return out.split(separator: "\n").filter { !$0.allSatisfy { $0 == " " || $0 == "\t" } }.joined(separator: "\n")
    }
}
