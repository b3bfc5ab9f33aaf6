/// Names one track of one source (a file, a generator, an in-memory clip) without holding it.
///
/// A composition stores references, not readers: the module that opens files maps each
/// `sourceIdentifier` to a reader, and tests map it to in-memory frames. The identifier is
/// opaque to the composition layer (a path, a URL string, a name).
public struct SourceTrackReference: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Which source, for example a file path or `"camera-a"`.
    public var sourceIdentifier: String
    /// The track's ID inside that source.
    public var trackID: Int32

    /// A reference to the track `trackID` of the source `sourceIdentifier`.
    public init(sourceIdentifier: String, trackID: Int32) {
        self.sourceIdentifier = sourceIdentifier
        self.trackID = trackID
    }

    public var description: String { "\(sourceIdentifier) track \(trackID)" }
}
