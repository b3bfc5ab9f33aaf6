// Exact arithmetic on MediaTime: timescale conversion, sums, differences and products,
// with CMTime's rules for special values, epochs, rounding and overflow.

extension MediaTime {
    /// This time expressed in `newTimescale`, rounded by `method` (`CMTimeConvertScale`).
    ///
    /// Exact when `newTimescale` is a multiple of the timescale (or the value divides
    /// evenly); otherwise rounded by `method` and flagged ``Flags/hasBeenRounded``. A
    /// rounded source stays flagged. Non-numeric times come back unchanged, except that
    /// an invalid time or a timescale of zero or less gives ``invalid``. A value that does
    /// not fit in 64 bits gives an infinity of the same sign.
    public func convertScale(_ newTimescale: Int32, method: RoundingMethod = .default) -> MediaTime {
        guard isValid, newTimescale > 0 else { return .invalid }
        guard isNumeric else { return self }
        if newTimescale == timescale { return self }
        let (q, exact) = Self.divide(
            Int128(value) * Int128(newTimescale), by: Int128(timescale),
            method: method, shrinking: newTimescale < timescale)
        guard let v = Int64(exactly: q) else { return q < 0 ? .negativeInfinity : .positiveInfinity }
        var t = MediaTime(value: v, timescale: newTimescale, epoch: epoch)
        if !exact || flags.contains(.hasBeenRounded) { t.flags.insert(.hasBeenRounded) }
        return t
    }

    /// `numerator / denominator` (denominator > 0) as an integer rounded by `method`, and
    /// whether no rounding was needed. `shrinking` selects QuickTime's toward-zero branch.
    static func divide(
        _ numerator: Int128, by denominator: Int128, method: RoundingMethod,
        shrinking: Bool
    ) -> (quotient: Int128, exact: Bool) {
        let q = numerator / denominator  // truncates toward zero
        let r = numerator % denominator  // has the numerator's sign
        if r == 0 { return (q, true) }
        let negative = numerator < 0
        let awayFromZero: Bool
        switch method {
        case .roundHalfAwayFromZero: awayFromZero = r.magnitude * 2 >= denominator.magnitude
        case .roundTowardZero: awayFromZero = false
        case .roundAwayFromZero: awayFromZero = true
        case .quickTime: awayFromZero = !shrinking || (negative && q == 0)
        case .roundTowardPositiveInfinity: awayFromZero = !negative
        case .roundTowardNegativeInfinity: awayFromZero = negative
        }
        guard awayFromZero else { return (q, false) }
        return (negative ? q - 1 : q + 1, false)
    }

    /// The time nearest to the exact rational `numerator / denominator` (denominator > 0):
    /// at timescale `scale` when the value fits in 64 bits, else at the timescale halved
    /// as many times as needed (rounding half away from zero), else an infinity of the
    /// numerator's sign. Flagged rounded when `rounded` or when any rounding happened.
    static func fitting(
        _ numerator: Int128, over denominator: Int128, scale: Int32,
        epoch: Int64, rounded: Bool
    ) -> MediaTime {
        var s = scale
        while s >= 1 {
            let (scaled, overflow) = numerator.multipliedReportingOverflow(by: Int128(s))
            if !overflow {
                let (q, exact) = divide(scaled, by: denominator, method: .default, shrinking: true)
                if let v = Int64(exactly: q) {
                    var t = MediaTime(value: v, timescale: s, epoch: epoch)
                    if rounded || !exact { t.flags.insert(.hasBeenRounded) }
                    return t
                }
            }
            s /= 2
        }
        return numerator < 0 ? .negativeInfinity : .positiveInfinity
    }

    /// The least common multiple of two timescales, or nil when it exceeds ``maxTimescale``.
    static func commonTimescale(_ a: Int32, _ b: Int32) -> Int32? {
        guard a > 0, b > 0 else { return nil }
        if a == b { return a }
        let lcm = Int64(a) / Int64(gcd(UInt64(a), UInt64(b))) * Int64(b)
        return Int32(exactly: lcm)
    }

    /// -1, 0 or 1: the direction of an infinity, 0 for anything else.
    private var infinitySign: Int {
        isPositiveInfinity ? 1 : (isNegativeInfinity ? -1 : 0)
    }

    /// CMTimeAdd and CMTimeSubtract: the special-value and epoch rules, then the exact sum.
    private static func sum(_ lhs: MediaTime, _ rhs: MediaTime, subtracting: Bool) -> MediaTime {
        guard lhs.isValid, rhs.isValid else { return .invalid }
        if !(lhs.isNumeric && rhs.isNumeric) { return specialSum(lhs, rhs, subtracting: subtracting) }
        // Two numeric times. Epoch zero is a duration and adds to any epoch; the same
        // nonzero epoch on both sides gives a duration (epoch zero); different nonzero
        // epochs cannot be combined (their lengths are unknown).
        let epoch: Int64
        if lhs.epoch == rhs.epoch {
            epoch = 0
        } else if lhs.epoch == 0 {
            epoch = rhs.epoch
        } else if rhs.epoch == 0 {
            epoch = lhs.epoch
        } else {
            return .invalid
        }
        return numericSum(lhs, rhs, epoch: epoch, subtracting: subtracting)
    }

    /// The special-value rules of CMTimeAdd/CMTimeSubtract for valid operands, at least
    /// one of them not numeric: an infinity wins (opposite infinities are invalid), then
    /// indefinite.
    private static func specialSum(_ lhs: MediaTime, _ rhs: MediaTime, subtracting: Bool) -> MediaTime {
        let li = lhs.infinitySign
        let ri = subtracting ? -rhs.infinitySign : rhs.infinitySign
        if li != 0 || ri != 0 {
            if li != 0 && ri != 0 && li != ri { return .invalid }
            return (li != 0 ? li : ri) > 0 ? .positiveInfinity : .negativeInfinity
        }
        return .indefinite
    }

    /// The exact sum or difference of two numeric times, in `epoch`.
    private static func numericSum(_ lhs: MediaTime, _ rhs: MediaTime, epoch: Int64, subtracting: Bool) -> MediaTime {
        let rounded = (lhs.flags.rawValue | rhs.flags.rawValue) & Flags.hasBeenRounded.rawValue != 0
        let ta = Int64(lhs.timescale), tb = Int64(rhs.timescale)
        let lcm = ta == tb ? ta : ta / Int64(gcd(UInt64(ta), UInt64(tb))) * tb
        // The common case in 64 bits: the LCM is a timescale and nothing overflows.
        if let scale = Int32(exactly: lcm) {
            let (x, o1) = lhs.value.multipliedReportingOverflow(by: lcm / ta)
            let (y, o2) = rhs.value.multipliedReportingOverflow(by: lcm / tb)
            let (v, o3) = subtracting ? x.subtractingReportingOverflow(y) : x.addingReportingOverflow(y)
            if !o1 && !o2 && !o3 {
                var t = MediaTime(value: v, timescale: scale, epoch: epoch)
                if rounded { t.flags.insert(.hasBeenRounded) }
                return t
            }
        }
        // Exact in 128 bits: both over the LCM (at most 2^62), numerator at most 2^95.
        let a = Int128(lhs.value) * Int128(lcm / ta)
        let b = Int128(rhs.value) * Int128(lcm / tb)
        let numerator = subtracting ? a - b : a + b
        let scale = Int32(exactly: lcm) ?? maxTimescale
        return fitting(numerator, over: Int128(lcm), scale: scale, epoch: epoch, rounded: rounded)
    }

    /// The sum (`CMTimeAdd`), exact at the LCM of the timescales.
    ///
    /// When the LCM exceeds ``maxTimescale`` the result is at ``maxTimescale``; when the
    /// value overflows, the timescale is halved until it fits. Either way it is rounded
    /// half away from zero and flagged ``Flags/hasBeenRounded`` (as it is when an operand
    /// was). Past a timescale of 1 it is an infinity. Invalid if either side is, or for
    /// `+infinity + -infinity`; otherwise an infinity wins, then indefinite. Epochs: zero
    /// adds to any epoch, equal nonzero epochs give epoch zero, different nonzero epochs
    /// give invalid.
    public static func + (lhs: MediaTime, rhs: MediaTime) -> MediaTime {
        sum(lhs, rhs, subtracting: false)
    }

    /// The difference (`CMTimeSubtract`), with the same rules as ``+(_:_:)``;
    /// `+infinity - +infinity` and `-infinity - -infinity` are invalid.
    public static func - (lhs: MediaTime, rhs: MediaTime) -> MediaTime {
        sum(lhs, rhs, subtracting: true)
    }

    /// The negation: the infinities swap, invalid and indefinite stay. `-(Int64.min/t)`
    /// halves the timescale (rounded, flagged); at timescale 1 it is positive infinity.
    public static prefix func - (time: MediaTime) -> MediaTime {
        if time.isPositiveInfinity { return .negativeInfinity }
        if time.isNegativeInfinity { return .positiveInfinity }
        guard time.isNumeric else { return time.isValid ? time : .invalid }
        if time.value != .min {
            var t = time
            t.value = -time.value
            return t
        }
        return fitting(
            -Int128(time.value), over: Int128(time.timescale), scale: time.timescale,
            epoch: time.epoch, rounded: time.flags.contains(.hasBeenRounded))
    }

    /// `lhs = lhs + rhs`.
    public static func += (lhs: inout MediaTime, rhs: MediaTime) { lhs = lhs + rhs }
    /// `lhs = lhs - rhs`.
    public static func -= (lhs: inout MediaTime, rhs: MediaTime) { lhs = lhs - rhs }

    /// The product (`CMTimeMultiply`), exact in the same timescale.
    ///
    /// On overflow the timescale is halved until the value fits (rounded, flagged), and
    /// past a timescale of 1 the result is an infinity. Invalid stays invalid, indefinite
    /// stays indefinite; an infinity takes the sign of the product of the signs, and an
    /// infinity times zero is invalid.
    public static func * (time: MediaTime, multiplier: Int32) -> MediaTime {
        time.multiplied(byRatio: multiplier, 1)
    }

    /// `time * multiplier / divisor` (`CMTimeMultiplyByRatio`), exact where it fits.
    ///
    /// The result keeps the time's timescale when the division is exact, else uses that
    /// timescale times what is left of the divisor (`1/30 * 1/2 == 1/60`); when that is
    /// too large, the reduced fraction; when even that is too large, ``maxTimescale``. A
    /// value that overflows halves the timescale until it fits. Any rounding is half away
    /// from zero and flagged. Special values: invalid stays invalid, indefinite stays
    /// indefinite, an infinity takes the sign of the product (times zero it is invalid).
    /// A zero divisor gives an infinity of the product's sign, or invalid when the
    /// product is zero.
    public func multiplied(byRatio multiplier: Int32, _ divisor: Int32) -> MediaTime {
        guard isValid else { return .invalid }
        if isIndefinite { return self }
        let timeSign = isNumeric ? value.signum() : Int64(infinitySign)
        let resultSign = timeSign * Int64(multiplier.signum()) * Int64(divisor == 0 ? 1 : divisor.signum())
        if divisor == 0 || !isNumeric {
            if resultSign == 0 { return .invalid }
            return resultSign > 0 ? .positiveInfinity : .negativeInfinity
        }
        let rounded = flags.contains(.hasBeenRounded)
        var numerator = Int128(value) * Int128(multiplier)
        var d = Int128(divisor)
        if d < 0 { numerator = -numerator; d = -d }
        // Take out of the divisor what the numerator shares with it, so exact quotients keep the timescale.
        let g = Int128(Self.gcd128(numerator.magnitude, d.magnitude))
        numerator /= g
        d /= g
        var denominator = Int128(timescale) * d
        if denominator > Int128(Self.maxTimescale) {
            let h = Int128(Self.gcd128(numerator.magnitude, denominator.magnitude))
            numerator /= h
            denominator /= h
        }
        let scale = Int32(exactly: denominator) ?? Self.maxTimescale
        return Self.fitting(numerator, over: denominator, scale: scale, epoch: epoch, rounded: rounded)
    }

    /// The greatest common divisor of two 128-bit magnitudes; `gcd(0, n) == n`.
    static func gcd128(_ a: UInt128, _ b: UInt128) -> UInt128 {
        var (x, y) = (a, b)
        while y != 0 { (x, y) = (y, x % y) }
        return x
    }

    /// `time * multiplier` for a Double (`CMTimeMultiplyByFloat64`), rounded by `method`.
    ///
    /// As CoreMedia does, the result's timescale is the time's, doubled until it is at
    /// least 65536 (so that fractions survive), then halved while the value overflows;
    /// past a timescale of 1 it is an infinity. The product is computed in floating
    /// point, so a value beyond 2^53 may lose low bits; any rounding sets
    /// ``Flags/hasBeenRounded``. With ``RoundingMethod/quickTime`` the product rounds
    /// toward zero but never from a negative value to zero. A NaN multiplier gives
    /// invalid; invalid stays invalid and indefinite stays indefinite; an infinite time
    /// or multiplier gives an infinity of the product's sign (invalid when the other side
    /// is zero).
    public func multiplied(by multiplier: Double, method: RoundingMethod = .default) -> MediaTime {
        guard isValid, !multiplier.isNaN else { return .invalid }
        if isIndefinite { return self }
        if !isNumeric || multiplier.isInfinite {
            let timeSign = isNumeric ? Int(value.signum()) : infinitySign
            let multiplierSign = multiplier > 0 ? 1 : (multiplier < 0 ? -1 : 0)
            let sign = timeSign * multiplierSign
            if sign == 0 { return .invalid }
            return sign > 0 ? .positiveInfinity : .negativeInfinity
        }
        var scale = timescale
        while scale < 65536 { scale *= 2 }
        let exactValue = Double(exactly: value) != nil
        while scale >= 1 {
            let product = Double(value) * multiplier * (Double(scale) / Double(timescale))
            let rounded = Self.round(product, method: method)
            if let v = Int64(exactly: rounded) {
                var t = MediaTime(value: v, timescale: scale, epoch: epoch)
                if rounded != product || !exactValue || flags.contains(.hasBeenRounded) {
                    t.flags.insert(.hasBeenRounded)
                }
                return t
            }
            scale /= 2
        }
        return (value < 0) != (multiplier < 0) ? .negativeInfinity : .positiveInfinity
    }

    /// `x` rounded to an integer by `method`; QuickTime rounds toward zero, except that a
    /// negative fraction rounds to -1, not 0.
    static func round(_ x: Double, method: RoundingMethod) -> Double {
        switch method {
        case .roundHalfAwayFromZero: x.rounded(.toNearestOrAwayFromZero)
        case .roundTowardZero: x.rounded(.towardZero)
        case .roundAwayFromZero: x.rounded(.awayFromZero)
        case .quickTime: (x < 0 && x > -1) ? -1 : x.rounded(.towardZero)
        case .roundTowardPositiveInfinity: x.rounded(.up)
        case .roundTowardNegativeInfinity: x.rounded(.down)
        }
    }
}
