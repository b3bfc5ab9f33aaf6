import Foundation
import PropertyBased
import ReelCore
import Testing

@Suite("TimeMapping")
struct TimeMappingTests {
    @Test func emptyEdit() {
        let empty = TimeMapping(emptyTarget: r(5, 2))
        #expect(empty.isEmpty)
        #expect(empty.isValid)
        #expect(!empty.source.isValid)
        #expect(empty.rate == 0)
        #expect(empty.sourceTime(forTargetTime: t(6)) == nil)
        #expect(empty.targetTime(forSourceTime: t(6)) == nil)
        #expect(empty.description == "empty -> [5/1, 7/1)")
        // An invalid target is neither empty nor valid.
        let broken = TimeMapping(emptyTarget: .invalid)
        #expect(!broken.isEmpty && !broken.isValid)
        #expect(!TimeMapping(source: .invalid, target: .invalid).isValid)
    }

    @Test func equalDurationsShiftExactly() {
        let m = TimeMapping(source: TimeRange(start: t(1001, 30000), duration: t(10)), target: r(100, 10))
        #expect(m.isValid && !m.isEmpty)
        #expect(m.rate == 1)
        let s = m.sourceTime(forTargetTime: t(100))
        #expect(s.map { same($0, t(1001, 30000)) } == true)
        // Every frame of 30000/1001 video maps without drift.
        for frame: Int64 in [0, 1, 2, 299] {
            let target = t(100 * 30000 + 1001 * frame, 30000)
            let source = m.sourceTime(forTargetTime: target)
            #expect(source == t(1001 * (frame + 1), 30000))
            #expect(source?.hasBeenRounded == false)
            #expect(source.flatMap { m.targetTime(forSourceTime: $0) } == target)
        }
    }

    @Test func scaledDurationsAreExact() {
        // 10 s of source over 5 s of target: double speed.
        let fast = TimeMapping(source: r(0, 10), target: r(20, 5))
        #expect(fast.rate == 2)
        #expect(fast.sourceTime(forTargetTime: t(21)) == t(2))
        #expect(fast.sourceTime(forTargetTime: t(41, 2)) == t(1))
        #expect(fast.targetTime(forSourceTime: t(3)) == t(43, 2))
        // Slow motion by 1001/1000: offsets scale by an exact ratio.
        let slow = TimeMapping(source: r(0, 1000), target: r(0, 1001))
        let source = slow.sourceTime(forTargetTime: t(1001, 30000))
        #expect(source == t(1, 30))
        #expect(source?.hasBeenRounded == false)
        // A third of a second at 3x: 1/9 s exactly, with no common timescale to round to.
        let third = TimeMapping(source: r(0, 3), target: r(0, 1))
        #expect(third.sourceTime(forTargetTime: t(1, 27)) == t(1, 9))
    }

    @Test func timesOutsideTheTargetMapToNothing() {
        let m = TimeMapping(source: r(0, 10), target: r(20, 10))
        #expect(m.sourceTime(forTargetTime: t(19)) == nil)
        #expect(m.sourceTime(forTargetTime: t(30)) == nil)  // half-open: the end is outside
        #expect(m.sourceTime(forTargetTime: t(20)) == t(0))
        #expect(m.sourceTime(forTargetTime: .invalid) == nil)
        #expect(m.sourceTime(forTargetTime: .positiveInfinity) == nil)
        #expect(m.targetTime(forSourceTime: t(10)) == nil)
    }

    @Test func codableRoundTrip() throws {
        let mappings = [TimeMapping(source: r(1, 2), target: r(3, 4)), TimeMapping(emptyTarget: r(0, 1))]
        let back = try JSONDecoder().decode([TimeMapping].self, from: JSONEncoder().encode(mappings))
        #expect(back == mappings)
        #expect(back[1].isEmpty)
    }

    @Test func sourceAndTargetTimesInvertEachOther() async {
        await propertyCheck(count: 300, input: TimeGen.range, TimeGen.range, Gen.int64(in: 0...1000)) { source, target, step in
            guard !source.isEmpty, !target.isEmpty else { return }
            let m = TimeMapping(source: source, target: target)
            // A time inside the target: start + step/1000 of the duration.
            let time = target.start + target.duration.multiplied(byRatio: Int32(step), 1001)
            guard let s = m.sourceTime(forTargetTime: time), !s.hasBeenRounded else { return }
            #expect(source.containsTime(s))
            let back = m.targetTime(forSourceTime: s)
            if let back, back.hasBeenRounded {
                #expect(abs(back.seconds - time.seconds) <= 0.5 / Double(back.timescale) + 1e-15)
            } else {
                #expect(back == time)
            }
        }
    }
}
