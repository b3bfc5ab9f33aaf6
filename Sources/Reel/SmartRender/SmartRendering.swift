import Foundation
import ReelCore

/// Whether an export copies the frames the composition leaves untouched (smart render).
///
/// With `.auto`, an H.264 or HEVC export into MP4 or MOV copies, packet for packet, every
/// group of pictures of a source that the composition shows whole and unchanged (a
/// passthrough instruction, or one opaque layer with no transform or crop at the source's
/// size), and encodes only the frames around cuts, transitions and compositor
/// instructions, with the source's profile and level, so that one decoder plays the whole
/// output (H.264: parameter-set IDs of their own; HEVC: each stretch's parameter sets in
/// its first sample, an `hev1` track). When the sources cannot be matched (another codec, pixel
/// format, size or frame rate; sources with different parameter sets), the export renders
/// every frame and says why in one line through the render diagnostics. `.off` (the
/// default) renders every frame, as AVAssetExportSession does.
public enum SmartRendering: String, Sendable, Hashable, CaseIterable, Codable {
    case off
    case auto
}

/// What a smart render did: which stretches of the timeline were copied and which encoded,
/// and why; or why it rendered every frame instead.
public struct SmartRenderSummary: Sendable, Hashable {
    /// A run of output frames copied from one source, or encoded.
    public struct Stretch: Sendable, Hashable {
        /// Where the stretch lies on the composition's timeline.
        public var timeRange: TimeRange
        public var frameCount: Int
        /// Whether its packets are the source's, unchanged.
        public var isCopied: Bool
        /// Why: the source and its time for a copy, what touches the frames for an encode.
        public var reason: String

        public init(timeRange: TimeRange, frameCount: Int, isCopied: Bool, reason: String) {
            self.timeRange = timeRange
            self.frameCount = frameCount
            self.isCopied = isCopied
            self.reason = reason
        }
    }

    /// The stretches in timeline order; empty when every frame was rendered.
    public var stretches: [Stretch]
    /// Why every frame was rendered, when smart render could not be used.
    public var fallbackReason: String?

    public init(stretches: [Stretch], fallbackReason: String? = nil) {
        self.stretches = stretches
        self.fallbackReason = fallbackReason
    }

    public var copiedFrameCount: Int { stretches.filter(\.isCopied).reduce(0) { $0 + $1.frameCount } }
    public var encodedFrameCount: Int { stretches.filter { !$0.isCopied }.reduce(0) { $0 + $1.frameCount } }

    /// A time as seconds with three decimals (`4.567`), or `end` for an infinite one.
    static func seconds(_ t: MediaTime) -> String {
        t.isNumeric ? String(format: "%.3f", t.seconds) : "end"
    }

    /// One line per stretch (`0.000..1.967 encoded, 59 frames: cut inside a group of
    /// pictures of a.mp4`), or the fallback's reason.
    public var lines: [String] {
        if let fallbackReason { return ["every frame rendered: \(fallbackReason)"] }
        return stretches.map { s in
            "\(Self.seconds(s.timeRange.start))..\(Self.seconds(s.timeRange.end)) "
                + "\(s.isCopied ? "copied" : "encoded"), \(s.frameCount) frame\(s.frameCount == 1 ? "" : "s"): \(s.reason)"
        }
    }
}
