/// A clock that follows the sound: its time is the duration of the samples played so
/// far, as the sound's consumer reports them (``played(frameCount:)``), so the picture
/// follows the sound the way ffplay's audio master clock makes it. A ``Player`` given
/// this clock moves when the sound does; with no consumer it stands still.
///
/// A test drives it as it would a manual clock: `clock.played(frameCount: 4800)` moves the
/// time 0.1 s at 48 kHz and runs the player's timers due by then.
public final class SoundClock: PlayerClock {
    /// The rate of the sound it follows, in sample frames per second.
    public let sampleRate: Int
    private let timers = ScheduledTimers(now: .zero)
    private let frames = Lock<Int64>(0)

    /// A clock at time zero for sound at `sampleRate` (more than 0).
    public init(sampleRate: Int) {
        precondition(sampleRate > 0, "a sound clock needs a positive sample rate")
        self.sampleRate = sampleRate
    }

    public var now: MediaTime { timers.now }

    /// How many sample frames have been played in all.
    public var playedFrameCount: Int64 { frames.withLock { $0 } }

    public func schedule(at deadline: MediaTime, _ action: @escaping @Sendable () -> Void) -> PlayerClockTimer {
        timers.schedule(at: deadline, action)
    }

    /// The consumer played `frameCount` more sample frames: the time moves on by their
    /// duration, and the timers due run.
    public func played(frameCount: Int) {
        let total = frames.withLock { f in
            f += Int64(max(0, frameCount))
            return f
        }
        timers.advance(to: MediaTime(value: total, timescale: Int32(clamping: sampleRate)))
    }
}
