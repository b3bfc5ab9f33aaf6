import Foundation
import ReelComposition
import Testing

@Suite struct PixelBufferAttributesTests {
    @Test func encodedUnderTheFormerKeySoSavedAttributesStillDecode() throws {
        let attributes = PixelBufferAttributes(pixelFormatType: [.yuv420p, .bgra])
        let json = String(decoding: try JSONEncoder().encode(attributes), as: UTF8.self)
        #expect(json == #"{"pixelFormats":["yuv420p","bgra"]}"#)
        let saved = Data(#"{"pixelFormats":["bgra"]}"#.utf8)
        #expect(try JSONDecoder().decode(PixelBufferAttributes.self, from: saved) == .bgra)
    }

    @Test func acceptsOnlyTheListedFormats() {
        #expect(PixelBufferAttributes.yuv420p.accepts(.yuv420p))
        #expect(!PixelBufferAttributes.yuv420p.accepts(.bgra))
    }
}
