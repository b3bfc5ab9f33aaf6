extension String {
    /// Escapes text for XML content and attribute values (the GPX and iTT writers).
    package var xmlEscaped: String {
        var s = ""
        for c in self {
            switch c {
            case "<": s += "&lt;"
            case ">": s += "&gt;"
            case "&": s += "&amp;"
            case "\"": s += "&quot;"
            case "'": s += "&apos;"
            default: s.append(c)
            }
        }
        return s
    }
}
