import Foundation
import Reel

/// A composition file (`composition.json`, version 1): the sources, the edited tracks, the
/// video composition (render size, frame duration, instructions with layer ramps, which
/// metadata tracks reach the compositor), the compositor by name with its parameters, and
/// the output settings. Documented in docs/composition-file.md, with a JSON Schema in
/// docs/composition.schema.json.
///
/// Reading one (``decode(_:path:)``) reports a broken file as one `ReelError` whose `field`
/// is a JSON path (`renderSize.width: expected a number, got "abc"`) or, for malformed
/// JSON, a line and column. Times are exact rationals (`"1001/30000"`) or seconds (`2.5`).
public struct CompositionFile: Sendable, Hashable, Codable {
    /// The format version this reader understands.
    public static let currentVersion = 1

    /// Always 1.
    public var version: Int
    /// The media files, by name.
    public var sources: [Source]
    /// The composition's tracks, each a list of segments.
    public var tracks: [Track]
    /// The output frame size; the first video track's size when absent.
    public var renderSize: Size?
    /// A factor on `renderSize` for the pixels produced; 1 when absent.
    public var renderScale: Double?
    /// The duration of one output frame (`"1001/30000"` for 29.97 fps); the first video
    /// track's nominal frame duration when absent.
    public var frameDuration: MediaTime?
    /// When set, output frames follow this video track's own frame times.
    public var sourceTrackIDForFrameTiming: Int32?
    /// The metadata tracks whose groups may reach the compositor.
    public var sourceSampleDataTrackIDs: [Int32]?
    /// What to draw over each span of the timeline; they must tile it.
    public var instructions: [Instruction]
    /// The compositor by name, with its parameters; the built-in `standard` when absent.
    public var compositor: CompositorReference?
    /// Container, codec and metadata tracks of the output.
    public var output: Output?
    /// The volume of each audio track over time; every audio track at volume 1 when absent.
    public var audioMix: [AudioMixInput]? = nil

    public init(
        version: Int = CompositionFile.currentVersion, sources: [Source], tracks: [Track], renderSize: Size? = nil,
        renderScale: Double? = nil, frameDuration: MediaTime? = nil, sourceTrackIDForFrameTiming: Int32? = nil,
        sourceSampleDataTrackIDs: [Int32]? = nil, instructions: [Instruction],
        compositor: CompositorReference? = nil, output: Output? = nil
    ) {
        self.version = version
        self.sources = sources
        self.tracks = tracks
        self.renderSize = renderSize
        self.renderScale = renderScale
        self.frameDuration = frameDuration
        self.sourceTrackIDForFrameTiming = sourceTrackIDForFrameTiming
        self.sourceSampleDataTrackIDs = sourceSampleDataTrackIDs
        self.instructions = instructions
        self.compositor = compositor
        self.output = output
    }

    /// One media file the composition plays from.
    public struct Source: Sendable, Hashable, Codable {
        /// What segments call it (`"camera"`); `reel render --source NAME=PATH` replaces it.
        public var name: String
        /// The file, relative to the composition file's folder unless absolute.
        public var path: String

        public init(name: String, path: String) {
            self.name = name
            self.path = path
        }
    }

    /// The compositor by registry name, and the JSON object handed to its factory.
    public struct CompositorReference: Sendable, Hashable, Codable {
        public var name: String
        public var parameters: JSONValue?

        public init(name: String, parameters: JSONValue? = nil) {
            self.name = name
            self.parameters = parameters
        }
    }

    // MARK: Reading

    /// Reads the composition file at `path`.
    ///
    /// - Throws: `fileNotFound`/`unreadable` for the file itself, `invalidComposition`
    ///   naming the JSON path (in `field`) or the line and column of what is wrong.
    public static func load(path: String) throws(ReelError) -> CompositionFile {
        let url = URL(fileURLWithPath: path)
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw ReelError(.fileNotFound, "no such composition file", path: path)
        }
        let data: Data
        do { data = try Data(contentsOf: url) } catch {
            throw ReelError(.unreadable, "cannot read the composition file", path: path, underlying: error)
        }
        return try decode(data, path: path)
    }

    /// Decodes a composition file's bytes; `path` is only used in errors.
    public static func decode(_ data: Data, path: String? = nil) throws(ReelError) -> CompositionFile {
        if let syntax = CompositionFileDiagnostics.syntaxError(in: data) {
            throw ReelError(.invalidComposition, "line \(syntax.line), column \(syntax.column): \(syntax.message)", path: path)
        }
        let root = try? JSONDecoder().decode(JSONValue.self, from: data)
        guard case .object(let top)? = root else {
            throw ReelError(.invalidComposition, "expected a JSON object at the top level, got \(root?.errorDescription ?? "nothing")", path: path)
        }
        // The version first: a newer file should say so, not fail on a field it renamed.
        switch top["version"] {
        case nil:
            throw ReelError(.invalidComposition, "is missing: add \"version\": \(currentVersion)", path: path, field: "version")
        case .number(let v) where v == Double(currentVersion):
            break
        case .number(let v):
            throw ReelError(
                .invalidComposition, "is \(JSONValue.number(v).errorDescription), but this reel reads version \(currentVersion) only",
                path: path, field: "version")
        case let other?:
            throw ReelError(.invalidComposition, "expected the number \(currentVersion), got \(other.errorDescription)", path: path, field: "version")
        }
        if let unknown = UnknownFields.first(in: top) {
            throw ReelError(.invalidComposition, unknown.message, path: path, field: unknown.field)
        }
        let file: CompositionFile
        do {
            file = try JSONDecoder().decode(CompositionFile.self, from: data)
        } catch let error as DecodingError {
            let (field, message) = CompositionFileDiagnostics.describe(error, root: root)
            throw ReelError(.invalidComposition, message, path: path, field: field.isEmpty ? nil : field)
        } catch {
            throw ReelError(.invalidComposition, "\(error)", path: path)
        }
        try file.checkDeclarations(path: path)
        return file
    }

    /// Encodes the file as pretty-printed JSON with sorted keys.
    public func encoded() throws(ReelError) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        do { return try encoder.encode(self) } catch {
            throw ReelError(.internalError, "cannot encode the composition file", underlying: error)
        }
    }

    /// Checks what the types alone cannot: names and IDs unique, segments naming declared
    /// sources, ramps and sizes sensible.
    func checkDeclarations(path: String?) throws(ReelError) {
        func fail(_ field: String, _ message: String) -> ReelError {
            ReelError(.invalidComposition, message, path: path, field: field)
        }
        if sources.isEmpty { throw fail("sources", "is empty: a composition needs at least one source") }
        var names: [String: Int] = [:]
        for (i, s) in sources.enumerated() {
            if s.name.isEmpty { throw fail("sources[\(i)].name", "is empty") }
            if s.path.isEmpty { throw fail("sources[\(i)].path", "is empty") }
            if let j = names[s.name] { throw fail("sources[\(i)].name", "\"\(s.name)\" is already the name of sources[\(j)]") }
            names[s.name] = i
        }
        if tracks.isEmpty { throw fail("tracks", "is empty: a composition needs at least one track") }
        var ids: [Int32: Int] = [:]
        for (i, t) in tracks.enumerated() {
            if t.trackID < 1 { throw fail("tracks[\(i)].trackID", "is \(t.trackID): track IDs start at 1") }
            if let j = ids[t.trackID] { throw fail("tracks[\(i)].trackID", "\(t.trackID) is already the ID of tracks[\(j)]") }
            ids[t.trackID] = i
            if t.segments.isEmpty { throw fail("tracks[\(i)].segments", "is empty") }
            for (k, s) in t.segments.enumerated() {
                let f = "tracks[\(i)].segments[\(k)]"
                if let name = s.source, names[name] == nil {
                    let declared = sources.map { "\"\($0.name)\"" }.joined(separator: ", ")
                    throw fail(f + ".source", "names \"\(name)\", which is not in sources (declared: \(declared))")
                }
                if s.source == nil, s.empty == nil { throw fail(f, "needs either \"source\" or \"empty\"") }
                if s.source != nil, s.empty != nil { throw fail(f, "has both \"source\" and \"empty\": use one") }
                for (key, time) in [("sourceStart", s.sourceStart), ("duration", s.duration), ("empty", s.empty), ("scaledDuration", s.scaledDuration)] {
                    guard let time else { continue }
                    if !time.isNumeric || time < .zero || (key != "sourceStart" && time == .zero) {
                        throw fail(
                            f + "." + key,
                            "is \(time.isNumeric ? time.secondsDescription : time.description): it must be a \(key == "sourceStart" ? "non-negative" : "positive") time"
                        )
                    }
                }
            }
        }
        if let size = renderSize {
            let w = size.width, h = size.height
            if !(w.isFinite && w >= 1 && w <= 32768) {
                throw fail("renderSize.width", "is \(JSONValue.number(w).errorDescription): it must be between 1 and 32768")
            }
            if !(h.isFinite && h >= 1 && h <= 32768) {
                throw fail("renderSize.height", "is \(JSONValue.number(h).errorDescription): it must be between 1 and 32768")
            }
        }
        if let scale = renderScale, !(scale.isFinite && scale > 0) {
            throw fail("renderScale", "is \(JSONValue.number(scale).errorDescription): it must be positive")
        }
        if let d = frameDuration, !(d.isNumeric && d > .zero) {
            throw fail("frameDuration", "is \(d.isNumeric ? d.secondsDescription : d.description): it must be a positive time such as \"1001/30000\"")
        }
        if instructions.isEmpty { throw fail("instructions", "is empty: at least one instruction must cover the timeline") }
        if let c = compositor, c.name.isEmpty { throw fail("compositor.name", "is empty") }
    }
}
