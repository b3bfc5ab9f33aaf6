import ReelComposition

/// `seconds` as an exact time (`"2.5"` style parse, so 0.1 is 1/10).
func t(_ seconds: Double) -> MediaTime {
    MediaTime(parsing: String(seconds)) ?? MediaTime(seconds: seconds, preferredTimescale: 600)
}

func range(_ start: Double, _ end: Double) -> TimeRange { TimeRange(start: t(start), end: t(end)) }

func videoTrack(_ source: String, _ id: Int32, duration: Double = 10, size: Size = Size(width: 64, height: 36)) -> SourceTrackDescription {
    SourceTrackDescription(
        reference: SourceTrackReference(sourceIdentifier: source, trackID: id), mediaType: .video,
        timeRange: range(0, duration), naturalSize: size, nominalFrameDuration: MediaTime(value: 1, timescale: 30))
}

func metadataTrack(_ source: String, _ id: Int32, duration: Double = 10) -> SourceTrackDescription {
    SourceTrackDescription(
        reference: SourceTrackReference(sourceIdentifier: source, trackID: id), mediaType: .metadata,
        timeRange: range(0, duration))
}

func audioTrack(_ source: String, _ id: Int32, duration: Double = 10) -> SourceTrackDescription {
    SourceTrackDescription(
        reference: SourceTrackReference(sourceIdentifier: source, trackID: id), mediaType: .audio,
        timeRange: range(0, duration))
}

/// A thread-safe list, for recording what callbacks saw.
final class Recorder<Element: Sendable>: Sendable {
    private let items = Lock<[Element]>([])
    func append(_ e: Element) { items.withLock { $0.append(e) } }
    var all: [Element] { items.withLock { $0 } }
}

/// A custom instruction with fixed lists, as a compositor author would write one.
struct TestInstruction: VideoCompositionInstructionProtocol {
    var timeRange: TimeRange
    var requiredSourceTrackIDs: [Int32]? = nil
    var passthroughTrackID: Int32? = nil
    var requiredSourceSampleDataTrackIDs: [Int32] = []
    var requiredSourceCaptionTrackIDs: [Int32] = []
}

/// A BGRA frame of one colour.
func solid(_ b: UInt8, _ g: UInt8, _ r: UInt8, _ a: UInt8 = 255, width: Int = 64, height: Int = 36) -> PixelBuffer {
    let buffer = PixelBuffer(width: width, height: height, format: .bgra)
    buffer.withUnsafeMutableBytes(plane: 0) { raw in
        for y in 0..<height {
            for x in 0..<width {
                let o = y * buffer.bytesPerRow[0] + 4 * x
                raw[o] = b; raw[o + 1] = g; raw[o + 2] = r; raw[o + 3] = a
            }
        }
    }
    return buffer
}

/// The bytes of pixel (x, y) of `plane`.
func pixel(_ buffer: PixelBuffer, _ x: Int, _ y: Int, plane: Int = 0) -> [UInt8] {
    let n = buffer.format.bytesPerPixel(plane: plane)
    return buffer.withUnsafeBytes(plane: plane) { raw in
        Array(raw[(y * buffer.bytesPerRow[plane] + n * x)..<(y * buffer.bytesPerRow[plane] + n * x + n)])
    }
}

/// A frame whose first byte says which frame it is (for telling frames apart).
func numbered(_ i: Int, width: Int = 64, height: Int = 36) -> PixelBuffer {
    solid(UInt8(truncatingIfNeeded: i), 0, 0, width: width, height: height)
}
