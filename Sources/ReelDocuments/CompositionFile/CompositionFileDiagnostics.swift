import Foundation

/// Turns what goes wrong reading a composition file into one line naming the place in
/// the file: a JSON path such as `instructions[2].timeRange` for a wrong or missing value,
/// a line and column for malformed JSON.
enum CompositionFileDiagnostics {
    /// `tracks[0].segments[1].duration` for a coding path.
    static func path(_ codingPath: [any CodingKey]) -> String {
        var out = ""
        for key in codingPath {
            if let i = key.intValue, key.stringValue.hasPrefix("Index ") || key.stringValue == "\(i)" {
                out += "[\(i)]"
            } else {
                out += out.isEmpty ? key.stringValue : "." + key.stringValue
            }
        }
        return out
    }

    /// The field and the problem in words, for a decoding error; `root` is the same
    /// document parsed as plain JSON, used to quote the offending value.
    static func describe(_ error: DecodingError, root: JSONValue?) -> (field: String, message: String) {
        switch error {
        case .typeMismatch(let type, let context):
            let got = root?.value(at: context.codingPath)?.errorDescription
            let message = "expected \(name(of: type))" + (got.map { ", got \($0)" } ?? "")
            return (path(context.codingPath), message)
        case .valueNotFound(let type, let context):
            return (path(context.codingPath), "expected \(name(of: type)), got null")
        case .keyNotFound(let key, let context):
            return (path(context.codingPath + [key]), "is missing (required)")
        case .dataCorrupted(let context):
            return (path(context.codingPath), context.debugDescription)
        @unknown default:
            return ("", "\(error)")
        }
    }

    /// `a number`, `a string`, `an array`, ... for a Swift type.
    static func name(of type: Any.Type) -> String {
        switch type {
        case is Double.Type, is Float.Type: return "a number"
        case is Int.Type, is Int32.Type, is Int64.Type, is UInt.Type, is UInt32.Type: return "an integer"
        case is String.Type: return "a string"
        case is Bool.Type: return "true or false"
        default:
            let n = String(describing: type)
            if n.hasPrefix("Array") || n.hasPrefix("[") { return "an array" }
            if n.hasPrefix("Dictionary") || n.contains("KeyedDecodingContainer") { return "an object" }
            return "a value of type \(n)"
        }
    }

    /// Line and column (1-based) of the first syntax error in `data`, with what was
    /// expected, found by a small JSON scanner (the decoder's own messages vary by platform).
    static func syntaxError(in data: Data) -> (line: Int, column: Int, message: String)? {
        var scanner = SyntaxScanner(bytes: Array(data))
        return scanner.firstError()
    }
}

/// A minimal JSON syntax checker that knows where it is (line, column).
private struct SyntaxScanner {
    let bytes: [UInt8]
    var i = 0
    var line = 1
    var lineStart = 0
    /// Arrays and objects open around the scanner.
    var depth = 0
    /// As deep as Foundation's JSON parser goes; the scanner recurses once a level, so a
    /// deeper document is refused here rather than overflowing the stack (found by fuzzing).
    static let maximumDepth = 512

    init(bytes: [UInt8]) { self.bytes = bytes }

    struct Failure: Error { var line: Int; var column: Int; var message: String }

    mutating func firstError() -> (line: Int, column: Int, message: String)? {
        do {
            skipSpace()
            try value()
            skipSpace()
            if i < bytes.count { throw fail("unexpected \(found()) after the end of the JSON document") }
            return nil
        } catch let f as Failure {
            return (f.line, f.column, f.message)
        } catch {
            return nil
        }
    }

    func fail(_ message: String) -> Failure { Failure(line: line, column: i - lineStart + 1, message: message) }

    func found() -> String {
        guard i < bytes.count else { return "end of file" }
        let c = bytes[i]
        if c >= 0x20 && c < 0x7f { return "'\(Character(Unicode.Scalar(c)))'" }
        return String(format: "byte 0x%02X", c)
    }

    mutating func skipSpace() {
        while i < bytes.count {
            switch bytes[i] {
            case 0x20, 0x09, 0x0D: i += 1
            case 0x0A: i += 1; line += 1; lineStart = i
            default: return
            }
        }
    }

    mutating func value() throws {
        guard i < bytes.count else { throw fail("expected a value, got end of file") }
        switch bytes[i] {
        case UInt8(ascii: "{"): try object()
        case UInt8(ascii: "["): try array()
        case UInt8(ascii: "\""): try string()
        case UInt8(ascii: "t"): try literal("true")
        case UInt8(ascii: "f"): try literal("false")
        case UInt8(ascii: "n"): try literal("null")
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try number()
        default: throw fail("expected a value, got \(found())")
        }
    }

    mutating func literal(_ word: String) throws {
        for c in word.utf8 {
            guard i < bytes.count, bytes[i] == c else { throw fail("expected \(word), got \(found())") }
            i += 1
        }
    }

    mutating func number() throws {
        let start = i
        if bytes[i] == UInt8(ascii: "-") { i += 1 }
        var digits = 0
        while i < bytes.count,
            (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[i])
                || [UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"), UInt8(ascii: "+"), UInt8(ascii: "-")].contains(bytes[i])
        {
            if (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[i]) { digits += 1 }
            i += 1
        }
        if digits == 0 { i = start; throw fail("expected a number, got \(found())") }
    }

    mutating func string() throws {
        i += 1
        while i < bytes.count {
            switch bytes[i] {
            case UInt8(ascii: "\""): i += 1; return
            case UInt8(ascii: "\\"): i += 2
            case 0x0A: throw fail("unterminated string (a string cannot span lines)")
            default: i += 1
            }
        }
        throw fail("unterminated string, got end of file")
    }

    /// Opens an array or object: one level deeper, refused past ``maximumDepth``.
    mutating func enter() throws {
        guard depth < Self.maximumDepth else { throw fail("arrays and objects nested more than \(Self.maximumDepth) deep") }
        depth += 1
    }

    mutating func object() throws {
        try enter()
        defer { depth -= 1 }
        i += 1
        skipSpace()
        if i < bytes.count, bytes[i] == UInt8(ascii: "}") { i += 1; return }
        while true {
            skipSpace()
            guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else { throw fail("expected a key in double quotes, got \(found())") }
            try string()
            skipSpace()
            guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else { throw fail("expected ':' after the key, got \(found())") }
            i += 1
            skipSpace()
            try value()
            skipSpace()
            guard i < bytes.count else { throw fail("expected ',' or '}', got end of file") }
            if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
            if bytes[i] == UInt8(ascii: "}") { i += 1; return }
            throw fail("expected ',' or '}', got \(found())")
        }
    }

    mutating func array() throws {
        try enter()
        defer { depth -= 1 }
        i += 1
        skipSpace()
        if i < bytes.count, bytes[i] == UInt8(ascii: "]") { i += 1; return }
        while true {
            skipSpace()
            try value()
            skipSpace()
            guard i < bytes.count else { throw fail("expected ',' or ']', got end of file") }
            if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
            if bytes[i] == UInt8(ascii: "]") { i += 1; return }
            throw fail("expected ',' or ']', got \(found())")
        }
    }
}
