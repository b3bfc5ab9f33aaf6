import Foundation
import ReelCore

/// One render split into pieces that separate machines render and `reel join` puts back
/// together (docs/scale-out.md).
///
/// The pieces are keyframe-aligned ranges of the output (its closed GOP of
/// ``VideoLayout/keyframeInterval`` frames), balanced by frame count. The plan pins what
/// the pieces are a function of: the composition file's SHA-256, every source's path,
/// size and modification time, and the video settings, so a piece rendered from a changed
/// input is refused. Piece `K` is a pure function of the plan and `K`.
public struct RenderPlan: Sendable, Hashable, Codable {
    /// The plan file format this code writes and reads.
    public static let currentVersion = 1

    public var version: Int
    /// The composition file, as an absolute path (every machine must see it there).
    public var composition: String
    /// The SHA-256 of the composition file's bytes.
    public var compositionSHA256: String
    /// Every source the composition reads, in the file's order.
    public var sources: [SourceStamp]
    /// The output's video stream, as every piece encodes it.
    public var video: VideoLayout
    /// What the whole render covers.
    public var timeRange: TimeRange
    /// Frames in the whole render.
    public var frameCount: Int
    /// Where the pieces are written, as an absolute path (shared by every machine).
    public var workFolder: String
    /// The pieces, in timeline order; piece `K` is `pieces[K]`.
    public var pieces: [Piece]

    /// A source file as the plan saw it.
    public struct SourceStamp: Sendable, Hashable, Codable {
        /// The composition's name for the source.
        public var name: String
        /// The file, as an absolute path.
        public var path: String
        /// Its size in bytes.
        public var size: Int64
        /// Its modification time, in seconds since 1970.
        public var modified: Double
    }

    /// The video stream every piece writes.
    public struct VideoLayout: Sendable, Hashable, Codable {
        /// `h264`, `hevc`, `prores` or `ffv1`.
        public var codec: String
        public var width: Int
        public var height: Int
        public var frameDuration: MediaTime
        /// Frames between keyframes: every cut is a multiple of it.
        public var keyframeInterval: Int
    }

    /// One range of the output, rendered into a file of its own.
    public struct Piece: Sendable, Hashable, Codable {
        public var index: Int
        public var timeRange: TimeRange
        public var frameCount: Int
        /// The piece's file name in the work folder.
        public var file: String
    }
}

extension RenderPlan: PlanFile {
    /// Reads a plan file.
    public static func load(path: String) throws(ReelError) -> RenderPlan {
        guard case .render(let plan) = try AnyPlanFile.load(path: path) else {
            throw ReelError(.invalidArgument, "is a batch plan (`reel plan --inputs`), not one render cut into pieces", path: path)
        }
        return plan
    }

    public var taskCount: Int { pieces.count }

    public var sharedPaths: [String] { [composition] + sources.map(\.path) }

    public func joinArguments(planPath: String, output: String) -> [String] { ["join", planPath, "-o", output, "--overwrite"] }

    /// A plan from the bytes of a plan file (read from `path`), checked: this version, the
    /// pieces in order, each starting where the one before ends and holding frames, and
    /// their frames adding up to the whole.
    public static func decode(_ data: Data, path: String) throws(ReelError) -> RenderPlan {
        let plan = try decodeJSON(data, path: path)
        func broken(_ what: String, _ field: String) -> ReelError {
            ReelError(.invalidArgument, "\(what) (make the plan again with `reel plan`)", path: path, field: field)
        }
        let frame = plan.video.frameDuration
        guard frame.isNumeric, frame > .zero, plan.frameCount > 0, plan.video.keyframeInterval >= 1, plan.video.width > 0, plan.video.height > 0 else {
            throw broken("has no usable video settings", "video")
        }
        guard plan.timeRange.start.isNumeric, plan.timeRange.end.isNumeric, plan.timeRange.duration > .zero else {
            throw broken("covers no time", "timeRange")
        }
        guard !plan.pieces.isEmpty else { throw broken("has no pieces", "pieces") }
        var start = plan.timeRange.start
        var frames = 0
        for (i, piece) in plan.pieces.enumerated() {
            guard piece.index == i, piece.timeRange.start == start, piece.timeRange.end.isNumeric, piece.timeRange.duration > .zero,
                piece.frameCount > 0, piece.frameCount <= plan.frameCount - frames,
                !piece.file.isEmpty, !piece.file.contains("/"), piece.file != "..", piece.file != "."
            else {
                throw broken("piece \(i) does not follow the one before it", "pieces[\(i)]")
            }
            start = piece.timeRange.end
            frames += piece.frameCount
        }
        guard start == plan.timeRange.end, frames == plan.frameCount else {
            throw broken("its pieces do not cover the render", "pieces")
        }
        return plan
    }

    /// Piece `index`'s video file.
    public func pieceURL(_ index: Int) -> URL { workFolderURL.appendingPathComponent(pieces[index].file) }

    /// Piece `index`'s stamp, written once its video is complete and checked.
    public func stampURL(_ index: Int) -> URL {
        pieceURL(index).deletingPathExtension().appendingPathExtension("json")
    }

    /// The piece `index` names: an error naming the valid range when it is out of range.
    public func piece(_ index: Int) throws(ReelError) -> Piece {
        guard pieces.indices.contains(index) else {
            throw ReelError(.invalidArgument, "piece \(index) is out of range: the plan has \(pieces.count) pieces, 0 to \(pieces.count - 1)")
        }
        return pieces[index]
    }

    static func reason(_ error: any Error) -> String {
        guard let decoding = error as? DecodingError else { return "\(error)" }
        switch decoding {
        case .keyNotFound(let key, let context):
            return "missing \((context.codingPath + [key]).map(\.stringValue).joined(separator: "."))"
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            let at = context.codingPath.map(\.stringValue).joined(separator: ".")
            return at.isEmpty ? context.debugDescription : "\(at): \(context.debugDescription)"
        @unknown default:
            return "\(decoding)"
        }
    }
}
