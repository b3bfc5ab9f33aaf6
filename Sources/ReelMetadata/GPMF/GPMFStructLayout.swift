/// The layout of a complex (`?`) GPMF structure, from a `TYPE` string such as
/// `"JlllSSSSBB"` or `"f[8]L"` (an element count in brackets repeats the type before it).
public struct GPMFStructLayout: Sendable, Hashable, CustomStringConvertible {
    /// One field: a basic type repeated `count` times.
    public struct Field: Sendable, Hashable {
        public var type: GPMFType
        public var count: Int
        public init(type: GPMFType, count: Int = 1) {
            self.type = type
            self.count = count
        }
    }

    public var fields: [Field]

    public init(fields: [Field]) { self.fields = fields }

    /// Parses a `TYPE` string; trailing NULs are ignored.
    public init(parsing typeString: String) throws(ReelError) {
        var fields: [Field] = []
        var chars = Array(typeString.unicodeScalars)
        while chars.last == "\0" { chars.removeLast() }
        var i = 0
        while i < chars.count {
            let c = chars[i]
            if c == "[" {
                guard !fields.isEmpty else {
                    throw .metadataFormat("GPMF", "TYPE \"\(typeString)\": '[' at position \(i) has no type before it")
                }
                var j = i + 1
                var n = 0
                while j < chars.count, let d = chars[j].properties.numericType == .decimal ? Int(String(chars[j])) : nil {
                    n = n * 10 + d
                    guard n <= 255 else { throw .metadataFormat("GPMF", "TYPE \"\(typeString)\": array count at position \(i) exceeds 255") }
                    j += 1
                }
                guard j < chars.count, chars[j] == "]", j > i + 1, n > 0 else {
                    throw .metadataFormat("GPMF", "TYPE \"\(typeString)\": bad array count at position \(i)")
                }
                fields[fields.count - 1].count = n
                i = j + 1
                continue
            }
            guard c.value < 0x80, let t = GPMFType(rawValue: UInt8(c.value)), t != .nested, t != .complex else {
                throw .metadataFormat("GPMF", "TYPE \"\(typeString)\": '\(c.escaped(asASCII: true))' at position \(i) is not a basic GPMF type")
            }
            fields.append(Field(type: t))
            i += 1
        }
        guard !fields.isEmpty else { throw .metadataFormat("GPMF", "TYPE is empty") }
        self.fields = fields
    }

    /// Bytes per structure.
    public var size: Int { fields.reduce(0) { $0 + ($1.type.elementSize ?? 0) * $1.count } }

    /// The TYPE string (`"f[8]L"`).
    public var description: String {
        fields.map { $0.count == 1 ? String($0.type.character) : "\($0.type.character)[\($0.count)]" }.joined()
    }
}
