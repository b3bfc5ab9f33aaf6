/// Bounds how long the harness waits for a compositor that may hang: the only use of time
/// in ReelTesting. It never decides a result for code that behaves; it only turns a hang
/// (a request held forever, a cancel that never returns) into a failure instead of a test
/// run that never ends.
enum Watchdog {
    /// Runs `operation` in a task of its own; true when it returned within `limit`, false
    /// otherwise (the operation is then left running: it may never return).
    static func run(limit: Duration?, _ operation: @escaping @Sendable () async -> Void) async -> Bool {
        let once = Once<Bool>()
        return await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            once.set(continuation)
            let timer: Task<Void, Never>? = limit.map { limit in
                Task {
                    try? await Task.sleep(for: limit)
                    if !Task.isCancelled { once.resume(false) }
                }
            }
            Task {
                await operation()
                timer?.cancel()
                once.resume(true)
            }
        }
    }
}

/// A continuation resumed by whichever of several racers comes first.
final class Once<Value: Sendable>: Sendable {
    // The continuation and whether it was used live behind the mutex.
    private let state = Lock<(continuation: CheckedContinuation<Value, Never>?, done: Bool)>((nil, false))

    func set(_ continuation: CheckedContinuation<Value, Never>) {
        state.withLock { $0.continuation = continuation }
    }

    func resume(_ value: Value) {
        let continuation = state.withLock { s -> CheckedContinuation<Value, Never>? in
            guard !s.done else { return nil }
            s.done = true
            defer { s.continuation = nil }
            return s.continuation
        }
        continuation?.resume(returning: value)
    }
}
