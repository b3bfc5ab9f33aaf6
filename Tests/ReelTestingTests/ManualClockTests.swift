import ReelComposition
import ReelTesting
import Testing

@Suite struct ManualClockTests {
    static func t(_ tenths: Int64) -> MediaTime { MediaTime(value: tenths, timescale: 10) }

    @Test func timeMovesOnlyWhenAdvanced() {
        let clock = ManualClock()
        #expect(clock.now == .zero)
        clock.advance(by: Self.t(5))
        #expect(clock.now == Self.t(5))
        clock.advance(to: Self.t(2))
        #expect(clock.now == Self.t(5), "never back")
    }

    @Test func timersRunInDeadlineOrderWithNowAtTheirDeadline() {
        let clock = ManualClock()
        let seen = Lock<[(Int, MediaTime)]>([])
        _ = clock.schedule(at: Self.t(3)) { seen.withLock { $0.append((3, clock.now)) } }
        _ = clock.schedule(at: Self.t(1)) { seen.withLock { $0.append((1, clock.now)) } }
        _ = clock.schedule(at: Self.t(9)) { seen.withLock { $0.append((9, clock.now)) } }
        #expect(clock.pendingTimerCount == 3)
        #expect(clock.nextDeadline == Self.t(1))
        clock.advance(by: Self.t(5))
        #expect(seen.withLock { $0.map(\.0) } == [1, 3])
        #expect(seen.withLock { $0.map(\.1) } == [Self.t(1), Self.t(3)])
        #expect(clock.pendingTimerCount == 1)
    }

    @Test func aTimerDueIsNotRunOnTheSchedulersStack() {
        let clock = ManualClock(now: Self.t(4))
        let ran = Lock(false)
        _ = clock.schedule(at: Self.t(2)) { ran.withLock { $0 = true } }
        #expect(ran.withLock { $0 } == false)
        clock.advance(by: .zero)
        #expect(ran.withLock { $0 })
    }

    @Test func timersScheduledWhileAdvancingRunWhenDue() {
        let clock = ManualClock()
        let count = Lock(0)
        @Sendable func chain() {
            count.withLock { $0 += 1 }
            _ = clock.schedule(at: clock.now + Self.t(1), chain)
        }
        _ = clock.schedule(at: Self.t(1), chain)
        clock.advance(by: Self.t(10))
        #expect(count.withLock { $0 } == 10)
        #expect(clock.nextDeadline == Self.t(11))
    }

    @Test func aCancelledTimerDoesNotRun() {
        let clock = ManualClock()
        let ran = Lock(false)
        let timer = clock.schedule(at: Self.t(1)) { ran.withLock { $0 = true } }
        timer.cancel()
        clock.advance(by: Self.t(2))
        #expect(ran.withLock { $0 } == false)
        #expect(clock.pendingTimerCount == 0)
    }
}
