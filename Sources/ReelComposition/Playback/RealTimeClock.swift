/// Wall-clock time for playback: `ContinuousClock` from the moment the clock is made, in
/// nanoseconds. A timer is a task that sleeps until its deadline (suspended, not
/// blocking a thread of the cooperative pool).
public struct RealTimeClock: PlayerClock {
    private let origin: ContinuousClock.Instant

    /// A clock whose time is zero now.
    public init() { origin = ContinuousClock.now }

    public var now: MediaTime { Self.time(ContinuousClock.now - origin) }

    public func schedule(at deadline: MediaTime, _ action: @escaping @Sendable () -> Void) -> PlayerClockTimer {
        let wait = deadline - now
        let nanoseconds = wait.isNumeric && wait > .zero ? Int64((wait.seconds * 1e9).rounded(.up)) : 0
        let task = Task {
            if nanoseconds > 0 {
                do { try await Task.sleep(for: .nanoseconds(nanoseconds)) } catch { return }
            } else {
                await Task.yield()
            }
            guard !Task.isCancelled else { return }
            action()
        }
        return PlayerClockTimer { task.cancel() }
    }

    static func time(_ duration: Duration) -> MediaTime {
        let (seconds, attoseconds) = duration.components
        return MediaTime(value: seconds * 1_000_000_000 + attoseconds / 1_000_000_000, timescale: 1_000_000_000)
    }
}
