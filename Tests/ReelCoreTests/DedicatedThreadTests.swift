import Foundation
import Testing

@testable import ReelCore

@Suite("onDedicatedThread")
struct DedicatedThreadTests {
    @Test("bodies run on threads of their own: more of them than the pool has threads can block at once")
    func ownThreads() async throws {
        // On the cooperative pool (one thread per core) these would wait for one another forever.
        let count = ProcessInfo.processInfo.activeProcessorCount + 2
        let arrived = Lock(0)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<count {
                group.addTask {
                    try await onDedicatedThread(named: "test.dedicated") {
                        arrived.withLock { $0 += 1 }
                        arrived.withLock(when: { $0 == count }) { _ in }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(arrived.withLock { $0 } == count)
    }

    @Test("the body's result or error comes back to the caller")
    func resultAndError() async throws {
        #expect(try await onDedicatedThread(named: "test.dedicated") { 6 * 7 } == 42)
        await #expect { try await onDedicatedThread(named: "test.dedicated") { () throws(ReelError) in throw ReelError(.corruptData, "bad") } } throws: {
            ($0 as? ReelError)?.code == .corruptData
        }
    }
}
