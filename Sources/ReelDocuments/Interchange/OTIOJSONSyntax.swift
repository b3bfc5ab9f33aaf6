/// Finds the first syntax error of a JSON document and names the JSON path it lies in
/// (`tracks.children[0].children[2].source_range`) besides its line and column, so a
/// malformed or truncated `.otio` file is reported as one line that says where.
struct OTIOJSONSyntax {
    struct Problem: Sendable, Equatable {
        /// The JSON path of the value being read when it went wrong ("" at the top).
        var field: String
        var line: Int
        var column: Int
        var message: String
    }

    private let bytes: [UInt8]
    private var index = 0
    private var path: [String] = []
    /// Deep nesting is refused rather than recursed into without end.
    private static let maximumDepth = 512

    /// The first problem in `bytes`, or nil for well-formed JSON.
    static func firstProblem(in bytes: [UInt8]) -> Problem? {
        var scanner = OTIOJSONSyntax(bytes: bytes)
        return scanner.document()
    }

    private init(bytes: [UInt8]) { self.bytes = bytes }

    private var fieldPath: String {
        var out = ""
        for p in path { out += p.hasPrefix("[") || out.isEmpty ? p : "." + p }
        return out
    }

    private func problem(_ message: String) -> Problem {
        var line = 1, column = 1
        for b in bytes[0..<min(index, bytes.count)] {
            if b == 0x0A { line += 1; column = 1 } else if b & 0xC0 != 0x80 { column += 1 }
        }
        return Problem(field: fieldPath, line: line, column: column, message: message)
    }

    private func describeHere() -> String {
        guard index < bytes.count else { return "the end of the file" }
        let b = bytes[index]
        if b >= 0x21 && b < 0x7F { return "'\(Character(Unicode.Scalar(b)))'" }
        return String(format: "the byte 0x%02X", b)
    }

    private mutating func skipSpace() {
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
    }

    private mutating func document() -> Problem? {
        skipSpace()
        if index >= bytes.count { return problem("the file is empty: expected a JSON object") }
        if let p = value(depth: 0) { return p }
        skipSpace()
        if index < bytes.count { return problem("expected the end of the file after the top-level value, got \(describeHere())") }
        return nil
    }

    private mutating func value(depth: Int) -> Problem? {
        guard depth < Self.maximumDepth else { return problem("nested more than \(Self.maximumDepth) levels deep") }
        skipSpace()
        guard index < bytes.count else { return problem("the file ends where a value should be (truncated?)") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return object(depth: depth)
        case UInt8(ascii: "["): return array(depth: depth)
        case UInt8(ascii: "\""): return string()
        case UInt8(ascii: "t"): return literal("true")
        case UInt8(ascii: "f"): return literal("false")
        case UInt8(ascii: "n"): return literal("null")
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return number()
        default: return problem("expected a value, got \(describeHere())")
        }
    }

    private mutating func object(depth: Int) -> Problem? {
        index += 1
        skipSpace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") { index += 1; return nil }
        while true {
            skipSpace()
            guard index < bytes.count else { return problem("the file ends inside an object (truncated?)") }
            guard bytes[index] == UInt8(ascii: "\"") else { return problem("expected a key in double quotes, got \(describeHere())") }
            let keyStart = index + 1
            if let p = string() { return p }
            let key = String(decoding: bytes[keyStart..<(index - 1)], as: UTF8.self)
            skipSpace()
            guard index < bytes.count else { return problem("the file ends after the key \"\(key)\" (truncated?)") }
            guard bytes[index] == UInt8(ascii: ":") else { return problem("expected ':' after the key \"\(key)\", got \(describeHere())") }
            index += 1
            path.append(key)
            if let p = value(depth: depth + 1) { return p }
            path.removeLast()
            skipSpace()
            guard index < bytes.count else { return problem("the file ends inside an object (truncated?)") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "}") { index += 1; return nil }
            return problem("expected ',' or '}' after the value of \"\(key)\", got \(describeHere())")
        }
    }

    private mutating func array(depth: Int) -> Problem? {
        index += 1
        skipSpace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") { index += 1; return nil }
        var i = 0
        while true {
            path.append("[\(i)]")
            if let p = value(depth: depth + 1) { return p }
            path.removeLast()
            skipSpace()
            guard index < bytes.count else { return problem("the file ends inside an array (truncated?)") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; i += 1; continue }
            if bytes[index] == UInt8(ascii: "]") { index += 1; return nil }
            return problem("expected ',' or ']' after an array element, got \(describeHere())")
        }
    }

    private mutating func string() -> Problem? {
        index += 1
        while index < bytes.count {
            let b = bytes[index]
            if b == UInt8(ascii: "\"") { index += 1; return nil }
            if b < 0x20 { return problem("a control character inside a string (escape it)") }
            if b == UInt8(ascii: "\\") {
                index += 1
                guard index < bytes.count else { break }
                let e = bytes[index]
                if e == UInt8(ascii: "u") {
                    guard index + 4 < bytes.count, bytes[(index + 1)...(index + 4)].allSatisfy({ $0.isHexDigit }) else {
                        return problem("expected four hex digits after \\u")
                    }
                    index += 4
                } else if !"\"\\/bfnrt".utf8.contains(e) {
                    return problem("unknown escape \\\(Character(Unicode.Scalar(e)))")
                }
            }
            index += 1
        }
        return problem("the file ends inside a string (truncated?)")
    }

    private mutating func number() -> Problem? {
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        func digits() -> Int {
            let s = index
            while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 { index += 1 }
            return index - s
        }
        guard digits() > 0 else { return problem("expected digits in a number") }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard digits() > 0 else { return problem("expected digits after the decimal point") }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard digits() > 0 else { return problem("expected digits in the exponent") }
        }
        return nil
    }

    private mutating func literal(_ word: String) -> Problem? {
        let w = Array(word.utf8)
        guard index + w.count <= bytes.count, Array(bytes[index..<(index + w.count)]) == w else {
            return problem(
                index + w.count > bytes.count && bytes[index...].elementsEqual(w.prefix(bytes.count - index))
                    ? "the file ends inside \(word) (truncated?)" : "expected a value, got \(describeHere())")
        }
        index += w.count
        return nil
    }
}

private extension UInt8 {
    var isHexDigit: Bool { (0x30...0x39).contains(self) || (0x41...0x46).contains(self) || (0x61...0x66).contains(self) }
}
