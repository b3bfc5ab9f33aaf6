import Foundation

/// A rational point in media time: `value / timescale` seconds, with CMTime's semantics.
///
/// Like `CMTime`, a time carries flags for the special values (invalid, indefinite,
/// positive and negative infinity) and for "has been rounded", plus an `epoch` that
/// orders loops of the same timeline. Arithmetic is exact wherever the result fits:
/// sums use the least common multiple of the timescales and round (setting
/// ``Flags/hasBeenRounded``) only when that would overflow.
public struct MediaTime: Sendable, Hashable {
    /// The flags of a time, as `CMTimeFlags`.
    public struct Flags: OptionSet, Sendable, Hashable {
        public let rawValue: UInt32
        public init(rawValue: UInt32) { self.rawValue = rawValue }
        public static let valid = Flags(rawValue: 1 << 0)
        public static let hasBeenRounded = Flags(rawValue: 1 << 1)
        public static let positiveInfinity = Flags(rawValue: 1 << 2)
        public static let negativeInfinity = Flags(rawValue: 1 << 3)
        public static let indefinite = Flags(rawValue: 1 << 4)
        /// The flags that make a time non-numeric.
        public static let impliedValueFlags: Flags = [.positiveInfinity, .negativeInfinity, .indefinite]
    }

    /// How a conversion to a coarser timescale rounds, as `CMTimeRoundingMethod`.
    public enum RoundingMethod: Sendable, Hashable, CaseIterable {
        /// Half-way values go away from zero (the default).
        case roundHalfAwayFromZero
        case roundTowardZero
        case roundAwayFromZero
        /// Toward zero when the timescale shrinks, half away from zero otherwise; a
        /// negative time never rounds to zero (it becomes `-1/timescale`).
        case quickTime
        case roundTowardPositiveInfinity
        case roundTowardNegativeInfinity

        public static let `default`: RoundingMethod = .roundHalfAwayFromZero
    }

    public var value: Int64
    public var timescale: Int32
    public var flags: Flags
    public var epoch: Int64

    /// The largest timescale a time may have.
    public static let maxTimescale: Int32 = Int32.max

    /// Creates a numeric time `value / timescale`. A timescale of zero or less makes an invalid time.
    public init(value: Int64, timescale: Int32, epoch: Int64 = 0) {
        if timescale <= 0 {
            self = .invalid
            self.epoch = epoch
            return
        }
        self.value = value
        self.timescale = timescale
        self.flags = .valid
        self.epoch = epoch
    }

    /// Creates a time from all four fields, as `CMTime` does; no checks are made.
    public init(value: Int64, timescale: Int32, flags: Flags, epoch: Int64) {
        self.value = value
        self.timescale = timescale
        self.flags = flags
        self.epoch = epoch
    }

    /// The time nearest to `seconds` at `preferredTimescale`, rounding half away from zero.
    /// NaN gives an invalid time; infinities give the matching infinite time.
    public init(seconds: Double, preferredTimescale: Int32) {
        if seconds.isNaN || preferredTimescale <= 0 { self = .invalid; return }
        if seconds == .infinity { self = .positiveInfinity; return }
        if seconds == -.infinity { self = .negativeInfinity; return }
        let scaled = (seconds * Double(preferredTimescale)).rounded(.toNearestOrAwayFromZero)
        if abs(scaled) >= 9.2e18 {
            self = seconds > 0 ? .positiveInfinity : .negativeInfinity
            return
        }
        self.init(value: Int64(scaled), timescale: preferredTimescale)
        if Double(value) != seconds * Double(preferredTimescale) { flags.insert(.hasBeenRounded) }
    }

    public static let invalid = MediaTime(value: 0, timescale: 0, flags: [], epoch: 0)
    public static let zero = MediaTime(value: 0, timescale: 1)
    public static let indefinite = MediaTime(value: 0, timescale: 0, flags: [.valid, .indefinite], epoch: 0)
    public static let positiveInfinity = MediaTime(value: 0, timescale: 0, flags: [.valid, .positiveInfinity], epoch: 0)
    public static let negativeInfinity = MediaTime(value: 0, timescale: 0, flags: [.valid, .negativeInfinity], epoch: 0)

    public var isValid: Bool { flags.contains(.valid) }
    public var isIndefinite: Bool { isValid && flags.contains(.indefinite) }
    public var isPositiveInfinity: Bool { isValid && flags.contains(.positiveInfinity) }
    public var isNegativeInfinity: Bool { isValid && flags.contains(.negativeInfinity) }
    /// Valid and neither indefinite nor infinite.
    public var isNumeric: Bool { isValid && flags.isDisjoint(with: .impliedValueFlags) }
    public var hasBeenRounded: Bool { isNumeric && flags.contains(.hasBeenRounded) }

    /// The time in seconds as a Double: NaN for invalid or indefinite, +/- infinity for the infinities.
    public var seconds: Double {
        if isNumeric { return Double(value) / Double(timescale) }
        if isPositiveInfinity { return .infinity }
        if isNegativeInfinity { return -.infinity }
        return .nan
    }

    /// The absolute value of a numeric time; the infinities become positive infinity.
    public var magnitude: MediaTime {
        if isNegativeInfinity { return .positiveInfinity }
        guard isNumeric, value < 0 else { return self }
        if value == .min { return .positiveInfinity }
        var t = self
        t.value = -value
        return t
    }

    /// This time expressed in `newTimescale`, rounded by `method` (`CMTimeConvertScale`).
    /// Non-numeric times come back unchanged; a result that cannot be represented is an
    /// infinity of the same sign.
    public func convertScale(_ newTimescale: Int32, method: RoundingMethod = .default) -> MediaTime {
        guard isNumeric else { return self }
        guard newTimescale > 0 else { return .invalid }
        if newTimescale == timescale { return self }
        guard let (v, exact) = Self.rescale(value, from: timescale, to: newTimescale, method: method) else {
            return value < 0 ? .negativeInfinity : .positiveInfinity
        }
        var t = MediaTime(value: v, timescale: newTimescale, epoch: epoch)
        if !exact || flags.contains(.hasBeenRounded) { t.flags.insert(.hasBeenRounded) }
        return t
    }

    /// `value * to / from`, rounded by `method`; nil when the result does not fit in Int64.
    /// The second element says whether no rounding was needed.
    static func rescale(_ value: Int64, from: Int32, to: Int32, method: RoundingMethod) -> (Int64, Bool)? {
        // 128-bit product, then division with the remainder kept for rounding.
        let negative = value < 0
        let magnitude = value.magnitude
        let product = magnitude.multipliedFullWidth(by: UInt64(to))
        let divisor = UInt64(from)
        guard product.high < divisor else { return nil }
        let (q, r) = divisor.dividingFullWidth(product)
        var quotient = q
        if r != 0 {
            let twice = r.multipliedReportingOverflow(by: 2)
            let atLeastHalf = twice.overflow || twice.partialValue >= divisor
            let awayFromZero: Bool
            switch method {
            case .roundHalfAwayFromZero: awayFromZero = atLeastHalf
            case .roundTowardZero: awayFromZero = false
            case .roundAwayFromZero: awayFromZero = true
            case .quickTime:
                if to < from { awayFromZero = negative && quotient == 0 } else { awayFromZero = atLeastHalf }
            case .roundTowardPositiveInfinity: awayFromZero = !negative
            case .roundTowardNegativeInfinity: awayFromZero = negative
            }
            if awayFromZero { quotient += 1 }
        }
        if negative {
            guard quotient <= UInt64(Int64.max) + 1 else { return nil }
            return (quotient == UInt64(Int64.max) + 1 ? Int64.min : -Int64(quotient), r == 0)
        }
        guard quotient <= UInt64(Int64.max) else { return nil }
        return (Int64(quotient), r == 0)
    }
}

extension MediaTime {
    /// The least common multiple of two timescales, or nil when it exceeds ``maxTimescale``.
    static func commonTimescale(_ a: Int32, _ b: Int32) -> Int32? {
        if a == b { return a }
        var x = Int64(a), y = Int64(b)
        while y != 0 { (x, y) = (y, x % y) }
        let lcm = Int64(a) / x * Int64(b)
        return lcm <= Int64(Int32.max) ? Int32(lcm) : nil
    }

    /// The special-value rules shared by `+` and `-` (CMTimeAdd/CMTimeSubtract).
    /// Returns nil when both operands are numeric.
    private static func specialSum(_ lhs: MediaTime, _ rhs: MediaTime) -> MediaTime? {
        if !lhs.isValid || !rhs.isValid { return .invalid }
        if lhs.isNumeric && rhs.isNumeric { return lhs.epoch == rhs.epoch ? nil : .invalid }
        if (lhs.isPositiveInfinity && rhs.isNegativeInfinity) || (lhs.isNegativeInfinity && rhs.isPositiveInfinity) {
            return .invalid
        }
        if lhs.isIndefinite || rhs.isIndefinite { return .indefinite }
        return lhs.isNumeric ? rhs : lhs
    }

    /// Exact sum; rounds (and flags it) only when the common timescale or the value would overflow.
    public static func + (lhs: MediaTime, rhs: MediaTime) -> MediaTime {
        if let special = specialSum(lhs, rhs) { return special }
        return combine(lhs, rhs, negateRight: false)
    }

    /// Exact difference, with the special-value rules of `CMTimeSubtract`.
    public static func - (lhs: MediaTime, rhs: MediaTime) -> MediaTime {
        let negatedRHS: MediaTime
        if rhs.isPositiveInfinity { negatedRHS = .negativeInfinity }
        else if rhs.isNegativeInfinity { negatedRHS = .positiveInfinity }
        else { negatedRHS = rhs }
        if let special = specialSum(lhs, negatedRHS) { return special }
        return combine(lhs, rhs, negateRight: true)
    }

    public static prefix func - (time: MediaTime) -> MediaTime {
        if time.isPositiveInfinity { return .negativeInfinity }
        if time.isNegativeInfinity { return .positiveInfinity }
        guard time.isNumeric else { return time }
        if time.value == .min { return .positiveInfinity }
        var t = time
        t.value = -time.value
        return t
    }

    public static func += (lhs: inout MediaTime, rhs: MediaTime) { lhs = lhs + rhs }
    public static func -= (lhs: inout MediaTime, rhs: MediaTime) { lhs = lhs - rhs }

    private static func combine(_ lhs: MediaTime, _ rhs: MediaTime, negateRight: Bool) -> MediaTime {
        let rounded = lhs.flags.contains(.hasBeenRounded) || rhs.flags.contains(.hasBeenRounded)
        var candidates: [Int32] = []
        if let common = commonTimescale(lhs.timescale, rhs.timescale) { candidates.append(common) }
        candidates.append(max(lhs.timescale, rhs.timescale))
        for scale in candidates {
            let a = lhs.convertScale(scale), b = rhs.convertScale(scale)
            guard a.isNumeric, b.isNumeric else { continue }
            let (sum, overflow) = negateRight
                ? a.value.subtractingReportingOverflow(b.value)
                : a.value.addingReportingOverflow(b.value)
            if overflow { continue }
            var t = MediaTime(value: sum, timescale: scale, epoch: lhs.epoch)
            if rounded || a.hasBeenRounded || b.hasBeenRounded { t.flags.insert(.hasBeenRounded) }
            return t
        }
        // Out of range even at the coarser scale: saturate by the sign of the exact result.
        let seconds = negateRight ? lhs.seconds - rhs.seconds : lhs.seconds + rhs.seconds
        return seconds < 0 ? .negativeInfinity : .positiveInfinity
    }

    /// `time * multiplier`, exact (`CMTimeMultiply`); overflow gives an infinity.
    public static func * (time: MediaTime, multiplier: Int32) -> MediaTime {
        guard time.isNumeric else {
            if multiplier < 0 { return -time }
            if multiplier == 0 && (time.isPositiveInfinity || time.isNegativeInfinity) { return .invalid }
            return time
        }
        let (v, overflow) = time.value.multipliedReportingOverflow(by: Int64(multiplier))
        if overflow { return (time.value < 0) != (multiplier < 0) ? .negativeInfinity : .positiveInfinity }
        var t = time
        t.value = v
        return t
    }

    /// `time * multiplier / divisor` (`CMTimeMultiplyByRatio`), exact where it fits, else
    /// rounded half away from zero and flagged.
    public func multiplied(byRatio multiplier: Int32, _ divisor: Int32) -> MediaTime {
        guard divisor != 0 else { return .invalid }
        guard isNumeric else {
            let negative = (multiplier < 0) != (divisor < 0)
            if multiplier == 0 && (isPositiveInfinity || isNegativeInfinity) { return .invalid }
            return negative ? -self : self
        }
        // value * m / (timescale * d): keep the timescale when it divides exactly.
        var m = Int64(multiplier), d = Int64(divisor)
        if d < 0 { m = -m; d = -d }
        let (v, overflow) = value.multipliedReportingOverflow(by: m)
        if !overflow, v % d == 0 {
            var t = self
            t.value = v / d
            return t
        }
        let newScale = Int64(timescale) * d
        if !overflow, newScale <= Int64(Int32.max) {
            var t = self
            t.value = v
            t.timescale = Int32(newScale)
            return t
        }
        let exact = Double(value) * Double(m) / Double(d)
        guard abs(exact) < 9.2e18 else { return exact < 0 ? .negativeInfinity : .positiveInfinity }
        var t = self
        t.value = Int64(exact.rounded(.toNearestOrAwayFromZero))
        t.flags.insert(.hasBeenRounded)
        return t
    }

    /// `time * multiplier` for a Double (`CMTimeMultiplyByFloat64`), rounded by `method`
    /// in the time's own timescale.
    public func multiplied(by multiplier: Double, method: RoundingMethod = .default) -> MediaTime {
        if multiplier.isNaN { return .invalid }
        guard isNumeric else {
            if multiplier == 0 && (isPositiveInfinity || isNegativeInfinity) { return .invalid }
            return multiplier < 0 ? -self : self
        }
        let exact = Double(value) * multiplier
        guard abs(exact) < 9.2e18 else { return exact < 0 ? .negativeInfinity : .positiveInfinity }
        let rounded: Double
        switch method {
        case .roundHalfAwayFromZero: rounded = exact.rounded(.toNearestOrAwayFromZero)
        case .roundTowardZero: rounded = exact.rounded(.towardZero)
        case .roundAwayFromZero: rounded = exact.rounded(.awayFromZero)
        case .quickTime:
            rounded = exact < 0 && exact > -1 ? -1 : exact.rounded(.towardZero)
        case .roundTowardPositiveInfinity: rounded = exact.rounded(.up)
        case .roundTowardNegativeInfinity: rounded = exact.rounded(.down)
        }
        var t = self
        t.value = Int64(rounded)
        if rounded != exact { t.flags.insert(.hasBeenRounded) }
        return t
    }
}

extension MediaTime: Comparable {
    /// The rank of a time in CMTimeCompare's order: -inf < numeric < indefinite < +inf < invalid.
    private var orderRank: Int {
        if !isValid { return 4 }
        if isPositiveInfinity { return 3 }
        if isIndefinite { return 2 }
        if isNegativeInfinity { return 0 }
        return 1
    }

    /// `CMTimeCompare`: -1, 0 or 1.
    public static func compare(_ lhs: MediaTime, _ rhs: MediaTime) -> Int {
        let (ra, rb) = (lhs.orderRank, rhs.orderRank)
        if ra != rb { return ra < rb ? -1 : 1 }
        guard ra == 1 else { return 0 }
        if lhs.epoch != rhs.epoch { return lhs.epoch < rhs.epoch ? -1 : 1 }
        if lhs.timescale == rhs.timescale { return lhs.value == rhs.value ? 0 : (lhs.value < rhs.value ? -1 : 1) }
        // Cross-multiply in 128 bits: a/ta vs b/tb  <=>  a*tb vs b*ta.
        let left = lhs.value.multipliedFullWidth(by: Int64(rhs.timescale))
        let right = rhs.value.multipliedFullWidth(by: Int64(lhs.timescale))
        if left.high != right.high { return left.high < right.high ? -1 : 1 }
        if left.low != right.low { return left.low < right.low ? -1 : 1 }
        return 0
    }

    public static func < (lhs: MediaTime, rhs: MediaTime) -> Bool { compare(lhs, rhs) < 0 }

    /// Equal in CMTimeCompare's sense: 1/2 == 2/4. The flags `hasBeenRounded` is ignored.
    public static func == (lhs: MediaTime, rhs: MediaTime) -> Bool { compare(lhs, rhs) == 0 }

    public func hash(into hasher: inout Hasher) {
        let rank = orderRank
        hasher.combine(rank)
        if rank == 1 {
            // Hash the reduced fraction so that equal times hash alike.
            var a = value.magnitude, b = UInt64(timescale)
            while b != 0 { (a, b) = (b, a % b) }
            let g = max(a, 1)
            hasher.combine(epoch)
            hasher.combine(value / Int64(g))
            hasher.combine(Int64(timescale) / Int64(g))
        }
    }

    public static func minimum(_ a: MediaTime, _ b: MediaTime) -> MediaTime { b < a ? b : a }
    public static func maximum(_ a: MediaTime, _ b: MediaTime) -> MediaTime { b > a ? b : a }
}

extension MediaTime: CustomStringConvertible {
    /// `value/timescale`, or the name of a special value.
    public var description: String {
        if !isValid { return "invalid" }
        if isPositiveInfinity { return "+infinity" }
        if isNegativeInfinity { return "-infinity" }
        if isIndefinite { return "indefinite" }
        let base = "\(value)/\(timescale)"
        return epoch == 0 ? base : "\(base) epoch \(epoch)"
    }
}

extension MediaTime: Codable {
    /// Encodes as `"value/timescale"` (numeric), or as the name of a special value.
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let time = MediaTime(parsing: text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath,
                debugDescription: "expected a time such as \"1001/30000\" or \"2.5\", got \"\(text)\""))
        }
        self = time
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(description)
    }

    /// Parses `"value/timescale"`, a decimal number of seconds (`"2.5"`, exact), or a
    /// special name (`invalid`, `indefinite`, `+infinity`, `-infinity`).
    public init?(parsing text: String) {
        let s = text.trimmingCharacters(in: .whitespaces)
        switch s {
        case "invalid": self = .invalid; return
        case "indefinite": self = .indefinite; return
        case "+infinity", "infinity": self = .positiveInfinity; return
        case "-infinity": self = .negativeInfinity; return
        default: break
        }
        if let slash = s.firstIndex(of: "/") {
            guard let v = Int64(s[..<slash]), let t = Int32(s[s.index(after: slash)...]), t > 0 else { return nil }
            self.init(value: v, timescale: t)
            return
        }
        // Decimal seconds, kept exact: "12.345" -> 12345/1000.
        var digits = s
        var negative = false
        if digits.hasPrefix("-") { negative = true; digits.removeFirst() } else if digits.hasPrefix("+") { digits.removeFirst() }
        let parts = digits.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count <= 2, !digits.isEmpty,
              parts.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
              parts[0].count + (parts.count == 2 ? parts[1].count : 0) > 0 else { return nil }
        let fraction = parts.count == 2 ? String(parts[1]) : ""
        guard fraction.count <= 9, let whole = Int64(parts[0].isEmpty ? "0" : String(parts[0])) else { return nil }
        var scale: Int64 = 1
        for _ in 0..<fraction.count { scale *= 10 }
        let frac = fraction.isEmpty ? 0 : Int64(fraction)!
        let (w, o1) = whole.multipliedReportingOverflow(by: scale)
        guard !o1 else { return nil }
        let value = w + frac
        self.init(value: negative ? -value : value, timescale: Int32(scale))
    }
}
