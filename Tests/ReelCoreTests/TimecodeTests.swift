import ReelCore
import Testing

@Suite("Timecode")
struct TimecodeTests {
    @Test(arguments: [
        (0, "00:00:00;00"), (29, "00:00:00;29"), (1799, "00:00:59;29"), (1800, "00:01:00;02"),
        (17981, "00:09:59;29"), (17982, "00:10:00;00"), (107892, "01:00:00;00"),
    ])
    func dropFrameLabelsRoundTrip(frame: Int, label: String) throws {
        let tc = Timecode(frameNumber: frame, nominalRate: 30, dropFrame: true)
        #expect(tc.description == label)
        #expect(tc.frameNumber(nominalRate: 30) == frame)
        #expect(Timecode(label) == tc)
    }

    @Test func droppedLabelsAreInvalid() {
        #expect(!Timecode(hours: 0, minutes: 1, seconds: 0, frames: 0, dropFrame: true).isValid(nominalRate: 30))
        #expect(!Timecode(hours: 0, minutes: 1, seconds: 0, frames: 3, dropFrame: true).isValid(nominalRate: 60))
        #expect(Timecode(hours: 0, minutes: 10, seconds: 0, frames: 0, dropFrame: true).isValid(nominalRate: 30))
        #expect(Timecode(hours: 0, minutes: 1, seconds: 0, frames: 0).isValid(nominalRate: 30))
        #expect(!Timecode(hours: 0, minutes: 0, seconds: 0, frames: 25).isValid(nominalRate: 25))
    }

    @Test func everyFrameOfAnHourRoundTrips() {
        for rate in [30, 60] {
            let hour = Timecode(hours: 1, minutes: 0, seconds: 0, frames: 0, dropFrame: true).frameNumber(nominalRate: rate)
            for n in stride(from: 0, to: hour, by: 7) {
                let tc = Timecode(frameNumber: n, nominalRate: rate, dropFrame: true)
                #expect(tc.isValid(nominalRate: rate))
                if tc.frameNumber(nominalRate: rate) != n { Issue.record("frame \(n) at \(rate) -> \(tc)"); return }
            }
        }
    }

    @Test func parsesEveryFrameSeparator() throws {
        #expect(Timecode("15:44:35:10") == Timecode(hours: 15, minutes: 44, seconds: 35, frames: 10))
        for separator in [";", ".", ","] {
            #expect(try #require(Timecode("01:00:00\(separator)00")).isDropFrame)
        }
        for bad in ["", "1:00:00:00", "01:00:00:0", "01-00-00-00", "01:00:00:0x", "01:00:00::00", "001:00:00:00"] {
            #expect(Timecode(bad) == nil, "\(bad)")
        }
    }

    @Test func advancesAndWrapsAtADay() {
        let start = Timecode(hours: 15, minutes: 44, seconds: 35, frames: 10)
        #expect(start.advanced(byFrames: 45, nominalRate: 30).description == "15:44:36:25")
        #expect(start.advanced(byFrames: -11, nominalRate: 30).description == "15:44:34:29")
        #expect(Timecode(hours: 23, minutes: 59, seconds: 59, frames: 29).advanced(byFrames: 2, nominalRate: 30).description == "00:00:00:01")
        #expect(Timecode(hours: 0, minutes: 0, seconds: 0, frames: 0).advanced(byFrames: -1, nominalRate: 25).description == "23:59:59:24")
        // Drop-frame: one frame past 00:00:59;29 is 00:01:00;02.
        #expect(Timecode("00:00:59;29")!.advanced(byFrames: 1, nominalRate: 30).description == "00:01:00;02")
    }

    @Test(arguments: [(29.97, 30), (30000.0 / 1001, 30), (23.976, 24), (25, 25), (59.94, 60), (0, 30), (.nan, 30)])
    func nominalRates(fps: Double, rate: Int) {
        #expect(Timecode.nominalRate(framesPerSecond: fps) == rate)
    }
}
