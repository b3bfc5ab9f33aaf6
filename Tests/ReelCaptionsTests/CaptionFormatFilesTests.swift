import Foundation
import ReelTestSupport
import Testing

@testable import ReelCaptions

/// Round trips between formats: each keeps text, timing (to the frame through SCC, to the
/// millisecond otherwise) and the styles both formats hold.
@Suite("Caption format round trips")
struct CaptionFormatFilesTests {
    @Test func ittToSCCToITT() throws {
        let itt = ITT.write(CaptionSamples.portable)
        let fromITT = try CaptionFormat.itt.read(itt).captions
        let (scc, warnings) = try CaptionFormat.scc.write(fromITT)
        #expect(warnings.isEmpty)
        let back = try CaptionFormat.itt.read(try CaptionFormat.itt.write(try CaptionFormat.scc.read(scc).captions).data).captions
        CaptionSamples.expectSame(back, CaptionSamples.portable, tolerance: CaptionSamples.halfFrame)
    }

    @Test func srtToITTToSRT() throws {
        let srt = SRT.write(CaptionSamples.portable)
        let itt = try CaptionFormat.itt.write(try CaptionFormat.srt.read(srt).captions).data
        let back = try CaptionFormat.srt.write(try CaptionFormat.itt.read(itt).captions).data
        #expect(String(decoding: back, as: UTF8.self) == String(decoding: srt, as: UTF8.self))
    }

    @Test func webVTTToSRTKeepsWhatSRTHolds() throws {
        let vtt = WebVTT.write(CaptionSamples.portable)
        let srt = try CaptionFormat.srt.write(try CaptionFormat.webVTT.read(vtt).captions).data
        CaptionSamples.expectSame(try SRT.read(srt).captions, CaptionSamples.portable, tolerance: .zero)
    }

    @Test func trackFormatsAreNotFiles() {
        expectReelError(.unsupportedFormat) { try CaptionFormat.movText.read(Data()) }
        #expect(!CaptionFormat.movText.isFileFormat)
    }
}
