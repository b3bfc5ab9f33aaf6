import Foundation

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// Reads iTT/TTML documents with Foundation's `XMLParser` (libxml2 underneath).
///
/// One pass: `head` styles and regions are collected as they come (TTML puts `head`
/// before `body`), and each `p` becomes a caption when it closes.
final class ITTReader: NSObject, XMLParserDelegate {
    /// What a `tt`, `body`, `div`, `p` or `span` element passes to its children.
    private struct Scope {
        var name: String
        var style: CaptionStyle
        var alignment: Caption.TextAlignment?
        var region: String?
        var begin: MediaTime
        var end: MediaTime?
        var ruby: String?
    }

    private struct Paragraph {
        var chars: [(Character, CaptionStyle)] = []
        var range: TimeRange?
        var region: String?
        var alignment: Caption.TextAlignment?
        var line: Int
        var rubyBase: Int?
        var rubyText: String?
        var rubyPosition: CaptionStyle.Ruby.Position = .before
    }

    private var scopes: [Scope] = []
    private var styles: [String: (CaptionStyle, Caption.TextAlignment?)] = [:]
    private var regions: [String: CaptionRegion] = [:]
    private var paragraph: Paragraph?
    private var captions: [Caption] = []
    private var warnings: [CaptionWarning] = []
    private var error: ReelError?
    private var sawRoot = false
    private var skipDepth = 0
    private var timing = TTMLTime()
    private weak var parser: XMLParser?

    static func read(_ data: Data) throws(ReelError) -> CaptionDocument {
        let reader = ITTReader()
        // Anything but UTF-8 is refused before XMLParser sees it: FoundationXML traps on
        // names that are not valid in the encoding the document declares.
        let failure = XMLInput.parse(data, format: "iTT", delegate: reader) { reader.parser = $0 }
        if let error = reader.error { throw error }
        if let failure { throw .captionFormat(.itt, failure.message, line: failure.line) }
        guard reader.sawRoot else { throw .captionFormat(.itt, "no <tt> element: not a TTML document", line: 1) }
        return CaptionDocument(captions: reader.captions, warnings: reader.warnings)
    }

    private var line: Int { parser?.lineNumber ?? 0 }

    private func fail(_ message: String) {
        guard error == nil else { return }
        error = .captionFormat(.itt, message, line: line)
        parser?.abortParsing()
    }

    private static func local(_ name: String) -> String {
        name.firstIndex(of: ":").map { String(name[name.index(after: $0)...]) } ?? name
    }

    /// Attributes by local name (`tts:color` -> `color`, `xml:id` -> `id`).
    private static func locals(_ attributes: [String: String]) -> [String: String] {
        var d: [String: String] = [:]
        for (k, v) in attributes where !k.hasPrefix("xmlns") { d[local(k)] = v }
        return d
    }

    /// The style attributes set on an element, and its text alignment.
    private func inlineStyle(_ a: [String: String]) -> (CaptionStyle, Caption.TextAlignment?) {
        var s = CaptionStyle.plain
        var alignment: Caption.TextAlignment?
        if let referenced = a["style"] {
            for id in referenced.split(separator: " ") {
                if let referenced = styles[String(id)] { s = s.merging(referenced.0); alignment = referenced.1 ?? alignment }
            }
        }
        if let v = a["fontWeight"] { s.fontWeight = v == "bold" ? .bold : .normal }
        if let v = a["fontStyle"] { s.italic = v == "italic" || v == "oblique" }
        if let v = a["textDecoration"] { s.underline = v.contains("noUnderline") ? false : v.contains("underline") ? true : s.underline }
        if let v = a["color"] {
            if let c = CaptionColor(v) { s.textColor = c } else { warn("unknown colour \"\(v.prefix(40))\" ignored") }
        }
        if let v = a["backgroundColor"], let c = CaptionColor(v) { s.backgroundColor = c }
        if let v = a["fontSize"] {
            let first = v.split(separator: " ").first ?? ""
            if first.hasSuffix("%"), let p = Double(first.dropLast()), p.isFinite { s.fontSizePercent = p }
        }
        if let v = a["textAlign"] { alignment = Caption.TextAlignment(rawValue: v) }
        return (s, alignment)
    }

    private func warn(_ message: String) {
        warnings.append(CaptionWarning(.itt, message, line: line))
    }

    private func dimensions(_ text: String?, _ what: String) -> (CaptionRegion.Dimension, CaptionRegion.Dimension)? {
        guard let text else { return nil }
        let parts = text.split(separator: " ")
        func one(_ p: Substring) -> CaptionRegion.Dimension? {
            if p.hasSuffix("%"), let v = Double(p.dropLast()), v.isFinite { return .percent(v) }
            if p.hasSuffix("c"), let v = Double(p.dropLast()), v.isFinite { return .cells(v) }
            return nil
        }
        guard parts.count == 2, let x = one(parts[0]), let y = one(parts[1]) else {
            warn("\(what) \"\(text.prefix(40))\" is not two lengths in % or c; ignored")
            return nil
        }
        return (x, y)
    }

    // MARK: XMLParserDelegate

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
        qualifiedName qName: String?, attributes attributeDict: [String: String] = [:]
    ) {
        guard error == nil else { return }
        let name = Self.local(elementName)
        let a = Self.locals(attributeDict)
        if !sawRoot {
            guard name == "tt" else { return fail("the root element is <\(elementName)>, not a TTML <tt>") }
            sawRoot = true
            do { try timing.configure(a) } catch { return fail(error.message) }
            let (s, al) = inlineStyle(a)
            scopes.append(Scope(name: name, style: s, alignment: al, region: nil, begin: .zero, end: nil))
            return
        }
        if skipDepth > 0 { skipDepth += 1; return }
        switch name {
        case "head", "styling", "layout": return
        case "metadata": skipDepth = 1; return
        case "style":
            guard let id = a["id"] else { return }
            styles[id] = inlineStyle(a)
            return
        case "region":
            guard let id = a["id"] else { return }
            let origin = dimensions(a["origin"], "tts:origin") ?? (.percent(0), .percent(0))
            let extent = dimensions(a["extent"], "tts:extent") ?? (.percent(100), .percent(100))
            let display = a["displayAlign"].flatMap(CaptionRegion.DisplayAlignment.init(rawValue:)) ?? .before
            regions[id] = CaptionRegion(identifier: id, x: origin.0, y: origin.1, width: extent.0, height: extent.1, displayAlignment: display)
            return
        case "br":
            paragraph?.chars.append(("\n", scopes.last?.style ?? .plain))
            return
        case "body", "div", "p", "span": break
        default:
            return  // unknown elements: their text still counts inside a p
        }
        guard let parent = scopes.last else { return }
        var scope = parent
        scope.name = name
        scope.ruby = a["ruby"]
        let (s, al) = inlineStyle(a)
        scope.style = parent.style.merging(s)
        if let al { scope.alignment = al }
        if let r = a["region"] { scope.region = r }
        do {
            let begin = try a["begin"].map { (t) throws(ReelError) in try timing.time(t) }
            let end = try a["end"].map { (t) throws(ReelError) in try timing.time(t) }
            let dur = try a["dur"].map { (t) throws(ReelError) in try timing.time(t) }
            scope.begin = parent.begin + (begin ?? .zero)
            if let end { scope.end = parent.begin + end } else if let dur { scope.end = scope.begin + dur }
            if let parentEnd = parent.end { scope.end = scope.end.map { MediaTime.minimum($0, parentEnd) } ?? parentEnd }
        } catch {
            return fail(error.message)
        }
        scopes.append(scope)
        if name == "p" {
            var p = Paragraph(line: line)
            p.region = scope.region
            p.alignment = scope.alignment
            if let end = scope.end { p.range = TimeRange(start: scope.begin, end: end) }
            paragraph = p
        } else if name == "span", paragraph != nil {
            if scope.ruby == "base" { paragraph!.rubyBase = paragraph!.chars.count }
            if scope.ruby == "text" {
                paragraph!.rubyText = ""
                paragraph!.rubyPosition = a["rubyPosition"] == "after" ? .after : .before
            }
        }
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName qName: String?) {
        guard error == nil else { return }
        if skipDepth > 0 { skipDepth -= 1; return }
        let name = Self.local(elementName)
        guard ["tt", "body", "div", "p", "span"].contains(name), let scope = scopes.popLast() else { return }
        if name == "span", scope.ruby == "text", let text = paragraph?.rubyText, let base = paragraph?.rubyBase {
            let ruby = CaptionStyle.Ruby(Self.collapse(text), position: paragraph!.rubyPosition)
            for i in base..<paragraph!.chars.count { paragraph!.chars[i].1.ruby = ruby }
            paragraph!.rubyText = nil
            paragraph!.rubyBase = nil
        }
        if name == "p", let p = paragraph {
            paragraph = nil
            guard let range = p.range, range.start.isNumeric, range.end.isNumeric else {
                warnings.append(CaptionWarning(.itt, "<p> without an end (or dur) skipped", line: p.line))
                return
            }
            guard range.duration >= .zero else {
                warnings.append(CaptionWarning(.itt, "<p> ends before it begins; skipped", line: p.line, time: range.start))
                return
            }
            let region = p.region.flatMap { id in
                regions[id]
                    ?? {
                        warn("region \"\(id.prefix(40))\" is not defined"); return nil
                    }()
            }
            captions.append(Caption(spans: Self.spans(p.chars), timeRange: range, region: region, textAlignment: p.alignment))
        }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        guard error == nil, skipDepth == 0, paragraph != nil else { return }
        if paragraph!.rubyText != nil { paragraph!.rubyText! += string; return }
        let style = scopes.last?.style ?? .plain
        // Line ends in the source are whitespace; only <br/> breaks a line.
        for ch in string { paragraph!.chars.append((ch == "\n" || ch == "\r\n" || ch == "\r" || ch == "\t" ? " " : ch, style)) }
    }

    func parser(_ parser: XMLParser, parseErrorOccurred parseError: any Error) {
        guard error == nil else { return }
        error = .captionFormat(.itt, "not well-formed XML (\((parseError as NSError).localizedDescription))", line: max(1, line))
    }

    func parser(_ parser: XMLParser, foundCDATA CDATABlock: Data) {
        if let s = String(data: CDATABlock, encoding: .utf8) { self.parser(parser, foundCharacters: s) }
    }

    /// Whitespace as TTML's `xml:space="default"` treats it: runs become one space, and
    /// none is kept at the ends of a line.
    private static func collapse(_ s: String) -> String {
        s.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }).joined(separator: " ")
    }

    private static func spans(_ chars: [(Character, CaptionStyle)]) -> [Caption.Span] {
        var out: [(Character, CaptionStyle)] = []
        for (ch, style) in chars {
            let c = ch
            if c == " " || (c == "\n" && out.last?.0 == " ") {
                // Collapse runs of spaces; drop spaces at a line's start or before a break.
                if c == "\n" { out.removeLast() }
                if c == " " && (out.isEmpty || out.last?.0 == " " || out.last?.0 == "\n") { continue }
            }
            out.append((c, style))
        }
        while out.last?.0 == " " { out.removeLast() }
        var spans: [Caption.Span] = []
        for (ch, style) in out {
            if let last = spans.last, last.style == style { spans[spans.count - 1].text.append(ch) } else { spans.append(Caption.Span(String(ch), style)) }
        }
        return spans
    }
}
