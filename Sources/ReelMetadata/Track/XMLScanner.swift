import Foundation

/// A small, non-validating XML tokenizer: enough for GPX without a libxml2 dependency.
///
/// It reports start tags (with attributes), end tags and text, decodes the five named
/// entities and numeric character references, passes CDATA through as text and skips
/// comments, processing instructions and the DOCTYPE. Names keep their prefix; use
/// ``localName(_:)`` to drop it. Errors name the byte offset.
struct XMLScanner {
    enum Event: Equatable {
        case start(name: String, attributes: [String: String], selfClosing: Bool)
        case end(name: String)
        case text(String)
    }

    private let b: [UInt8]
    private var i = 0
    private var depth = 0
    let format: String

    init(_ data: Data, format: String) {
        b = [UInt8](data)
        self.format = format
        // Skip a UTF-8 byte order mark.
        if b.starts(with: [0xEF, 0xBB, 0xBF]) { i = 3 }
    }

    static func localName(_ name: String) -> String {
        name.firstIndex(of: ":").map { String(name[name.index(after: $0)...]) } ?? name
    }

    private func fail(_ what: String, at offset: Int? = nil) -> ReelError {
        .metadataFormat(format, "XML: \(what)", offset: offset ?? i)
    }

    private func starts(with s: String) -> Bool {
        let u = Array(s.utf8)
        return i + u.count <= b.count && b[i..<(i + u.count)].elementsEqual(u)
    }

    private mutating func skip(past terminator: String, what: String) throws(ReelError) {
        let start = i
        let t = Array(terminator.utf8)
        while i + t.count <= b.count {
            if b[i..<(i + t.count)].elementsEqual(t) { i += t.count; return }
            i += 1
        }
        throw fail("unterminated \(what)", at: start)
    }

    private static func isNameByte(_ c: UInt8) -> Bool {
        c >= 0x80 || (0x30...0x39).contains(c) || (0x41...0x5A).contains(c) || (0x61...0x7A).contains(c)
            || c == UInt8(ascii: "_") || c == UInt8(ascii: ":") || c == UInt8(ascii: "-") || c == UInt8(ascii: ".")
    }

    private static func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D }

    private mutating func skipSpace() { while i < b.count, Self.isSpace(b[i]) { i += 1 } }

    private mutating func name() throws(ReelError) -> String {
        let start = i
        while i < b.count, Self.isNameByte(b[i]) { i += 1 }
        guard i > start else { throw fail("expected a name") }
        return String(decoding: b[start..<i], as: UTF8.self)
    }

    /// Decodes entities in raw text.
    private func unescape(_ raw: ArraySlice<UInt8>, at offset: Int) throws(ReelError) -> String {
        guard raw.contains(UInt8(ascii: "&")) else { return String(decoding: raw, as: UTF8.self) }
        var out: [UInt8] = []
        var k = raw.startIndex
        while k < raw.endIndex {
            guard raw[k] == UInt8(ascii: "&") else { out.append(raw[k]); k += 1; continue }
            guard let semi = raw[k...].prefix(12).firstIndex(of: UInt8(ascii: ";")) else { throw fail("unterminated entity", at: offset + (k - raw.startIndex)) }
            let entity = String(decoding: raw[(k + 1)..<semi], as: UTF8.self)
            switch entity {
            case "lt": out.append(UInt8(ascii: "<"))
            case "gt": out.append(UInt8(ascii: ">"))
            case "amp": out.append(UInt8(ascii: "&"))
            case "quot": out.append(UInt8(ascii: "\""))
            case "apos": out.append(UInt8(ascii: "'"))
            default:
                var scalar: UInt32?
                if entity.hasPrefix("#x") || entity.hasPrefix("#X") { scalar = UInt32(entity.dropFirst(2), radix: 16) }
                else if entity.hasPrefix("#") { scalar = UInt32(entity.dropFirst(1)) }
                guard let s = scalar.flatMap(Unicode.Scalar.init) else { throw fail("unknown entity &\(entity);", at: offset + (k - raw.startIndex)) }
                out += Array(String(Character(s)).utf8)
            }
            k = semi + 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The next event, or nil at the end of the document.
    mutating func next() throws(ReelError) -> Event? {
        while i < b.count {
            if b[i] != UInt8(ascii: "<") {
                let start = i
                while i < b.count, b[i] != UInt8(ascii: "<") { i += 1 }
                let text = try unescape(b[start..<i], at: start)
                if !text.allSatisfy(\.isWhitespace) { return .text(text) }
                continue
            }
            if starts(with: "<!--") { try skip(past: "-->", what: "comment"); continue }
            if starts(with: "<?") { try skip(past: "?>", what: "processing instruction"); continue }
            if starts(with: "<![CDATA[") {
                let start = i + 9
                i = start
                try skip(past: "]]>", what: "CDATA section")
                return .text(String(decoding: b[start..<(i - 3)], as: UTF8.self))
            }
            if starts(with: "<!") { try skip(past: ">", what: "declaration"); continue }
            if starts(with: "</") {
                i += 2
                let n = try name()
                skipSpace()
                guard i < b.count, b[i] == UInt8(ascii: ">") else { throw fail("expected '>' to end </\(n)") }
                i += 1
                depth -= 1
                guard depth >= 0 else { throw fail("</\(n)> closes nothing") }
                return .end(name: n)
            }
            i += 1
            let n = try name()
            var attributes: [String: String] = [:]
            while true {
                skipSpace()
                guard i < b.count else { throw fail("unterminated <\(n)") }
                if b[i] == UInt8(ascii: ">") {
                    i += 1
                    depth += 1
                    guard depth <= 512 else { throw fail("elements nested more than 512 deep") }
                    return .start(name: n, attributes: attributes, selfClosing: false)
                }
                if starts(with: "/>") {
                    i += 2
                    return .start(name: n, attributes: attributes, selfClosing: true)
                }
                let a = try name()
                skipSpace()
                guard i < b.count, b[i] == UInt8(ascii: "=") else { throw fail("attribute \(a) of <\(n)> has no value") }
                i += 1
                skipSpace()
                guard i < b.count, b[i] == UInt8(ascii: "\"") || b[i] == UInt8(ascii: "'") else { throw fail("attribute \(a) of <\(n)> is not quoted") }
                let quote = b[i]
                i += 1
                let start = i
                while i < b.count, b[i] != quote { i += 1 }
                guard i < b.count else { throw fail("unterminated value of attribute \(a)", at: start) }
                attributes[a] = try unescape(b[start..<i], at: start)
                i += 1
            }
        }
        guard depth == 0 else { throw fail("the document ends inside \(depth) open element(s)") }
        return nil
    }
}
