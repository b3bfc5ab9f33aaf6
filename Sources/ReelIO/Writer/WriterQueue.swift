import Foundation
import ReelCore

/// A bounded hand-off from async producers (the writer's `append` calls) to the one
/// writer thread: `send` suspends while `capacity` items wait, `take` blocks the writer
/// thread until there is work.
///
/// `close(error:)` ends it: waiting and later senders get the error.
final class WriterQueue<Element: Sendable>: @unchecked Sendable {
    // @unchecked: every stored var is read and written only while `condition` is locked.
    private let condition = NSCondition()
    /// Slots before `head` are taken (nil), so a taken item is not kept alive.
    private var items: [Element?] = []
    private var head = 0
    private var senders: [CheckedContinuation<Void, Never>] = []
    private var closedError: ReelError?
    private var closed = false
    let capacity: Int

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    private var count: Int { items.count - head }

    /// Adds an item, suspending while the queue is full; throws once the queue is closed.
    func send(_ item: Element) async throws(ReelError) {
        while true {
            switch trySend(item) {
            case .sent: return
            case .closed(let error): throw error
            case .full:
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    parkSender(continuation)
                }
            }
        }
    }

    /// Adds an item now, whatever the queue holds (control messages: finish, cancel).
    func sendNow(_ item: Element) throws(ReelError) {
        condition.lock()
        defer { condition.unlock() }
        if closed { throw closedError ?? ReelError(.writerState, "the writer has stopped") }
        items.append(item)
        condition.broadcast()
    }

    private enum SendResult { case sent, full, closed(ReelError) }

    private func trySend(_ item: Element) -> SendResult {
        condition.lock()
        defer { condition.unlock() }
        if closed { return .closed(closedError ?? ReelError(.writerState, "the writer has stopped")) }
        guard count < capacity else { return .full }
        items.append(item)
        condition.broadcast()
        return .sent
    }

    private func parkSender(_ continuation: CheckedContinuation<Void, Never>) {
        condition.lock()
        if closed || count < capacity {
            condition.unlock()
            continuation.resume()
        } else {
            senders.append(continuation)
            condition.unlock()
        }
    }

    /// The next item, blocking the writer thread until one comes; nil once closed.
    func take() -> Element? {
        condition.lock()
        while count == 0 && !closed { condition.wait() }
        guard count > 0 else {
            condition.unlock()
            return nil
        }
        guard let item = items[head] else { preconditionFailure("queue slot taken twice") }
        items[head] = nil
        head += 1
        if head >= 16 && head * 2 >= items.count {
            items.removeFirst(head)
            head = 0
        }
        let woken = senders
        senders.removeAll()
        condition.unlock()
        for s in woken { s.resume() }
        return item
    }

    /// Stops the queue: senders get `error`; the items still waiting are returned.
    @discardableResult
    func close(error: ReelError) -> [Element] {
        condition.lock()
        if !closed {
            closed = true
            closedError = error
        }
        let dropped = items[head...].compactMap { $0 }
        items.removeAll()
        head = 0
        let woken = senders
        senders.removeAll()
        condition.broadcast()
        condition.unlock()
        for s in woken { s.resume() }
        return dropped
    }

    /// Whether a `send` would go through without waiting.
    var hasRoom: Bool {
        condition.lock()
        defer { condition.unlock() }
        return !closed && count < capacity
    }
}
