import Testing

@testable import ReelComposition

@Suite struct PixelConversionTests {
    /// Published limited-range values of white, black, red, green and blue (BGR order below).
    static let primaries: [(matrix: String?, width: Int, height: Int, values: [[Int]])] = [
        // An untagged SD frame is BT.601, as libswscale and players read it.
        (nil, 4, 4, [[235, 128, 128], [16, 128, 128], [81, 90, 240], [145, 54, 34], [41, 240, 110]]),
        ("bt709", 4, 4, [[235, 128, 128], [16, 128, 128], [63, 102, 240], [173, 42, 26], [32, 240, 118]]),
        // An untagged HD frame is BT.709.
        (nil, 1280, 720, [[235, 128, 128], [16, 128, 128], [63, 102, 240], [173, 42, 26], [32, 240, 118]]),
        ("bt2020nc", 4, 4, [[235, 128, 128], [16, 128, 128], [74, 97, 240], [164, 47, 26], [29, 240, 118]]),
    ]

    @Test(arguments: primaries.indices)
    func knownColoursInTheFramesMatrix(_ index: Int) {
        let c = Self.primaries[index]
        let colours: [[UInt8]] = [[255, 255, 255], [0, 0, 0], [0, 0, 255], [0, 255, 0], [255, 0, 0]]
        for (colour, expected) in zip(colours, c.values) {
            let bgra = solid(colour[0], colour[1], colour[2], width: c.width, height: c.height)
            let yuv = PixelBuffer(width: c.width, height: c.height, format: .yuv420p)
            yuv.colorProperties.matrix = c.matrix
            PixelConversion.convert(bgra, into: yuv)
            let got = [pixel(yuv, 1, 1)[0], pixel(yuv, 0, 0, plane: 1)[0], pixel(yuv, 0, 0, plane: 2)[0]].map(Int.init)
            #expect(zip(got, expected).allSatisfy { abs($0 - $1) <= 1 }, "BGR \(colour): got \(got), expected \(expected)")
        }
    }

    @Test func fullRangeUsesTheWholeByte() {
        let yuv = PixelBuffer(width: 4, height: 4, format: .yuv420p)
        yuv.colorProperties.fullRange = true
        PixelConversion.convert(solid(255, 255, 255, width: 4, height: 4), into: yuv)
        #expect(pixel(yuv, 1, 1)[0] == 255)
        PixelConversion.convert(solid(0, 0, 255, width: 4, height: 4), into: yuv)
        // Full-range BT.601 red: Y 76, Cb 85, Cr 255.
        let got = [pixel(yuv, 1, 1)[0], pixel(yuv, 0, 0, plane: 1)[0], pixel(yuv, 0, 0, plane: 2)[0]].map(Int.init)
        #expect(zip(got, [76, 85, 255]).allSatisfy { abs($0 - $1) <= 1 }, "\(got)")
        #expect(yuv.colorProperties.fullRange && yuv.colorProperties.matrix == "smpte170m")
    }

    @Test(arguments: [PixelFormat.yuv420p, .nv12])
    func roundTripThroughYUV(format: PixelFormat) {
        let source = solid(30, 140, 220, width: 6, height: 4)
        let yuv = PixelBuffer(width: 6, height: 4, format: format)
        let back = PixelBuffer(width: 6, height: 4, format: .bgra)
        PixelConversion.convert(source, into: yuv)
        PixelConversion.convert(yuv, into: back)
        let p = pixel(back, 5, 3)
        #expect(abs(Int(p[0]) - 30) <= 2 && abs(Int(p[1]) - 140) <= 2 && abs(Int(p[2]) - 220) <= 2 && p[3] == 255, "\(p)")
    }

    @Test func planarAndSemiPlanarAgree() {
        let source = solid(90, 10, 200, width: 5, height: 3)
        let planar = PixelBuffer(width: 5, height: 3, format: .yuv420p), semi = PixelBuffer(width: 5, height: 3, format: .nv12)
        PixelConversion.convert(source, into: planar)
        PixelConversion.convert(planar, into: semi)
        #expect(pixel(semi, 2, 1, plane: 1) == [pixel(planar, 2, 1, plane: 1)[0], pixel(planar, 2, 1, plane: 2)[0]])
        let rgba = PixelBuffer(width: 5, height: 3, format: .rgba)
        PixelConversion.convert(source, into: rgba)
        #expect(pixel(rgba, 4, 2) == [200, 10, 90, 255])
    }

    @Test func fillPaintsBackgrounds() {
        let yuv = PixelBuffer(width: 3, height: 3, format: .yuv420p)
        PixelFill.fill(yuv, with: .white)
        #expect(pixel(yuv, 2, 2) == [235])
        #expect(pixel(yuv, 1, 1, plane: 2) == [128])
        let bgra = PixelBuffer(width: 3, height: 3, format: .bgra)
        PixelFill.fill(bgra, with: Color(red: 1, green: 0.5, blue: 0, alpha: 1))
        #expect(pixel(bgra, 2, 2) == [0, 128, 255, 255])
    }

    @Test func resizeScalesToFill() {
        let small = solid(10, 20, 30, width: 4, height: 2)
        let big = PixelBuffer(width: 16, height: 8, format: .bgra)
        LayerCompositing.resize(small, into: big)
        #expect(pixel(big, 15, 7) == [10, 20, 30, 255])
        #expect(pixel(big, 0, 0) == [10, 20, 30, 255])
    }
}
