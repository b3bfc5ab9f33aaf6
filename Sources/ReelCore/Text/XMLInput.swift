import Foundation

/// What the XML readers (GPX, iTT) check before Foundation's `XMLParser` sees a document.
package enum XMLInput {
    /// Why `data` cannot be handed to `XMLParser`, and on which line, or nil when it can.
    ///
    /// The document must be UTF-8 and declare no other encoding: FoundationXML traps on
    /// names that are not valid in the encoding a document declares.
    /// - Parameter format: names the kind of document in the message (`"GPX"`, `"iTT"`).
    package static func utf8Problem(in data: Data, format: String) -> (message: String, line: Int)? {
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
}
