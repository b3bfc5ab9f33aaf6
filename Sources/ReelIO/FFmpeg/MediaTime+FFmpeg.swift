internal import CFFmpeg
import ReelCore

extension MediaTime {
    /// A timestamp in an FFmpeg time base, exactly: `ts * num / den` seconds. When `den`
    /// is out of Int32 range or `num` is not 1, the time base is folded into the value
    /// where that stays exact, else rounded. `AV_NOPTS_VALUE` becomes invalid.
    init(ffmpeg ts: Int64, timeBase: AVRational) {
        if ts == reel_nopts_value() || timeBase.den <= 0 || timeBase.num <= 0 {
            self = .invalid
            return
        }
        if timeBase.num == 1 {
            self.init(value: ts, timescale: timeBase.den)
            return
        }
        let (v, overflow) = ts.multipliedReportingOverflow(by: Int64(timeBase.num))
        if !overflow {
            self.init(value: v, timescale: timeBase.den)
        } else {
            self = MediaTime(value: ts, timescale: timeBase.den).multiplied(byRatio: timeBase.num, 1)
        }
    }

    /// This time as a timestamp in `timeBase`, rounded half away from zero (as
    /// `av_rescale_q` does); nil when not numeric.
    func ffmpegTimestamp(in timeBase: AVRational, method: RoundingMethod = .default) -> Int64? {
        guard isNumeric, timeBase.num > 0, timeBase.den > 0 else { return nil }
        // t = value/timescale s; ts = t * den / num = value * den / (timescale * num).
        if timeBase.num == 1 {
            return convertScale(timeBase.den, method: method).value
        }
        let scaled = MediaTime(value: value, timescale: timescale).multiplied(byRatio: 1, timeBase.num)
        return scaled.convertScale(timeBase.den, method: method).value
    }
}

extension AVRational {
    init(timescale: Int32) { self.init(num: 1, den: timescale) }
}
