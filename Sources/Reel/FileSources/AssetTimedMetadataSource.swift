import Foundation
import ReelCore
import ReelIO
import ReelComposition

/// The timed metadata of one metadata track of a file, for the render engine: a
/// ``TimedMetadataSource`` on top of ``AssetReader``.
///
/// Samples are read in order from a `.passthrough` output and decoded with the reader's
/// metadata adaptor decoding (``AssetReaderOutputMetadataAdaptor/defaultDecode(_:)``: a
/// GPMF payload gives one group per GPS fix); each group comes with the raw sample it came
/// from. Only the groups around the asked time are kept; a request earlier than what was
/// dropped opens a new reader there.
public actor AssetTimedMetadataSource: TimedMetadataSource {
    public nonisolated let url: URL
    public nonisolated let trackID: Int32
    /// Decodes one sample into its groups.
    public nonisolated let decode: AssetReaderOutputMetadataAdaptor.Decode

    private var cursor: MetadataCursor?
    private let gate = AsyncGate()

    /// A source for metadata track `trackID` of the file at `url`, decoding with `decode`
    /// (Reel's decoding for the sample format when nil).
    public init(url: URL, trackID: Int32, decode: AssetReaderOutputMetadataAdaptor.Decode? = nil) {
        self.url = url
        self.trackID = trackID
        self.decode = decode ?? { try AssetReaderOutputMetadataAdaptor.defaultDecode($0) }
    }

    public func sample(at sourceTime: MediaTime) async throws(ReelError) -> TimedMetadataSample? {
        guard sourceTime.isNumeric else { return nil }
        await gate.enter()
        defer { gate.leave() }
        if cursor.map({ !$0.canReach(sourceTime) }) ?? true {
            cursor?.close()
            cursor = try MetadataCursor(url: url, trackID: trackID, start: sourceTime, decode: decode)
        }
        guard let cursor else { return nil }
        do {
            return try await cursor.sample(at: sourceTime)
        } catch {
            cursor.close()
            self.cursor = nil
            throw error
        }
    }

    /// Every sample of the track overlapping `range` (source time), in order: what an
    /// export copies into its output.
    public func samples(in range: TimeRange) async throws(ReelError) -> [TimedMetadataSample] {
        try await MetadataCursor.readAll(url: url, trackID: trackID, range: range, decode: decode)
    }
}

/// One read position in a metadata track: the groups around the last asked time.
final class MetadataCursor {
    private let reader: AssetReader
    private let output: AssetReaderTrackOutput
    private let decode: AssetReaderOutputMetadataAdaptor.Decode
    private let trackID: Int32
    private let start: MediaTime
    /// Decoded groups in time order not yet behind the asked time.
    private var window: [TimedMetadataSample] = []
    private var ended = false
    private var lastAsked: MediaTime = .invalid

    init(url: URL, trackID: Int32, start: MediaTime, decode: @escaping AssetReaderOutputMetadataAdaptor.Decode) throws(ReelError) {
        let reader = try AssetReader(url: url)
        guard let track = reader.track(withID: trackID) else {
            let known = reader.tracks.map { String($0.trackID) }.joined(separator: ", ")
            throw ReelError(.invalidArgument, "the file has no track \(trackID) (tracks: \(known))", path: url.path, trackID: trackID)
        }
        guard track.mediaType == .metadata else {
            throw ReelError(.invalidArgument, "track \(trackID) is \(track.mediaType), not timed metadata", path: url.path, trackID: trackID)
        }
        let output = AssetReaderTrackOutput(trackID: trackID, settings: .passthrough, bufferCapacity: 16)
        try reader.add(output)
        if start > .zero { reader.timeRange = TimeRange(start: start, duration: .positiveInfinity) }
        try reader.startReading()
        self.reader = reader
        self.output = output
        self.decode = decode
        self.trackID = trackID
        self.start = start
    }

    deinit { reader.cancelReading() }

    func close() { reader.cancelReading() }

    /// Whether the cursor can answer `time` without going back.
    func canReach(_ time: MediaTime) -> Bool {
        if time < start { return false }
        if lastAsked.isNumeric, time < lastAsked {
            // Groups before the last asked time may have been dropped.
            return window.first.map { !(time < $0.group.timeRange.start) } ?? false
        }
        return true
    }

    func sample(at time: MediaTime, isolation actor: isolated (any Actor)? = #isolation) async throws(ReelError) -> TimedMetadataSample? {
        lastAsked = time
        // Read until a group starts after `time` (or the track ends).
        while !ended, window.last.map({ !(time < $0.group.timeRange.start) }) ?? true {
            try await readMore()
        }
        // Drop groups that ended at or before `time`, keeping the one just before.
        if let keep = window.lastIndex(where: { !(time < $0.group.timeRange.start) }), keep > 0 {
            window.removeFirst(keep)
        }
        guard let candidate = window.last(where: { !(time < $0.group.timeRange.start) }) else { return nil }
        return candidate.group.timeRange.containsTime(time) || (candidate.group.timeRange.duration == .zero && candidate.group.timeRange.start == time)
            ? candidate : nil
    }

    private func readMore(isolation actor: isolated (any Actor)? = #isolation) async throws(ReelError) {
        guard let sample = try await output.next(isolation: actor) else {
            ended = true
            return
        }
        guard let buffer = sample.sampleBuffer else { return }
        window.append(contentsOf: try Self.decoded(buffer, trackID: trackID, decode: decode))
    }

    static func decoded(_ buffer: SampleBuffer, trackID: Int32, decode: AssetReaderOutputMetadataAdaptor.Decode) throws(ReelError) -> [TimedMetadataSample] {
        let groups: [TimedMetadataGroup]
        do {
            groups = try decode(buffer)
        } catch let error as ReelError {
            throw error
        } catch {
            throw ReelError(.metadataFormat, "could not decode a \(buffer.format) sample", trackID: trackID, time: buffer.presentationTime, underlying: error)
        }
        return groups.map { TimedMetadataSample(group: $0, sampleBuffer: buffer) }
    }

    /// Every raw sample overlapping `range`, with its decoded groups.
    static func readAll(url: URL, trackID: Int32, range: TimeRange,
                        decode: @escaping AssetReaderOutputMetadataAdaptor.Decode) async throws(ReelError) -> [TimedMetadataSample] {
        let cursor = try MetadataCursor(url: url, trackID: trackID, start: range.start, decode: decode)
        defer { cursor.close() }
        var out: [TimedMetadataSample] = []
        while let sample = try await cursor.output.next() {
            guard let buffer = sample.sampleBuffer else { continue }
            if buffer.presentationTime.isNumeric, !(buffer.presentationTime < range.end) { break }
            out.append(contentsOf: try decoded(buffer, trackID: trackID, decode: decode))
        }
        return out
    }
}
