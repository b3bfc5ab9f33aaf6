internal import CFFmpeg
import ReelCore

extension MediaTime {
    /// A timestamp in an FFmpeg time base, exactly: `ts * num / den` seconds, as
    /// ``MediaTime/init(ticks:numerator:denominator:)`` (pts 7 in 1001/30000 is
    /// `7007/30000`; pts 3003 in 1/90000 is `3003/90000`). `AV_NOPTS_VALUE`, and a time
    /// base that is not positive, give an invalid time.
    init(ffmpeg ts: Int64, timeBase: AVRational) {
        guard ts != reel_nopts_value() else {
            self = .invalid
            return
        }
        self.init(ticks: ts, numerator: timeBase.num, denominator: timeBase.den)
    }

    /// This time as a timestamp in `timeBase`, rounded once by `method` from the exact
    /// quotient (the default, half away from zero, is what `av_rescale_q` does). Nil when
    /// the time is not numeric, the time base is not positive, or the timestamp would
    /// not fit (it never returns `AV_NOPTS_VALUE` for a real time).
    func ffmpegTimestamp(in timeBase: AVRational, method: RoundingMethod = .default) -> Int64? {
        guard let ts = ticks(numerator: timeBase.num, denominator: timeBase.den, method: method),
            ts != reel_nopts_value()
        else { return nil }
        return ts
    }
}

extension AVRational {
    /// The time base `1/timescale`.
    init(timescale: Int32) { self.init(num: 1, den: timescale) }
}
