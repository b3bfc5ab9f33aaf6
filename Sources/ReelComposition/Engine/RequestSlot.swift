/// The engine's side of one output frame in flight: resolved once, by the request's finish,
/// by a timeout, or by cancellation; the render waits on it in time order.
///
/// State machine behind a lock; the waiter is resumed after the lock is released.
final class RequestSlot: Sendable {
    typealias Result = Swift.Result<PixelBuffer, ReelError>

    private enum State {
        case pending(waiter: CheckedContinuation<Result, Never>?, timeout: Task<Void, Never>?)
        case resolved(Result)
    }

    let time: MediaTime
    private let state = Lock<State>(.pending(waiter: nil, timeout: nil))

    init(time: MediaTime) { self.time = time }

    /// Resolves the slot; false when it was already resolved (the value is dropped).
    @discardableResult
    func resolve(_ result: Result) -> Bool {
        let action: (CheckedContinuation<Result, Never>?, Task<Void, Never>?)? = state.withLock { s in
            guard case .pending(let waiter, let timeout) = s else { return nil }
            s = .resolved(result)
            return (waiter, timeout)
        }
        guard let (waiter, timeout) = action else { return false }
        timeout?.cancel()
        waiter?.resume(returning: result)
        return true
    }

    var isResolved: Bool {
        state.withLock { if case .resolved = $0 { true } else { false } }
    }

    /// Fails the slot with `error` unless it resolves within `duration`.
    func startTimeout(_ duration: Duration, error: ReelError) {
        let task = Task { [weak self] in
            do { try await Task.sleep(for: duration) } catch { return }
            self?.resolve(.failure(error))
        }
        let keep = state.withLock { s -> Bool in
            guard case .pending(let waiter, nil) = s else { return false }
            s = .pending(waiter: waiter, timeout: task)
            return true
        }
        if !keep { task.cancel() }
    }

    /// Waits for the result.
    func wait() async -> Result {
        await withCheckedContinuation { (continuation: CheckedContinuation<Result, Never>) in
            let ready: Result? = state.withLock { s in
                switch s {
                case .resolved(let r): return r
                case .pending(_, let timeout):
                    s = .pending(waiter: continuation, timeout: timeout)
                    return nil
                }
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }
}
