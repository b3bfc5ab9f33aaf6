/// A first-come first-served async mutex: `enter` suspends while another caller holds the
/// gate. Used by actors whose work suspends part-way (an actor alone is re-entrant).
package final class AsyncGate: Sendable {
    private struct State {
        var held = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }
    private let state = Lock(State())

    package init() {}

    package func enter() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let enterNow = state.withLock { s -> Bool in
                if s.held {
                    s.waiters.append(continuation)
                    return false
                }
                s.held = true
                return true
            }
            if enterNow { continuation.resume() }
        }
    }

    package func leave() {
        let next = state.withLock { s -> CheckedContinuation<Void, Never>? in
            if s.waiters.isEmpty {
                s.held = false
                return nil
            }
            return s.waiters.removeFirst()
        }
        // The gate stays held: ownership passes to the next waiter.
        next?.resume()
    }
}
