import ReelTestSupport
import Testing

@testable import ReelCore

@Suite("BoundedQueue")
struct BoundedQueueTests {
    final class Token: Sendable {}

    /// How a side of the queue waits.
    enum Side: String, CaseIterable, Sendable { case suspending, blocking }

    static func send(_ item: Int, to queue: BoundedQueue<Int>, _ side: Side) async throws(ReelError) {
        switch side {
        case .suspending: try await queue.send(item)
        case .blocking: try await onDedicatedThread(named: "test.send") { () throws(ReelError) in try queue.sendBlocking(item) }
        }
    }

    static func next(from queue: BoundedQueue<Int>, _ side: Side) async throws(ReelError) -> Int? {
        switch side {
        case .suspending: try await queue.next()
        case .blocking: try await onDedicatedThread(named: "test.next") { () throws(ReelError) in try queue.nextBlocking() }
        }
    }

    @Test("a queue that starts small holds one item until three are taken, then one more per item taken, up to its capacity")
    func startingCapacity() async throws {
        let queue = BoundedQueue<Int>(capacity: 4, startingCapacity: 1)
        var sent = 0
        /// Sends while there is room; returns how many went in.
        func fill() async throws -> Int {
            var n = 0
            while queue.hasRoom {
                try await queue.send(sent)
                sent += 1
                n += 1
            }
            return n
        }
        var taken: [Int] = []
        func take(_ n: Int) async throws {
            for _ in 0..<n { taken.append(try #require(try await queue.next())) }
        }
        #expect(try await fill() == 1)
        try await take(1)
        #expect(try await fill() == 1)
        try await take(1)
        // Two taken: still one.
        #expect(try await fill() == 1)
        try await take(1)
        // Three taken: two.
        #expect(try await fill() == 2)
        try await take(2)
        // Five taken: four, the capacity, and no more after that.
        #expect(try await fill() == 4)
        try await take(4)
        #expect(try await fill() == 4)
        #expect(queue.count == 4)
        try await take(4)
        #expect(taken == Array(0..<13))
        // Without a starting capacity: the capacity at once.
        let plain = BoundedQueue<Int>(capacity: 3)
        for i in 0..<3 { try await plain.send(i) }
        #expect(!plain.hasRoom)
    }

    /// Sends `items` in order, from one task or one thread.
    static func produce(_ items: Range<Int>, into queue: BoundedQueue<Int>, _ side: Side) async throws(ReelError) {
        switch side {
        case .suspending:
            for i in items { try await queue.send(i) }
        case .blocking:
            try await onDedicatedThread(named: "test.producer") { () throws(ReelError) in
                for i in items { try queue.sendBlocking(i) }
            }
        }
    }

    /// Takes items until the end or an error, from one task or one thread.
    static func consume(_ queue: BoundedQueue<Int>, _ side: Side) async -> (items: [Int], error: ReelError?) {
        switch side {
        case .suspending:
            var got: [Int] = []
            do throws(ReelError) {
                while let i = try await queue.next() { got.append(i) }
                return (got, nil)
            } catch {
                return (got, error)
            }
        case .blocking:
            let result = try? await onDedicatedThread(named: "test.consumer") { () -> ([Int], ReelError?) in
                var got: [Int] = []
                do throws(ReelError) {
                    while let i = try queue.nextBlocking() { got.append(i) }
                    return (got, nil)
                } catch {
                    return (got, error)
                }
            }
            return result ?? ([], nil)
        }
    }

    /// Suspends until `count` sends or nexts wait on `queue`.
    static func waitForWaiters(_ queue: BoundedQueue<Int>, _ count: Int) async {
        while queue.waiterCount < count { await Task.yield() }
    }

    @Test("items come out in order, then the end or the error", arguments: Side.allCases, Side.allCases)
    func orderAndEnd(producer: Side, consumer: Side) async throws {
        for failure in [nil, ReelError(.corruptData, "bad packet")] {
            let queue = BoundedQueue<Int>(capacity: 2)
            let sending = Task {
                try await Self.produce(0..<50, into: queue, producer)
                queue.finish(error: failure)
            }
            let (got, error) = await Self.consume(queue, consumer)
            try await sending.value
            #expect(got == Array(0..<50))
            #expect(error?.code == failure?.code)
        }
    }

    @Test("a taken item is not kept alive by the queue")
    func releasesTakenItems() throws {
        let queue = BoundedQueue<Token>(capacity: 4)
        weak var first: Token?
        do {
            let token = Token()
            first = token
            try queue.sendBlocking(token)
            try queue.sendBlocking(Token())
        }
        _ = try queue.nextBlocking()
        #expect(first == nil)
    }

    @Test("a full queue holds the producer back until an item is taken", arguments: Side.allCases)
    func backPressure(producer: Side) async throws {
        let queue = BoundedQueue<Int>(capacity: 2)
        let sent = Lock(0)
        let sending = Task {
            for i in 0..<3 {
                try await Self.send(i, to: queue, producer)
                sent.withLock { $0 += 1 }
            }
        }
        await Self.waitForWaiters(queue, 1)
        #expect(sent.withLock { $0 } == 2)
        #expect(queue.count == 2)
        #expect(!queue.hasRoom)
        #expect(try await queue.next() == 0)
        try await sending.value
        #expect(sent.withLock { $0 } == 3)
        #expect(queue.count == 2)
    }

    @Test("a queue of capacity 0 has an item made only when a consumer waits for one", arguments: Side.allCases)
    func makesOnDemand(consumer: Side) async throws {
        for capacity in [0, 1] {
            let queue = BoundedQueue<Int>(capacity: capacity)
            /// Items made, and waits for room entered.
            let producer = Lock((made: 0, waits: 0))
            let producing = Task {
                try await onDedicatedThread(named: "test.make") { () throws(ReelError) in
                    for i in 0..<4 {
                        producer.withLock { $0.waits += 1 }
                        queue.waitForRoomBlocking()
                        producer.withLock { $0.made += 1 }
                        try queue.sendBlocking(i)
                    }
                    queue.finish()
                }
            }
            /// How many items were made once the producer is in a wait after its last one that
            /// the queue does not let it out of: it makes no more until a consumer acts.
            func madeWhenWaiting() async -> Int {
                while true {
                    // The queue first: once it wants nothing, the producer can only finish
                    // what it was doing and wait.
                    let wants = queue.wantsAnItem
                    let p = producer.withLock { $0 }
                    if !wants, p.waits == p.made + 1 { return p.made }
                    await Task.yield()
                }
            }
            // Nobody has asked: a queue of capacity 1 has one item made and waiting, one of
            // capacity 0 none.
            let made = await madeWhenWaiting()
            #expect(made == capacity, "capacity \(capacity)")
            for i in 0..<2 {
                #expect(try await Self.next(from: queue, consumer) == i)
                let made = await madeWhenWaiting()
                #expect(made == i + 1 + capacity, "capacity \(capacity), \(i + 1) taken")
                #expect(queue.count == capacity, "capacity \(capacity), \(i + 1) taken")
            }
            #expect(try await Self.next(from: queue, consumer) == 2)
            #expect(try await Self.next(from: queue, consumer) == 3)
            #expect(try await Self.next(from: queue, consumer) == nil)
            try await producing.value
        }
    }

    @Test("a hand-off send returns once a consumer has taken its item, or once the queue has ended")
    func handOff() async throws {
        for ending in [false, true] {
            let queue = BoundedQueue<Int>(capacity: 2)
            let returned = Lock(false)
            let sending = Task {
                try await queue.send(7, untilTaken: true)
                returned.withLock { $0 = true }
            }
            while queue.waiterCount < 1 && !returned.withLock({ $0 }) { await Task.yield() }
            #expect(!returned.withLock { $0 })
            #expect(queue.count == 1)
            if ending {
                queue.cancel()
            } else {
                #expect(try await queue.next() == 7)
            }
            try await sending.value
            #expect(returned.withLock { $0 })
        }
    }

    @Test("cancel wakes every waiting producer and consumer, which throw its error", arguments: Side.allCases)
    func cancelWakesEveryone(side: Side) async throws {
        let error = ReelError(.cancelled, "stop")
        let empty = BoundedQueue<Int>(capacity: 1)
        let full = BoundedQueue<Int>(capacity: 1)
        try await full.send(0)
        let outcomes = Lock([ReelError.Code?]())
        try await withThrowingTaskGroup(of: Void.self) { group in
            for i in 0..<6 {
                group.addTask {
                    do {
                        if i % 2 == 0 { _ = try await Self.next(from: empty, side) } else { try await Self.send(i, to: full, side) }
                        outcomes.withLock { $0.append(nil) }
                    } catch {
                        outcomes.withLock { $0.append((error as? ReelError)?.code) }
                    }
                }
            }
            await Self.waitForWaiters(empty, 3)
            await Self.waitForWaiters(full, 3)
            empty.cancel(error: error)
            #expect(full.cancel(error: error) == [0])
            try await group.waitForAll()
        }
        #expect(outcomes.withLock { $0 } == Array(repeating: .cancelled, count: 6))
        await #expect { try await Self.send(1, to: full, side) } throws: { ($0 as? ReelError)?.message == "stop" }
        await #expect { _ = try await Self.next(from: full, side) } throws: { ($0 as? ReelError)?.message == "stop" }
    }

    @Test("finish wakes every waiting consumer with the end, and refuses later sends", arguments: Side.allCases)
    func finishWakesConsumers(side: Side) async throws {
        let queue = BoundedQueue<Int>(capacity: 1)
        let ends = try await withThrowingTaskGroup(of: Int?.self) { group in
            for _ in 0..<4 { group.addTask { try await Self.next(from: queue, side) } }
            await Self.waitForWaiters(queue, 4)
            queue.finish()
            return try await group.reduce(into: [Int?]()) { $0.append($1) }
        }
        #expect(ends == [nil, nil, nil, nil])
        await expectReelError(.invalidArgument) { try await Self.send(1, to: queue, side) }
    }

    @Test("a task cancelled while it waits throws and cancels the queue")
    func taskCancellation() async throws {
        let queue = BoundedQueue<Int>(capacity: 1)
        let waiting = Task { try await queue.next() }
        await Self.waitForWaiters(queue, 1)
        waiting.cancel()
        await #expect { _ = try await waiting.value } throws: { ($0 as? ReelError)?.code == .cancelled }
        #expect(queue.isCancelled)
        expectReelError(.cancelled) { try queue.sendBlocking(1) }
    }

    @Test("many producers and consumers on both sides: every item arrives once, each producer's in order")
    func noLostWakeUps() async throws {
        let queue = BoundedQueue<Int>(capacity: 3)
        let producers = 8, perProducer = 400
        let received = try await withThrowingTaskGroup(of: [Int].self) { group in
            for consumer in 0..<6 {
                group.addTask {
                    let (got, error) = await Self.consume(queue, consumer % 2 == 0 ? .blocking : .suspending)
                    if let error { throw error }
                    return got
                }
            }
            let sending = Task {
                try await withThrowingTaskGroup(of: Void.self) { senders in
                    for producer in 0..<producers {
                        senders.addTask {
                            let items = producer * perProducer..<(producer + 1) * perProducer
                            try await Self.produce(items, into: queue, producer % 2 == 0 ? .blocking : .suspending)
                        }
                    }
                    try await senders.waitForAll()
                }
                queue.finish()
            }
            var all: [[Int]] = []
            for try await got in group { all.append(got) }
            try await sending.value
            return all
        }
        #expect(received.flatMap { $0 }.sorted() == Array(0..<(producers * perProducer)))
        for got in received {
            for producer in 0..<producers {
                let mine = got.filter { $0 / perProducer == producer }
                #expect(mine == mine.sorted(), "consumer saw producer \(producer)'s items out of order")
            }
        }
    }
}
