/// The time source a ``Player`` runs on: a monotonic time and one-shot timers on it.
///
/// Injectable so that tests drive playback by hand (ReelTesting's `ManualClock`) and never
/// sleep; ``RealTimeClock`` is the default, and `PlayerItemAudioOutput/clock` follows
/// the sound when the item has some.
public protocol PlayerClock: Sendable {
    /// The clock's time now. It never goes back.
    var now: MediaTime { get }
    /// Calls `action` once the clock reaches `deadline`, never before, never on the
    /// caller's stack. The returned timer cancels it.
    func schedule(at deadline: MediaTime, _ action: @escaping @Sendable () -> Void) -> PlayerClockTimer
}

/// A timer from ``PlayerClock/schedule(at:_:)``; ``cancel()`` stops it if it has not fired.
public struct PlayerClockTimer: Sendable {
    private let cancelAction: @Sendable () -> Void

    /// A timer that calls `cancel` when cancelled: a clock's way to drop what it scheduled.
    public init(cancel: @escaping @Sendable () -> Void) { cancelAction = cancel }

    /// Stops the timer's action from running, if it has not run yet.
    public func cancel() { cancelAction() }
}
