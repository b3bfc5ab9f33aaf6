extension String {
    /// Escapes text for XML content and attribute values (the GPX and iTT writers).
    package var xmlEscaped: String {
        // By Unicode scalar, not by Character: `<` followed by a combining mark is one
        // Character that is not `<`, and would go out unescaped (found by fuzzing).
        var s = String.UnicodeScalarView()
        for c in unicodeScalars {
            switch c {
            case "<": s.append(contentsOf: "&lt;".unicodeScalars)
            case ">": s.append(contentsOf: "&gt;".unicodeScalars)
            case "&": s.append(contentsOf: "&amp;".unicodeScalars)
            case "\"": s.append(contentsOf: "&quot;".unicodeScalars)
            case "'": s.append(contentsOf: "&apos;".unicodeScalars)
            default: s.append(c)
            }
        }
        return String(s)
    }
}
