import PropertyBased
import ReelCore
import Testing

typealias Rounding = MediaTime.RoundingMethod

/// One conversion and its expected value under each rounding method, in the order
/// halfAway, towardZero, awayFromZero, quickTime, towardPositiveInfinity, towardNegativeInfinity.
struct ConversionCase: Sendable, CustomTestStringConvertible {
    let value: Int64
    let from: Int32
    let to: Int32
    let expected: [Int64]
    var testDescription: String { "\(value)/\(from) -> /\(to)" }

    init(_ value: Int64, _ from: Int32, _ to: Int32, _ expected: [Int64]) {
        self.value = value
        self.from = from
        self.to = to
        self.expected = expected
    }

    func expected(_ method: Rounding) -> Int64 {
        switch method {
        case .roundHalfAwayFromZero: expected[0]
        case .roundTowardZero: expected[1]
        case .roundAwayFromZero: expected[2]
        case .quickTime: expected[3]
        case .roundTowardPositiveInfinity: expected[4]
        case .roundTowardNegativeInfinity: expected[5]
        }
    }

    /// Whether the conversion is exact (then every method gives the same value, unflagged).
    var isExact: Bool { (Int128(value) * Int128(to)) % Int128(from) == 0 }
}

@Suite("MediaTime: conversion, sums, products, overflow")
struct MediaTimeArithmeticTests {
    // A table, aligned by column under its header.
    // swift-format-ignore
    static let conversions: [ConversionCase] = [
        //                                 half  tZero away  QT   +inf -inf
        // To a smaller timescale (QuickTime rounds toward zero).
        ConversionCase(25, 10, 1,         [3,    2,    3,    2,   3,   2]),     // 2.5, an exact half
        ConversionCase(-25, 10, 1,        [-3,   -2,   -3,   -2,  -2,  -3]),    // -2.5
        ConversionCase(24, 10, 1,         [2,    2,    3,    2,   3,   2]),     // 2.4
        ConversionCase(-24, 10, 1,        [-2,   -2,   -3,   -2,  -2,  -3]),    // -2.4
        ConversionCase(26, 10, 1,         [3,    2,    3,    2,   3,   2]),     // 2.6
        ConversionCase(-26, 10, 1,        [-3,   -2,   -3,   -2,  -2,  -3]),    // -2.6
        ConversionCase(3, 10, 1,          [0,    0,    1,    0,   1,   0]),     // 0.3
        ConversionCase(-3, 10, 1,         [0,    0,    -1,   -1,  0,   -1]),    // -0.3: QuickTime never gives 0
        ConversionCase(-5, 10, 1,         [-1,   0,    -1,   -1,  0,   -1]),    // -0.5
        ConversionCase(5, 10, 1,          [1,    0,    1,    0,   1,   0]),     // 0.5
        ConversionCase(-1, 90000, 1000,   [0,    0,    -1,   -1,  0,   -1]),    // -0.0111
        ConversionCase(1001, 30000, 1000, [33,   33,   34,   33,  34,  33]),    // 33.3667
        ConversionCase(-1001, 30000, 1000, [-33, -33,  -34,  -33, -33, -34]),
        ConversionCase(1, 2000, 1000,     [1,    0,    1,    0,   1,   0]),     // 0.5
        ConversionCase(-1, 2000, 1000,    [-1,   0,    -1,   -1,  0,   -1]),    // -0.5
        // To a larger timescale that is not a multiple (QuickTime rounds away from zero).
        ConversionCase(1, 3, 10,          [3,    3,    4,    4,   4,   3]),     // 3.333
        ConversionCase(-1, 3, 10,         [-3,   -3,   -4,   -4,  -3,  -4]),    // -3.333
        ConversionCase(2, 3, 10,          [7,    6,    7,    7,   7,   6]),     // 6.667
        ConversionCase(-2, 3, 10,         [-7,   -6,   -7,   -7,  -6,  -7]),    // -6.667
        ConversionCase(1, 4, 6,           [2,    1,    2,    2,   2,   1]),     // 1.5, an exact half
        ConversionCase(-1, 4, 6,          [-2,   -1,   -2,   -2,  -1,  -2]),    // -1.5
        // Exact conversions: the same for every method.
        ConversionCase(1001, 30000, 90000, [3003, 3003, 3003, 3003, 3003, 3003]),
        ConversionCase(-3003, 90000, 30000, [-1001, -1001, -1001, -1001, -1001, -1001]),
        ConversionCase(0, 7, 3,           [0,    0,    0,    0,   0,   0]),
        ConversionCase(Int64.max, 1, 1,   [.max, .max, .max, .max, .max, .max]),
        // Near the ends of Int64: exact 128-bit intermediate products.
        ConversionCase(Int64.max, 1000, 1, [9_223_372_036_854_776, 9_223_372_036_854_775, 9_223_372_036_854_776,
                                            9_223_372_036_854_775, 9_223_372_036_854_776, 9_223_372_036_854_775]),
        ConversionCase(Int64.min, 1000, 1, [-9_223_372_036_854_776, -9_223_372_036_854_775, -9_223_372_036_854_776,
                                            -9_223_372_036_854_775, -9_223_372_036_854_775, -9_223_372_036_854_776]),
        ConversionCase(Int64.max, Int32.max, Int32.max - 1, [9_223_372_032_559_808_509, 9_223_372_032_559_808_508,
                                                             9_223_372_032_559_808_509, 9_223_372_032_559_808_508,
                                                             9_223_372_032_559_808_509, 9_223_372_032_559_808_508]),
    ]

    @Test(arguments: conversions, Rounding.allCases)
    func convertScale(_ c: ConversionCase, method: Rounding) {
        let t = MediaTime(value: c.value, timescale: c.from, epoch: 4).convertScale(c.to, method: method)
        #expect(t.isNumeric)
        #expect(t.value == c.expected(method))
        #expect(t.timescale == c.to)
        #expect(t.epoch == 4)
        #expect(t.hasBeenRounded == !c.isExact)
    }

    @Test(arguments: Rounding.allCases)
    func convertScaleSpecialCases(method: Rounding) {
        #expect(MediaTime.positiveInfinity.convertScale(600, method: method).isPositiveInfinity)
        #expect(MediaTime.negativeInfinity.convertScale(600, method: method).isNegativeInfinity)
        #expect(MediaTime.indefinite.convertScale(600, method: method).isIndefinite)
        #expect(!MediaTime.invalid.convertScale(600, method: method).isValid)
        #expect(!MediaTime(value: 1, timescale: 2).convertScale(0, method: method).isValid)
        #expect(!MediaTime(value: 1, timescale: 2).convertScale(-600, method: method).isValid)
        // Overflow gives an infinity of the value's sign.
        #expect(MediaTime(value: .max, timescale: 1).convertScale(2, method: method).isPositiveInfinity)
        #expect(MediaTime(value: .min, timescale: 1).convertScale(2, method: method).isNegativeInfinity)
        // A rounded time stays rounded even through an exact conversion.
        let rounded = MediaTime(value: 1, timescale: 3, flags: [.valid, .hasBeenRounded], epoch: 0)
        #expect(rounded.convertScale(6, method: method).hasBeenRounded)
    }

    // MARK: Special values in sums and differences

    static let n = MediaTime(value: 1, timescale: 2)
    static let addTable: [(NamedTime, NamedTime, NamedTime)] = {
        let inv = NamedTime("invalid", .invalid), ind = NamedTime("indefinite", .indefinite)
        let pos = NamedTime("+inf", .positiveInfinity), neg = NamedTime("-inf", .negativeInfinity)
        let num = NamedTime("1/2", n), one = NamedTime("1/1", MediaTime(value: 1, timescale: 1))
        return [
            (inv, num, inv), (num, inv, inv), (inv, pos, inv), (neg, inv, inv), (inv, ind, inv), (inv, inv, inv),
            (pos, pos, pos), (neg, neg, neg), (pos, neg, inv), (neg, pos, inv),
            (pos, num, pos), (num, pos, pos), (neg, num, neg), (num, neg, neg),
            (pos, ind, pos), (ind, pos, pos), (neg, ind, neg), (ind, neg, neg),
            (ind, num, ind), (num, ind, ind), (ind, ind, ind),
            (num, num, one),
        ]
    }()

    @Test(arguments: addTable)
    func addSpecialValues(lhs: NamedTime, rhs: NamedTime, expected: NamedTime) {
        let sum = lhs.time + rhs.time
        #expect(MediaTime.compare(sum, expected.time) == 0, "\(lhs.name) + \(rhs.name) = \(sum), expected \(expected.name)")
    }

    static let subtractTable: [(NamedTime, NamedTime, NamedTime)] = {
        let inv = NamedTime("invalid", .invalid), ind = NamedTime("indefinite", .indefinite)
        let pos = NamedTime("+inf", .positiveInfinity), neg = NamedTime("-inf", .negativeInfinity)
        let num = NamedTime("1/2", n), zero = NamedTime("0", .zero)
        return [
            (inv, num, inv), (num, inv, inv), (inv, pos, inv), (neg, inv, inv), (inv, inv, inv),
            (pos, pos, inv), (neg, neg, inv), (pos, neg, pos), (neg, pos, neg),
            (pos, num, pos), (num, pos, neg), (neg, num, neg), (num, neg, pos),
            (pos, ind, pos), (ind, pos, neg), (neg, ind, neg), (ind, neg, pos),
            (ind, num, ind), (num, ind, ind), (ind, ind, ind),
            (num, num, zero),
        ]
    }()

    @Test(arguments: subtractTable)
    func subtractSpecialValues(lhs: NamedTime, rhs: NamedTime, expected: NamedTime) {
        let difference = lhs.time - rhs.time
        #expect(
            MediaTime.compare(difference, expected.time) == 0,
            "\(lhs.name) - \(rhs.name) = \(difference), expected \(expected.name)")
    }

    @Test func negation() {
        #expect(same(-MediaTime(value: 3, timescale: 7, epoch: 2), MediaTime(value: -3, timescale: 7, epoch: 2)))
        #expect((-MediaTime.positiveInfinity).isNegativeInfinity)
        #expect((-MediaTime.negativeInfinity).isPositiveInfinity)
        #expect((-MediaTime.indefinite).isIndefinite)
        #expect(!(-MediaTime.invalid).isValid)
        #expect((-MediaTime(value: .min, timescale: 1)).isPositiveInfinity)
    }

    // MARK: Exact sums

    @Test func sumsUseTheLeastCommonMultiple() {
        let a = MediaTime(value: 1, timescale: 2) + MediaTime(value: 1, timescale: 3)
        #expect(same(a, MediaTime(value: 5, timescale: 6)))
        let b = MediaTime(value: 1001, timescale: 30000) + MediaTime(value: 1, timescale: 90000)
        #expect(same(b, MediaTime(value: 3004, timescale: 90000)))
        let c = MediaTime(value: 1, timescale: 2) + MediaTime(value: 1, timescale: 2)
        #expect(same(c, MediaTime(value: 2, timescale: 2)))  // not reduced
        let d = MediaTime(value: 1, timescale: 48000) - MediaTime(value: 1, timescale: 44100)
        #expect(same(d, MediaTime(value: 147 - 160, timescale: 7_056_000)))
    }

    @Test func epochs() {
        let t2 = MediaTime(value: 1, timescale: 1, epoch: 2)
        let d = MediaTime(value: 1, timescale: 1)
        #expect(same(t2 + d, MediaTime(value: 2, timescale: 1, epoch: 2)))
        #expect(same(d + t2, MediaTime(value: 2, timescale: 1, epoch: 2)))
        #expect(same(t2 - d, MediaTime(value: 0, timescale: 1, epoch: 2)))
        // Same nonzero epoch: the result is a duration.
        #expect(same(MediaTime(value: 3, timescale: 1, epoch: 2) - t2, MediaTime(value: 2, timescale: 1)))
        #expect(same(t2 + t2, MediaTime(value: 2, timescale: 1)))
        // Different nonzero epochs cannot be combined.
        #expect(!(t2 + MediaTime(value: 1, timescale: 1, epoch: 3)).isValid)
        #expect(!(t2 - MediaTime(value: 1, timescale: 1, epoch: 3)).isValid)
    }

    @Test func roundedOperandsGiveRoundedSums() {
        let rounded = MediaTime(value: 1, timescale: 3, flags: [.valid, .hasBeenRounded], epoch: 0)
        let exact = MediaTime(value: 1, timescale: 3)
        #expect((rounded + exact).hasBeenRounded)
        #expect((exact - rounded).hasBeenRounded)
        #expect(!(exact + exact).hasBeenRounded)
        #expect((rounded * 2).hasBeenRounded)
    }

    // MARK: Overflow

    @Test func sumOverflowHalvesTheTimescale() {
        // 2^63 / 2 fits at timescale 1, exactly.
        let a = MediaTime(value: .max, timescale: 2) + MediaTime(value: 1, timescale: 2)
        #expect(same(a, MediaTime(value: 1 << 62, timescale: 1)))
        // 2^63 / 3 must round at timescale 1.
        let b = MediaTime(value: .max, timescale: 3) + MediaTime(value: 1, timescale: 3)
        #expect(b.value == 3_074_457_345_618_258_603 && b.timescale == 1 && b.hasBeenRounded)
        // Nothing fits, even at timescale 1.
        #expect((MediaTime(value: .max, timescale: 1) + MediaTime(value: 1, timescale: 1)).isPositiveInfinity)
        #expect((MediaTime(value: .min, timescale: 1) - MediaTime(value: 1, timescale: 1)).isNegativeInfinity)
        #expect((MediaTime(value: .min, timescale: 1) + MediaTime(value: .min, timescale: 1)).isNegativeInfinity)
        // Int64.min - Int64.min is exactly zero, no overflow.
        #expect(same(MediaTime(value: .min, timescale: 1) - MediaTime(value: .min, timescale: 1), .zero))
    }

    @Test func sumBeyondTheMaximumTimescaleRounds() {
        let a = MediaTime(value: 1, timescale: Int32.max) + MediaTime(value: 1, timescale: Int32.max - 1)
        #expect(a.timescale == MediaTime.maxTimescale && a.value == 2 && a.hasBeenRounded)
        let exact = Double(1) / Double(Int32.max) + Double(1) / Double(Int32.max - 1)
        #expect(abs(a.seconds - exact) <= 0.5 / Double(Int32.max))
    }

    @Test func multiplyByInteger() {
        #expect(same(MediaTime(value: 1001, timescale: 30000) * 3, MediaTime(value: 3003, timescale: 30000)))
        #expect(same(MediaTime(value: 5, timescale: 7, epoch: 1) * -2, MediaTime(value: -10, timescale: 7, epoch: 1)))
        #expect(same(MediaTime(value: 1, timescale: 1) * Int32.min, MediaTime(value: Int64(Int32.min), timescale: 1)))
        #expect(same(MediaTime(value: 9, timescale: 4) * 0, MediaTime(value: 0, timescale: 4)))
        // Overflow: 2^62/1000 * 4 = 2^64/1000 fits after two halvings, exactly.
        let big = MediaTime(value: 1 << 62, timescale: 1000) * 4
        #expect(same(big, MediaTime(value: 1 << 62, timescale: 250)))
        let odd = MediaTime(value: .min, timescale: 3) * -1
        #expect(odd.value == 3_074_457_345_618_258_603 && odd.timescale == 1 && odd.hasBeenRounded)
        #expect((MediaTime(value: .max, timescale: 1) * 2).isPositiveInfinity)
        #expect((MediaTime(value: .max, timescale: 1) * -2).isNegativeInfinity)
        #expect((MediaTime(value: .min, timescale: 1) * -1).isPositiveInfinity)
        // Special values.
        #expect((MediaTime.positiveInfinity * 3).isPositiveInfinity)
        #expect((MediaTime.positiveInfinity * -3).isNegativeInfinity)
        #expect((MediaTime.negativeInfinity * -3).isPositiveInfinity)
        #expect(!(MediaTime.positiveInfinity * 0).isValid)
        #expect((MediaTime.indefinite * 0).isIndefinite)
        #expect(!(MediaTime.invalid * 2).isValid)
    }

    @Test func multiplyByRatio() {
        #expect(same(MediaTime(value: 1, timescale: 30).multiplied(byRatio: 1, 2), MediaTime(value: 1, timescale: 60)))
        #expect(same(MediaTime(value: 10, timescale: 30).multiplied(byRatio: 1, 2), MediaTime(value: 5, timescale: 30)))
        #expect(same(MediaTime(value: 3, timescale: 30).multiplied(byRatio: 2, 4), MediaTime(value: 3, timescale: 60)))
        #expect(same(MediaTime(value: 3, timescale: 30).multiplied(byRatio: -1, -2), MediaTime(value: 3, timescale: 60)))
        #expect(same(MediaTime(value: 3, timescale: 30).multiplied(byRatio: 1, -2), MediaTime(value: -3, timescale: 60)))
        // The timescale times the divisor is too big: the reduced fraction is used.
        let reduced = MediaTime(value: 1001, timescale: 90000).multiplied(byRatio: 30000, 30001)
        #expect(same(reduced, MediaTime(value: 1001, timescale: 90003)))
        let r2 = MediaTime(value: 3, timescale: 1_000_000).multiplied(byRatio: 1, 3000)
        #expect(same(r2, MediaTime(value: 1, timescale: 1_000_000_000)))
        // Not representable: rounded at the maximum timescale.
        let r3 = MediaTime(value: 1, timescale: 90000).multiplied(byRatio: 1, 30001)
        #expect(r3.timescale == MediaTime.maxTimescale && r3.value == 1 && r3.hasBeenRounded)
        // Zero divisor.
        #expect(MediaTime(value: 1, timescale: 1).multiplied(byRatio: 1, 0).isPositiveInfinity)
        #expect(MediaTime(value: -1, timescale: 1).multiplied(byRatio: 1, 0).isNegativeInfinity)
        #expect(MediaTime(value: 1, timescale: 1).multiplied(byRatio: -2, 0).isNegativeInfinity)
        #expect(!MediaTime(value: 0, timescale: 1).multiplied(byRatio: 1, 0).isValid)
        #expect(!MediaTime(value: 1, timescale: 1).multiplied(byRatio: 0, 0).isValid)
        // Overflow.
        #expect(MediaTime(value: .max, timescale: 1).multiplied(byRatio: 3, 2).isPositiveInfinity)
        let halved = MediaTime(value: .max, timescale: 2).multiplied(byRatio: 3, 2)
        #expect(halved.timescale == 1 && halved.hasBeenRounded)
        // Special values.
        #expect(MediaTime.positiveInfinity.multiplied(byRatio: -1, 2).isNegativeInfinity)
        #expect(MediaTime.negativeInfinity.multiplied(byRatio: -1, -2).isNegativeInfinity)
        #expect(!MediaTime.positiveInfinity.multiplied(byRatio: 0, 2).isValid)
        #expect(MediaTime.indefinite.multiplied(byRatio: 2, 3).isIndefinite)
        #expect(!MediaTime.invalid.multiplied(byRatio: 2, 3).isValid)
    }

    struct DoubleCase: Sendable, CustomTestStringConvertible {
        let time: MediaTime
        let multiplier: Double
        let method: Rounding
        let value: Int64
        let timescale: Int32
        let rounded: Bool
        var testDescription: String { "\(time) * \(multiplier) \(method)" }
    }

    @Test(arguments: [
        // Timescales below 65536 are doubled until at least 65536.
        DoubleCase(
            time: MediaTime(value: 1, timescale: 30), multiplier: 0.5, method: .default,
            value: 2048, timescale: 122_880, rounded: false),
        DoubleCase(
            time: MediaTime(value: 1, timescale: 1), multiplier: 1.0 / 3.0, method: .default,
            value: 21845, timescale: 65536, rounded: true),
        DoubleCase(
            time: MediaTime(value: 1, timescale: 1), multiplier: 1.0 / 3.0, method: .roundTowardPositiveInfinity,
            value: 21846, timescale: 65536, rounded: true),
        DoubleCase(
            time: MediaTime(value: -1, timescale: 1), multiplier: 1.0 / 3.0, method: .roundTowardPositiveInfinity,
            value: -21845, timescale: 65536, rounded: true),
        DoubleCase(
            time: MediaTime(value: -1, timescale: 1), multiplier: 1.0 / 3.0, method: .roundAwayFromZero,
            value: -21846, timescale: 65536, rounded: true),
        DoubleCase(
            time: MediaTime(value: -1, timescale: 1_000_000), multiplier: 0.1, method: .quickTime,
            value: -1, timescale: 1_000_000, rounded: true),
        DoubleCase(
            time: MediaTime(value: -1, timescale: 1_000_000), multiplier: 0.1, method: .roundTowardZero,
            value: 0, timescale: 1_000_000, rounded: true),
        DoubleCase(
            time: MediaTime(value: 3, timescale: 90000), multiplier: -2, method: .default,
            value: -6, timescale: 90000, rounded: false),
        DoubleCase(
            time: MediaTime(value: 5, timescale: 1_000_000), multiplier: 0.5, method: .default,
            value: 3, timescale: 1_000_000, rounded: true),
        DoubleCase(
            time: MediaTime(value: -5, timescale: 1_000_000), multiplier: 0.5, method: .default,
            value: -3, timescale: 1_000_000, rounded: true),
        // Overflow halves the timescale.
        DoubleCase(
            time: MediaTime(value: 1 << 62, timescale: 1_000_000), multiplier: 4, method: .default,
            value: 1 << 62, timescale: 250_000, rounded: false),
    ])
    func multiplyByDouble(_ c: DoubleCase) {
        let t = c.time.multiplied(by: c.multiplier, method: c.method)
        #expect(t.value == c.value)
        #expect(t.timescale == c.timescale)
        #expect(t.hasBeenRounded == c.rounded)
    }

    @Test func multiplyByDoubleSpecialValues() {
        let one = MediaTime(value: 1, timescale: 1)
        #expect(!one.multiplied(by: .nan).isValid)
        #expect(one.multiplied(by: .infinity).isPositiveInfinity)
        #expect(one.multiplied(by: -.infinity).isNegativeInfinity)
        #expect(!MediaTime.zero.multiplied(by: .infinity).isValid)
        #expect(MediaTime.positiveInfinity.multiplied(by: -2).isNegativeInfinity)
        #expect(!MediaTime.positiveInfinity.multiplied(by: 0).isValid)
        #expect(MediaTime.indefinite.multiplied(by: 2).isIndefinite)
        #expect(!MediaTime.invalid.multiplied(by: 2).isValid)
        #expect(MediaTime(value: .max, timescale: 1).multiplied(by: 2).isPositiveInfinity)
        #expect(MediaTime(value: .max, timescale: 1).multiplied(by: -2).isNegativeInfinity)
    }

    // MARK: Laws

    @Test func additionCommutes() async {
        await propertyCheck(count: 300, input: TimeGen.any, TimeGen.any) { a, b in
            #expect(same(a + b, b + a))
        }
    }

    @Test func subtractionUndoesAddition() async {
        await propertyCheck(count: 300, input: TimeGen.numeric, TimeGen.numeric) { a, b in
            let sum = a + b
            guard !sum.hasBeenRounded else { return }
            #expect((sum - b) == a)
            #expect(!(sum - b).hasBeenRounded)
        }
    }

    @Test func smallSumsAreNeverRounded() async {
        // Timescales up to 1000: the LCM of three stays below the maximum timescale.
        let small = zip(Gen.int64(in: -100_000...100_000), Gen.int32(in: 1...1000))
            .map { pair in MediaTime(value: pair.0, timescale: pair.1) }
        await propertyCheck(count: 300, input: small, small, small) { a, b, c in
            #expect(!(a + b).hasBeenRounded)
            #expect((a + b) + c == a + (b + c))
            #expect((a + b) - b == a)
            #expect(a - a == .zero)
            #expect(-(-a) == a)
            #expect(same(a + .zero, a.convertScale(a.timescale)))
        }
    }

    @Test func convertingToAMultipleIsExact() async {
        await propertyCheck(count: 300, input: TimeGen.numeric, Gen.int32(in: 1...10_000), Gen.case) { (t: MediaTime, k: Int32, method: Rounding) in
            guard let scale = Int32(exactly: Int64(t.timescale) * Int64(k)) else { return }
            let u = t.convertScale(scale, method: method)
            #expect(u.value == t.value * Int64(k))
            #expect(u.timescale == scale)
            #expect(!u.hasBeenRounded)
            #expect(u == t)
            // And back again, exactly.
            #expect(same(u.convertScale(t.timescale, method: method), t))
        }
    }

    @Test func roundingGoesTheRightWay() async {
        await propertyCheck(count: 500, input: TimeGen.numeric, Gen.int(in: 0...(TimeGen.timescales.count - 1)), Gen.case) {
            (t: MediaTime, i: Int, method: Rounding) in
            let scale = TimeGen.timescales[i]
            let u = t.convertScale(scale, method: method)
            guard u.isNumeric else { return }
            // error = u - t = errorTicks / (scale * t.timescale), exactly.
            let errorTicks = Int128(u.value) * Int128(t.timescale) - Int128(t.value) * Int128(scale)
            let tick = Int128(t.timescale)  // one tick of the new scale, in the same units
            #expect(errorTicks.magnitude < tick.magnitude)
            let shrinksTowardZero = errorTicks == 0 || (errorTicks < 0) == (t.value > 0)
            switch method {
            case .roundTowardPositiveInfinity: #expect(errorTicks >= 0)
            case .roundTowardNegativeInfinity: #expect(errorTicks <= 0)
            case .roundTowardZero: #expect(shrinksTowardZero)
            case .roundAwayFromZero: #expect(!shrinksTowardZero || errorTicks == 0)
            case .roundHalfAwayFromZero: #expect(errorTicks.magnitude * 2 <= tick.magnitude)
            case .quickTime:
                if scale < t.timescale {
                    #expect(shrinksTowardZero || u.value == -1)
                } else {
                    #expect(!shrinksTowardZero || errorTicks == 0)
                }
            }
            if t.value < 0 && (method == .quickTime || method == .roundAwayFromZero) { #expect(u.value < 0) }
            #expect(u.hasBeenRounded == (errorTicks != 0))
        }
    }

    @Test func ratioRoundTrips() async {
        await propertyCheck(count: 300, input: TimeGen.small, Gen.int32(in: 1...1000), Gen.int32(in: 1...1000)) { t, m, d in
            let there = t.multiplied(byRatio: m, d)
            guard !there.hasBeenRounded else { return }
            #expect(there * d == t * m)
            #expect(there.multiplied(byRatio: d, m) == t)
        }
    }
}
