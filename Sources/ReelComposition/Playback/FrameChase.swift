/// The frames of one player item: renders the frame at the newest target through a
/// ``FrameRenderer``, one render at a time, and keeps a small cache of rendered frames.
///
/// While one target renders, later targets replace the queued one: only the newest is
/// rendered next (the "chase" Apple's QA1820 asks every app to write). A seek cancels the
/// render in flight (its task, and the compositor's pending requests) so that the next
/// request is for the seek's target. Waiters for a target that was replaced get nil.
///
/// State machine behind a lock; waiters are resumed, and renders started, after the lock
/// is released.
final class FrameChase: Sendable {
    typealias Waiter = CheckedContinuation<Result<RenderedFrame, ReelError>?, Never>

    struct Target {
        var time: MediaTime
        var generation: Int
        var scale: Double
    }

    private struct Entry {
        var frame: RenderedFrame
        var generation: Int
        var scale: Double
    }

    private struct State {
        var renderer: FrameRenderer?
        var scale: Double = 1
        /// Bumped when rendered frames no longer hold (invalidation, a new scale).
        var generation = 0
        var cache: [Entry] = []
        var capacity: Int
        var inFlight: (target: Target, task: Task<Result<RenderedFrame, ReelError>, Never>?, cancelled: Bool)?
        var queued: Target?
        var waiters: [(id: Int, target: Target, waiter: Waiter)] = []
        var nextWaiterID = 0
        var running = false
        /// Called with each rendered frame, after the lock is released.
        var listeners: [Int: @Sendable (RenderedFrame, Int) -> Void] = [:]
        var nextListenerID = 0
    }

    private let state: Lock<State>

    init(capacity: Int = 16) {
        state = Lock(State(capacity: max(1, capacity)))
    }

    // MARK: Configuration

    func setRenderer(_ renderer: FrameRenderer?, scale: Double) {
        let dropped = state.withLock { s -> [Waiter] in
            s.renderer = renderer
            s.scale = scale
            s.generation += 1
            s.cache.removeAll()
            s.queued = nil
            let waiting = s.waiters.map(\.waiter)
            s.waiters.removeAll()
            return waiting
        }
        for w in dropped { w.resume(returning: nil) }
    }

    var renderer: FrameRenderer? { state.withLock { $0.renderer } }
    var scale: Double { state.withLock { $0.scale } }
    var generation: Int { state.withLock { $0.generation } }

    /// Forgets every rendered frame (the next ones are rendered again); with `scale`, the
    /// frames after it are rendered at that scale.
    func invalidate(scale: Double? = nil) {
        state.withLock { s in
            s.generation += 1
            if let scale { s.scale = scale }
            s.cache.removeAll()
        }
    }

    /// Calls `listener` with each frame rendered from now on, and its generation.
    @discardableResult
    func addListener(_ listener: @escaping @Sendable (RenderedFrame, Int) -> Void) -> Int {
        state.withLock { s in
            defer { s.nextListenerID += 1 }
            s.listeners[s.nextListenerID] = listener
            return s.nextListenerID
        }
    }

    func removeListener(_ id: Int) {
        _ = state.withLock { $0.listeners.removeValue(forKey: id) }
    }

    // MARK: Frames

    /// The cached frame of the current generation holding `time`, if any.
    func cachedFrame(at time: MediaTime) -> (frame: RenderedFrame, generation: Int)? {
        state.withLock { s in
            guard let e = s.cache.last(where: { $0.generation == s.generation && Self.holds($0.frame, time) }) else { return nil }
            return (e.frame, e.generation)
        }
    }

    private static func holds(_ frame: RenderedFrame, _ time: MediaTime) -> Bool {
        frame.time <= time && time < frame.time + frame.duration
    }

    /// Asks for the frame holding `time` without waiting for it.
    func request(_ time: MediaTime) {
        let (cached, start) = state.withLock { s -> (Bool, Bool) in
            if s.cache.contains(where: { $0.generation == s.generation && Self.holds($0.frame, time) }) { return (true, false) }
            return (false, enqueue(&s, time))
        }
        if !cached, start { run() }
    }

    /// The frame holding `time`: from the cache, or rendered as the newest target. Nil when
    /// a newer target replaced this one before it was rendered (or the renderer changed).
    func show(_ time: MediaTime) async -> Result<RenderedFrame, ReelError>? {
        await withCheckedContinuation { (continuation: Waiter) in
            enum Action { case ready(RenderedFrame), dropped([Waiter], start: Bool), none }
            let action = state.withLock { s -> Action in
                if let e = s.cache.last(where: { $0.generation == s.generation && Self.holds($0.frame, time) }) {
                    return .ready(e.frame)
                }
                // Waiters of the queued target it replaces are superseded.
                let replaced = s.queued.map { q in s.waiters.filter { $0.target.time == q.time && $0.target.generation == q.generation } } ?? []
                s.waiters.removeAll { w in replaced.contains { $0.id == w.id } }
                let start = enqueue(&s, time)
                let target = Target(time: time, generation: s.generation, scale: s.scale)
                s.waiters.append((s.nextWaiterID, target, continuation))
                s.nextWaiterID += 1
                return .dropped(replaced.map(\.waiter), start: start)
            }
            switch action {
            case .ready(let frame): continuation.resume(returning: .success(frame))
            case .dropped(let replaced, let start):
                for w in replaced { w.resume(returning: nil) }
                if start { run() }
            case .none: break
            }
        }
    }

    /// Cancels the render in flight unless it is for `keeping`'s frame: its waiters get nil,
    /// and the compositor is asked to cancel what it holds.
    func cancelInFlight() {
        let (task, dropped) = state.withLock { s -> (Task<Result<RenderedFrame, ReelError>, Never>?, [Waiter]) in
            guard let flight = s.inFlight else { return (nil, []) }
            s.inFlight?.cancelled = true
            let gone = s.waiters.filter { $0.target.time == flight.target.time && $0.target.generation == flight.target.generation }
            s.waiters.removeAll { w in gone.contains { $0.id == w.id } }
            return (flight.task, gone.map(\.waiter))
        }
        task?.cancel()
        for w in dropped { w.resume(returning: nil) }
    }

    /// Queues `time` as the newest target; true when no render loop runs (the caller starts one).
    private func enqueue(_ s: inout State, _ time: MediaTime) -> Bool {
        s.queued = Target(time: time, generation: s.generation, scale: s.scale)
        guard !s.running, s.renderer != nil else { return false }
        s.running = true
        return true
    }

    /// The render loop: renders the queued target until none is left.
    private func run() {
        Task { [self] in
            while let (target, renderer) = takeQueued() {
                let task = Task { () -> Result<RenderedFrame, ReelError> in
                    do throws(ReelError) {
                        return .success(try await renderer.frame(at: target.time, renderScale: target.scale))
                    } catch {
                        return .failure(error)
                    }
                }
                // A cancel that came before the task existed is passed on now.
                let cancelNow = state.withLock { s -> Bool in
                    s.inFlight?.task = task
                    return s.inFlight?.cancelled ?? false
                }
                if cancelNow { task.cancel() }
                let result = await task.value
                finish(target, result)
            }
        }
    }

    private func takeQueued() -> (Target, FrameRenderer)? {
        state.withLock { s in
            guard let next = s.queued, let renderer = s.renderer else {
                s.running = false
                s.inFlight = nil
                return nil
            }
            s.queued = nil
            s.inFlight = (next, nil, false)
            return (next, renderer)
        }
    }

    private func finish(_ target: Target, _ result: Result<RenderedFrame, ReelError>) {
        let (waiters, listeners, generation) = state.withLock { s -> ([Waiter], [@Sendable (RenderedFrame, Int) -> Void], Int) in
            s.inFlight = nil
            var matching: [(id: Int, target: Target, waiter: Waiter)] = []
            switch result {
            case .failure(let error) where error.code != .cancelled:
                matching = s.waiters.filter { $0.target.time == target.time && $0.target.generation == target.generation }
            case .failure:
                // A render cancelled by a seek had its waiters answered then; any left wait
                // for the same time queued again. A compositor that cancelled by itself
                // answers its waiters with the cancellation.
                let requeued = s.queued.map { $0.time == target.time && $0.generation == target.generation } ?? false
                if !requeued { matching = s.waiters.filter { $0.target.time == target.time && $0.target.generation == target.generation } }
            case .success(let frame):
                // Waiters for any time the frame holds are served too.
                matching = s.waiters.filter { $0.target.generation == target.generation && Self.holds(frame, $0.target.time) }
                if target.generation == s.generation {
                    s.cache.removeAll { $0.frame.time == frame.time }
                    s.cache.append(Entry(frame: frame, generation: target.generation, scale: target.scale))
                    if s.cache.count > s.capacity { s.cache.removeFirst(s.cache.count - s.capacity) }
                }
            }
            s.waiters.removeAll { w in matching.contains { $0.id == w.id } }
            let fresh = target.generation == s.generation
            return (matching.map(\.waiter), fresh ? Array(s.listeners.values) : [], target.generation)
        }
        if case .success(let frame) = result {
            for l in listeners { l(frame, generation) }
        }
        for w in waiters { w.resume(returning: result) }
    }
}
