import ReelCore
import Testing

@Suite struct ColorPropertiesTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var properties: ColorProperties
        var width: Int, height: Int
        var expected: YCbCrEncoding
        var testDescription: String { "\(properties.matrix ?? "untagged") \(properties.fullRange ? "full" : "limited") \(width)x\(height)" }
    }

    static let cases: [Case] = [
        // Untagged: by size, BT.709 only from 1280x720 up.
        Case(properties: ColorProperties(), width: 720, height: 480, expected: YCbCrEncoding(matrix: .bt601)),
        Case(properties: ColorProperties(), width: 320, height: 240, expected: YCbCrEncoding(matrix: .bt601)),
        Case(properties: ColorProperties(), width: 960, height: 720, expected: YCbCrEncoding(matrix: .bt601)),
        Case(properties: ColorProperties(), width: 1280, height: 544, expected: YCbCrEncoding(matrix: .bt601)),
        Case(properties: ColorProperties(), width: 1280, height: 720, expected: YCbCrEncoding(matrix: .bt709)),
        Case(properties: ColorProperties(), width: 3840, height: 2160, expected: YCbCrEncoding(matrix: .bt709)),
        // Tags win over size, in FFmpeg's and CoreVideo's names.
        Case(properties: ColorProperties(matrix: "bt709"), width: 720, height: 480, expected: YCbCrEncoding(matrix: .bt709)),
        Case(properties: ColorProperties(matrix: "ITU_R_709_2"), width: 640, height: 360, expected: YCbCrEncoding(matrix: .bt709)),
        Case(properties: ColorProperties(matrix: "smpte170m"), width: 1920, height: 1080, expected: YCbCrEncoding(matrix: .bt601)),
        Case(properties: ColorProperties(matrix: "bt470bg"), width: 1920, height: 1080, expected: YCbCrEncoding(matrix: .bt601)),
        Case(properties: ColorProperties(matrix: "bt2020nc"), width: 720, height: 480, expected: YCbCrEncoding(matrix: .bt2020)),
        // A matrix Reel does not convert with falls back to the size's.
        Case(properties: ColorProperties(matrix: "fcc"), width: 1920, height: 1080, expected: YCbCrEncoding(matrix: .bt709)),
        // Range: limited unless tagged full.
        Case(properties: ColorProperties(fullRange: true), width: 4032, height: 3024, expected: YCbCrEncoding(matrix: .bt709, fullRange: true)),
        Case(properties: ColorProperties(fullRange: true), width: 640, height: 480, expected: YCbCrEncoding(matrix: .bt601, fullRange: true)),
    ]

    @Test(arguments: cases)
    func encodingFromTagsElseSize(_ c: Case) {
        #expect(c.properties.encoding(width: c.width, height: c.height) == c.expected)
    }

    @Test func aBufferUsesItsOwnSize() {
        #expect(PixelBuffer(width: 720, height: 480, format: .yuv420p).ycbcrEncoding == YCbCrEncoding(matrix: .bt601))
        #expect(PixelBuffer(width: 1920, height: 1080, format: .nv12).ycbcrEncoding == YCbCrEncoding(matrix: .bt709))
    }

    @Test func taggingWritesTheMatrixOutAndKeepsTheRest() {
        let source = ColorProperties(primaries: "bt709", transferFunction: "bt709")
        let tagged = source.tagged(YCbCrEncoding(matrix: .bt601, fullRange: true))
        #expect(tagged == ColorProperties(primaries: "bt709", transferFunction: "bt709", matrix: "smpte170m", fullRange: true))
        // Once tagged, the matrix no longer depends on the size.
        #expect(tagged.encoding(width: 1920, height: 1080).matrix == .bt601)
        // A tag that already names the matrix is kept as written.
        let named = ColorProperties(matrix: "ITU_R_709_2").tagged(YCbCrEncoding(matrix: .bt709))
        #expect(named.matrix == "ITU_R_709_2")
    }

    @Test(arguments: YCbCrMatrix.allCases, [false, true])
    func conversionRoundTrips(matrix: YCbCrMatrix, fullRange: Bool) {
        let e = YCbCrEncoding(matrix: matrix, fullRange: fullRange)
        let white = e.ycbcr(red: 255, green: 255, blue: 255)
        #expect(abs(white.y - (fullRange ? 255 : 235)) < 1e-9 && abs(white.cb - 128) < 1e-9 && abs(white.cr - 128) < 1e-9)
        for (r, g, b) in [(255.0, 0.0, 0.0), (0, 255, 0), (0, 0, 255), (30, 140, 220)] {
            let v = e.ycbcr(red: r, green: g, blue: b)
            let back = e.rgb(y: v.y, cb: v.cb, cr: v.cr)
            #expect(abs(back.red - r) < 1e-6 && abs(back.green - g) < 1e-6 && abs(back.blue - b) < 1e-6)
        }
    }
}
