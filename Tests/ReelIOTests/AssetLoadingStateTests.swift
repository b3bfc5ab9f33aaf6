import ReelCore
import Testing

@testable import ReelIO

/// The asset's loading state machine on its own: every transition and the action it returns.
@Suite("Asset loading state machine")
struct AssetLoadingStateTests {
    typealias Outcome = Result<any Sendable, ReelError>

    /// The state behind a lock, as the asset keeps it.
    final class Locked: Sendable {
        let mutex = Lock(AssetLoadingState())
        func withLock<R>(_ body: (inout AssetLoadingState) -> R) -> R { mutex.withLock { body(&$0) } }
    }

    /// Registers waiter `id` for `key` and runs `then` with the action, inside the
    /// continuation, so the test can finish or cancel before the waiter resumes.
    func register(
        _ state: Locked, key: String, id: UInt64,
        then: @escaping (AssetLoadingState.RegisterAction, AssetLoadingState.Continuation) -> Void
    ) async -> Outcome {
        await withCheckedContinuation { (continuation: AssetLoadingState.Continuation) in
            let action = state.withLock { $0.register(key: key, waiter: id, continuation: continuation) }
            then(action, continuation)
        }
    }

    @Test("the first waiter starts work; its result resumes every waiter and is cached")
    func startFinishCache() async throws {
        let state = Locked()
        let outcome = await register(state, key: "duration", id: 1) { action, continuation in
            guard case .startWork(let generation) = action else {
                Issue.record("expected startWork, got \(action)")
                continuation.resume(returning: .failure(ReelError(.internalError, "test")))
                return
            }
            #expect(state.withLock { $0.isCurrent(key: "duration", generation: generation) })
            #expect(state.withLock { $0.waiterCount(key: "duration") } == 1)
            let waiters = state.withLock { $0.finish(key: "duration", generation: generation, result: .success(42)) }
            #expect(waiters.count == 1)
            for waiter in waiters { waiter.resume(returning: .success(42)) }
        }
        #expect((try outcome.get()) as? Int == 42)
        // Cached: the next waiter is resumed at once.
        let again = await register(state, key: "duration", id: 2) { action, continuation in
            guard case .resume(let result) = action else {
                Issue.record("expected resume, got \(action)")
                continuation.resume(returning: .failure(ReelError(.internalError, "test")))
                return
            }
            continuation.resume(returning: result)
        }
        #expect((try again.get()) as? Int == 42)
    }

    @Test("a second waiter joins the running work instead of starting more")
    func secondWaiterJoins() async throws {
        let state = Locked()
        let first = Task {
            await register(state, key: "tracks", id: 1) { action, _ in
                if case .startWork = action {} else { Issue.record("expected startWork, got \(action)") }
            }
        }
        while state.withLock({ $0.waiterCount(key: "tracks") }) < 1 { await Task.yield() }
        let second = await register(state, key: "tracks", id: 2) { action, _ in
            if case .wait = action {} else { Issue.record("expected wait, got \(action)") }
            guard case .loading(let generation, _)? = state.withLock({ $0.entries["tracks"] }) else {
                Issue.record("expected loading")
                return
            }
            let waiters = state.withLock { $0.finish(key: "tracks", generation: generation, result: .success("done")) }
            #expect(waiters.count == 2)
            for waiter in waiters { waiter.resume(returning: .success("done")) }
        }
        #expect((try second.get()) as? String == "done")
        #expect((try await first.value.get()) as? String == "done")
    }

    @Test("a waiter cancelled before it registers is resumed with a cancellation, and starts nothing")
    func cancelledBeforeRegistering() async {
        let state = Locked()
        #expect(state.withLock { $0.cancelWaiter(7) } == nil)
        let outcome = await register(state, key: "metadata", id: 7) { action, continuation in
            guard case .resume(let result) = action else {
                Issue.record("expected resume, got \(action)")
                continuation.resume(returning: .failure(ReelError(.internalError, "test")))
                return
            }
            continuation.resume(returning: result)
        }
        guard case .failure(let error) = outcome else { Issue.record("expected failure"); return }
        #expect(error.code == ReelError.Code.cancelled)
        #expect(state.withLock { $0.entries["metadata"] } == nil)
    }

    @Test("cancelAll abandons the work: its late result is dropped, the next load starts again")
    func cancelAllThenRestart() async {
        let state = Locked()
        var firstGeneration: UInt64 = 0
        let outcome = await register(state, key: "tracks", id: 1) { action, _ in
            guard case .startWork(let generation) = action else { Issue.record("\(action)"); return }
            firstGeneration = generation
            let resumed = state.withLock { $0.cancelAll() }
            #expect(resumed.count == 1)
            for (key, continuation) in resumed {
                continuation.resume(returning: .failure(AssetLoadingState.cancelledError(key)))
            }
        }
        #expect((try? outcome.get()) == nil)
        #expect(!state.withLock { $0.isCurrent(key: "tracks", generation: firstGeneration) })
        #expect(state.withLock { $0.finish(key: "tracks", generation: firstGeneration, result: .success(1)) }.isEmpty)
        let restarted = await register(state, key: "tracks", id: 2) { action, continuation in
            guard case .startWork(let generation) = action, generation != firstGeneration else {
                Issue.record("expected new work, got \(action)")
                continuation.resume(returning: .failure(ReelError(.internalError, "test")))
                return
            }
            for waiter in state.withLock({ $0.finish(key: "tracks", generation: generation, result: .success(2)) }) {
                waiter.resume(returning: .success(2))
            }
        }
        #expect((try? restarted.get()) as? Int == 2)
    }

    @Test("a failure is cached like a value")
    func failureCached() async {
        let state = Locked()
        state.withLock { $0.fail(key: "bogus", error: ReelError(.invalidArgument, "unknown key")) }
        let outcome = await register(state, key: "bogus", id: 1) { action, continuation in
            guard case .resume(let result) = action else {
                Issue.record("expected resume, got \(action)")
                continuation.resume(returning: .failure(ReelError(.internalError, "test")))
                return
            }
            continuation.resume(returning: result)
        }
        guard case .failure(let error) = outcome else { Issue.record("expected failure"); return }
        #expect(error.code == ReelError.Code.invalidArgument)
    }
}
