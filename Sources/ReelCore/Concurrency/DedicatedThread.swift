import Foundation

/// Runs `body` on a new thread of its own and hands its result to the awaiting task,
/// which suspends meanwhile: blocking work (opening files, FFmpeg calls, waiting on a
/// thread) never runs on Swift's cooperative pool.
///
/// The result passes through a ``Lock`` as well as the continuation: ThreadSanitizer sees
/// the mutex released by the thread and taken by the task, so what the thread wrote (the
/// stored properties of an object it made) happens before the task reads it. Through the
/// continuation alone it reported the task's first read of a reader's tracks as racing
/// with the thread's initialiser.
package func onDedicatedThread<T: Sendable>(
    named name: String,
    _ body: @escaping @Sendable () throws(ReelError) -> T
) async throws(ReelError) -> T {
    let handoff = Lock<Result<T, ReelError>?>(nil)
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        let thread = Thread {
            let result = Result { () throws(ReelError) -> T in try body() }
            handoff.withLock { $0 = result }
            continuation.resume()
        }
        thread.name = name
        thread.start()
    }
    guard let result = handoff.withLock({ $0 }) else {
        throw ReelError(.internalError, "the \(name) thread ended without a result")
    }
    return try result.get()
}
