import Foundation

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// How the XML readers (GPX, iTT) run Foundation's `XMLParser` over a document.
package enum XMLInput {
    /// Parses `data` with `delegate`, external entities off, after ``utf8Problem(in:format:)``;
    /// `attach` gets the parser before it starts (for the delegate's line numbers). Returns
    /// nil when the document parsed, else what is wrong and on which line.
    package static func parse(
        _ data: Data, format: String, delegate: any XMLParserDelegate,
        attach: (XMLParser) -> Void
    ) -> (message: String, line: Int)? {
        if let problem = utf8Problem(in: data, format: format) ?? emptyProcessingInstruction(in: data) { return problem }
        let parser = XMLParser(data: data)
        parser.shouldResolveExternalEntities = false
        parser.delegate = delegate
        attach(parser)
        guard !parser.parse() else { return nil }
        let cause = parser.parserError.map { ($0 as NSError).localizedDescription } ?? "parse failed"
        return ("not well-formed XML (\(cause))", max(1, parser.lineNumber))
    }

    /// Why `data` cannot be handed to `XMLParser`, and on which line, or nil when it can.
    ///
    /// The document must be UTF-8 and declare no other encoding: FoundationXML traps on
    /// names that are not valid in the encoding a document declares.
    /// - Parameter format: names the kind of document in the message (`"GPX"`, `"iTT"`).
    static func utf8Problem(in data: Data, format: String) -> (message: String, line: Int)? {
        guard let text = String(data: data, encoding: .utf8) else {
            let valid = String(decoding: data, as: UTF8.self).prefix { $0 != "\u{FFFD}" }
            return ("the document is not UTF-8 text", valid.reduce(1) { $1 == "\n" ? $0 + 1 : $0 })
        }
        guard text.hasPrefix("<?xml"), let end = text.range(of: "?>") else { return nil }
        let declaration = text[..<end.lowerBound].lowercased()
        guard let r = declaration.range(of: "encoding") else { return nil }
        let value = declaration[r.upperBound...].drop { $0 == " " || $0 == "=" || $0 == "\"" || $0 == "'" }.prefix { $0 != "\"" && $0 != "'" }
        guard value != "utf-8" && value != "utf8" else { return nil }
        return ("the document declares encoding \"\(value.prefix(20))\"; \(format) documents are UTF-8", 1)
    }

    /// A processing instruction with a target and no data (`<?name?>`), which FoundationXML's
    /// parser crashes on (libxml2 hands it a null data pointer, which it reads as a C
    /// string), and the line it is on; nil when there is none. Found by fuzzing the GPX
    /// reader.
    static func emptyProcessingInstruction(in data: Data) -> (message: String, line: Int)? {
        let bytes = [UInt8](data)
        let lt = UInt8(ascii: "<"), question = UInt8(ascii: "?"), gt = UInt8(ascii: ">")
        var line = 1
        var i = 0
        while i < bytes.count {
            if bytes[i] == UInt8(ascii: "\n") { line += 1 }
            guard bytes[i] == lt, i + 1 < bytes.count, bytes[i + 1] == question else { i += 1; continue }
            // The target runs to white space or `?`.
            var j = i + 2
            while j < bytes.count, !isSpace(bytes[j]), bytes[j] != question { j += 1 }
            if j > i + 2, j + 1 < bytes.count, bytes[j] == question, bytes[j + 1] == gt {
                let target = String(decoding: bytes[(i + 2)..<j].prefix(40), as: UTF8.self)
                return ("a processing instruction without data (<?\(target)?>), which the XML parser cannot read", line)
            }
            i += 2
        }
        return nil
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }
}
