/// A bounded first-in first-out queue between producers and consumers, each of which
/// waits either by suspending (async code) or by blocking (code on a thread of its own,
/// never the cooperative pool):
///
/// - ``send(_:isolation:)`` suspends and ``sendBlocking(_:)`` blocks while `capacity`
///   items wait; ``next(isolation:)`` suspends and ``nextBlocking()`` blocks while none
///   does. Items come out in the order they went in.
/// - ``finish(error:)`` is the producers' end: consumers still get the waiting items,
///   then `nil`, or `error` when one was given; later sends throw.
/// - ``cancel(error:)`` stops both ends at once: the waiting items are dropped (and
///   returned), and every send and every next, waiting or later, throws `error`.
/// - A task cancelled while it waits at either end cancels the queue (the other end is
///   then not left waiting forever) and throws a `.cancelled` error.
///
/// Every state change wakes every waiter that it may concern, and a waiter checks the
/// state again under the lock before it sleeps, so no wake-up is lost.
package final class BoundedQueue<Element: Sendable>: Sendable {
    package let capacity: Int
    /// Whether items are made only when a consumer waits for one (a capacity of 0).
    package let makesOnDemand: Bool
    private let state: Lock<State>

    /// A queue holding at most `capacity` items (at least one). A capacity of 0 holds one
    /// item, made on demand: ``waitForRoomBlocking()`` waits for a consumer asking for one.
    ///
    /// With `startingCapacity`, it holds at most that many (at least one) until its
    /// consumer has taken two more than that, then one more for each item taken, up to
    /// `capacity`: a producer works ahead only as far as the consumer shows it reads on (a
    /// reader after a seek, whose consumer may want one frame and then seek again).
    package init(capacity: Int, startingCapacity: Int? = nil) {
        self.capacity = max(1, capacity)
        makesOnDemand = capacity < 1
        state = Lock(State(capacity: max(1, capacity), startingCapacity: startingCapacity.map { min(max(1, $0), max(1, capacity)) }))
    }

    // MARK: Producers

    /// Adds `item`, suspending while the queue is full; with `untilTaken`, also until a
    /// consumer has taken it (a hand-off: the sender then makes its next item while the
    /// consumer works on this one, and no item waits made in between). Throws once the
    /// queue is finished or cancelled.
    package func send(_ item: Element, untilTaken: Bool = false, isolation actor: isolated (any Actor)? = #isolation) async throws(ReelError) {
        while true {
            switch state.withLock({ $0.offer(item) }) {
            case .accepted(let woken, let number):
                Self.resume(woken)
                guard untilTaken else { return }
                while state.withLock({ !$0.hasTaken(number) }) {
                    try await park(.handOff(number), isolation: actor)
                }
                return
            case .refused(let error):
                throw error
            case .full:
                try await park(.sender, isolation: actor)
            }
        }
    }

    /// Adds `item`, blocking the calling thread while the queue is full. Throws once the
    /// queue is finished or cancelled.
    @available(*, noasync, message: "blocks the thread: use send(_:)")
    package func sendBlocking(_ item: Element) throws(ReelError) {
        let outcome = state.withLock(when: { $0.count < $0.limit || $0.end != nil }) { $0.offer(item) }
        switch outcome {
        case .accepted(let woken, _): Self.resume(woken)
        case .refused(let error): throw error
        case .full: preconditionFailure("the queue was full after waiting for room")
        }
    }

    /// Ends the queue from the producers' side: consumers get the waiting items, then
    /// the end (`nil`), or `error` when one is given. No effect once ended.
    package func finish(error: ReelError? = nil) {
        Self.resume(state.withLock { $0.finish(error) })
    }

    /// Blocks the calling thread until a send would go through without waiting (for a
    /// queue that makes items on demand, until a consumer waits for one more item than are
    /// queued), or the queue has ended. A producer that calls it before making its next
    /// item holds none while it waits.
    @available(*, noasync, message: "blocks the thread")
    package func waitForRoomBlocking() {
        let onDemand = makesOnDemand
        state.withLock(when: { $0.end != nil || $0.wantsAnItem(onDemand: onDemand) }) { _ in }
    }

    /// Blocks the calling thread until a consumer waits for more items than are queued, or
    /// the queue has ended: for a producer whose next item costs much and may never be asked
    /// for.
    @available(*, noasync, message: "blocks the thread")
    package func waitForDemandBlocking() {
        state.withLock(when: { $0.end != nil || $0.wantsAnItem(onDemand: true) }) { _ in }
    }

    /// Whether a producer may make its next item now (``waitForRoomBlocking()`` would not
    /// wait), the queue not having ended.
    package var wantsAnItem: Bool {
        let onDemand = makesOnDemand
        return state.withLock { $0.end == nil && $0.wantsAnItem(onDemand: onDemand) }
    }

    // MARK: Consumers

    /// The next item, suspending while none waits; `nil` once the queue is finished and
    /// drained. Throws the error the queue was finished or cancelled with.
    package func next(isolation actor: isolated (any Actor)? = #isolation) async throws(ReelError) -> Element? {
        while true {
            switch state.withLock({ $0.poll() }) {
            case .item(let item, let woken):
                Self.resume(woken)
                return item
            case .end:
                return nil
            case .failed(let error):
                throw error
            case .empty:
                try await park(.receiver, isolation: actor)
            }
        }
    }

    /// The next item, blocking the calling thread while none waits; `nil` once the queue
    /// is finished and drained. Throws the error the queue was finished or cancelled with.
    @available(*, noasync, message: "blocks the thread: use next()")
    package func nextBlocking() throws(ReelError) -> Element? {
        // Counted as waiting from here: a producer working on demand makes an item for it.
        state.withLock { $0.blockedReceivers += 1 }
        let outcome = state.withLock(when: { $0.count > 0 || $0.end != nil }) { (s) -> State.Poll in
            s.blockedReceivers -= 1
            return s.poll()
        }
        switch outcome {
        case .item(let item, let woken):
            Self.resume(woken)
            return item
        case .end: return nil
        case .failed(let error): throw error
        case .empty: preconditionFailure("the queue was empty after waiting for an item")
        }
    }

    // MARK: Either side

    /// Stops the queue: every send and next, waiting or later, throws `error` (the first
    /// cancel's). Returns the items that were still waiting.
    @discardableResult
    package func cancel(error: ReelError = ReelError(.cancelled, "the queue was cancelled")) -> [Element] {
        let (dropped, woken) = state.withLock { $0.cancel(error) }
        Self.resume(woken)
        return dropped
    }

    /// Whether a send would go through now without waiting.
    package var hasRoom: Bool { state.withLock { $0.end == nil && $0.count < $0.limit } }

    /// Whether the queue was cancelled.
    package var isCancelled: Bool {
        state.withLock { if case .cancelled = $0.end { true } else { false } }
    }

    /// How many items wait.
    package var count: Int { state.withLock { $0.count } }

    /// How many sends and nexts wait now, suspended or blocked.
    package var waiterCount: Int { state.withLock { $0.parkedCount } + state.blockedThreadCount }

    // MARK: Waiting

    private static func resume(_ waiters: [CheckedContinuation<Void, Never>]) {
        for waiter in waiters { waiter.resume() }
    }

    /// Suspends until the state may let `role` go on. A task cancelled while waiting
    /// cancels the queue and throws.
    private func park(_ role: State.Role, isolation actor: isolated (any Actor)?) async throws(ReelError) {
        let id = state.withLock { $0.makeWaiterID() }
        await withTaskCancellationHandler {
            await withCheckedContinuation(isolation: actor) { (continuation: CheckedContinuation<Void, Never>) in
                // Checked under the lock: a cancel that comes first is seen here, one
                // that comes after finds the continuation to withdraw.
                if !state.withLock({ $0.park(id, as: role, continuation, taskCancelled: Task.isCancelled) }) {
                    continuation.resume()
                }
            }
        } onCancel: {
            state.withLock { $0.withdraw(id) }?.resume()
        }
        if Task.isCancelled {
            let error = ReelError(.cancelled, "the task waiting on the queue was cancelled")
            cancel(error: error)
            throw error
        }
    }
}

extension BoundedQueue {
    /// The queue's contents and waiters, behind its lock. Each transition returns the
    /// continuations to resume once the lock is released.
    private struct State {
        enum End {
            case finished(ReelError?)
            case cancelled(ReelError)
        }
        enum Role {
            case sender, receiver
            /// A sender waiting for a consumer to take its item (the `number`th sent).
            case handOff(UInt64)
        }
        enum Offer {
            case accepted(wake: [CheckedContinuation<Void, Never>], number: UInt64)
            case full
            case refused(ReelError)
        }
        enum Poll {
            case item(Element, wake: [CheckedContinuation<Void, Never>])
            case end
            case failed(ReelError)
            case empty
        }

        let capacity: Int
        /// How many items it holds now: `capacity`, or less while it starts (`startingCapacity`).
        private(set) var limit: Int
        /// Items taken so far, while `limit` is below `capacity`.
        private var taken = 0
        /// Slots before `head` are taken (nil), so a taken item is not kept alive.
        private var items: [Element?] = []
        private var head = 0
        private(set) var end: End?
        private var senders: [UInt64: CheckedContinuation<Void, Never>] = [:]
        private var receivers: [UInt64: CheckedContinuation<Void, Never>] = [:]
        private var lastWaiterID: UInt64 = 0
        /// Items sent and items taken, ever.
        private var sent: UInt64 = 0
        private var polled: UInt64 = 0
        /// Consumers blocked in `nextBlocking` (suspended ones are in `receivers`).
        var blockedReceivers = 0

        init(capacity: Int, startingCapacity: Int?) {
            self.capacity = capacity
            self.limit = startingCapacity ?? capacity
        }

        var count: Int { items.count - head }
        var parkedCount: Int { senders.count + receivers.count }
        /// Consumers waiting for an item, suspended or blocked.
        var waitingReceivers: Int { receivers.count + blockedReceivers }

        /// Whether there is room for an item, or (`onDemand`) a consumer waiting for one
        /// more item than are queued.
        func wantsAnItem(onDemand: Bool) -> Bool { onDemand ? count < waitingReceivers : count < limit }

        /// Whether the `number`th item sent was taken, or will never be (the queue ended).
        func hasTaken(_ number: UInt64) -> Bool { polled >= number || end != nil }

        mutating func makeWaiterID() -> UInt64 {
            lastWaiterID += 1
            return lastWaiterID
        }

        mutating func offer(_ item: Element) -> Offer {
            switch end {
            case .cancelled(let error): return .refused(error)
            case .finished: return .refused(ReelError(.invalidArgument, "the queue has ended: nothing more can be sent"))
            case nil: break
            }
            guard count < limit else { return .full }
            items.append(item)
            sent += 1
            return .accepted(wake: Self.takeAll(&receivers), number: sent)
        }

        mutating func poll() -> Poll {
            if count > 0 {
                guard let item = items[head] else { preconditionFailure("a queue slot was taken twice") }
                items[head] = nil
                head += 1
                polled += 1
                if limit < capacity {
                    taken += 1
                    limit = min(capacity, max(limit, taken - 1))
                }
                if head >= 16 && head * 2 >= items.count {
                    items.removeFirst(head)
                    head = 0
                }
                return .item(item, wake: Self.takeAll(&senders))
            }
            switch end {
            case .cancelled(let error): return .failed(error)
            case .finished(let error?): return .failed(error)
            case .finished(nil): return .end
            case nil: return .empty
            }
        }

        mutating func finish(_ error: ReelError?) -> [CheckedContinuation<Void, Never>] {
            guard end == nil else { return [] }
            end = .finished(error)
            return Self.takeAll(&receivers) + Self.takeAll(&senders)
        }

        mutating func cancel(_ error: ReelError) -> ([Element], [CheckedContinuation<Void, Never>]) {
            if case .cancelled = end {} else { end = .cancelled(error) }
            let dropped = items[head...].compactMap { $0 }
            items.removeAll()
            head = 0
            return (dropped, Self.takeAll(&receivers) + Self.takeAll(&senders))
        }

        /// Keeps `continuation` until the state changes for `role`; false when the caller
        /// should go on at once.
        mutating func park(_ id: UInt64, as role: Role, _ continuation: CheckedContinuation<Void, Never>, taskCancelled: Bool) -> Bool {
            if taskCancelled || end != nil { return false }
            switch role {
            case .sender:
                guard count >= limit else { return false }
                senders[id] = continuation
            case .receiver:
                guard count == 0 else { return false }
                receivers[id] = continuation
            case .handOff(let number):
                // Woken with the senders: every take wakes them.
                guard !hasTaken(number) else { return false }
                senders[id] = continuation
            }
            return true
        }

        /// The continuation of a waiter whose task was cancelled, if it still waits.
        mutating func withdraw(_ id: UInt64) -> CheckedContinuation<Void, Never>? {
            senders.removeValue(forKey: id) ?? receivers.removeValue(forKey: id)
        }

        private static func takeAll(_ waiters: inout [UInt64: CheckedContinuation<Void, Never>]) -> [CheckedContinuation<Void, Never>] {
            defer { waiters.removeAll() }
            return Array(waiters.values)
        }
    }
}
