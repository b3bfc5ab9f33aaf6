import Foundation
import ReelCore
import ReelMetadata

/// Turns the raw samples of a timed-metadata track output into `TimedMetadataGroup`s
/// (AVAssetReaderOutputMetadataAdaptor).
///
/// The output must use `.passthrough` settings. Each sample goes through a decode
/// function for its format (`gpmd`, `mebx`, `camm`, `klv`); one sample may give several
/// groups (a GPMF payload holds many GPS fixes), which come out in order. A `mebx`
/// track's keys come from the track's ``FormatDescription/metadataKeys``, so its items
/// arrive decoded with no extra call.
///
/// A sample that does not decode (truncated, corrupt) does not end the read: it is
/// skipped, and a ``MetadataReadWarning`` naming its time and track is added to
/// ``warnings``. Groups that end before the reader's time range starts are left out.
public final class AssetReaderOutputMetadataAdaptor: AsyncSequence, Sendable {
    /// Decodes one sample's bytes into the groups it holds.
    public typealias Decode = @Sendable (SampleBuffer) throws -> [TimedMetadataGroup]

    public typealias Element = TimedMetadataGroup
    public typealias Failure = ReelError

    public let assetReaderTrackOutput: AssetReaderTrackOutput
    private let decode: Decode?

    private struct State {
        var pending: [TimedMetadataGroup] = []
        /// Reel's decoder for the track, made at the first sample (KLV without times is
        /// placed relative to the packets before it, so one decoder reads the whole track).
        var decoder: TimedMetadataDecoder?
        var warnings: [MetadataReadWarning] = []
        var reported = 0
    }
    private let state = Lock(State())

    /// An adaptor over `output`, decoding with `decode`, or, when nil, with the decoder
    /// Reel has for the track's format (`TimedMetadataDecoder`, with the track's `mebx`
    /// keys; raw groups, ``rawGroup(_:)``, for formats it does not know).
    public init(assetReaderTrackOutput output: AssetReaderTrackOutput, decode: Decode? = nil) throws(ReelError) {
        guard case .passthrough = output.settings else {
            throw ReelError(.invalidArgument, "a metadata adaptor needs an output with .passthrough settings", trackID: output.trackID)
        }
        self.assetReaderTrackOutput = output
        self.decode = decode
    }

    /// The samples skipped so far because they did not decode, in track order.
    public var warnings: [MetadataReadWarning] { state.withLock { $0.warnings } }

    /// The warnings added since the last call.
    package func takeNewWarnings() -> [MetadataReadWarning] {
        state.withLock { s in
            defer { s.reported = s.warnings.count }
            return Array(s.warnings[s.reported...])
        }
    }

    /// Reel's decoding of one sample on its own, by its format: `TimedMetadataDecoder`
    /// for `gpmd`, `mebx` (with `keys`, the track's ``FormatDescription/metadataKeys``),
    /// `camm` and KLV; ``rawGroup(_:)`` for other formats and for `mebx` without keys.
    /// Asynchronous KLV (samples without a time) decoded one sample at a time starts at
    /// zero: an adaptor places such a track's packets relative to one another.
    public static func defaultDecode(_ sample: SampleBuffer, keys: [QuickTimeMetadataKey] = []) throws(ReelError) -> [TimedMetadataGroup] {
        guard var decoder = decoder(for: sample, keys: keys) else { return [rawGroup(sample)] }
        return try decoder.groups(for: sample)
    }

    /// Reel's decoder for the format of `sample`, or nil when the samples stay raw.
    private static func decoder(for sample: SampleBuffer, keys: [QuickTimeMetadataKey]) -> TimedMetadataDecoder? {
        guard let format = sample.metadataFormat, TimedMetadataDecoder.canDecode(format: format),
            format != .mebx || !keys.isEmpty
        else { return nil }
        return TimedMetadataDecoder(format: format, keys: keys)
    }

    /// One group spanning the sample's time range, holding its bytes as a `.data` item
    /// with identifier `reel/sample.<format>` (what a writer's adaptor writes back as is).
    public static func rawGroup(_ sample: SampleBuffer) -> TimedMetadataGroup {
        TimedMetadataGroup(
            timeRange: sample.timeRange,
            items: [
                MetadataItem(
                    identifier: MetadataIdentifier(keySpace: "reel", key: "sample.\(sample.format)"),
                    value: .data(sample.data), dataType: sample.format,
                    time: sample.presentationTime, duration: sample.duration)
            ])
    }

    /// The groups of one sample inside the reader's range; none, with a warning, when it
    /// does not decode.
    private func groups(of buffer: SampleBuffer) -> [TimedMetadataGroup] {
        let decoded: Result<[TimedMetadataGroup], any Error> = Result {
            if let decode { return try decode(buffer) }
            let keys = assetReaderTrackOutput.formatDescription?.metadataKeys ?? []
            return try state.withLock { s throws(ReelError) -> [TimedMetadataGroup] in
                if s.decoder == nil { s.decoder = Self.decoder(for: buffer, keys: keys) }
                guard s.decoder != nil else { return [Self.rawGroup(buffer)] }
                return try s.decoder!.groups(for: buffer)
            }
        }
        switch decoded {
        case .success(let groups):
            let start = assetReaderTrackOutput.state.withLock { $0.timeRange?.start } ?? .zero
            guard start.isNumeric else { return groups }
            return groups.filter { group in
                let range = group.timeRange
                guard range.start.isNumeric else { return true }
                return range.duration.isNumeric && range.duration > .zero ? range.end > start : !(range.start < start)
            }
        case .failure(let error):
            let reason = (error as? ReelError)?.message ?? "\(error)"
            let warning = MetadataReadWarning(
                time: buffer.presentationTime, trackID: assetReaderTrackOutput.trackID,
                reason: "could not decode the \(buffer.format) sample: \(reason)")
            state.withLock { $0.warnings.append(warning) }
            return []
        }
    }

    /// The next sample with the groups it gave (none for a skipped sample); nil at the
    /// end of the track. For readers that keep each group with its sample's bytes; use it
    /// or the group sequence, not both.
    package func nextDecodedSample(isolation actor: isolated (any Actor)? = #isolation) async throws(ReelError) -> (
        sample: SampleBuffer, groups: [TimedMetadataGroup]
    )? {
        while let sample = try await assetReaderTrackOutput.next(isolation: actor) {
            guard let buffer = sample.sampleBuffer else { continue }
            return (buffer, groups(of: buffer))
        }
        return nil
    }

    private func groups(from sample: AssetReaderSample?) -> [TimedMetadataGroup]? {
        guard let sample else { return nil }
        guard let buffer = sample.sampleBuffer else { return [] }
        return groups(of: buffer)
    }

    private func takePending() -> TimedMetadataGroup? {
        state.withLock { $0.pending.isEmpty ? nil : $0.pending.removeFirst() }
    }

    private func store(_ groups: [TimedMetadataGroup]) -> TimedMetadataGroup? {
        state.withLock { s in
            s.pending.append(contentsOf: groups)
            return s.pending.isEmpty ? nil : s.pending.removeFirst()
        }
    }

    /// The next group, blocking the calling thread; nil at the end of the track.
    @available(*, noasync, message: "blocks the thread: iterate the adaptor with for try await instead")
    public func nextTimedMetadataGroup() throws(ReelError) -> TimedMetadataGroup? {
        if let group = takePending() { return group }
        while true {
            guard let groups = groups(from: try assetReaderTrackOutput.nextSample()) else { return nil }
            if let group = store(groups) { return group }
        }
    }

    /// The next group, suspending until it is read; nil at the end of the track.
    public func next(isolation actor: isolated (any Actor)? = #isolation) async throws(ReelError) -> TimedMetadataGroup? {
        if let group = takePending() { return group }
        while true {
            guard let groups = groups(from: try await assetReaderTrackOutput.next(isolation: actor)) else { return nil }
            if let group = store(groups) { return group }
        }
    }

    public struct AsyncIterator: AsyncIteratorProtocol {
        let adaptor: AssetReaderOutputMetadataAdaptor

        public mutating func next(isolation actor: isolated (any Actor)?) async throws(ReelError) -> TimedMetadataGroup? {
            try await adaptor.next(isolation: actor)
        }

        public mutating func next() async throws(ReelError) -> TimedMetadataGroup? {
            try await adaptor.next(isolation: nil)
        }
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(adaptor: self) }
}
