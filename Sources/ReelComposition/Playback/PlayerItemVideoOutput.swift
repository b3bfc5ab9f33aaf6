/// Rendered frames of a player item, pulled by whoever shows them
/// (`AVPlayerItemVideoOutput`): ask for the item time about to be displayed.
///
/// ```swift
/// let t = player.currentTime()
/// if output.hasNewPixelBuffer(forItemTime: t), let frame = output.copyPixelBuffer(forItemTime: t) { show(frame) }
/// ```
///
/// A frame is new for an output until that output has copied it; a frame rendered again
/// (``PlayerItem/invalidateVideoComposition()``, a new render scale) is new again.
/// ``mediaDataChanges`` says when a frame has been rendered, so nothing needs to poll
/// (AVFoundation's `requestNotificationOfMediaDataChange`).
public final class PlayerItemVideoOutput: Sendable {
    private struct State {
        weak var item: PlayerItem?
        var listener: Int?
        /// The frames taken: frame start and generation.
        var taken: [(time: MediaTime, generation: Int)] = []
    }

    private let state = Lock(State())
    private let changes = Broadcast<RenderedFrame>()

    /// An output not yet added to an item; frames reach it once one adds it.
    public init() {}

    /// Whether the frame showing at `itemTime` is rendered and this output has not copied it.
    public func hasNewPixelBuffer(forItemTime itemTime: MediaTime) -> Bool {
        guard let item = state.withLock({ $0.item }), let (frame, generation) = item.chase.cachedFrame(at: item.frameTime(for: itemTime)) else { return false }
        return !state.withLock { s in s.taken.contains { $0.time == frame.time && $0.generation == generation } }
    }

    /// The frame showing at `itemTime`, or nil when nothing should be shown: the time is
    /// before the item, or its frame is not rendered yet (it is then asked for, and
    /// ``mediaDataChanges`` tells when it is there).
    public func copyPixelBuffer(forItemTime itemTime: MediaTime) -> PixelBuffer? {
        copyFrame(forItemTime: itemTime)?.pixelBuffer
    }

    /// The same as ``copyPixelBuffer(forItemTime:)`` with the frame's time (the item time
    /// for display, `itemTimeForDisplay`), duration, and the metadata groups its request
    /// carried.
    public func copyFrame(forItemTime itemTime: MediaTime) -> RenderedFrame? {
        guard let item = state.withLock({ $0.item }) else { return nil }
        guard let (frame, generation) = item.chase.cachedFrame(at: item.frameTime(for: itemTime)) else {
            if item.status == .readyToPlay, itemTime >= .zero, itemTime <= item.duration { item.chase.request(item.frameTime(for: itemTime)) }
            return nil
        }
        state.withLock { s in
            if !s.taken.contains(where: { $0.time == frame.time && $0.generation == generation }) {
                s.taken.append((frame.time, generation))
                if s.taken.count > 64 { s.taken.removeFirst(s.taken.count - 64) }
            }
        }
        return frame
    }

    /// Each frame rendered for the item from now on (its start time is the item time it
    /// shows from).
    public var mediaDataChanges: AsyncStream<RenderedFrame> { changes.subscribe() }

    func attach(to item: PlayerItem) {
        let id = item.chase.addListener { [weak self] frame, _ in self?.changes.yield(frame) }
        let old = state.withLock { s -> (PlayerItem?, Int?) in
            defer { s.item = item; s.listener = id; s.taken.removeAll() }
            return (s.item, s.listener)
        }
        if let oldItem = old.0, let oldID = old.1 { oldItem.chase.removeListener(oldID) }
    }

    func detach() {
        let old = state.withLock { s -> (PlayerItem?, Int?) in
            defer { s.item = nil; s.listener = nil }
            return (s.item, s.listener)
        }
        if let oldItem = old.0, let oldID = old.1 { oldItem.chase.removeListener(oldID) }
    }
}
