import ReelCore

/// The loading state of every property of one ``Asset``: a plain state machine, kept
/// behind the asset's lock. Each transition returns what the caller must do once the
/// lock is released (start work, resume waiters), so no continuation is ever resumed
/// while the lock is held.
struct AssetLoadingState {
    typealias Continuation = CheckedContinuation<Result<any Sendable, ReelError>, Never>

    enum Entry {
        /// Work for `generation` is running; `waiters` await its result.
        case loading(generation: UInt64, waiters: [UInt64: Continuation])
        case loaded(any Sendable)
        case failed(ReelError)
        /// ``Asset/cancelLoading()`` abandoned the load; the next load starts again.
        case cancelled
    }

    private(set) var entries: [String: Entry] = [:]
    private var nextWaiterID: UInt64 = 0
    private var nextGeneration: UInt64 = 0
    /// Waiters whose task was cancelled before they registered.
    private var cancelledWaiters: Set<UInt64> = []

    /// What a waiter that just registered must do.
    enum RegisterAction {
        /// Resume at once with this result.
        case resume(Result<any Sendable, ReelError>)
        /// Wait; work is already running.
        case wait
        /// Wait, and start the work for this generation.
        case startWork(generation: UInt64)
    }

    mutating func makeWaiterID() -> UInt64 {
        nextWaiterID += 1
        return nextWaiterID
    }

    mutating func register(key: String, waiter id: UInt64, continuation: Continuation) -> RegisterAction {
        if cancelledWaiters.remove(id) != nil {
            return .resume(.failure(Self.cancelledError(key)))
        }
        switch entries[key] {
        case .loaded(let value):
            return .resume(.success(value))
        case .failed(let error):
            return .resume(.failure(error))
        case .loading(let generation, var waiters):
            waiters[id] = continuation
            entries[key] = .loading(generation: generation, waiters: waiters)
            return .wait
        case .cancelled, nil:
            nextGeneration += 1
            entries[key] = .loading(generation: nextGeneration, waiters: [id: continuation])
            return .startWork(generation: nextGeneration)
        }
    }

    /// Marks a key as failed without running work (an unknown key).
    mutating func fail(key: String, error: ReelError) {
        if entries[key] == nil { entries[key] = .failed(error) }
    }

    /// Whether the work for `generation` of `key` is still wanted.
    func isCurrent(key: String, generation: UInt64) -> Bool {
        if case .loading(let g, _) = entries[key] { return g == generation }
        return false
    }

    /// Stores the result of the work and hands back the waiters to resume. A result for a
    /// load that was cancelled meanwhile is dropped.
    mutating func finish(key: String, generation: UInt64, result: Result<any Sendable, ReelError>) -> [Continuation] {
        guard case .loading(let g, let waiters) = entries[key], g == generation else { return [] }
        switch result {
        case .success(let value): entries[key] = .loaded(value)
        case .failure(let error): entries[key] = .failed(error)
        }
        return Array(waiters.values)
    }

    /// Removes one waiter whose task was cancelled, handing back its continuation. The
    /// work goes on and still fills the cache for later loads.
    mutating func cancelWaiter(_ id: UInt64) -> Continuation? {
        for (key, entry) in entries {
            guard case .loading(let generation, var waiters) = entry, let continuation = waiters.removeValue(forKey: id)
            else { continue }
            entries[key] = .loading(generation: generation, waiters: waiters)
            return continuation
        }
        cancelledWaiters.insert(id)
        return nil
    }

    /// Forgets a waiter that has finished, whatever happened to it.
    mutating func forget(_ id: UInt64) {
        cancelledWaiters.remove(id)
    }

    /// Abandons every running load; hands back all their waiters.
    mutating func cancelAll() -> [(key: String, continuation: Continuation)] {
        var resumed: [(key: String, continuation: Continuation)] = []
        for (key, entry) in entries {
            guard case .loading(_, let waiters) = entry else { continue }
            entries[key] = .cancelled
            resumed += waiters.values.map { (key, $0) }
        }
        return resumed
    }

    /// How many tasks await `key`.
    func waiterCount(key: String) -> Int {
        if case .loading(_, let waiters) = entries[key] { return waiters.count }
        return 0
    }

    static func cancelledError(_ key: String) -> ReelError {
        ReelError(.cancelled, "loading \(key) was cancelled")
    }
}
