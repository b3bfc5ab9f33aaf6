import Foundation
import ReelComposition
import ReelCore
import ReelIO

/// The timed metadata of one metadata track of a file, for the render engine: a
/// `TimedMetadataSource` on top of `AssetReader`.
///
/// Samples are read in order through an `AssetReaderOutputMetadataAdaptor` (Reel's
/// decoding for the track's format, `mebx` keys included, unless `decode` is given: a
/// GPMF payload gives one group per GPS fix); each group comes with the raw sample it came
/// from. A sample that does not decode gives no group for its span: the read goes on and
/// `warnings` is told once per sample.
///
/// With Reel's decoding, the whole track is read and decoded once for the process
/// (`DecodedMetadataTracks`: the composition file's loader, the engine and the export all
/// take it from there) and every request is answered from memory, backwards as forwards.
/// With a `decode` of the caller's, only the groups around the asked time are kept, and a
/// request earlier than what was dropped opens a new reader there.
public actor AssetTimedMetadataSource: TimedMetadataSource {
    public nonisolated let url: URL
    public nonisolated let trackID: Int32
    /// Decodes one sample into its groups; nil for Reel's decoding.
    public nonisolated let decode: AssetReaderOutputMetadataAdaptor.Decode?
    /// Where skipped samples are reported (standard error by default).
    public nonisolated let warnings: @Sendable (MetadataReadWarning) -> Void

    /// Where Reel's decoding of the whole track is kept (the process's, but for tests).
    private nonisolated let decodedTracks: DecodedMetadataTracks
    private var cursor: MetadataCursor?
    private var track: DecodedMetadataTracks.Track?
    private var reported: Set<MetadataReadWarning> = []
    private let gate = AsyncGate()

    /// A source for metadata track `trackID` of the file at `url`, decoding with `decode`
    /// (Reel's decoding for the track's format when nil), telling `warnings` about each
    /// sample skipped because it does not decode.
    public init(
        url: URL, trackID: Int32, decode: AssetReaderOutputMetadataAdaptor.Decode? = nil,
        warnings: @escaping @Sendable (MetadataReadWarning) -> Void = MetadataReadWarning.standardErrorLogger
    ) {
        self.init(url: url, trackID: trackID, decode: decode, warnings: warnings, decodedTracks: .shared)
    }

    /// A source whose whole-track decoding is kept in `decodedTracks`.
    init(
        url: URL, trackID: Int32, decode: AssetReaderOutputMetadataAdaptor.Decode? = nil,
        warnings: @escaping @Sendable (MetadataReadWarning) -> Void = MetadataReadWarning.standardErrorLogger,
        decodedTracks: DecodedMetadataTracks
    ) {
        self.url = url
        self.trackID = trackID
        self.decode = decode
        self.warnings = warnings
        self.decodedTracks = decodedTracks
    }

    public func sample(at sourceTime: MediaTime) async throws(ReelError) -> TimedMetadataSample? {
        guard sourceTime.isNumeric else { return nil }
        await gate.enter()
        defer { gate.leave() }
        if decode == nil { return try await decodedTrack().sample(at: sourceTime) }
        if cursor.map({ !$0.canReach(sourceTime) }) ?? true {
            cursor?.close()
            cursor = try MetadataCursor(reader: try await AssetReader.open(url: url), trackID: trackID, start: sourceTime, decode: decode)
        }
        guard let cursor else { return nil }
        do {
            let found = try await cursor.sample(at: sourceTime)
            report(cursor.adaptor.takeNewWarnings())
            return found
        } catch {
            cursor.close()
            self.cursor = nil
            throw error
        }
    }

    /// Every sample of the track overlapping `range` (source time), in order: what an
    /// export copies into its output. Samples that do not decode are left out and reported.
    public func samples(in range: TimeRange) async throws(ReelError) -> [TimedMetadataSample] {
        if decode == nil {
            await gate.enter()
            defer { gate.leave() }
            return try await decodedTrack().samples(in: range)
        }
        let cursor = try MetadataCursor(reader: try await AssetReader.open(url: url), trackID: trackID, start: range.start, decode: decode)
        defer { cursor.close() }
        let all = try await cursor.readAll(until: range.end)
        report(cursor.adaptor.takeNewWarnings())
        return all
    }

    /// The whole track, decoded once for the process; kept for this source's life. Its
    /// warnings are told here.
    private func decodedTrack() async throws(ReelError) -> DecodedMetadataTracks.Track {
        if let track { return track }
        let read = try await decodedTracks.track(url: url, trackID: trackID)
        track = read
        report(read.warnings)
        return read
    }

    /// Tells `warnings` about each skipped sample not told before.
    private func report(_ new: [MetadataReadWarning]) {
        for warning in new where reported.insert(warning).inserted { warnings(warning) }
    }
}

/// One read position in a metadata track: the groups around the last asked time.
final class MetadataCursor {
    private let reader: AssetReader
    let adaptor: AssetReaderOutputMetadataAdaptor
    private let start: MediaTime
    /// Decoded groups in time order not yet behind the asked time.
    private var window: [TimedMetadataSample] = []
    private var ended = false
    private var lastAsked: MediaTime = .invalid

    /// A cursor reading track `trackID` of `reader` (opened, not started) from `start`.
    init(reader: AssetReader, trackID: Int32, start: MediaTime, decode: AssetReaderOutputMetadataAdaptor.Decode?) throws(ReelError) {
        let url = reader.url
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
        adaptor = try AssetReaderOutputMetadataAdaptor(assetReaderTrackOutput: output, decode: decode)
        try reader.startReading()
        self.reader = reader
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
        guard let (buffer, groups) = try await adaptor.nextDecodedSample(isolation: actor) else {
            ended = true
            return
        }
        Self.append(groups.map { TimedMetadataSample(group: $0, sampleBuffer: buffer) }, to: &window)
    }

    /// Every sample from the cursor's start that starts before `end`, with its groups.
    func readAll(until end: MediaTime, isolation actor: isolated (any Actor)? = #isolation) async throws(ReelError) -> [TimedMetadataSample] {
        var out: [TimedMetadataSample] = []
        while let (buffer, groups) = try await adaptor.nextDecodedSample(isolation: actor) {
            let samples = groups.map { TimedMetadataSample(group: $0, sampleBuffer: buffer) }
            if buffer.presentationTime.isNumeric, !(buffer.presentationTime < end) {
                Self.append(samples, to: &out)
                out.removeLast(samples.count)
                break
            }
            Self.append(samples, to: &out)
        }
        return out
    }

    /// Appends `samples` to `list`, an instant before them (a group with no duration, as a
    /// KLV packet without one is) holding until the next one starts: a reading is true until
    /// the next reading.
    static func append(_ samples: [TimedMetadataSample], to list: inout [TimedMetadataSample]) {
        for sample in samples {
            if let last = list.indices.last, list[last].group.timeRange.duration == .zero,
                list[last].group.timeRange.start < sample.group.timeRange.start
            {
                let start = list[last].group.timeRange.start
                let duration = sample.group.timeRange.start - start
                list[last].group.timeRange = TimeRange(start: start, duration: duration)
                for i in list[last].group.items.indices where list[last].group.items[i].duration == .zero {
                    list[last].group.items[i].duration = duration
                }
            }
            list.append(sample)
        }
    }
}
