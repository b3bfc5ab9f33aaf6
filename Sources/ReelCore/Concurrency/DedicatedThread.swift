import Foundation

// Blocking work (opening files, FFmpeg calls, waiting on a thread) leaves Swift's
// cooperative pool one way: on a thread of its own, started here. A call the task awaits
// uses `onDedicatedThread(named:_:)`; a loop that outlives the call that starts it (a
// reader's track, a writer) uses `startDedicatedThread(named:_:)`. The one other way is an
// asset's serial queue (ReelIO's `AssetSource`), which also makes its probe run once and
// lets a test hold its I/O.

/// Runs `body` on a new thread of its own and hands its result to the awaiting task,
/// which suspends meanwhile.
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
        startDedicatedThread(named: name) {
            let result = Result { () throws(ReelError) -> T in try body() }
            handoff.withLock { $0 = result }
            continuation.resume()
        }
    }
    guard let result = handoff.withLock({ $0 }) else {
        throw ReelError(.internalError, "the \(name) thread ended without a result")
    }
    return try result.get()
}

/// Starts `body` on a new thread named `name` and returns at once: a loop that runs for as
/// long as its work lasts, off the cooperative pool.
package func startDedicatedThread(named name: String, _ body: @escaping @Sendable () -> Void) {
    let thread = Thread(block: body)
    thread.name = name
    thread.start()
}
