/// The timed metadata of a player item, pushed as it becomes current
/// (`AVPlayerItemMetadataOutput` with its push delegate): an `AsyncSequence` of
/// deliveries, each the groups of one metadata track that became current.
///
/// ```swift
/// let output = PlayerItemMetadataOutput()
/// output.advanceIntervalForDelegateInvocation = MediaTime(value: 1, timescale: 10)
/// item.add(output)
/// for await delivery in output.deliveries { show(delivery.trackID, delivery.groups) }
/// ```
///
/// The groups are the ones a compositor's request carries (``FrameRenderer/timedMetadata(at:trackIDs:)``:
/// the same lookup, mapped to composition time the same way). A group is delivered once
/// when it becomes current (`advanceIntervalForDelegateInvocation` early), again after a
/// seek, and an empty delivery says a track has no current group any more.
public final class PlayerItemMetadataOutput: Sendable {
    /// The groups of one metadata track that became current.
    public struct Delivery: Sendable, Hashable {
        /// The composition metadata track the groups come from.
        public var trackID: Int32
        /// The current group, or none when the track has none now.
        public var groups: [TimedMetadataGroup]
        /// The item time the delivery was made for (the playhead plus the advance interval).
        public var itemTime: MediaTime
    }

    private struct State {
        weak var item: PlayerItem?
        var advance: MediaTime = .zero
        var last: [Int32: TimedMetadataGroup?] = [:]
        var updates: AsyncStream<(MediaTime, Bool)>.Continuation?
        var worker: Task<Void, Never>?
    }

    /// The metadata tracks to follow; nil follows every metadata track of the composition.
    public let trackIDs: [Int32]?
    /// Only items with these identifiers are delivered; nil delivers every item.
    public let identifiers: [MetadataIdentifier]?
    private let state = Lock(State())
    private let broadcast = Broadcast<Delivery>()

    /// An output following the tracks `trackIDs` and delivering the items with `identifiers`; nil for every one.
    public init(trackIDs: [Int32]? = nil, identifiers: [MetadataIdentifier]? = nil) {
        self.trackIDs = trackIDs
        self.identifiers = identifiers
    }

    /// How much earlier than its start a group is delivered (`advanceIntervalForDelegateInvocation`).
    public var advanceIntervalForDelegateInvocation: MediaTime {
        get { state.withLock { $0.advance } }
        set { state.withLock { $0.advance = newValue.isNumeric && newValue > .zero ? newValue : .zero } }
    }

    /// Each delivery from now on.
    public var deliveries: AsyncStream<Delivery> { broadcast.subscribe() }

    func attach(to item: PlayerItem) {
        let (stream, continuation) = AsyncStream.makeStream(of: (MediaTime, Bool).self)
        let worker = Task { [weak self] in
            for await (time, jumped) in stream {
                guard let self else { return }
                await self.deliver(itemTime: time, jumped: jumped)
            }
        }
        let old = state.withLock { s -> (AsyncStream<(MediaTime, Bool)>.Continuation?, Task<Void, Never>?) in
            defer { s.item = item; s.updates = continuation; s.worker = worker; s.last.removeAll() }
            return (s.updates, s.worker)
        }
        old.0?.finish()
        old.1?.cancel()
    }

    func detach() {
        let old = state.withLock { s -> (AsyncStream<(MediaTime, Bool)>.Continuation?, Task<Void, Never>?) in
            defer { s.item = nil; s.updates = nil; s.worker = nil }
            return (s.updates, s.worker)
        }
        old.0?.finish()
        old.1?.cancel()
    }

    /// The playhead is at `itemTime`; `jumped` after a seek or a new item.
    func update(itemTime: MediaTime, jumped: Bool) {
        state.withLock { $0.updates }?.yield((itemTime, jumped))
    }

    deinit {
        state.withLock { $0.worker }?.cancel()
    }

    /// Looks up the groups at the playhead plus the advance interval, delivers the ones that
    /// changed. Runs on the output's one worker task, so deliveries keep the playhead's order.
    private func deliver(itemTime: MediaTime, jumped: Bool) async {
        let (item, advance) = state.withLock { ($0.item, $0.advance) }
        guard let item, let renderer = item.chase.renderer, let contents = item.contents else { return }
        let time = itemTime + advance
        let tracks = trackIDs ?? contents.composition.tracks(withMediaType: .metadata).map(\.trackID)
        let found: [(trackID: Int32, sample: TimedMetadataSample)]
        do throws(ReelError) {
            found = time < contents.composition.duration ? try await renderer.timedMetadata(at: time, trackIDs: tracks) : []
        } catch {
            return
        }
        var deliveries: [Delivery] = []
        state.withLock { s in
            if jumped { s.last.removeAll() }
            for id in tracks {
                var group = found.first { $0.trackID == id }?.sample.group
                if let identifiers, var g = group {
                    g.items = g.items.filter { item in identifiers.contains { $0 == item.identifier } }
                    group = g
                }
                let known = s.last[id]
                if let known, known == group { continue }
                if known == nil, group == nil {
                    s.last[id] = .some(nil)
                    continue
                }
                s.last[id] = .some(group)
                deliveries.append(Delivery(trackID: id, groups: group.map { [$0] } ?? [], itemTime: time))
            }
        }
        for d in deliveries { broadcast.yield(d) }
    }
}
