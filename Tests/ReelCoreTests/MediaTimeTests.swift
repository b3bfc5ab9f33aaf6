import PropertyBased
import ReelCore
import Testing

/// Exact field-by-field comparison (``==`` on MediaTime compares rationally).
func same(_ a: MediaTime, _ b: MediaTime) -> Bool {
    a.value == b.value && a.timescale == b.timescale && a.flags == b.flags && a.epoch == b.epoch
}

/// A readable name for a special or numeric time in test arguments.
struct NamedTime: Sendable, CustomTestStringConvertible {
    let name: String
    let time: MediaTime
    init(_ name: String, _ time: MediaTime) { self.name = name; self.time = time }
    var testDescription: String { name }
}

@Suite("MediaTime: construction, special values, order")
struct MediaTimeTests {
    @Test func numericTimeHasItsFields() {
        let t = MediaTime(value: 1001, timescale: 30000, epoch: 2)
        #expect(t.value == 1001 && t.timescale == 30000 && t.epoch == 2)
        #expect(t.flags == .valid)
        #expect(t.isValid && t.isNumeric && !t.hasBeenRounded)
        #expect(!t.isIndefinite && !t.isPositiveInfinity && !t.isNegativeInfinity)
    }

    @Test(arguments: [Int32(0), -1, Int32.min])
    func nonPositiveTimescaleIsInvalid(timescale: Int32) {
        let t = MediaTime(value: 1, timescale: timescale)
        #expect(!t.isValid && !t.isNumeric)
        #expect(same(t, .invalid))
    }

    @Test func malformedNumericTimeReadsAsInvalid() {
        // Flagged valid but with no usable timescale: never numeric, never divides by zero.
        let zero = MediaTime(value: 5, timescale: 0, flags: .valid, epoch: 0)
        let negative = MediaTime(value: 5, timescale: -3, flags: .valid, epoch: 0)
        for t in [zero, negative] {
            #expect(!t.isValid && !t.isNumeric)
            #expect(t == .invalid)
            #expect(t.seconds.isNaN)
            #expect((t + .zero) == .invalid)
            #expect(!t.convertScale(600).isValid)
            #expect(t.hashValue == MediaTime.invalid.hashValue)
        }
    }

    @Test func specialValues() {
        #expect(!MediaTime.invalid.isValid)
        #expect(MediaTime.indefinite.isValid && MediaTime.indefinite.isIndefinite && !MediaTime.indefinite.isNumeric)
        #expect(MediaTime.positiveInfinity.isPositiveInfinity && !MediaTime.positiveInfinity.isNumeric)
        #expect(MediaTime.negativeInfinity.isNegativeInfinity && !MediaTime.negativeInfinity.isNumeric)
        #expect(MediaTime.zero.isNumeric && MediaTime.zero.value == 0 && MediaTime.zero.timescale == 1)
        // A special flag without .valid is still invalid.
        let unflagged = MediaTime(value: 0, timescale: 0, flags: .positiveInfinity, epoch: 0)
        #expect(!unflagged.isPositiveInfinity && !unflagged.isValid)
        // hasBeenRounded only counts on numeric times.
        let roundedInfinity = MediaTime(value: 0, timescale: 0, flags: [.valid, .positiveInfinity, .hasBeenRounded], epoch: 0)
        #expect(!roundedInfinity.hasBeenRounded)
    }

    @Test func seconds() {
        #expect(MediaTime(value: 1001, timescale: 30000).seconds == 1001.0 / 30000.0)
        #expect(MediaTime(value: -3, timescale: 2).seconds == -1.5)
        #expect(MediaTime.invalid.seconds.isNaN)
        #expect(MediaTime.indefinite.seconds.isNaN)
        #expect(MediaTime.positiveInfinity.seconds == .infinity)
        #expect(MediaTime.negativeInfinity.seconds == -.infinity)
    }

    struct SecondsCase: Sendable, CustomTestStringConvertible {
        let seconds: Double
        let timescale: Int32
        let value: Int64
        let expectedTimescale: Int32
        let rounded: Bool
        var testDescription: String { "\(seconds) @ \(timescale)" }
    }

    @Test(arguments: [
        SecondsCase(seconds: 0.5, timescale: 600, value: 300, expectedTimescale: 600, rounded: false),
        SecondsCase(seconds: 0.1234, timescale: 1000, value: 123, expectedTimescale: 1000, rounded: true),
        SecondsCase(seconds: 2.5, timescale: 1, value: 3, expectedTimescale: 1, rounded: true),
        SecondsCase(seconds: -2.5, timescale: 1, value: -3, expectedTimescale: 1, rounded: true),
        SecondsCase(seconds: -0.4, timescale: 1, value: 0, expectedTimescale: 1, rounded: true),
        SecondsCase(seconds: 1.0 / 3.0, timescale: 30, value: 10, expectedTimescale: 30, rounded: false),
        SecondsCase(seconds: -0.1234, timescale: 1000, value: -123, expectedTimescale: 1000, rounded: true),
        // Too large for the preferred timescale: halved until the value fits.
        SecondsCase(seconds: 4.0e18, timescale: 8, value: 8_000_000_000_000_000_000, expectedTimescale: 2, rounded: false),
    ])
    func initSeconds(_ c: SecondsCase) {
        let t = MediaTime(seconds: c.seconds, preferredTimescale: c.timescale)
        #expect(t.isNumeric)
        #expect(t.value == c.value)
        #expect(t.timescale == c.expectedTimescale)
        #expect(t.hasBeenRounded == c.rounded)
    }

    @Test func initSecondsSpecialInputs() {
        #expect(!MediaTime(seconds: .nan, preferredTimescale: 600).isValid)
        #expect(!MediaTime(seconds: 1, preferredTimescale: 0).isValid)
        #expect(MediaTime(seconds: .infinity, preferredTimescale: 600).isPositiveInfinity)
        #expect(MediaTime(seconds: -.infinity, preferredTimescale: 600).isNegativeInfinity)
        #expect(MediaTime(seconds: 1e19, preferredTimescale: 1).isPositiveInfinity)
        #expect(MediaTime(seconds: -1e300, preferredTimescale: 90000).isNegativeInfinity)
    }

    /// CMTimeCompare's order, ascending.
    static let ordered: [NamedTime] = [
        NamedTime("-infinity", .negativeInfinity),
        NamedTime("Int64.min/1", MediaTime(value: .min, timescale: 1)),
        NamedTime("-1/1", MediaTime(value: -1, timescale: 1)),
        NamedTime("-1/3", MediaTime(value: -1, timescale: 3)),
        NamedTime("0/1", .zero),
        NamedTime("1/90000", MediaTime(value: 1, timescale: 90000)),
        NamedTime("1001/30000", MediaTime(value: 1001, timescale: 30000)),
        NamedTime("1/2", MediaTime(value: 1, timescale: 2)),
        NamedTime("Int64.max/1", MediaTime(value: .max, timescale: 1)),
        NamedTime("-5/1 epoch 1", MediaTime(value: -5, timescale: 1, epoch: 1)),
        NamedTime("0/1 epoch 1", MediaTime(value: 0, timescale: 1, epoch: 1)),
        NamedTime("-100/1 epoch 2", MediaTime(value: -100, timescale: 1, epoch: 2)),
        NamedTime("indefinite", .indefinite),
        NamedTime("+infinity", .positiveInfinity),
        NamedTime("invalid", .invalid),
    ]

    @Test(arguments: ordered.indices, ordered.indices)
    func compareFollowsCMTimeCompareOrder(i: Int, j: Int) {
        let a = Self.ordered[i].time, b = Self.ordered[j].time
        let expected = i < j ? -1 : (i == j ? 0 : 1)
        #expect(MediaTime.compare(a, b) == expected, "\(Self.ordered[i].name) vs \(Self.ordered[j].name)")
        #expect((a < b) == (expected < 0))
        #expect((a == b) == (expected == 0))
    }

    @Test func sortingUsesTheOrder() {
        let shuffled = Self.ordered.map(\.time).reversed()
        #expect(shuffled.sorted().map(\.description) == Self.ordered.map(\.time.description))
    }

    @Test func equalityIsRationalAndIgnoresRounding() {
        #expect(MediaTime(value: 1, timescale: 2) == MediaTime(value: 2, timescale: 4))
        #expect(MediaTime(value: 1001, timescale: 30000) == MediaTime(value: 3003, timescale: 90000))
        #expect(MediaTime(value: 1, timescale: 3) != MediaTime(value: 333, timescale: 1000))
        let rounded = MediaTime(value: 1, timescale: 2, flags: [.valid, .hasBeenRounded], epoch: 0)
        #expect(rounded == MediaTime(value: 1, timescale: 2))
        #expect(MediaTime.invalid == MediaTime.invalid)
        #expect(MediaTime.indefinite == MediaTime.indefinite)
        #expect(MediaTime(value: 1, timescale: 1, epoch: 1) != MediaTime(value: 1, timescale: 1))
        // Cross products beyond 64 bits still compare exactly.
        let a = MediaTime(value: .max, timescale: Int32.max)
        let b = MediaTime(value: .max - 1, timescale: Int32.max - 1)
        #expect(MediaTime.compare(a, b) == -1)  // (2^63-1)/(2^31-1) < (2^63-2)/(2^31-2)
    }

    @Test func hashingAgreesWithEquality() {
        let set: Set<MediaTime> = [
            MediaTime(value: 1, timescale: 2), MediaTime(value: 2, timescale: 4),
            MediaTime(value: 15000, timescale: 30000),
            MediaTime(value: 1, timescale: 2, flags: [.valid, .hasBeenRounded], epoch: 0),
            .invalid, MediaTime(value: 3, timescale: 0, flags: .valid, epoch: 0),
            .indefinite, .positiveInfinity, .negativeInfinity,
            .zero, MediaTime(value: 0, timescale: 90000),
            MediaTime(value: 1, timescale: 2, epoch: 1),
            MediaTime(value: .min, timescale: 1), MediaTime(value: .min, timescale: 2),
        ]
        // {1/2}, invalid, indefinite, +inf, -inf, zero, 1/2 epoch 1, min/1, min/2.
        #expect(set.count == 9)
    }

    @Test func hashingAgreesWithEqualityForAnyRescaling() async {
        await propertyCheck(count: 200, input: TimeGen.numeric, Gen.int32(in: 1...1000)) { t, k in
            guard let scale = Int32(exactly: Int64(t.timescale) * Int64(k)) else { return }
            let u = t.convertScale(scale)
            #expect(u == t)
            #expect(u.hashValue == t.hashValue)
        }
    }

    @Test func minimumAndMaximum() {
        let a = MediaTime(value: 1, timescale: 3), b = MediaTime(value: 1, timescale: 2)
        #expect(same(MediaTime.minimum(a, b), a) && same(MediaTime.minimum(b, a), a))
        #expect(same(MediaTime.maximum(a, b), b) && same(MediaTime.maximum(b, a), b))
        #expect(MediaTime.minimum(.invalid, a) == a)
        #expect(MediaTime.maximum(.invalid, a) == .invalid)
        #expect(MediaTime.minimum(.negativeInfinity, a).isNegativeInfinity)
        #expect(MediaTime.maximum(.indefinite, .positiveInfinity).isPositiveInfinity)
        // Ties keep the first argument.
        let c = MediaTime(value: 2, timescale: 6)
        #expect(same(MediaTime.minimum(a, c), a) && same(MediaTime.maximum(c, a), c))
    }

    @Test func magnitude() {
        #expect(same(MediaTime(value: -7, timescale: 3).magnitude, MediaTime(value: 7, timescale: 3)))
        #expect(same(MediaTime(value: 7, timescale: 3).magnitude, MediaTime(value: 7, timescale: 3)))
        #expect(MediaTime.negativeInfinity.magnitude.isPositiveInfinity)
        #expect(MediaTime.positiveInfinity.magnitude.isPositiveInfinity)
        #expect(MediaTime.indefinite.magnitude.isIndefinite)
        #expect(!MediaTime.invalid.magnitude.isValid)
        // Int64.min has no positive value in its own timescale.
        #expect(MediaTime(value: .min, timescale: 1).magnitude.isPositiveInfinity)
        let halved = MediaTime(value: .min, timescale: 2).magnitude
        #expect(halved.value == 1 << 62 && halved.timescale == 1 && !halved.hasBeenRounded)
        let rounded = MediaTime(value: .min, timescale: 3).magnitude
        #expect(rounded.value == 3_074_457_345_618_258_603 && rounded.timescale == 1 && rounded.hasBeenRounded)
    }

    @Test func compareIsATotalOrder() async {
        await propertyCheck(count: 300, input: TimeGen.any, TimeGen.any, TimeGen.any) { a, b, c in
            #expect(MediaTime.compare(a, b) == -MediaTime.compare(b, a))
            #expect(MediaTime.compare(a, a) == 0)
            if MediaTime.compare(a, b) <= 0 && MediaTime.compare(b, c) <= 0 {
                #expect(MediaTime.compare(a, c) <= 0)
            }
            if a == b { #expect(a.hashValue == b.hashValue) }
        }
    }

    @Test func compareAgreesWithSeconds() async {
        await propertyCheck(count: 300, input: TimeGen.numeric, TimeGen.numeric) { a, b in
            // Values below 2^53 convert exactly, and one correctly rounded division is monotonic.
            if a.seconds < b.seconds { #expect(a < b) }
            if a.seconds > b.seconds { #expect(a > b) }
            if a < b { #expect(a.seconds <= b.seconds) }
            if a == b { #expect(a.seconds == b.seconds) }
        }
    }

    @Test func descriptions() {
        #expect(MediaTime(value: 1001, timescale: 30000).description == "1001/30000")
        #expect(MediaTime(value: -1, timescale: 2, epoch: 3).description == "-1/2 epoch 3")
        #expect(MediaTime.invalid.description == "invalid")
        #expect(MediaTime.indefinite.description == "indefinite")
        #expect(MediaTime.positiveInfinity.description == "+infinity")
        #expect(MediaTime.negativeInfinity.description == "-infinity")
    }
}
