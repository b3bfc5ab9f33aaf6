import Foundation
import ReelCore

/// Any JSON value: what a compositor's `parameters` object is handed over as, so each
/// compositor reads its own settings without the composition file knowing them.
public enum JSONValue: Sendable, Hashable, Codable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() { self = .null; return }
        if let b = try? c.decode(Bool.self) { self = .bool(b); return }
        if let n = try? c.decode(Double.self) { self = .number(n); return }
        if let s = try? c.decode(String.self) { self = .string(s); return }
        if let a = try? c.decode([JSONValue].self) { self = .array(a); return }
        if let o = try? c.decode([String: JSONValue].self) { self = .object(o); return }
        throw DecodingError.dataCorruptedError(in: c, debugDescription: "not a JSON value")
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .null: try c.encodeNil()
        case .bool(let b): try c.encode(b)
        case .number(let n): try c.encode(n)
        case .string(let s): try c.encode(s)
        case .array(let a): try c.encode(a)
        case .object(let o): try c.encode(o)
        }
    }

    /// The member `key` of an object; nil for a missing key or a value that is not an object.
    public subscript(key: String) -> JSONValue? {
        if case .object(let o) = self { return o[key] }
        return nil
    }

    public var doubleValue: Double? { if case .number(let n) = self { n } else { nil } }
    public var stringValue: String? { if case .string(let s) = self { s } else { nil } }
    public var boolValue: Bool? { if case .bool(let b) = self { b } else { nil } }
    public var arrayValue: [JSONValue]? { if case .array(let a) = self { a } else { nil } }
    public var objectValue: [String: JSONValue]? { if case .object(let o) = self { o } else { nil } }

    /// How the value is described in an error: `"abc"`, `12`, `true`, `null`, `an array`, `an object`.
    public var errorDescription: String {
        switch self {
        case .null: "null"
        case .bool(let b): "\(b)"
        case .number(let n): n == n.rounded() && abs(n) < 1e15 ? String(Int64(n)) : "\(n)"
        case .string(let s): "\"\(s.count > 40 ? String(s.prefix(40)) + "..." : s)\""
        case .array: "an array"
        case .object: "an object"
        }
    }

    /// Decodes a value of `type` from this JSON (parameters into a compositor's own
    /// Codable settings struct). Errors name the field as `compositor.parameters.FIELD`.
    public func decode<T: Decodable>(_ type: T.Type, fieldPrefix: String = "compositor.parameters") throws(ReelError) -> T {
        let data: Data
        do { data = try JSONEncoder().encode(self) } catch {
            throw ReelError(.invalidComposition, "cannot re-encode the parameters", field: fieldPrefix)
        }
        do {
            return try JSONDecoder().decode(T.self, from: data)
        } catch let error as DecodingError {
            let problem = CompositionFileDiagnostics.describe(error, root: self)
            let field = problem.field.isEmpty ? fieldPrefix : fieldPrefix + (problem.field.hasPrefix("[") ? "" : ".") + problem.field
            throw ReelError(.invalidComposition, problem.message, field: field)
        } catch {
            throw ReelError(.invalidComposition, "\(error)", field: fieldPrefix)
        }
    }

    /// The value at `path` (keys and array indices), if there is one.
    func value(at path: [any CodingKey]) -> JSONValue? {
        var current: JSONValue? = self
        for key in path {
            guard let c = current else { return nil }
            if let i = key.intValue, case .array(let a) = c {
                current = i >= 0 && i < a.count ? a[i] : nil
            } else {
                current = c[key.stringValue]
            }
        }
        return current
    }
}
