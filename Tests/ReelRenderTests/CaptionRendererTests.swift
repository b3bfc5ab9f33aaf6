import Foundation
import Reel
import ReelTesting
import ReelText
import Testing

/// Goldens of captions burnt into the counter fixture: one per region, with bold, italic,
/// underline and colour. Re-record with RECORD_GOLDENS=1.
@Suite("CaptionRenderer")
struct CaptionRendererTests {
    static let counter = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/counter-320x240.mp4")

    /// Frame 15 of the counter fixture, in `format`.
    static func frame(_ format: PixelFormat) throws -> PixelBuffer {
        let reader = try AssetReader(url: counter)
        let id = try #require(reader.tracks(withMediaType: .video).first?.trackID)
        let output = AssetReaderTrackOutput(trackID: id, settings: .video(pixelFormat: format), bufferCapacity: 4)
        try reader.add(output)
        try reader.startReading()
        var n = 0
        while let sample = try output.nextSample() {
            if let frame = sample.videoFrame {
                if n == 15 { return frame.pixelBuffer }
                n += 1
            }
        }
        throw ReelError(.internalError, "the counter fixture has fewer than 16 frames")
    }

    static let range = TimeRange(start: .zero, duration: MediaTime(value: 1, timescale: 1))

    static func caption(in region: CaptionRegion) -> Caption {
        Caption(
            spans: [
                .init("Caption "), .init("bold", CaptionStyle(fontWeight: .bold)), .init(" and "),
                .init("italic", CaptionStyle(italic: true)), .init("\n"),
                .init("yellow", CaptionStyle(textColor: .yellow)), .init(" "),
                .init("underlined", CaptionStyle(underline: true, textColor: .cyan)),
            ],
            timeRange: range, region: region)
    }

    @Test(arguments: [("top", CaptionRegion.top), ("bottom", .bottom), ("left", .left), ("right", .right)])
    func eachRegionWithStyles(name: String, region: CaptionRegion) throws {
        let frame = try Self.frame(.bgra)
        let renderer = try CaptionRenderer()
        try renderer.render(CaptionGroup(timeRange: Self.range, captions: [Self.caption(in: region)]), into: frame)
        try Golden(nextTo: #filePath).verify(frame, named: "caption-\(name)", tolerance: .init(maximumChannelDifference: 2))
    }

    @Test func yuvFramesGetTheSamePicture() throws {
        let bgra = try Self.frame(.bgra), yuv = try Self.frame(.yuv420p)
        let renderer = try CaptionRenderer()
        let caption = Caption("Same in YUV", timeRange: Self.range, textAlignment: .left)
        try renderer.render(caption, into: bgra)
        try renderer.render(caption, into: yuv)
        let comparison = ImageComparison(expected: RasterImage(bgra), actual: RasterImage(yuv))
        #expect(comparison.psnr > 30, "PSNR \(comparison.psnr)")
    }

    @Test func anEmptyGroupDrawsNothing() throws {
        let frame = try Self.frame(.bgra)
        let before = FrameHash.hash(frame)
        try CaptionRenderer().render(CaptionGroup(timeRange: Self.range), into: frame)
        #expect(FrameHash.hash(frame) == before)
    }
}
