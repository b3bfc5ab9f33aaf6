// Times counted in ticks of a rational duration: container time bases such as FFmpeg's
// AVRational (1/90000, 1001/30000), frame durations, sample periods.

extension MediaTime {
    /// The time `ticks * numerator / denominator` seconds: a count of ticks that each
    /// last `numerator/denominator` seconds (a time base such as 1001/30000).
    ///
    /// Exact whenever the value fits: the tick is reduced, then the time is
    /// `ticks * numerator` over `denominator` (pts 7 in 1001/30000 is `7007/30000`). Only a
    /// value beyond 64 bits halves the timescale (rounded half away from zero, flagged),
    /// and past a timescale of 1 it becomes an infinity. A numerator or denominator of
    /// zero or less gives ``invalid``.
    public init(ticks: Int64, numerator: Int32, denominator: Int32) {
        guard numerator > 0, denominator > 0 else { self = .invalid; return }
        let g = Int32(Self.gcd(UInt64(numerator), UInt64(denominator)))
        let (n, d) = (numerator / g, denominator / g)
        let (v, overflow) = ticks.multipliedReportingOverflow(by: Int64(n))
        if !overflow {
            self.init(value: v, timescale: d)
        } else {
            self = Self.fitting(Int128(ticks) * Int128(n), over: Int128(d), scale: d, epoch: 0, rounded: false)
        }
    }

    /// This time as a count of ticks of `numerator/denominator` seconds, rounded by
    /// `method` from the exact quotient `value * denominator / (timescale * numerator)`
    /// (one rounding, no intermediate time). ``RoundingMethod/quickTime`` counts the tick
    /// as a smaller timescale when it is longer than this time's unit.
    ///
    /// Nil when the time is not numeric, the tick is not positive, or the count does not
    /// fit in 64 bits.
    public func ticks(numerator: Int32, denominator: Int32, method: RoundingMethod = .default) -> Int64? {
        guard isNumeric, numerator > 0, denominator > 0 else { return nil }
        let top = Int128(value) * Int128(denominator)
        let bottom = Int128(timescale) * Int128(numerator)
        // The tick is coarser than 1/timescale when numerator/denominator > 1/timescale.
        let coarser = bottom > Int128(denominator)
        let (q, _) = Self.divide(top, by: bottom, method: method, shrinking: coarser)
        return Int64(exactly: q)
    }
}
