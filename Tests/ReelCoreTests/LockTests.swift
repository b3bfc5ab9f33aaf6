import ReelTestSupport
import Testing

@testable import ReelCore

@Suite("Lock")
struct LockTests {
    @Test("increments from many threads at once are none of them lost")
    func mutualExclusion() async throws {
        let counter = Lock(0)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    try await onDedicatedThread(named: "test.lock") {
                        for _ in 0..<10_000 { counter.withLock { $0 += 1 } }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(counter.withLock { $0 } == 80_000)
    }

    @Test("withLock(when:) blocks until another thread makes the condition true")
    func waitsForCondition() async throws {
        let value = Lock([String]())
        let waiter = Task {
            try await onDedicatedThread(named: "test.lock.waiter") {
                value.withLock(when: { $0.contains("set") }) { $0.append("seen") }
            }
        }
        // The waiter blocks: nothing it appends can come before "set".
        while value.blockedThreadCount == 0 { await Task.yield() }
        value.withLock { $0.append("set") }
        try await waiter.value
        #expect(value.withLock { $0 } == ["set", "seen"])
    }

    @Test("an error thrown in the body passes through and releases the lock")
    func throwingBody() {
        let value = Lock(1)
        expectReelError(.invalidArgument) {
            try value.withLock { (v) throws(ReelError) in
                v = 2
                throw ReelError(.invalidArgument, "no")
            }
        }
        #expect(value.withLock { $0 } == 2)
    }
}
