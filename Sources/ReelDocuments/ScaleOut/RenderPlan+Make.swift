import Foundation
import Reel
import ReelCore
import ReelIO

extension RenderPlan {
    /// How many pieces to cut.
    public enum Split: Sendable, Hashable {
        /// This many pieces (fewer when the render has fewer keyframe intervals).
        case pieces(Int)
        /// Pieces of about this many seconds each.
        case seconds(Double)
    }

    /// A plan for rendering `loaded` (opened from `compositionPath`) in pieces written to
    /// `workFolder`.
    ///
    /// - Throws: `invalidArgument` when the split asks for no pieces, or for more pieces
    ///   than the render has keyframe intervals.
    public static func make(
        for loaded: LoadedComposition, compositionPath: String, split: Split,
        workFolder: URL
    ) throws(ReelError) -> RenderPlan {
        let compositionURL = URL(fileURLWithPath: compositionPath).standardizedFileURL
        let video = loaded.videoComposition
        let settings: VideoEncoderSettings
        do {
            settings = try (loaded.file.output ?? CompositionFile.Output())
                .videoSettings(width: video.renderPixelSize.width, height: video.renderPixelSize.height, frameDuration: video.frameDuration, piece: true)
        } catch {
            var e = error
            e.path = compositionPath
            throw e
        }
        let range = loaded.renderRange
        let frameDuration = video.frameDuration
        let frames = Self.frameCount(of: range.duration, frameDuration: frameDuration)
        guard frames > 0 else { throw ReelError(.invalidComposition, "has no frames to render", path: compositionPath) }
        let gop = max(settings.keyframeInterval ?? 1, 1)
        let count: Int
        switch split {
        case .pieces(let n):
            guard n >= 1 else { throw ReelError(.invalidArgument, "--chunks \(n): expected 1 or more pieces") }
            count = n
        case .seconds(let s):
            guard s.isFinite, s > 0 else { throw ReelError(.invalidArgument, "--chunk-seconds \(s): expected a positive number of seconds") }
            count = max(1, Int((range.duration.seconds / s).rounded(.up)))
        }
        let cuts = try Self.cuts(frames: frames, keyframeInterval: gop, pieces: count)
        var pieces: [Piece] = []
        for (i, (first, end)) in zip(cuts, cuts.dropFirst() + [frames]).enumerated() {
            let start = range.start + frameDuration * Int32(clamping: first)
            let stop = end == frames ? range.end : range.start + frameDuration * Int32(clamping: end)
            pieces.append(
                Piece(
                    index: i, timeRange: TimeRange(start: start, end: stop), frameCount: end - first,
                    file: String(format: "piece-%04d.mov", i)))
        }
        var stamps: [SourceStamp] = []
        for source in loaded.file.sources {
            guard let url = loaded.sourceURLs[source.name] else { continue }
            stamps.append(try SourceStamp(name: source.name, url: url))
        }
        return RenderPlan(
            version: currentVersion, composition: compositionURL.path,
            compositionSHA256: try Digest(sha256OfFileAt: compositionURL).hex, sources: stamps,
            video: VideoLayout(
                codec: settings.codec.name, width: settings.width, height: settings.height,
                frameDuration: frameDuration, keyframeInterval: gop),
            timeRange: range, frameCount: frames, workFolder: workFolder.standardizedFileURL.path, pieces: pieces)
    }

    /// Frames of `frameDuration` that start within `duration`.
    static func frameCount(of duration: MediaTime, frameDuration: MediaTime) -> Int {
        guard duration.isNumeric, frameDuration.isNumeric, frameDuration > .zero, duration > .zero else { return 0 }
        // ceil(duration / frameDuration) exactly: duration = a/ta, frame = f/tf.
        let n = Int128(duration.value) * Int128(frameDuration.timescale), d = Int128(duration.timescale) * Int128(frameDuration.value)
        return Int((n + d - 1) / d)
    }

    /// The first frame of each of `pieces` pieces of `frames` frames, each a multiple of
    /// `keyframeInterval`, as close as the keyframes allow to equal frame counts.
    static func cuts(frames: Int, keyframeInterval gop: Int, pieces: Int) throws(ReelError) -> [Int] {
        let intervals = (frames + gop - 1) / gop
        guard pieces <= intervals else {
            throw ReelError(
                .invalidArgument,
                "\(pieces) pieces asked for, but the render has \(intervals) keyframe interval\(intervals == 1 ? "" : "s") (\(frames) frames, a keyframe every \(gop)): ask for \(intervals) or fewer, or lower output.video.keyframeInterval"
            )
        }
        var cuts = [0]
        for i in 1..<pieces {
            // The keyframe nearest to i/pieces of the frames, leaving one interval for each later piece.
            let ideal = (Double(i) * Double(frames) / Double(pieces) / Double(gop)).rounded()
            let k = min(max(Int(ideal), cuts[i - 1] / gop + 1), intervals - (pieces - i))
            cuts.append(k * gop)
        }
        return cuts
    }
}

extension RenderPlan.SourceStamp {
    /// The file at `url` as it is now.
    init(name: String, url: URL) throws(ReelError) {
        let attributes: [FileAttributeKey: Any]
        do { attributes = try FileManager.default.attributesOfItem(atPath: url.path) } catch {
            throw ReelError(.fileNotFound, "source \"\(name)\" cannot be read", path: url.path)
        }
        self.init(
            name: name, path: url.standardizedFileURL.path, size: (attributes[.size] as? NSNumber)?.int64Value ?? -1,
            modified: (attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0)
    }
}

extension VideoEncoderSettings.Codec {
    /// The composition file's name for the codec.
    var name: String {
        switch self {
        case .h264: "h264"
        case .hevc: "hevc"
        case .proRes: "prores"
        case .ffv1: "ffv1"
        }
    }
}
