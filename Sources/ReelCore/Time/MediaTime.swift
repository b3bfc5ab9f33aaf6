/// A rational point in media time: `value / timescale` seconds, with CMTime's semantics.
///
/// Like `CMTime`, a time carries flags for the special values (invalid, indefinite,
/// positive and negative infinity) and for "has been rounded", plus an `epoch` that
/// orders loops of the same timeline. Arithmetic is exact wherever the result fits:
/// sums use the least common multiple of the timescales and round (setting
/// ``Flags/hasBeenRounded``) only when they must. Times compare as `CMTimeCompare`
/// does: `-infinity < numeric < indefinite < +infinity < invalid`, epochs before values.
///
/// A numeric time needs a positive timescale: a time flagged valid whose timescale is
/// zero or negative (which only the memberwise initializer or a direct field write can
/// make) is treated as invalid everywhere, so no operation divides by it.
public struct MediaTime: Sendable {
    /// The flags of a time, as `CMTimeFlags`.
    public struct Flags: OptionSet, Sendable, Hashable {
        /// The raw bits, with the same values as `CMTimeFlags`.
        public let rawValue: UInt32
        /// Flags from raw `CMTimeFlags` bits.
        public init(rawValue: UInt32) { self.rawValue = rawValue }
        /// Set on every valid time; a time without it is invalid whatever else is set.
        public static let valid = Flags(rawValue: 1 << 0)
        /// The value is not exact: some operation had to round it.
        public static let hasBeenRounded = Flags(rawValue: 1 << 1)
        /// The time is positive infinity; `value` and `timescale` mean nothing.
        public static let positiveInfinity = Flags(rawValue: 1 << 2)
        /// The time is negative infinity; `value` and `timescale` mean nothing.
        public static let negativeInfinity = Flags(rawValue: 1 << 3)
        /// The time is unknown (a live stream's duration); `value` and `timescale` mean nothing.
        public static let indefinite = Flags(rawValue: 1 << 4)
        /// The flags that make a time non-numeric.
        public static let impliedValueFlags: Flags = [.positiveInfinity, .negativeInfinity, .indefinite]
    }

    /// How a value is rounded when it cannot be represented exactly, as `CMTimeRoundingMethod`.
    public enum RoundingMethod: Sendable, Hashable, CaseIterable {
        /// To the nearest integer; exact halves go away from zero (2.5 -> 3, -2.5 -> -3). The default.
        case roundHalfAwayFromZero
        /// Drops the fraction (2.7 -> 2, -2.7 -> -2).
        case roundTowardZero
        /// Any fraction goes to the next integer away from zero (2.1 -> 3, -2.1 -> -3).
        case roundAwayFromZero
        /// QuickTime's rule: toward zero when converting to a smaller timescale (less
        /// precision), away from zero when converting to a larger one; and a negative time
        /// never rounds to zero, it becomes `-1/newTimescale` instead.
        case quickTime
        /// Up, toward positive infinity (2.1 -> 3, -2.9 -> -2).
        case roundTowardPositiveInfinity
        /// Down, toward negative infinity (2.9 -> 2, -2.1 -> -3).
        case roundTowardNegativeInfinity

        /// `roundHalfAwayFromZero`, as `kCMTimeRoundingMethod_Default`.
        public static let `default`: RoundingMethod = .roundHalfAwayFromZero
    }

    /// The numerator: the time is `value / timescale` seconds when it is numeric.
    public var value: Int64
    /// The denominator: units per second. Positive for a numeric time.
    public var timescale: Int32
    /// Validity, special values and the rounded mark.
    public var flags: Flags
    /// Which pass over a timeline (a loop count); greater epochs come after lesser ones.
    /// Durations have epoch zero.
    public var epoch: Int64

    /// The largest timescale a time may have (`kCMTimeMaxTimescale`).
    public static let maxTimescale: Int32 = Int32.max

    /// Creates a numeric time `value / timescale` (`CMTimeMakeWithEpoch`). A timescale of
    /// zero or less gives ``invalid``.
    public init(value: Int64, timescale: Int32, epoch: Int64 = 0) {
        guard timescale > 0 else {
            self = .invalid
            return
        }
        self.value = value
        self.timescale = timescale
        self.flags = .valid
        self.epoch = epoch
    }

    /// Creates a time from all four fields, as `CMTime(value:timescale:flags:epoch:)`.
    ///
    /// Nothing is checked; a time flagged numeric with a timescale of zero or less reads as
    /// invalid (see the type's discussion).
    public init(value: Int64, timescale: Int32, flags: Flags, epoch: Int64) {
        self.value = value
        self.timescale = timescale
        self.flags = flags
        self.epoch = epoch
    }

    /// The invalid time (`kCMTimeInvalid`): all fields zero.
    public static let invalid = MediaTime(value: 0, timescale: 0, flags: [], epoch: 0)
    /// Zero seconds, `0/1` (`kCMTimeZero`).
    public static let zero = MediaTime(value: 0, timescale: 1)
    /// An unknown time (`kCMTimeIndefinite`).
    public static let indefinite = MediaTime(value: 0, timescale: 0, flags: [.valid, .indefinite], epoch: 0)
    /// Positive infinity (`kCMTimePositiveInfinity`).
    public static let positiveInfinity = MediaTime(value: 0, timescale: 0, flags: [.valid, .positiveInfinity], epoch: 0)
    /// Negative infinity (`kCMTimeNegativeInfinity`).
    public static let negativeInfinity = MediaTime(value: 0, timescale: 0, flags: [.valid, .negativeInfinity], epoch: 0)

    // The predicates test raw bits: they run for every frame, and OptionSet's generic
    // algebra is slow in unoptimised builds.
    private static let validBit = Flags.valid.rawValue
    private static let impliedBits = Flags.impliedValueFlags.rawValue

    /// Whether the time is valid: flagged valid, and numeric ones have a positive timescale.
    public var isValid: Bool {
        let bits = flags.rawValue
        return bits & Self.validBit != 0 && (timescale > 0 || bits & Self.impliedBits != 0)
    }

    /// Valid and indefinite.
    public var isIndefinite: Bool { isValid && flags.rawValue & Flags.indefinite.rawValue != 0 }
    /// Valid and positive infinity.
    public var isPositiveInfinity: Bool { isValid && flags.rawValue & Flags.positiveInfinity.rawValue != 0 }
    /// Valid and negative infinity.
    public var isNegativeInfinity: Bool { isValid && flags.rawValue & Flags.negativeInfinity.rawValue != 0 }
    /// Valid and neither indefinite nor infinite: `value / timescale` is the time.
    public var isNumeric: Bool {
        let bits = flags.rawValue
        return bits & Self.validBit != 0 && bits & Self.impliedBits == 0 && timescale > 0
    }
    /// Numeric, and some operation that made it had to round.
    public var hasBeenRounded: Bool { isNumeric && flags.rawValue & Flags.hasBeenRounded.rawValue != 0 }

    /// The time in seconds as a Double (`CMTimeGetSeconds`): NaN for invalid or
    /// indefinite, +/- infinity for the infinities.
    public var seconds: Double {
        if isNumeric { return Double(value) / Double(timescale) }
        if isPositiveInfinity { return .infinity }
        if isNegativeInfinity { return -.infinity }
        return .nan
    }

    /// The time nearest to `seconds` in `preferredTimescale` (`CMTimeMakeWithSeconds`),
    /// rounding half away from zero and flagging ``Flags/hasBeenRounded`` when the product
    /// is not whole.
    ///
    /// When the value would not fit in 64 bits the timescale is halved until it does;
    /// past a timescale of 1 the result is an infinity of the same sign. NaN or a
    /// timescale of zero or less gives ``invalid``; the infinities give the infinities.
    public init(seconds: Double, preferredTimescale: Int32) {
        if seconds.isNaN || preferredTimescale <= 0 { self = .invalid; return }
        if seconds == .infinity { self = .positiveInfinity; return }
        if seconds == -.infinity { self = .negativeInfinity; return }
        var scale = preferredTimescale
        while scale >= 1 {
            let product = seconds * Double(scale)
            let rounded = product.rounded(.toNearestOrAwayFromZero)
            if let v = Int64(exactly: rounded) {
                self.init(value: v, timescale: scale)
                if rounded != product { flags.insert(.hasBeenRounded) }
                return
            }
            scale /= 2
        }
        self = seconds > 0 ? .positiveInfinity : .negativeInfinity
    }

    /// The absolute value (`CMTimeAbsoluteValue`); both infinities become positive infinity.
    /// `Int64.min` has no positive counterpart in the same timescale: the timescale is
    /// halved (rounding, flagged) as multiplying by -1 does.
    public var magnitude: MediaTime {
        if isNegativeInfinity { return .positiveInfinity }
        guard isNumeric, value < 0 else { return self }
        return -self
    }

    /// The earlier of two times in ``compare(_:_:)``'s order (`CMTimeMinimum`); `a` when they are equal.
    public static func minimum(_ a: MediaTime, _ b: MediaTime) -> MediaTime { compare(b, a) < 0 ? b : a }
    /// The later of two times in ``compare(_:_:)``'s order (`CMTimeMaximum`); `a` when they are equal.
    public static func maximum(_ a: MediaTime, _ b: MediaTime) -> MediaTime { compare(b, a) > 0 ? b : a }
}

extension MediaTime: Comparable, Hashable {
    /// The rank of a time in CMTimeCompare's order: -inf < numeric < indefinite < +inf < invalid.
    private var orderRank: Int {
        let bits = flags.rawValue
        guard isValid else { return 4 }
        if bits & Flags.positiveInfinity.rawValue != 0 { return 3 }
        if bits & Flags.indefinite.rawValue != 0 { return 2 }
        if bits & Flags.negativeInfinity.rawValue != 0 { return 0 }
        return 1
    }

    /// Orders two times as `CMTimeCompare`: -1, 0 or 1.
    ///
    /// `-infinity < every numeric time < indefinite < +infinity < invalid`; all invalid
    /// times are equal, and so are all indefinite times. Numeric times in different
    /// epochs order by epoch first; within an epoch they compare exactly as rationals
    /// (`1/2 == 2/4`), whatever their timescales. ``Flags/hasBeenRounded`` is ignored.
    public static func compare(_ lhs: MediaTime, _ rhs: MediaTime) -> Int {
        let (ra, rb) = (lhs.orderRank, rhs.orderRank)
        if ra != rb { return ra < rb ? -1 : 1 }
        guard ra == 1 else { return 0 }
        if lhs.epoch != rhs.epoch { return lhs.epoch < rhs.epoch ? -1 : 1 }
        if lhs.timescale == rhs.timescale { return lhs.value == rhs.value ? 0 : (lhs.value < rhs.value ? -1 : 1) }
        // a/ta vs b/tb  <=>  a*tb vs b*ta (timescales are positive), exact in 128 bits.
        let left = Int128(lhs.value) * Int128(rhs.timescale)
        let right = Int128(rhs.value) * Int128(lhs.timescale)
        return left == right ? 0 : (left < right ? -1 : 1)
    }

    /// Whether `lhs` comes before `rhs` in ``compare(_:_:)``'s order.
    public static func < (lhs: MediaTime, rhs: MediaTime) -> Bool { compare(lhs, rhs) < 0 }

    /// Equal in ``compare(_:_:)``'s sense: `1/2 == 2/4`, invalid equals invalid, and
    /// ``Flags/hasBeenRounded`` is ignored.
    public static func == (lhs: MediaTime, rhs: MediaTime) -> Bool { compare(lhs, rhs) == 0 }

    /// Hashes what `==` compares: the kind of time, and for numeric times the epoch and
    /// the reduced fraction, so that equal times hash alike.
    public func hash(into hasher: inout Hasher) {
        let rank = orderRank
        hasher.combine(rank)
        guard rank == 1 else { return }
        let g = Self.gcd(value.magnitude, UInt64(timescale))
        hasher.combine(epoch)
        // g >= 1 because the timescale is positive; value / g cannot overflow.
        hasher.combine(value / Int64(g))
        hasher.combine(Int64(timescale) / Int64(g))
    }

    /// The greatest common divisor; `gcd(0, n) == n`.
    static func gcd(_ a: UInt64, _ b: UInt64) -> UInt64 {
        var (x, y) = (a, b)
        while y != 0 { (x, y) = (y, x % y) }
        return x
    }
}

extension MediaTime: CustomStringConvertible {
    /// `value/timescale` (with ` epoch N` when the epoch is not zero), or the name of a
    /// special value: `invalid`, `indefinite`, `+infinity`, `-infinity`.
    public var description: String {
        if !isValid { return "invalid" }
        if isPositiveInfinity { return "+infinity" }
        if isNegativeInfinity { return "-infinity" }
        if isIndefinite { return "indefinite" }
        let base = "\(value)/\(timescale)"
        return epoch == 0 ? base : "\(base) epoch \(epoch)"
    }
}
