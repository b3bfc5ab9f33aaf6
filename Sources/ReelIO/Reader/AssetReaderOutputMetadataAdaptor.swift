import Foundation
import Synchronization
import ReelCore
import ReelMetadata

/// Turns the raw samples of a timed-metadata track output into ``TimedMetadataGroup``s
/// (AVAssetReaderOutputMetadataAdaptor).
///
/// The output must use `.passthrough` settings. Each sample goes through a decode
/// function for its format (`gpmd`, `mebx`, `camm`, `klv`); one sample may give several
/// groups (a GPMF payload holds many GPS fixes), which come out in order.
public final class AssetReaderOutputMetadataAdaptor: AsyncSequence, Sendable {
    /// Decodes one sample's bytes into the groups it holds.
    public typealias Decode = @Sendable (SampleBuffer) throws -> [TimedMetadataGroup]

    public typealias Element = TimedMetadataGroup
    public typealias Failure = ReelError

    public let assetReaderTrackOutput: AssetReaderTrackOutput
    private let decode: Decode
    private let pending = Mutex<[TimedMetadataGroup]>([])

    /// An adaptor over `output`, decoding with `decode`, or, when nil, with the decoder
    /// Reel has for each sample's format (``defaultDecode(_:)``).
    public init(assetReaderTrackOutput output: AssetReaderTrackOutput, decode: Decode? = nil) throws(ReelError) {
        guard case .passthrough = output.settings else {
            throw ReelError(.invalidArgument, "a metadata adaptor needs an output with .passthrough settings", trackID: output.trackID)
        }
        self.assetReaderTrackOutput = output
        self.decode = decode ?? { try Self.defaultDecode($0) }
    }

    /// Reel's decoding of a sample, by its format.
    ///
    /// - `gpmd`: ``GPMF/groups(payload:timeRange:)``, one group per GPS fix spread across
    ///   the sample's span (a sample without a duration is read as an instant).
    /// - `klv`: ``KLV/groups(packets:)`` (MISB ST 0601 local sets, EG 0104 universal
    ///   sets), a group per KLV packet, lasting the sample's duration when it has one.
    ///   Asynchronous KLV (samples without a time) is placed by each packet's own UNIX
    ///   time stamp relative to itself, so every group starts at zero: decode such a
    ///   track as a whole with `KLV.groups(packets:)` to place its packets.
    /// - `camm`: ``CAMM/group(sample:timeRange:)``.
    /// - `mebx` needs the track's key table (in the sample description, which FFmpeg
    ///   hides): pass a decode function using `QuickTimeMetadataSample.group(sample:keys:timeRange:)`.
    ///   Without one, and for other formats, each sample gives ``rawGroup(_:)``.
    public static func defaultDecode(_ sample: SampleBuffer) throws(ReelError) -> [TimedMetadataGroup] {
        let duration = sample.duration.isNumeric ? sample.duration : .zero
        let range = TimeRange(start: sample.presentationTime, duration: duration)
        switch sample.format {
        case "gpmd":
            return try GPMF.groups(payload: sample.data, timeRange: range)
        case "klv":
            var groups = try KLV.groups(packets: [(sample.data, sample.presentationTime.isNumeric ? sample.presentationTime : nil)])
            if groups.count == 1, duration > .zero, groups[0].timeRange.start == sample.presentationTime {
                groups[0].timeRange.duration = duration
            }
            return groups
        case "camm" where sample.presentationTime.isNumeric:
            return [try CAMM.group(sample: sample.data, timeRange: range)]
        default:
            return [rawGroup(sample)]
        }
    }

    /// One group spanning the sample's time range, holding its bytes as a `.data` item
    /// with identifier `reel/sample.<format>` (what a writer's adaptor writes back as is).
    public static func rawGroup(_ sample: SampleBuffer) -> TimedMetadataGroup {
        TimedMetadataGroup(timeRange: sample.timeRange, items: [
            MetadataItem(identifier: MetadataIdentifier(keySpace: "reel", key: "sample.\(sample.format)"),
                         value: .data(sample.data), dataType: sample.format,
                         time: sample.presentationTime, duration: sample.duration),
        ])
    }

    private func groups(from sample: AssetReaderSample?) throws(ReelError) -> [TimedMetadataGroup]? {
        guard let sample else { return nil }
        guard let buffer = sample.sampleBuffer else { return [] }
        do {
            return try decode(buffer)
        } catch let error as ReelError {
            throw error
        } catch {
            throw ReelError(.metadataFormat, "could not decode a \(buffer.format) sample", trackID: assetReaderTrackOutput.trackID,
                            time: buffer.presentationTime, underlying: error)
        }
    }

    private func takePending() -> TimedMetadataGroup? {
        pending.withLock { $0.isEmpty ? nil : $0.removeFirst() }
    }

    private func store(_ groups: [TimedMetadataGroup]) -> TimedMetadataGroup? {
        pending.withLock { list in
            list.append(contentsOf: groups)
            return list.isEmpty ? nil : list.removeFirst()
        }
    }

    /// The next group, blocking the calling thread; nil at the end of the track.
    @available(*, noasync, message: "blocks the thread: iterate the adaptor with for try await instead")
    public func nextTimedMetadataGroup() throws(ReelError) -> TimedMetadataGroup? {
        if let group = takePending() { return group }
        while true {
            guard let groups = try groups(from: assetReaderTrackOutput.nextSample()) else { return nil }
            if let group = store(groups) { return group }
        }
    }

    /// The next group, suspending until it is read; nil at the end of the track.
    public func next(isolation actor: isolated (any Actor)? = #isolation) async throws(ReelError) -> TimedMetadataGroup? {
        if let group = takePending() { return group }
        while true {
            guard let groups = try groups(from: await assetReaderTrackOutput.next(isolation: actor)) else { return nil }
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
