import CFFmpeg
import ReelCore
import Testing

@testable import ReelIO

/// A time base and a readable name for test arguments.
struct TimeBase: Sendable, CustomTestStringConvertible {
    let num: Int32
    let den: Int32
    init(_ num: Int32, _ den: Int32) { self.num = num; self.den = den }
    var rational: AVRational { AVRational(num: num, den: den) }
    var testDescription: String { "\(num)/\(den)" }
}

@Suite("MediaTime <-> FFmpeg time bases")
struct MediaTimeFFmpegTests {
    static let timeBases: [TimeBase] = [
        TimeBase(1, 90000), TimeBase(1, 30000), TimeBase(1001, 30000), TimeBase(1001, 24000), TimeBase(1001, 60000),
        TimeBase(1, 1000), TimeBase(1, 48000), TimeBase(1, 44100), TimeBase(1, 1_000_000), TimeBase(2, 60),
        TimeBase(1, 25), TimeBase(3, 1), TimeBase(1, Int32.max), TimeBase(90000, 1),
    ]

    @Test func noTimestampIsInvalid() {
        #expect(!MediaTime(ffmpeg: reel_nopts_value(), timeBase: AVRational(timescale: 90000)).isValid)
        #expect(reel_nopts_value() == Int64.min)
    }

    @Test func nonPositiveTimeBasesAreInvalid() {
        for tb in [AVRational(num: 0, den: 1), AVRational(num: 1, den: 0), AVRational(num: -1, den: 30), AVRational(num: 1, den: -30)] {
            #expect(!MediaTime(ffmpeg: 5, timeBase: tb).isValid)
            #expect(MediaTime(value: 1, timescale: 1).ffmpegTimestamp(in: tb) == nil)
        }
    }

    @Test func exactValues() {
        let a = MediaTime(ffmpeg: 7, timeBase: AVRational(num: 1001, den: 30000))
        #expect(a.value == 7007 && a.timescale == 30000 && !a.hasBeenRounded)
        let b = MediaTime(ffmpeg: 3003, timeBase: AVRational(timescale: 90000))
        #expect(b.value == 3003 && b.timescale == 90000)
        #expect(a == MediaTime(ffmpeg: 21021, timeBase: AVRational(timescale: 90000)))
        // An unreduced time base is reduced: 2/60 is 1/30.
        let c = MediaTime(ffmpeg: 5, timeBase: AVRational(num: 2, den: 60))
        #expect(c.value == 5 && c.timescale == 30)
        // Negative timestamps (edit lists, B-frame dts) convert too.
        #expect(MediaTime(ffmpeg: -2, timeBase: AVRational(num: 1001, den: 30000)) == MediaTime(value: -2002, timescale: 30000))
        #expect(MediaTime(value: -2002, timescale: 30000).ffmpegTimestamp(in: AVRational(num: 1001, den: 30000)) == -2)
    }

    @Test func roundingToATimeBase() {
        let tb = AVRational(timescale: 1000)
        let t = MediaTime(value: -1, timescale: 2000)  // -0.5 ms
        #expect(t.ffmpegTimestamp(in: tb) == -1)
        #expect(t.ffmpegTimestamp(in: tb, method: .roundTowardZero) == 0)
        #expect(t.ffmpegTimestamp(in: tb, method: .roundTowardPositiveInfinity) == 0)
        #expect(t.ffmpegTimestamp(in: tb, method: .roundTowardNegativeInfinity) == -1)
        #expect(t.ffmpegTimestamp(in: tb, method: .quickTime) == -1)
        // 1/3 s in 1001/30000 ticks: 9.99 ticks, one rounding only.
        let third = MediaTime(value: 1, timescale: 3)
        let ntsc = AVRational(num: 1001, den: 30000)
        #expect(third.ffmpegTimestamp(in: ntsc) == 10)
        #expect(third.ffmpegTimestamp(in: ntsc, method: .roundTowardZero) == 9)
        // A time that needs a huge intermediate (timescale * num > Int32.max) still rounds once.
        let fine = MediaTime(value: 1_000_000_001, timescale: 1_000_000_000)
        #expect(fine.ffmpegTimestamp(in: ntsc, method: .roundTowardZero) == 29)  // 29.97... ticks
        #expect(fine.ffmpegTimestamp(in: ntsc, method: .roundAwayFromZero) == 30)
        // Special values and overflow have no timestamp.
        #expect(MediaTime.invalid.ffmpegTimestamp(in: tb) == nil)
        #expect(MediaTime.positiveInfinity.ffmpegTimestamp(in: tb) == nil)
        #expect(MediaTime(value: .max, timescale: 1).ffmpegTimestamp(in: tb) == nil)
        #expect(MediaTime(value: .min, timescale: 1000).ffmpegTimestamp(in: tb) == nil)  // would be AV_NOPTS_VALUE
    }

    @Test func overflowingTimestampsHalveTheTimescale() {
        // Int64.max ticks of 1001/30000 s: the value needs more than 64 bits at 1/30000.
        let t = MediaTime(ffmpeg: .max, timeBase: AVRational(num: 1001, den: 30000))
        #expect(t.isNumeric && t.hasBeenRounded)
        #expect(t.timescale < 30000)
        let expected = Double(Int64.max) * 1001 / 30000
        #expect(abs(t.seconds - expected) / expected < 1e-12)
    }

    @Test(arguments: timeBases)
    func timestampsRoundTripExactly(_ tb: TimeBase) {
        for ts: Int64 in [0, 1, -1, 2, 1001, 3003, 123_456_789, -987_654_321, 1 << 40, -(1 << 40), Int64(Int32.max) * 3] {
            let time = MediaTime(ffmpeg: ts, timeBase: tb.rational)
            #expect(time.isNumeric && !time.hasBeenRounded)
            for method in MediaTime.RoundingMethod.allCases {
                #expect(time.ffmpegTimestamp(in: tb.rational, method: method) == ts, "\(ts) in \(tb.num)/\(tb.den), \(method)")
            }
        }
    }

    /// Ten hours of 30000/1001 video: frame pts in 1/90000 and in 1001/30000, converted
    /// both ways, and the running sum of frame durations, with no drift at any frame.
    /// Every frame is summed; the conversions are checked on every 37th frame and on the
    /// last thousand (a debug build is slow).
    @Test func tenHoursOfNTSCFramesDoNotDrift() {
        let mpegTS = AVRational(timescale: 90000)
        let frameBase = AVRational(num: 1001, den: 30000)
        let frameCount: Int64 = 10 * 3600 * 30000 / 1001  // 1,078,921 frames
        let frameDuration = MediaTime(value: 1001, timescale: 30000)
        var accumulated = MediaTime(value: 0, timescale: 30000)
        var mismatches = 0
        var fullChecks = 0
        for n in 0...frameCount {
            var ok = accumulated.value == 1001 * n && accumulated.timescale == 30000
            if n % 37 == 0 || n > frameCount - 1000 {
                fullChecks += 1
                let exact = MediaTime(value: 1001 * n, timescale: 30000)
                let fromTS = MediaTime(ffmpeg: 3003 * n, timeBase: mpegTS)
                let fromFrames = MediaTime(ffmpeg: n, timeBase: frameBase)
                ok =
                    ok && fromTS == exact && fromFrames == exact && !accumulated.hasBeenRounded
                    && exact.ffmpegTimestamp(in: mpegTS) == 3003 * n
                    && fromTS.ffmpegTimestamp(in: frameBase) == n
                    && fromFrames.ffmpegTimestamp(in: mpegTS) == 3003 * n
            }
            if !ok {
                mismatches += 1
                if mismatches <= 5 { Issue.record("frame \(n): sum \(accumulated), expected \(1001 * n)/30000") }
            }
            accumulated += frameDuration
        }
        #expect(mismatches == 0)
        #expect(fullChecks > 30000)
        // The sum is still in the frame timescale: no rounding ever happened.
        #expect(accumulated.timescale == 30000 && accumulated.value == 1001 * (frameCount + 1))
    }
}
