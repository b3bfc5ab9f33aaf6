/// Hands each value to every subscriber's `AsyncStream`, in the order given: the status
/// and event sequences of players and items (what AVFoundation does with KVO and
/// notifications). A subscriber that stops iterating is dropped.
///
/// With a current value (a status), a new subscriber gets it first, and no change is lost
/// or doubled between the two: the value is kept and handed out under the same lock
/// (yielding to a stream only buffers the value or schedules its reader; it runs no code).
final class Broadcast<Element: Sendable>: Sendable {
    private struct State {
        var subscribers: [Int: AsyncStream<Element>.Continuation] = [:]
        var nextID = 0
        var finished = false
        var current: Element?
    }

    private let state: Lock<State>

    /// A broadcast of events, or of a value with `current` as its first value.
    init(current: Element? = nil) {
        state = Lock(State(current: current))
    }

    /// A new stream: the current value, if kept, then the values yielded from now on.
    func subscribe() -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream.makeStream(of: Element.self)
        let id: Int? = state.withLock { s in
            if let current = s.current { continuation.yield(current) }
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

    /// Gives `value` to every subscriber, and keeps it as the current value if there is one.
    func yield(_ value: Element) {
        state.withLock { s in
            if s.current != nil { s.current = value }
            for subscriber in s.subscribers.values { subscriber.yield(value) }
        }
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
