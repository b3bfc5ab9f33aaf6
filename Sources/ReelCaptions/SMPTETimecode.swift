/// SMPTE timecode labels (`HH:MM:SS:FF`, drop-frame `HH:MM:SS;FF`) and the frame numbers
/// they name (SMPTE ST 12-1).
///
/// Drop-frame counting (29.97 fps) skips labels `:00` and `:01` at the start of every
/// minute except each tenth, so labels keep pace with the clock.
struct SMPTETimecode: Hashable {
    var hours: Int64, minutes: Int64, seconds: Int64, frames: Int64

    /// The frame number the label names at `nominalRate` frames per second.
    func frameNumber(nominalRate: Int64, dropFrame: Bool) -> Int64 {
        var n = ((hours * 60 + minutes) * 60 + seconds) * nominalRate + frames
        if dropFrame {
            let totalMinutes = hours * 60 + minutes
            n -= dropCount(nominalRate) * (totalMinutes - totalMinutes / 10)
        }
        return n
    }

    /// The label of frame `n` (n >= 0).
    init(frameNumber n: Int64, nominalRate: Int64, dropFrame: Bool) {
        var f = n
        if dropFrame {
            let drop = SMPTETimecode.dropCount(nominalRate)
            let perTenMinutes = nominalRate * 600 - drop * 9
            let perMinute = nominalRate * 60 - drop
            let tens = f / perTenMinutes, rest = f % perTenMinutes
            f += drop * 9 * tens + (rest >= drop ? drop * ((rest - drop) / perMinute) : 0)
        }
        frames = f % nominalRate
        seconds = f / nominalRate % 60
        minutes = f / (nominalRate * 60) % 60
        hours = f / (nominalRate * 3600)
    }

    init(hours: Int64, minutes: Int64, seconds: Int64, frames: Int64) {
        self.hours = hours
        self.minutes = minutes
        self.seconds = seconds
        self.frames = frames
    }

    /// Frames dropped a minute: 2 at 30 fps, 4 at 60.
    private func dropCount(_ rate: Int64) -> Int64 { SMPTETimecode.dropCount(rate) }
    static func dropCount(_ rate: Int64) -> Int64 { rate <= 30 ? 2 : 4 }

    /// Whether a label exists in drop-frame counting (not a dropped `:00`/`:01`).
    func isValid(nominalRate: Int64, dropFrame: Bool) -> Bool {
        guard minutes < 60, seconds < 60, frames < nominalRate, hours >= 0, hours < 1000 else { return false }
        return !(dropFrame && seconds == 0 && minutes % 10 != 0 && frames < SMPTETimecode.dropCount(nominalRate))
    }

    /// `HH:MM:SS:FF`, with `;` before the frames when drop-frame.
    func string(dropFrame: Bool) -> String {
        CueClock.pad(hours, 2) + ":" + CueClock.pad(minutes, 2) + ":" + CueClock.pad(seconds, 2) + (dropFrame ? ";" : ":") + CueClock.pad(frames, 2)
    }
}
