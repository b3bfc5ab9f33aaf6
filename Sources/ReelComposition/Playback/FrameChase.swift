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
    typealias Outcome = Result<RenderedFrame, ReelError>?

    /// A wait for a target's frame: answered before or after someone waits on it.
    private enum Ticket {
        case waiting(Waiter?)
        case answered(Outcome)
    }

    struct Target {
        var time: MediaTime
        var generation: Int
        var scale: Double
        /// A seek's frame, shown alone first (``FrameRenderer/frame(at:renderScale:isSeek:)``).
        var isSeek = false
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
        var waiters: [(id: Int, target: Target)] = []
        var tickets: [Int: Ticket] = [:]
        var nextWaiterID = 0
        var running = false
        /// Called with each rendered frame, after the lock is released.
        var listeners: [Int: @Sendable (RenderedFrame, Int) -> Void] = [:]
        var nextListenerID = 0
        /// Called with a render's error (not a cancellation), after the lock is released.
        var onFailure: (@Sendable (ReelError) -> Void)?
    }

    private let state: Lock<State>

    init(capacity: Int = 16) {
        state = Lock(State(capacity: max(1, capacity)))
    }

    /// Answers tickets `ids` with `outcome`; returns the waiters to resume.
    private static func answer(_ s: inout State, _ ids: [Int], _ outcome: Outcome) -> [(Waiter, Outcome)] {
        var resume: [(Waiter, Outcome)] = []
        for id in ids {
            s.waiters.removeAll { $0.id == id }
            switch s.tickets[id] {
            case .waiting(let w?):
                s.tickets[id] = nil
                resume.append((w, outcome))
            case .waiting(nil):
                s.tickets[id] = .answered(outcome)
            default: break
            }
        }
        return resume
    }

    private static func resume(_ list: [(Waiter, Outcome)]) {
        for (w, o) in list { w.resume(returning: o) }
    }

    // MARK: Configuration

    func setRenderer(_ renderer: FrameRenderer?, scale: Double) {
        let dropped = state.withLock { s -> [(Waiter, Outcome)] in
            s.renderer = renderer
            s.scale = scale
            s.generation += 1
            s.cache.removeAll()
            s.queued = nil
            return Self.answer(&s, s.waiters.map(\.id), nil)
        }
        Self.resume(dropped)
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

    /// Calls `handler` with each render that fails (not one that is cancelled).
    func setFailureHandler(_ handler: @escaping @Sendable (ReelError) -> Void) {
        state.withLock { $0.onFailure = handler }
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

    /// Makes `time` the newest target and returns a ticket for its frame (see
    /// ``wait(_:)``): answered from the cache at once, with the frame once rendered, or with
    /// nil when a newer target replaced this one first. Synchronous, so targets keep the
    /// order of the calls. `isSeek`: the frame is a seek's.
    func enqueueTicket(_ time: MediaTime, isSeek: Bool = false) -> Int {
        let (id, dropped, start) = state.withLock { s -> (Int, [(Waiter, Outcome)], Bool) in
            let id = s.nextWaiterID
            s.nextWaiterID += 1
            if let e = s.cache.last(where: { $0.generation == s.generation && Self.holds($0.frame, time) }) {
                s.tickets[id] = .answered(.success(e.frame))
                return (id, [], false)
            }
            // Waiters of the queued target it replaces are superseded.
            let replaced = s.queued.map { q in s.waiters.filter { $0.target.time == q.time && $0.target.generation == q.generation }.map(\.id) } ?? []
            let dropped = Self.answer(&s, replaced, nil)
            let start = enqueue(&s, time, isSeek: isSeek)
            s.waiters.append((id, Target(time: time, generation: s.generation, scale: s.scale)))
            s.tickets[id] = .waiting(nil)
            return (id, dropped, start)
        }
        Self.resume(dropped)
        if start { run() }
        return id
    }

    /// The answer to a ticket from ``enqueueTicket(_:)``.
    func wait(_ ticket: Int) async -> Outcome {
        await withCheckedContinuation { (continuation: Waiter) in
            let ready = state.withLock { s -> Outcome? in
                switch s.tickets[ticket] {
                case .answered(let outcome):
                    s.tickets[ticket] = nil
                    return .some(outcome)
                case .waiting:
                    s.tickets[ticket] = .waiting(continuation)
                    return .none
                case nil:
                    return .some(nil)
                }
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    /// The frame holding `time`, as the newest target (``enqueueTicket(_:)`` and ``wait(_:)``).
    func show(_ time: MediaTime) async -> Outcome {
        await wait(enqueueTicket(time))
    }

    /// Cancels the render in flight: its waiters get nil, and the frame renderer asks the
    /// compositor to cancel what it holds before the loop starts the next render.
    func cancelInFlight() {
        let (task, dropped) = state.withLock { s -> (Task<Result<RenderedFrame, ReelError>, Never>?, [(Waiter, Outcome)]) in
            guard let flight = s.inFlight else { return (nil, []) }
            s.inFlight?.cancelled = true
            let gone = s.waiters.filter { $0.target.time == flight.target.time && $0.target.generation == flight.target.generation }
            return (flight.task, Self.answer(&s, gone.map(\.id), nil))
        }
        task?.cancel()
        Self.resume(dropped)
    }

    /// Queues `time` as the newest target; true when no render loop runs (the caller starts one).
    /// A target already rendering (and not cancelled) is not queued again: it replaces the
    /// queued one, as being the newest.
    private func enqueue(_ s: inout State, _ time: MediaTime, isSeek: Bool = false) -> Bool {
        if let flight = s.inFlight, !flight.cancelled, flight.target.time == time, flight.target.generation == s.generation, flight.target.scale == s.scale {
            s.queued = nil
            return false
        }
        s.queued = Target(time: time, generation: s.generation, scale: s.scale, isSeek: isSeek)
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
                        return .success(try await renderer.frame(at: target.time, renderScale: target.scale, isSeek: target.isSeek))
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
        let (onFailure, current) = state.withLock { ($0.onFailure, $0.generation) }
        if case .failure(let error) = result, error.code != .cancelled, target.generation == current { onFailure?(error) }
        let (waiters, listeners, generation) = state.withLock { s -> ([(Waiter, Outcome)], [@Sendable (RenderedFrame, Int) -> Void], Int) in
            s.inFlight = nil
            var matching: [(id: Int, target: Target)] = []
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
            let fresh = target.generation == s.generation
            return (Self.answer(&s, matching.map(\.id), result), fresh ? Array(s.listeners.values) : [], target.generation)
        }
        if case .success(let frame) = result {
            for l in listeners { l(frame, generation) }
        }
        Self.resume(waiters)
    }
}
