import Foundation
import ReelCore

extension OTIOTimeline {
    /// Reads the `.otio` file at `path`.
    ///
    /// - Throws: `fileNotFound`/`unreadable` for the file, `invalidComposition` naming
    ///   the JSON path (in `field`) of what is malformed, truncated or not supported.
    public static func load(path: String) throws(ReelError) -> OTIOTimeline {
        guard FileManager.default.fileExists(atPath: path) else {
            throw ReelError(.fileNotFound, "no such OpenTimelineIO file", path: path)
        }
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw ReelError(.unreadable, "cannot read the OpenTimelineIO file", path: path, underlying: error)
        }
        return try decode(data, path: path)
    }

    /// Decodes a timeline from the bytes of a `.otio` file; `path` is only used in errors.
    public static func decode(_ data: Data, path: String? = nil) throws(ReelError) -> OTIOTimeline {
        if let syntax = OTIOJSONSyntax.firstProblem(in: Array(data)) {
            throw ReelError(
                .invalidComposition, "line \(syntax.line), column \(syntax.column): \(syntax.message)", path: path,
                field: syntax.field.isEmpty ? nil : syntax.field)
        }
        let root = try? JSONDecoder().decode(JSONValue.self, from: data)
        guard case .object(let top)? = root else {
            throw ReelError(.invalidComposition, "expected a JSON object at the top level, got \(root?.errorDescription ?? "nothing")", path: path)
        }
        guard case .string(let schema)? = top["OTIO_SCHEMA"] else {
            throw ReelError(
                .invalidComposition, "is missing: not an OpenTimelineIO file (expected \"OTIO_SCHEMA\": \"Timeline.1\")", path: path,
                field: "OTIO_SCHEMA")
        }
        guard OTIOSchema(schema)?.name == "Timeline" else {
            throw ReelError(
                .invalidComposition, "\"\(schema)\" is not supported: Reel reads a Timeline.1 at the top of the file", path: path,
                field: "OTIO_SCHEMA")
        }
        do {
            return try JSONDecoder().decode(OTIOTimeline.self, from: data)
        } catch let error as DecodingError {
            let (field, message) = CompositionFileDiagnostics.describe(error, root: root)
            throw ReelError(.invalidComposition, message, path: path, field: field.isEmpty ? nil : field)
        } catch {
            throw ReelError(.invalidComposition, "\(error)", path: path)
        }
    }

    /// The timeline as `.otio` JSON (indented by four spaces, as OpenTimelineIO writes it).
    public func encoded() throws(ReelError) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        do { return try encoder.encode(self) } catch {
            throw ReelError(.internalError, "cannot encode the OpenTimelineIO timeline", underlying: error)
        }
    }

    /// Whether `path` names an OpenTimelineIO file (`.otio`).
    public static func isOTIOPath(_ path: String) -> Bool {
        URL(fileURLWithPath: path).pathExtension.lowercased() == "otio"
    }
}
