import Foundation

/// Runs `body` on a new thread of its own and hands its result to the awaiting task,
/// which suspends meanwhile: blocking work (opening files, FFmpeg calls, waiting on a
/// thread) never runs on Swift's cooperative pool.
package func onDedicatedThread<T: Sendable>(named name: String,
                                            _ body: @escaping @Sendable () throws(ReelError) -> T) async throws(ReelError) -> T {
    let result: Result<T, ReelError> = await withCheckedContinuation { continuation in
        let thread = Thread {
            continuation.resume(returning: Result { () throws(ReelError) -> T in try body() })
        }
        thread.name = name
        thread.start()
    }
    return try result.get()
}
