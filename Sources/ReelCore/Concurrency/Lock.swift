#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A value behind a POSIX mutex, with a condition variable for threads that must block
/// until the value says they may go on.
///
/// Why not `Synchronization.Mutex`: on Linux it locks with raw futex calls, which
/// ThreadSanitizer cannot see, so correctly locked code is reported as racing. A
/// `pthread_mutex_t` is intercepted by the sanitizers, so their reports stay meaningful.
///
/// Every `withLock` wakes the threads blocked in ``withLock(when:_:)`` when it returns,
/// if there are any: a change made under the lock can never be missed by a thread
/// waiting for it.
package final class Lock<Value> {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>
    /// Read and written only while `mutex` is held.
    private var value: Value
    /// Threads blocked in `withLock(when:)`; read and written only while `mutex` is held.
    private var blocked = 0

    package init(_ value: Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_ERRORCHECK))
        let made = pthread_mutex_init(mutex, &attributes)
        pthread_mutexattr_destroy(&attributes)
        precondition(made == 0, "pthread_mutex_init failed: \(made)")
        condition = .allocate(capacity: 1)
        condition.initialize(to: pthread_cond_t())
        let madeCondition = pthread_cond_init(condition, nil)
        precondition(madeCondition == 0, "pthread_cond_init failed: \(madeCondition)")
    }

    deinit {
        pthread_cond_destroy(condition)
        condition.deallocate()
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    private func lock() {
        let code = pthread_mutex_lock(mutex)
        precondition(code == 0, "pthread_mutex_lock failed: \(code)")
    }

    private func unlock() {
        if blocked > 0 { pthread_cond_broadcast(condition) }
        let code = pthread_mutex_unlock(mutex)
        precondition(code == 0, "pthread_mutex_unlock failed: \(code)")
    }

    /// Runs `body` on the value while holding the lock.
    package func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        lock()
        defer { unlock() }
        return try body(&value)
    }

    /// Blocks the calling thread until `isReady` holds for the value, then runs `body` on
    /// it, all without letting go of the lock in between. Never call it from Swift's
    /// cooperative pool.
    package func withLock<Result, Failure: Error>(
        when isReady: (Value) -> Bool,
        _ body: (inout Value) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        lock()
        defer { unlock() }
        while !isReady(value) {
            blocked += 1
            pthread_cond_wait(condition, mutex)
            blocked -= 1
        }
        return try body(&value)
    }

    /// How many threads are blocked in ``withLock(when:_:)`` now.
    package var blockedThreadCount: Int {
        lock()
        defer { unlock() }
        return blocked
    }
}

// The value is only reached under the mutex, so sharing the box is safe when the value
// itself may cross threads.
extension Lock: @unchecked Sendable where Value: Sendable {}
