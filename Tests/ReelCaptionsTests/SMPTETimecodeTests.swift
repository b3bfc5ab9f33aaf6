import Testing
@testable import ReelCaptions

@Suite("SMPTE timecode")
struct SMPTETimecodeTests {
    @Test(arguments: [
        (Int64(0), "00:00:00;00"), (29, "00:00:00;29"), (1799, "00:00:59;29"), (1800, "00:01:00;02"),
        (17981, "00:09:59;29"), (17982, "00:10:00;00"), (107892, "01:00:00;00"),
    ])
    func dropFrameLabelsRoundTrip(frame: Int64, label: String) throws {
        let tc = SMPTETimecode(frameNumber: frame, nominalRate: 30, dropFrame: true)
        #expect(tc.string(dropFrame: true) == label)
        #expect(tc.frameNumber(nominalRate: 30, dropFrame: true) == frame)
    }

    @Test func droppedLabelsAreInvalid() {
        #expect(!SMPTETimecode(hours: 0, minutes: 1, seconds: 0, frames: 0).isValid(nominalRate: 30, dropFrame: true))
        #expect(SMPTETimecode(hours: 0, minutes: 10, seconds: 0, frames: 0).isValid(nominalRate: 30, dropFrame: true))
        #expect(SMPTETimecode(hours: 0, minutes: 1, seconds: 0, frames: 0).isValid(nominalRate: 30, dropFrame: false))
    }

    @Test func everyFrameOfAnHourRoundTrips() {
        for n in stride(from: Int64(0), to: 107_892, by: 7) {
            let tc = SMPTETimecode(frameNumber: n, nominalRate: 30, dropFrame: true)
            #expect(tc.isValid(nominalRate: 30, dropFrame: true))
            if tc.frameNumber(nominalRate: 30, dropFrame: true) != n { Issue.record("frame \(n) -> \(tc.string(dropFrame: true))"); return }
        }
    }
}
