import Foundation
import ReelCore

#if canImport(Glibc)
    import Glibc
#endif

/// What `reel plan` writes and a batch scheduler's tasks read: a ``RenderPlan`` (one render
/// cut into pieces) or a ``BatchPlan`` (one whole render per input file). Task `K` of
/// either is a pure function of the plan and `K`.
public protocol PlanFile: Sendable, Codable {
    /// The plan file format this code writes and reads.
    static var currentVersion: Int { get }
    /// The plan file's format.
    var version: Int { get }
    /// Where the tasks' stamps (and a render plan's pieces) go, as an absolute path.
    var workFolder: String { get }
    /// The composition file, as an absolute path.
    var composition: String { get }
    /// The SHA-256 of the composition file's bytes.
    var compositionSHA256: String { get }
    /// The sources every task reads, as the plan saw them.
    var sources: [RenderPlan.SourceStamp] { get }
    /// How many array tasks the plan has.
    var taskCount: Int { get }
    /// Every file a task reads or writes besides the plan and the work folder: what the
    /// machines must all see at the same paths.
    var sharedPaths: [String] { get }
    /// The command that runs once every task has succeeded: `reel join` of the plan.
    func joinArguments(planPath: String, output: String) -> [String]
}

extension PlanFile {
    /// The plan as JSON, keys sorted: the same plan always gives the same bytes.
    public func encoded() throws(ReelError) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        do { return try encoder.encode(self) } catch {
            throw ReelError(.internalError, "could not encode the plan: \(error)")
        }
    }

    /// Writes the plan to `url` atomically (a reader never sees half a plan).
    public func write(to url: URL) throws(ReelError) {
        try AtomicFile.write(encoded(), to: url, replacing: true)
    }

    /// The work folder.
    public var workFolderURL: URL { URL(fileURLWithPath: workFolder, isDirectory: true) }

    /// Makes the work folder when it is missing and checks that files can be written in it.
    public func prepareWorkFolder() throws(ReelError) {
        let url = workFolderURL
        if let reason = Self.makeFolders(url.standardizedFileURL.path) {
            throw ReelError(.outputFailed, "the work folder cannot be made: \(reason)", path: url.path)
        }
        guard FileManager.default.isWritableFile(atPath: url.path) else {
            throw ReelError(.outputFailed, "the work folder is not writable", path: url.path)
        }
    }

    /// Makes `path` and the folders above it that are missing; nil when it is there, else why
    /// not, naming the folder that failed (a file in the way, a folder without permission).
    static func makeFolders(_ path: String) -> String? {
        var partial = ""
        for component in path.split(separator: "/") {
            partial += "/" + component
            var info = stat()
            if stat(partial, &info) == 0 {
                if info.st_mode & S_IFMT != S_IFDIR { return "\(partial) is a file, not a folder" }
                continue
            }
            if mkdir(partial, 0o777) != 0 {
                let code = errno
                if code != EEXIST { return "cannot make \(partial) (\(String(cString: strerror(code))))" }
            }
        }
        return nil
    }

    /// Decodes a plan of this type and this version from `data` (read from `path`), or one
    /// error naming the first thing that is wrong and where.
    static func decodeJSON(_ data: Data, path: String) throws(ReelError) -> Self {
        let plan: Self
        do { plan = try JSONDecoder().decode(Self.self, from: data) } catch {
            throw ReelError(.invalidArgument, "is not a render plan made by `reel plan` (\(RenderPlan.reason(error)))", path: path)
        }
        guard plan.version == currentVersion else {
            throw ReelError(.invalidArgument, "is a version \(plan.version) plan; this reel reads version \(currentVersion) (make the plan again)", path: path)
        }
        return plan
    }
}

/// A plan file of either kind, as `reel render --plan` and `reel join` read it.
public enum AnyPlanFile: Sendable {
    case render(RenderPlan)
    case batch(BatchPlan)

    /// Reads a plan file: a batch plan when it has `jobs`, else a render plan.
    public static func load(path: String) throws(ReelError) -> AnyPlanFile {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            let exists = FileManager.default.fileExists(atPath: path)
            throw ReelError(exists ? .unreadable : .fileNotFound, exists ? "the plan cannot be read" : "no such plan file", path: path)
        }
        return try decode(data, path: path)
    }

    /// A plan from the bytes of a plan file, checked as its kind is.
    public static func decode(_ data: Data, path: String) throws(ReelError) -> AnyPlanFile {
        let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        if object?["jobs"] != nil { return .batch(try BatchPlan.decode(data, path: path)) }
        return .render(try RenderPlan.decode(data, path: path))
    }

    /// The plan, whichever kind.
    public var plan: any PlanFile {
        switch self {
        case .render(let plan): plan
        case .batch(let plan): plan
        }
    }
}
