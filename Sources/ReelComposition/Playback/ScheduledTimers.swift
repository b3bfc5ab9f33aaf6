/// Timers on a clock that moves only when told to: the engine of ReelTesting's
/// `ManualClock` and of ``SoundClock``. ``advance(to:)`` runs every timer due by then, in
/// deadline order (first scheduled first among equals), with ``now`` set to each deadline
/// while it runs; timers scheduled meanwhile run too if they fall due. Timers run on the
/// thread that advances, after the lock is released.
package final class ScheduledTimers: Sendable {
    private struct State {
        var now: MediaTime
        var timers: [(id: Int, deadline: MediaTime, action: @Sendable () -> Void)] = []
        var nextID = 0
    }

    private let state: Lock<State>

    package init(now: MediaTime) { state = Lock(State(now: now)) }

    package var now: MediaTime { state.withLock { $0.now } }

    package var pendingCount: Int { state.withLock { $0.timers.count } }

    package var nextDeadline: MediaTime? { state.withLock { $0.timers.map(\.deadline).min() } }

    package func schedule(at deadline: MediaTime, _ action: @escaping @Sendable () -> Void) -> PlayerClockTimer {
        let id = state.withLock { s in
            defer { s.nextID += 1 }
            s.timers.append((s.nextID, deadline, action))
            return s.nextID
        }
        return PlayerClockTimer { [weak self] in
            self?.state.withLock { $0.timers.removeAll { $0.id == id } }
        }
    }

    /// Moves the time to `target` (never back), running the timers due on the way.
    package func advance(to target: MediaTime) {
        while true {
            let due = state.withLock { s -> (@Sendable () -> Void)? in
                let ready = s.timers.enumerated().filter { $0.element.deadline <= target }
                guard let first = ready.min(by: { ($0.element.deadline, $0.element.id) < ($1.element.deadline, $1.element.id) }) else {
                    if s.now < target { s.now = target }
                    return nil
                }
                s.timers.remove(at: first.offset)
                if s.now < first.element.deadline { s.now = first.element.deadline }
                return first.element.action
            }
            guard let due else { return }
            due()
        }
    }
}
