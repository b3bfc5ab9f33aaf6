import PropertyBased
import ReelCore
import Testing

@Suite("MediaTime: ticks of a rational time base")
struct MediaTimeTicksTests {
    @Test func ticksToTime() {
        #expect(same(MediaTime(ticks: 7, numerator: 1001, denominator: 30000), MediaTime(value: 7007, timescale: 30000)))
        #expect(same(MediaTime(ticks: 5, numerator: 2, denominator: 60), MediaTime(value: 5, timescale: 30)))
        #expect(same(MediaTime(ticks: -3, numerator: 1, denominator: 90000), MediaTime(value: -3, timescale: 90000)))
        #expect(!MediaTime(ticks: 1, numerator: 0, denominator: 1).isValid)
        #expect(!MediaTime(ticks: 1, numerator: 1, denominator: -1).isValid)
        let huge = MediaTime(ticks: .max, numerator: 3, denominator: 4)
        #expect(huge.isNumeric && huge.timescale == 1 && huge.hasBeenRounded)
        #expect(MediaTime(ticks: .max, numerator: 3, denominator: 1).isPositiveInfinity)
        #expect(MediaTime(ticks: .min, numerator: 3, denominator: 1).isNegativeInfinity)
    }

    @Test(arguments: Rounding.allCases)
    func timeToTicks(method: Rounding) {
        // 1 s = 29.97 ticks of 1001/30000; the tick is finer than 1/1, so QuickTime rounds away from zero.
        let second = MediaTime(value: 1, timescale: 1)
        let expected: Int64 =
            switch method {
            case .roundHalfAwayFromZero, .roundAwayFromZero, .roundTowardPositiveInfinity, .quickTime: 30
            case .roundTowardZero, .roundTowardNegativeInfinity: 29
            }
        // 1/30 s in 1001/30000 ticks is 0.999: the tick is coarser than 1/30000, so QuickTime
        // rounds toward zero, but a negative time never becomes 0.
        let frame = MediaTime(value: 1000, timescale: 30000)
        #expect(frame.ticks(numerator: 1001, denominator: 30000, method: .quickTime) == 0)
        #expect((-frame).ticks(numerator: 1001, denominator: 30000, method: .quickTime) == -1)
        #expect(second.ticks(numerator: 1001, denominator: 30000, method: method) == expected)
        // -1/3 s in ticks of 1/10 s: a larger timescale, so QuickTime rounds away from zero.
        let third = MediaTime(value: -1, timescale: 3)
        let tenths: Int64 =
            switch method {
            case .roundHalfAwayFromZero, .roundTowardZero, .roundTowardPositiveInfinity: -3
            case .roundAwayFromZero, .roundTowardNegativeInfinity, .quickTime: -4
            }
        #expect(third.ticks(numerator: 1, denominator: 10, method: method) == tenths)
        #expect(MediaTime.indefinite.ticks(numerator: 1, denominator: 10, method: method) == nil)
        #expect(MediaTime(value: .max, timescale: 1).ticks(numerator: 1, denominator: 2, method: method) == nil)
        #expect(MediaTime(value: 1, timescale: 1).ticks(numerator: 0, denominator: 2, method: method) == nil)
    }

    @Test func ticksRoundTrip() async {
        await propertyCheck(
            count: 300, input: Gen.int64(in: -1_000_000_000_000...1_000_000_000_000),
            Gen.int32(in: 1...100_000), Gen.int32(in: 1...100_000)
        ) { ticks, num, den in
            let time = MediaTime(ticks: ticks, numerator: num, denominator: den)
            #expect(!time.hasBeenRounded)
            #expect(time.ticks(numerator: num, denominator: den, method: .roundTowardZero) == ticks)
            #expect(time.ticks(numerator: num, denominator: den, method: .roundAwayFromZero) == ticks)
        }
    }
}
