import Foundation
import ReelCore

/// A timed-metadata sample that could not be decoded (truncated, corrupt): it was
/// skipped, and the rest of its track was kept.
public struct MetadataReadWarning: Sendable, Hashable, CustomStringConvertible {
    /// When the sample starts (invalid for a sample without a time).
    public var time: MediaTime
    /// The track the sample belongs to.
    public var trackID: Int32
    /// Why the sample was skipped: the decoder's error.
    public var reason: String

    public init(time: MediaTime, trackID: Int32, reason: String) {
        self.time = time
        self.trackID = trackID
        self.reason = reason
    }

    /// `track 3: skipped the metadata sample at 1 s: could not decode ...`.
    public var description: String {
        let at = time.isNumeric ? "at \(time.secondsDescription)" : "without a time"
        return "track \(trackID): skipped the metadata sample \(at): \(reason)"
    }

    /// Writes each warning as one line to standard error (or where the creating task's
    /// `WarningOutput` points), prefixed `reel: warning: `.
    public static var standardErrorLogger: @Sendable (MetadataReadWarning) -> Void {
        let write = WarningOutput.current.write
        return { warning in write("reel: warning: \(warning)\n") }
    }
}
