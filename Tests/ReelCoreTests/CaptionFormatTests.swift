import ReelCore
import Testing

@Suite("CaptionFormat")
struct CaptionFormatTests {
    @Test func extensionsNameFormats() {
        #expect(CaptionFormat(fileExtension: "SRT") == .srt)
        #expect(CaptionFormat(fileExtension: "ttml") == .itt)
        #expect(CaptionFormat(fileExtension: "vtt") == .webVTT)
        #expect(CaptionFormat(fileExtension: "mp4") == nil)
        for format in CaptionFormat.allCases where format != .movText {
            #expect(CaptionFormat(fileExtension: format.fileExtension) == format)
        }
    }

    @Test func sccRulesAreCEA608s() {
        #expect(CaptionFormat.scc.maximumLines == 4)
        #expect(CaptionFormat.scc.maximumLineLength == 32)
        #expect(!CaptionFormat.scc.supportedStyles.contains(.bold))
        #expect(!CaptionFormat.scc.allowsOverlappingCaptions)
        #expect(CaptionFormat.itt.allowsOverlappingCaptions)
        #expect(CaptionFormat.scc.supportedTextColors?.contains(.yellow) == true)
        #expect(CaptionFormat.srt.supportedTextColors == nil)
    }

    @Test func regionsKnowTheirHalf() {
        #expect(CaptionRegion.top.isInUpperHalf(rows: 15))
        #expect(!CaptionRegion.bottom.isInUpperHalf(rows: 15))
        #expect(CaptionRegion(x: .cells(0), y: .cells(2), width: .cells(32), height: .cells(2)).isInUpperHalf(rows: 15))
        #expect(CaptionRegion.Dimension.percent(12.5).description == "12.5%")
        #expect(CaptionRegion.Dimension.cells(3).description == "3c")
    }
}
