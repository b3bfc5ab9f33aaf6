import Foundation
import ReelCore
import ReelTestSupport
import ReelTesting
import Testing

@testable import ReelText

@Suite("Canvas")
struct CanvasTests {
    @Test func fillBlendsBGRAWithStraightAlpha() throws {
        let buffer = SyntheticFrame.solid(Color(red: 0, green: 0, blue: 1), width: 8, height: 4, format: .bgra)
        let canvas = try Canvas(buffer)
        canvas.fill(x: 2, y: 1, width: 3, height: 2, color: Color(red: 1, green: 0, blue: 0, alpha: 0.5))
        let image = RasterImage(buffer)
        // Inside: red at alpha 128/255 over blue.
        #expect(image.rgba(x: 2, y: 1) == RGBA(128, 0, 127, 255))
        #expect(image.rgba(x: 4, y: 2) == RGBA(128, 0, 127, 255))
        // Outside: untouched.
        #expect(image.rgba(x: 1, y: 1) == RGBA(0, 0, 255, 255))
        #expect(image.rgba(x: 5, y: 1) == RGBA(0, 0, 255, 255))
        #expect(image.rgba(x: 2, y: 3) == RGBA(0, 0, 255, 255))
    }

    @Test func fillIsClippedToTheFrame() throws {
        let buffer = SyntheticFrame.solid(.black, width: 4, height: 4, format: .bgra)
        let canvas = try Canvas(buffer)
        canvas.fill(x: -10, y: -10, width: 12, height: 12, color: .white)
        canvas.fill(x: 100, y: 100, width: 5, height: 5, color: .white)
        let image = RasterImage(buffer)
        #expect(image.rgba(x: 1, y: 1) == RGBA(255, 255, 255, 255))
        #expect(image.rgba(x: 2, y: 2) == RGBA(0, 0, 0, 255))
    }

    @Test func fillWritesBT709LimitedRangeInYUV() throws {
        let buffer = SyntheticFrame.solid(.black, width: 8, height: 8, format: .yuv420p)
        buffer.colorProperties.matrix = "bt709"
        let canvas = try Canvas(buffer)
        canvas.fill(x: 0, y: 0, width: 4, height: 4, color: .white)
        #expect(buffer.ycbcr(x: 0, y: 0) == (y: 235, cb: 128, cr: 128))
        #expect(buffer.ycbcr(x: 5, y: 5).y == 16)
        canvas.fill(x: 4, y: 4, width: 4, height: 4, color: Color(red: 1, green: 0, blue: 0))
        let red = buffer.ycbcr(x: 6, y: 6)
        // BT.709 limited range red: Y 63, Cb 102, Cr 240.
        #expect(abs(Int(red.y) - 63) <= 1 && abs(Int(red.cb) - 102) <= 1 && abs(Int(red.cr) - 240) <= 1)
    }

    /// Red in the frame's own encoding: BT.601 for untagged SD, BT.709 for untagged HD,
    /// the whole byte for full range.
    @Test(arguments: [(8, 8, false, [81, 90, 240]), (1280, 720, false, [63, 102, 240]), (8, 8, true, [76, 85, 255])])
    func fillFollowsTheFramesEncoding(width: Int, height: Int, fullRange: Bool, red: [Int]) throws {
        let buffer = PixelBuffer(width: width, height: height, format: .yuv420p)
        buffer.colorProperties.fullRange = fullRange
        try Canvas(buffer).fill(x: 0, y: 0, width: 4, height: 4, color: Color(red: 1, green: 0, blue: 0))
        let s = buffer.ycbcr(x: 1, y: 1)
        #expect(zip([Int(s.y), Int(s.cb), Int(s.cr)], red).allSatisfy { abs($0 - $1) <= 1 }, "\(s)")
    }

    @Test func chromaTakesTheMeanCoverageOfItsFourPixels() throws {
        let buffer = SyntheticFrame.solid(.black, width: 4, height: 4, format: .yuv420p)
        let canvas = try Canvas(buffer)
        // One luma column of the 2x2 block: the chroma sample gets half the blend.
        canvas.fill(x: 0, y: 0, width: 1, height: 2, color: Color(red: 1, green: 0, blue: 0))
        let c = buffer.ycbcr(x: 0, y: 0)
        #expect(abs(Int(c.cr) - (128 + (240 - 128) / 2)) <= 1)
        #expect(buffer.ycbcr(x: 1, y: 0).y == 16)
    }

    @Test func maskDrawsInTheColourWhereCovered() throws {
        let buffer = SyntheticFrame.solid(.black, width: 40, height: 40, format: .bgra)
        var mask = CoverageMask(width: 40, height: 40)
        mask.strokePolyline([Point(x: 5, y: 20.5), Point(x: 35, y: 20.5)], lineWidth: 4)
        try Canvas(buffer).draw(mask, x: 0, y: 0, color: Color(red: 0, green: 1, blue: 0))
        let image = RasterImage(buffer)
        #expect(image.rgba(x: 20, y: 20) == RGBA(0, 255, 0, 255))
        #expect(image.rgba(x: 20, y: 10) == RGBA(0, 0, 0, 255))
    }

    @Test func unsupportedFormatsAreRefused() {
        let nv12 = PixelBuffer(width: 4, height: 4, format: .nv12)
        expectReelError(.invalidArgument) { try Canvas(nv12) }
    }

    @Test(.requires(.dejaVuFont))
    func textLandsBetweenAscenderAndDescender() throws {
        let font = try Font(path: FontFace.dejaVuSansPath, pixelSize: 32)
        for format in [PixelFormat.bgra, .yuv420p] {
            let buffer = SyntheticFrame.solid(.black, width: 200, height: 60, format: format)
            let canvas = try Canvas(buffer)
            let advance = canvas.draw("Reel 88", font: font, x: 10, baseline: 40, color: .white)
            #expect(advance == font.width(of: "Reel 88"))
            let image = RasterImage(buffer)
            var lit = 0, outside = 0
            for y in 0..<60 {
                for x in 0..<200 where image.rgba(x: x, y: y).luma > 128 {
                    lit += 1
                    if x < 10 || x >= 10 + advance + 2 || y < 40 - font.ascender || y > 40 + font.descender { outside += 1 }
                }
            }
            #expect(lit > 200, "\(format)")
            #expect(outside == 0, "\(format)")
        }
    }

    @Test(.requires(.dejaVuFont))
    func alignmentMovesTheText() throws {
        let font = try Font(path: FontFace.dejaVuSansPath, pixelSize: 20)
        let w = font.width(of: "42")
        func leftmostLit(_ alignment: TextAlignment) throws -> Int? {
            let buffer = SyntheticFrame.solid(.black, width: 120, height: 30, format: .bgra)
            try Canvas(buffer).draw("42", font: font, x: 60, baseline: 22, color: .white, alignment: alignment)
            let image = RasterImage(buffer)
            return (0..<120).first { x in (0..<30).contains { image.rgba(x: x, y: $0).luma > 100 } }
        }
        let l = try #require(try leftmostLit(.left)), r = try #require(try leftmostLit(.right)), c = try #require(try leftmostLit(.center))
        #expect(l - r == w)
        #expect(l - c == w / 2)
    }
}
