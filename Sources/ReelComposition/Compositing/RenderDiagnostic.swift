import Foundation

/// Something the engine noticed that is worth telling but does not stop the render: a
/// request finished twice (rule 4), a metadata group dropped because it did not hold the
/// time (rule 2), a metadata track that the output's format cannot carry whole.
public struct RenderDiagnostic: Sendable, Hashable, CustomStringConvertible {
    /// What a diagnostic is about.
    public enum Kind: String, Sendable, Hashable, Codable {
        /// A request was finished again after its first finish; the second finish was ignored.
        case requestFinishedTwice
        /// A metadata source returned a group whose time range did not hold the time asked;
        /// it was not delivered.
        case metadataGroupOutOfRange
        /// A request finished after the render stopped waiting for it (cancelled or failed).
        case lateFinish
        /// A metadata track is written in another format than its source's, or left out,
        /// and not everything it held is carried (said before the first frame).
        case metadataNotCarried
        /// A smart render could not be used and every frame is rendered (said before the
        /// first frame, with the reason).
        case smartRenderFallback
        /// A packet a smart render would copy is damaged (its structure does not hold): its
        /// group of pictures is encoded instead (said before the first frame, with its time).
        case damagedSourcePacket
    }

    /// What the diagnostic is about.
    public var kind: Kind
    /// The composition time of the request or frame concerned.
    public var compositionTime: MediaTime
    /// The track concerned; nil when the diagnostic is not about one track.
    public var trackID: Int32?
    /// What happened, in words.
    public var message: String

    /// A diagnostic of `kind` at `compositionTime`.
    public init(kind: Kind, compositionTime: MediaTime, trackID: Int32? = nil, message: String) {
        self.kind = kind
        self.compositionTime = compositionTime
        self.trackID = trackID
        self.message = message
    }

    /// The message, with the composition time for what happened at one time.
    public var description: String {
        kind == .metadataNotCarried || kind == .smartRenderFallback ? message : "\(message) (at \(compositionTime.secondsDescription))"
    }

    /// Writes each diagnostic as one line to standard error (or where the creating task's
    /// `WarningOutput` points), prefixed `reel: warning: `.
    public static var standardErrorLogger: @Sendable (RenderDiagnostic) -> Void {
        let write = WarningOutput.current.write
        return { diagnostic in write("reel: warning: \(diagnostic)\n") }
    }
}
