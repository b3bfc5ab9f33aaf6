import Foundation
import PropertyBased
import ReelCore
import Testing

/// `value/timescale` shorthand.
func t(_ value: Int64, _ timescale: Int32 = 1) -> MediaTime { MediaTime(value: value, timescale: timescale) }

/// `[start, start + duration)` shorthand, in seconds.
func r(_ start: Int64, _ duration: Int64, _ timescale: Int32 = 1) -> TimeRange {
    TimeRange(start: t(start, timescale), duration: t(duration, timescale))
}

@Suite("TimeRange")
struct TimeRangeTests {
    @Test func endAndInitFromEnd() {
        let range = TimeRange(start: t(1001, 30000), duration: t(1, 90000))
        #expect(same(range.end, t(3004, 90000)))
        let fromEnd = TimeRange(start: t(1, 2), end: t(5, 3))
        #expect(same(fromEnd.duration, t(7, 6)))
        #expect(fromEnd.end == t(5, 3))
        #expect(TimeRange(start: .zero, duration: .positiveInfinity).end.isPositiveInfinity)
        #expect(!TimeRange.invalid.end.isValid)
    }

    @Test func validity() {
        #expect(r(0, 1).isValid)
        #expect(TimeRange.zero.isValid && TimeRange.zero.isEmpty)
        #expect(!TimeRange.invalid.isValid)
        #expect(!r(0, -1).isValid)  // negative duration
        #expect(!TimeRange(start: .zero, duration: MediaTime(value: 1, timescale: 1, epoch: 1)).isValid)
        #expect(!TimeRange(start: .invalid, duration: t(1)).isValid)
        #expect(!TimeRange(start: .zero, duration: .invalid).isValid)
        #expect(!TimeRange(start: .zero, duration: .negativeInfinity).isValid)
        #expect(TimeRange(start: .zero, duration: .positiveInfinity).isValid)
        #expect(TimeRange(start: MediaTime(value: 3, timescale: 1, epoch: 2), duration: t(1)).isValid)  // start may have an epoch
        // Indefinite ranges are valid.
        let indefiniteStart = TimeRange(start: .indefinite, duration: t(1))
        let indefiniteDuration = TimeRange(start: .zero, duration: .indefinite)
        #expect(indefiniteStart.isValid && indefiniteStart.isIndefinite)
        #expect(indefiniteDuration.isValid && indefiniteDuration.isIndefinite)
        #expect(!r(0, 1).isIndefinite)
    }

    @Test func emptiness() {
        #expect(r(5, 0).isEmpty)
        #expect(TimeRange(start: t(5), duration: t(0, 90000)).isEmpty)
        #expect(!r(5, 1).isEmpty)
        #expect(!TimeRange.invalid.isEmpty)
        #expect(!r(5, 0).containsTime(t(5)))
    }

    @Test(
        arguments: [
            (t(0), true), (t(1, 2), true), (t(999_999, 1_000_000), true), (t(1), false), (t(-1, 90000), false),
            (t(2), false), (.invalid, false), (.indefinite, false), (.positiveInfinity, false), (.negativeInfinity, false),
            (MediaTime(value: 1, timescale: 2, epoch: 1), false),
        ] as [(MediaTime, Bool)])
    func containsTimeIsHalfOpen(time: MediaTime, expected: Bool) {
        #expect(r(0, 1).containsTime(time) == expected)
    }

    @Test func containsTimeInSpecialRanges() {
        let forever = TimeRange(start: .zero, duration: .positiveInfinity)
        #expect(forever.containsTime(t(Int64.max)))
        #expect(!forever.containsTime(.positiveInfinity))
        #expect(!TimeRange.invalid.containsTime(.zero))
        #expect(!TimeRange.invalid.containsTime(.invalid))
    }

    @Test func containsTimeRange() {
        let outer = r(0, 10)
        #expect(outer.containsTimeRange(r(0, 10)))
        #expect(outer.containsTimeRange(r(2, 3)))
        #expect(outer.containsTimeRange(r(10, 0)))  // an empty range at the end
        #expect(!outer.containsTimeRange(r(-1, 2)))
        #expect(!outer.containsTimeRange(r(9, 2)))
        #expect(!outer.containsTimeRange(.invalid))
        #expect(!TimeRange.invalid.containsTimeRange(r(0, 1)))
        #expect(TimeRange(start: .zero, duration: .positiveInfinity).containsTimeRange(r(5, 1_000_000)))
    }

    @Test func intersection() {
        #expect(r(0, 10).intersection(r(5, 10)) == r(5, 5))
        #expect(r(0, 10).intersection(r(2, 3)) == r(2, 3))
        // Touching and disjoint ranges give an empty range at the later start.
        #expect(r(0, 10).intersection(r(10, 5)) == r(10, 0))
        #expect(r(0, 1).intersection(r(5, 1)) == r(5, 0))
        #expect(r(5, 1).intersection(r(0, 1)) == r(5, 0))
        // Mixed timescales stay exact.
        let a = TimeRange(start: t(1001, 30000), duration: t(1, 2))
        let b = TimeRange(start: t(1, 10), duration: t(1, 1))
        #expect(same(a.intersection(b).start, t(1, 10)))
        #expect(a.intersection(b).end == a.end)
        #expect(!r(0, 1).intersection(.invalid).isValid)
        let forever = TimeRange(start: .zero, duration: .positiveInfinity)
        #expect(forever.intersection(r(3, 4)) == r(3, 4))
    }

    @Test func union() {
        #expect(r(0, 10).union(r(5, 10)) == r(0, 15))
        #expect(r(0, 1).union(r(5, 1)) == r(0, 6))  // the gap is included
        #expect(r(5, 1).union(r(0, 1)) == r(0, 6))
        #expect(!r(0, 1).union(.invalid).isValid)
        #expect(r(3, 1).union(TimeRange(start: .zero, duration: .positiveInfinity)).end.isPositiveInfinity)
    }

    @Test func clamp() {
        #expect(r(2, 3).clamp(t(1)) == t(2))
        #expect(r(2, 3).clamp(t(3)) == t(3))
        #expect(r(2, 3).clamp(t(9)) == t(5))
        #expect(r(2, 3).clamp(.negativeInfinity) == t(2))
        #expect(r(2, 3).clamp(.positiveInfinity) == t(5))
        #expect(!r(2, 3).clamp(.invalid).isValid)
        #expect(!TimeRange.invalid.clamp(t(1)).isValid)
    }

    @Test func mapTimeBetweenRanges() {
        // Same duration: a shift, exact.
        #expect(same(TimeRange.mapTime(t(1001, 30000), from: r(0, 10), to: r(5, 10)), t(5 * 30000 + 1001, 30000)))
        // Double speed: twice the offset.
        #expect(TimeRange.mapTime(t(3), from: r(0, 10), to: r(100, 20)) == t(106))
        // NTSC frames onto a 25 fps range of the same frame count: frame n goes to frame n.
        let ntsc = TimeRange(start: .zero, duration: t(1001 * 250, 30000))
        let pal = TimeRange(start: .zero, duration: t(250, 25))
        for frame: Int64 in [0, 1, 7, 249] {
            let mapped = TimeRange.mapTime(t(1001 * frame, 30000), from: ntsc, to: pal)
            #expect(mapped == t(frame, 25))
            #expect(!mapped.hasBeenRounded)
        }
        // Outside the range, the same line.
        #expect(TimeRange.mapTime(t(-1), from: r(0, 10), to: r(0, 20)) == t(-2))
        // Invalid cases.
        #expect(!TimeRange.mapTime(t(1), from: r(0, 0), to: r(0, 1)).isValid)
        #expect(!TimeRange.mapTime(t(1), from: .invalid, to: r(0, 1)).isValid)
        #expect(!TimeRange.mapTime(.indefinite, from: r(0, 1), to: r(0, 1)).isValid)
        #expect(!TimeRange.mapTime(MediaTime(value: 1, timescale: 1, epoch: 1), from: r(0, 1), to: r(0, 1)).isValid)
        // Two infinite ranges: offset only.
        let a = TimeRange(start: t(1), duration: .positiveInfinity), b = TimeRange(start: t(10), duration: .positiveInfinity)
        #expect(TimeRange.mapTime(t(4), from: a, to: b) == t(13))
    }

    @Test func mapDuration() {
        #expect(TimeRange.mapDuration(t(3), from: r(0, 10), to: r(0, 5)) == t(3, 2))
        #expect(same(TimeRange.mapDuration(t(3), from: r(0, 10), to: r(7, 10)), t(3)))
        #expect(!TimeRange.mapDuration(t(3), from: r(0, 0), to: r(0, 5)).isValid)
    }

    @Test func codableRoundTrip() throws {
        let range = TimeRange(start: t(1001, 30000), duration: .positiveInfinity)
        let data = try JSONEncoder().encode(range)
        let back = try JSONDecoder().decode(TimeRange.self, from: data)
        #expect(same(back.start, range.start) && back.duration.isPositiveInfinity)
    }

    @Test func descriptions() {
        #expect(r(1, 2).description == "[1/1, 3/1)")
        #expect(TimeRange.invalid.description == "invalid")
    }

    // MARK: Laws

    @Test func intersectionCommutesAndLiesInBoth() async {
        await propertyCheck(count: 300, input: TimeGen.range, TimeGen.range) { a, b in
            let i = a.intersection(b), j = b.intersection(a)
            #expect(i == j)
            #expect(i.isValid)
            if !i.isEmpty {
                #expect(a.containsTimeRange(i))
                #expect(b.containsTimeRange(i))
            }
        }
    }

    @Test func unionCommutesAndHoldsBoth() async {
        await propertyCheck(count: 300, input: TimeGen.range, TimeGen.range) { a, b in
            let u = a.union(b)
            #expect(u == b.union(a))
            #expect(u.containsTimeRange(a))
            #expect(u.containsTimeRange(b))
        }
    }

    @Test func membershipMatchesTheBounds() async {
        await propertyCheck(count: 300, input: TimeGen.range, TimeGen.range, TimeGen.small) { a, b, time in
            #expect(a.containsTime(time) == (time >= a.start && time < a.end))
            // A time is in the intersection exactly when it is in both ranges.
            #expect(a.intersection(b).containsTime(time) == (a.containsTime(time) && b.containsTime(time)))
            if a.union(b).containsTime(time) == false {
                #expect(!a.containsTime(time) && !b.containsTime(time))
            }
            #expect(a.containsTime(a.clamp(time)) || a.isEmpty || a.clamp(time) == a.end)
        }
    }

    @Test func mappingThereAndBackIsExact() async {
        await propertyCheck(count: 300, input: TimeGen.range, TimeGen.range, TimeGen.small) { a, b, time in
            guard !a.isEmpty, !b.isEmpty else { return }
            let there = TimeRange.mapTime(time, from: a, to: b)
            guard there.isNumeric, !there.hasBeenRounded else { return }
            // Exact both ways unless the way back must round (its timescale would exceed the
            // maximum); then it is within half a tick.
            let back = TimeRange.mapTime(there, from: b, to: a)
            if back.hasBeenRounded {
                #expect(abs(back.seconds - time.seconds) <= 0.5 / Double(back.timescale) + 1e-15)
            } else {
                #expect(back == time)
            }
            #expect(TimeRange.mapTime(a.start, from: a, to: b) == b.start)
        }
    }
}
