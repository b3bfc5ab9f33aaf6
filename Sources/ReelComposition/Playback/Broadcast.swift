/// Hands each value to every subscriber's `AsyncStream`, in the order given: the status
/// and event sequences of players and items (what AVFoundation does with KVO and
/// notifications). A subscriber that stops iterating is dropped.
final class Broadcast<Element: Sendable>: Sendable {
    private struct State {
        var subscribers: [Int: AsyncStream<Element>.Continuation] = [:]
        var nextID = 0
        var finished = false
    }

    private let state = Lock(State())

    /// A new stream of the values yielded from now on, starting with `initial` when given.
    func subscribe(initial: Element? = nil) -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream.makeStream(of: Element.self)
        if let initial { continuation.yield(initial) }
        let id: Int? = state.withLock { s in
            guard !s.finished else { return nil }
            defer { s.nextID += 1 }
            s.subscribers[s.nextID] = continuation
            return s.nextID
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) }
        }
        return stream
    }

    /// Gives `value` to every subscriber (after the lock is released).
    func yield(_ value: Element) {
        let subscribers = state.withLock { Array($0.subscribers.values) }
        for subscriber in subscribers { subscriber.yield(value) }
    }

    /// Ends every stream.
    func finish() {
        let subscribers = state.withLock { s in
            s.finished = true
            defer { s.subscribers.removeAll() }
            return Array(s.subscribers.values)
        }
        for subscriber in subscribers { subscriber.finish() }
    }

    deinit {
        for subscriber in state.withLock({ Array($0.subscribers.values) }) { subscriber.finish() }
    }
}
