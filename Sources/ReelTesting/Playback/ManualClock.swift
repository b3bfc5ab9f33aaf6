import ReelComposition
import ReelCore

/// A `PlayerClock` that moves only when the test says so (GStreamer's manual clock):
/// ``advance(by:)`` runs every timer due on the way, in deadline order, with ``now`` at
/// each deadline while its timer runs, on the test's own thread. When `advance` returns,
/// the player has done everything that time asked for: observers fired, frames asked for,
/// the end reached. Tests never sleep.
///
/// ```swift
/// let clock = ManualClock()
/// let player = Player(playerItem: item, clock: clock)
/// player.play()
/// clock.advance(by: MediaTime(value: 1, timescale: 2))    // half a second of playback, at once
/// #expect(player.currentTime() == MediaTime(value: 1, timescale: 2))
/// ```
public final class ManualClock: PlayerClock {
    private let timers: ScheduledTimers

    /// A clock at `now` (zero by default).
    public init(now: MediaTime = .zero) {
        timers = ScheduledTimers(now: now)
    }

    public var now: MediaTime { timers.now }

    public func schedule(at deadline: MediaTime, _ action: @escaping @Sendable () -> Void) -> PlayerClockTimer {
        timers.schedule(at: deadline, action)
    }

    /// Moves the clock on by `duration`, running the timers due.
    public func advance(by duration: MediaTime) {
        timers.advance(to: now + duration)
    }

    /// Moves the clock to `time` (never back), running the timers due.
    public func advance(to time: MediaTime) {
        timers.advance(to: time)
    }

    /// How many timers wait.
    public var pendingTimerCount: Int { timers.pendingCount }

    /// The earliest deadline waiting, if any.
    public var nextDeadline: MediaTime? { timers.nextDeadline }
}
