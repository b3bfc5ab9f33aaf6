/// An SMPTE timecode label (SMPTE ST 12-1): `HH:MM:SS:FF`, or `HH:MM:SS;FF` when
/// drop-frame, and the frame number it names at a nominal rate.
///
/// A camera's timecode track (`tmcd`) names its first frame this way (a GoPro's is the time
/// of day it started recording); SCC captions time their words with it. Drop-frame counting
/// (29.97 and 59.94 fps, nominal rates 30 and 60) skips labels `:00` and `:01` (`:00`-`:03`
/// at 60) at the start of every minute except each tenth, so labels keep pace with the clock.
public struct Timecode: Hashable, Sendable, CustomStringConvertible {
    public var hours: Int
    public var minutes: Int
    public var seconds: Int
    public var frames: Int
    /// Drop-frame counting (written with `;` before the frames).
    public var isDropFrame: Bool

    public init(hours: Int, minutes: Int, seconds: Int, frames: Int, dropFrame: Bool = false) {
        self.hours = hours
        self.minutes = minutes
        self.seconds = seconds
        self.frames = frames
        self.isDropFrame = dropFrame
    }

    /// The label of frame `n` (n >= 0) counted at `nominalRate` frames a second.
    public init(frameNumber n: Int, nominalRate: Int, dropFrame: Bool = false) {
        let rate = max(1, nominalRate)
        var f = max(0, n)
        if dropFrame {
            let drop = Self.droppedLabels(nominalRate: rate)
            let perTenMinutes = rate * 600 - drop * 9
            let perMinute = rate * 60 - drop
            let tens = f / perTenMinutes, rest = f % perTenMinutes
            f += drop * 9 * tens + (rest >= drop ? drop * ((rest - drop) / perMinute) : 0)
        }
        self.init(hours: f / (rate * 3600), minutes: f / (rate * 60) % 60, seconds: f / rate % 60, frames: f % rate, dropFrame: dropFrame)
    }

    /// Reads `HH:MM:SS:FF`, or `HH:MM:SS;FF` as drop-frame (also `.` or `,` before the
    /// frames, as some tools write it); nil for anything else. The fields are checked for
    /// range by ``isValid(nominalRate:)``, which needs the rate.
    public init?(_ text: some StringProtocol) {
        let chars = Array(text)
        guard chars.count == 11, chars[2] == ":", chars[5] == ":" else { return nil }
        let drop = chars[8] == ";" || chars[8] == "." || chars[8] == ","
        guard drop || chars[8] == ":" else { return nil }
        let digits = [0, 1, 3, 4, 6, 7, 9, 10].map { chars[$0] }
        guard digits.allSatisfy({ $0.isASCII && $0.isWholeNumber }) else { return nil }
        func two(_ i: Int) -> Int { Int(String(chars[i...i + 1]))! }
        self.init(hours: two(0), minutes: two(3), seconds: two(6), frames: two(9), dropFrame: drop)
    }

    /// The frame number the label names at `nominalRate` frames a second.
    public func frameNumber(nominalRate: Int) -> Int {
        let rate = max(1, nominalRate)
        var n = ((hours * 60 + minutes) * 60 + seconds) * rate + frames
        if isDropFrame {
            let totalMinutes = hours * 60 + minutes
            n -= Self.droppedLabels(nominalRate: rate) * (totalMinutes - totalMinutes / 10)
        }
        return n
    }

    /// Whether the label exists at `nominalRate`: fields in range, and not a label
    /// drop-frame counting skips.
    public func isValid(nominalRate: Int) -> Bool {
        guard hours >= 0, hours < 1000, minutes >= 0, minutes < 60, seconds >= 0, seconds < 60,
            frames >= 0, frames < nominalRate
        else { return false }
        return !(isDropFrame && seconds == 0 && minutes % 10 != 0 && frames < Self.droppedLabels(nominalRate: nominalRate))
    }

    /// The label `count` frames later (earlier when negative), counted as this one is and
    /// wrapping at 24 hours, as timecode does.
    public func advanced(byFrames count: Int, nominalRate: Int) -> Timecode {
        let day = Timecode(hours: 24, minutes: 0, seconds: 0, frames: 0, dropFrame: isDropFrame).frameNumber(nominalRate: nominalRate)
        let n = frameNumber(nominalRate: nominalRate) + count
        return Timecode(frameNumber: ((n % day) + day) % day, nominalRate: nominalRate, dropFrame: isDropFrame)
    }

    /// The whole frames a second a timecode counts at a frame rate: 29.97 counts at 30,
    /// 23.976 at 24, 59.94 at 60 (their timecodes are usually drop-frame at 30 and 60).
    public static func nominalRate(framesPerSecond fps: Double) -> Int {
        guard fps.isFinite, fps > 0 else { return 30 }
        return max(1, Int(fps.rounded()))
    }

    /// `HH:MM:SS:FF`, with `;` before the frames when drop-frame.
    public var description: String {
        func two(_ v: Int) -> String { v < 10 && v >= 0 ? "0\(v)" : "\(v)" }
        return two(hours) + ":" + two(minutes) + ":" + two(seconds) + (isDropFrame ? ";" : ":") + two(frames)
    }

    /// Labels skipped a minute in drop-frame counting: 2 at 30 fps, 4 at 60.
    static func droppedLabels(nominalRate: Int) -> Int { nominalRate <= 30 ? 2 : 4 }
}
