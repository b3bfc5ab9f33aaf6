/// Time arithmetic of playback: rates applied to clock time, and the frame grid.
enum PlaybackTime {
    /// `elapsed * rate`, exact for rates with at most three decimals (1, 2, 0.5, 1.25...).
    static func scale(_ elapsed: MediaTime, by rate: Double) -> MediaTime {
        if rate == 1 { return elapsed }
        let thousandths = (rate * 1000).rounded()
        if abs(thousandths / 1000 - rate) < 1e-12, abs(thousandths) < Double(Int32.max) {
            return elapsed.multiplied(byRatio: Int32(thousandths), 1000)
        }
        return elapsed.multiplied(by: rate)
    }

    /// `itemElapsed / rate`: the clock time that `itemElapsed` of item time takes.
    static func unscale(_ itemElapsed: MediaTime, by rate: Double) -> MediaTime {
        if rate == 1 { return itemElapsed }
        let thousandths = (rate * 1000).rounded()
        if abs(thousandths / 1000 - rate) < 1e-12, thousandths > 0, thousandths < Double(Int32.max) {
            return itemElapsed.multiplied(byRatio: 1000, Int32(thousandths))
        }
        return itemElapsed.multiplied(by: 1 / rate)
    }

    /// The output frame of a `step` grid from `range.start` that holds `time`; nil outside.
    static func frameRange(containing time: MediaTime, step: MediaTime, range: TimeRange) -> TimeRange? {
        guard range.containsTime(time), step.isNumeric, step > .zero else { return nil }
        let offset = time - range.start
        let (num, o1) = offset.value.multipliedReportingOverflow(by: Int64(step.timescale))
        let (den, o2) = Int64(offset.timescale).multipliedReportingOverflow(by: step.value)
        let k: Int64 = (o1 || o2 || den <= 0) ? Int64((offset.seconds / step.seconds).rounded(.down)) : num / den
        var start = range.start + step * Int32(clamping: k)
        if start > time { start = start - step }
        return TimeRange(start: start, end: MediaTime.minimum(start + step, range.end))
    }

    /// The first multiple of `interval` (from zero) strictly after `time`.
    static func nextMultiple(of interval: MediaTime, after time: MediaTime) -> MediaTime {
        guard
            let range = frameRange(
                containing: MediaTime.maximum(time, .zero), step: interval,
                range: TimeRange(start: .zero, end: .positiveInfinity))
        else { return time + interval }
        return range.start + interval
    }
}
