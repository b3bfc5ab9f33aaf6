import ReelComposition
import Synchronization

/// `seconds` as an exact time (`"2.5"` style parse, so 0.1 is 1/10).
func t(_ seconds: Double) -> MediaTime {
    MediaTime(parsing: String(seconds)) ?? MediaTime(seconds: seconds, preferredTimescale: 600)
}

func range(_ start: Double, _ end: Double) -> TimeRange { TimeRange(start: t(start), end: t(end)) }

func videoTrack(_ source: String, _ id: Int32, duration: Double = 10, size: Size = Size(width: 64, height: 36)) -> SourceTrackDescription {
    SourceTrackDescription(reference: SourceTrackReference(sourceIdentifier: source, trackID: id), mediaType: .video,
                           timeRange: range(0, duration), naturalSize: size, nominalFrameDuration: MediaTime(value: 1, timescale: 30))
}

func metadataTrack(_ source: String, _ id: Int32, duration: Double = 10) -> SourceTrackDescription {
    SourceTrackDescription(reference: SourceTrackReference(sourceIdentifier: source, trackID: id), mediaType: .metadata,
                           timeRange: range(0, duration))
}

func audioTrack(_ source: String, _ id: Int32, duration: Double = 10) -> SourceTrackDescription {
    SourceTrackDescription(reference: SourceTrackReference(sourceIdentifier: source, trackID: id), mediaType: .audio,
                           timeRange: range(0, duration))
}

/// A thread-safe list, for recording what callbacks saw.
final class Recorder<Element: Sendable>: Sendable {
    private let items = Mutex<[Element]>([])
    func append(_ e: Element) { items.withLock { $0.append(e) } }
    var all: [Element] { items.withLock { $0 } }
}

/// A custom instruction with fixed lists, as a compositor author would write one.
struct TestInstruction: VideoCompositionInstruction {
    var timeRange: TimeRange
    var requiredSourceTrackIDs: [Int32]? = nil
    var passthroughTrackID: Int32? = nil
    var requiredSourceSampleDataTrackIDs: [Int32] = []
}
