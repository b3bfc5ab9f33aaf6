import Foundation
import ReelCore

/// A bounded first-in first-out hand-off from one producer thread to one consumer, with
/// back-pressure: the producer blocks (on its own thread, never the cooperative pool)
/// while `capacity` items wait; the consumer waits either by blocking (`nextBlocking`)
/// or by suspending (`next`).
///
/// The producer ends the queue with `finish(error:)`; the consumer ends it early with
/// `cancel()`, which wakes and stops the producer.
final class SampleQueue<Element: Sendable>: @unchecked Sendable {
    // @unchecked: every stored var is read and written only while `condition` is locked.
    private let condition = NSCondition()
    /// Slots before `head` are taken (nil), so a taken item is not kept alive.
    private var items: [Element?] = []
    private var head = 0
    private var finished = false
    private var failure: ReelError?
    private var cancelled = false
    private var waiter: CheckedContinuation<Void, Never>?
    let capacity: Int

    init(capacity: Int) {
        precondition(capacity > 0, "a queue needs room for one item")
        self.capacity = capacity
    }

    private var count: Int { items.count - head }

    /// Adds an item, blocking while the queue is full. False when the consumer cancelled
    /// (the producer should stop).
    func push(_ item: Element) -> Bool {
        condition.lock()
        while count >= capacity && !cancelled { condition.wait() }
        if cancelled {
            condition.unlock()
            return false
        }
        items.append(item)
        let resume = waiter
        waiter = nil
        condition.broadcast()
        condition.unlock()
        resume?.resume()
        return true
    }

    /// Ends the queue: after the waiting items the consumer gets `error`, or the end.
    func finish(error: ReelError? = nil) {
        condition.lock()
        if !finished {
            finished = true
            failure = error
        }
        let resume = waiter
        waiter = nil
        condition.broadcast()
        condition.unlock()
        resume?.resume()
    }

    /// The consumer gives up: the producer's next `push` returns false, waiting items go.
    func cancel() {
        condition.lock()
        cancelled = true
        items.removeAll()
        head = 0
        let resume = waiter
        waiter = nil
        condition.broadcast()
        condition.unlock()
        resume?.resume()
    }

    var isCancelled: Bool {
        condition.lock()
        defer { condition.unlock() }
        return cancelled
    }

    /// Takes an item if one is there; `.end` when finished, `.wait` when the caller must wait.
    private enum Poll { case item(Element), end, failed(ReelError), wait }

    /// Must be called with the lock held.
    private func pollLocked() -> Poll {
        if count > 0 {
            guard let item = items[head] else { preconditionFailure("queue slot taken twice") }
            items[head] = nil
            head += 1
            if head >= 16 && head * 2 >= items.count {
                items.removeFirst(head)
                head = 0
            }
            condition.broadcast()
            return .item(item)
        }
        if cancelled { return .failed(ReelError(.cancelled, "reading was cancelled")) }
        if finished {
            if let failure { return .failed(failure) }
            return .end
        }
        return .wait
    }

    private func poll() -> Poll {
        condition.lock()
        defer { condition.unlock() }
        return pollLocked()
    }

    /// Parks the async consumer, unless there is something to see already.
    private func install(_ continuation: CheckedContinuation<Void, Never>) {
        condition.lock()
        if count > 0 || finished || cancelled || Task.isCancelled {
            condition.unlock()
            continuation.resume()
        } else {
            waiter = continuation
            condition.unlock()
        }
    }

    private func wakeWaiter() {
        condition.lock()
        let resume = waiter
        waiter = nil
        condition.unlock()
        resume?.resume()
    }

    /// The next item, blocking the calling thread while none is ready; nil at the end.
    func nextBlocking() throws(ReelError) -> Element? {
        condition.lock()
        defer { condition.unlock() }
        while true {
            switch pollLocked() {
            case .item(let item): return item
            case .end: return nil
            case .failed(let error): throw error
            case .wait: condition.wait()
            }
        }
    }

    /// The next item, suspending while none is ready; nil at the end. Task cancellation
    /// cancels the queue.
    func next(isolation actor: isolated (any Actor)? = #isolation) async throws(ReelError) -> Element? {
        while true {
            switch poll() {
            case .item(let item): return item
            case .end: return nil
            case .failed(let error): throw error
            case .wait: break
            }
            if Task.isCancelled {
                cancel()
                throw ReelError(.cancelled, "the reading task was cancelled")
            }
            await withTaskCancellationHandler {
                await withCheckedContinuation(isolation: actor) { (continuation: CheckedContinuation<Void, Never>) in
                    install(continuation)
                }
            } onCancel: {
                wakeWaiter()
            }
        }
    }
}
