import ReelTesting
import Testing

@Suite struct SyntheticFrameTests {
    static let red = Color(red: 1, green: 0, blue: 0)
    static let blue = Color(red: 0, green: 0, blue: 1)

    @Test(arguments: PixelFormat.allCases)
    func solidColourInEveryFormat(format: PixelFormat) {
        let frame = SyntheticFrame.solid(Self.red, width: 7, height: 5, format: format)
        #expect(frame.format == format && frame.width == 7 && frame.height == 5)
        for (x, y) in [(0, 0), (6, 4), (3, 2)] {
            let p = frame.rgba(x: x, y: y)
            if format == .gray8 {
                // Luma only: red's luma in an untagged SD frame (BT.601), 0.299 of white.
                #expect(abs(Int(p.r) - 76) <= 1 && p.r == p.g && p.g == p.b)
            } else if format.isYUV {
                // Through 8-bit limited-range Y'CbCr and back: within one step.
                #expect(p.r >= 254 && p.g <= 1 && p.b <= 1, "\(format) at (\(x), \(y)): \(p)")
            } else {
                #expect(p == RGBA(255, 0, 0), "\(format) at (\(x), \(y)): \(p)")
            }
        }
    }

    @Test func yuvPlanesHoldTheValuesOfTheFramesMatrix() {
        // Untagged SD: BT.601 limited-range red is Y 81, Cb 90, Cr 240.
        let frame = SyntheticFrame.solid(Self.red, width: 4, height: 4, format: .yuv420p)
        let s = frame.ycbcr(x: 3, y: 3)
        #expect(s.y == 81 && s.cb == 90 && s.cr == 240)
        let nv = SyntheticFrame.solid(Self.red, width: 4, height: 4, format: .nv12)
        #expect(nv.packedBytes() == Array(frame.packedBytes().prefix(16)) + [90, 240, 90, 240, 90, 240, 90, 240])
        // Untagged HD: BT.709, Y 63, Cb 102, Cr 240.
        let hd = SyntheticFrame.solid(Self.red, width: 1280, height: 720, format: .yuv420p)
        let h = hd.ycbcr(x: 3, y: 3)
        #expect(h.y == 63 && h.cb == 102 && h.cr == 240)
    }

    @Test func bgraStoresBlueFirst() {
        let frame = SyntheticFrame.solid(Self.red, width: 2, height: 1, format: .bgra)
        #expect(frame.packedBytes() == [0, 0, 255, 255, 0, 0, 255, 255])
    }

    @Test func gradientRunsFromEdgeToEdge() {
        let frame = SyntheticFrame.make(.horizontalGradient(from: .black, to: .white), width: 256, height: 2, format: .rgba)
        #expect(frame.rgba(x: 0, y: 1) == RGBA(0, 0, 0))
        #expect(frame.rgba(x: 255, y: 0) == RGBA(255, 255, 255))
        #expect(frame.rgba(x: 100, y: 0).r == 100)
        let vertical = SyntheticFrame.make(.verticalGradient(from: Self.red, to: Self.blue), width: 3, height: 11, format: .rgba)
        #expect(vertical.rgba(x: 1, y: 5) == RGBA(128, 0, 128))
    }

    @Test func checkerboardAlternatesCells() {
        let frame = SyntheticFrame.make(.checkerboard(cellSize: 4, first: .white, second: .black), width: 16, height: 8, format: .rgba)
        #expect(frame.rgba(x: 0, y: 0) == RGBA(255, 255, 255))
        #expect(frame.rgba(x: 4, y: 0) == RGBA(0, 0, 0))
        #expect(frame.rgba(x: 4, y: 4) == RGBA(255, 255, 255))
        #expect(frame.rgba(x: 15, y: 7) == RGBA(255, 255, 255))
    }

    @Test(arguments: PixelFormat.allCases)
    func counterReadsBackInEveryFormat(format: PixelFormat) {
        for (value, width, height) in [(0, 64, 36), (7, 320, 180), (1234, 641, 361), (99_999_999, 1280, 720), (42, 33, 9)] {
            let frame = SyntheticFrame.counter(value, width: width, height: height, format: format)
            #expect(readCounter(from: frame) == value, "\(value) in \(width)x\(height) \(format)")
        }
        // Over a busy background too.
        let busy = SyntheticFrame.make(
            .checkerboard(cellSize: 3, first: .white, second: Self.red),
            width: 200, height: 100, format: format, counter: 305)
        #expect(readCounter(from: busy) == 305)
    }

    @Test(arguments: PixelFormat.allCases)
    func noCounterReadsAsNil(format: PixelFormat) {
        for pattern: FramePattern in [.solid(.black), .solid(.white), .checkerboard(cellSize: 2, first: .white, second: .black)] {
            #expect(readCounter(from: SyntheticFrame.make(pattern, width: 120, height: 60, format: format)) == nil)
        }
    }

    @Test func counterDrawnOverReadsAsNil() {
        var image = SyntheticFrame.image(.solid(.black), width: 100, height: 50, counter: 88)
        let layout = CounterLayout.standard(width: 100, height: 50)
        // Light one unit of the top border, as an overlay drawn across the box would.
        image[layout.x + layout.scale * 5, layout.y] = [255, 255, 255, 255]
        #expect(readCounter(from: PixelBuffer(image, format: .rgba)) == nil)
    }

    @Test func counterAtAnOffsetReadsWithItsLayout() {
        let layout = CounterLayout(x: 40, y: 30, scale: 2, digitCount: 4)
        let frame = SyntheticFrame.make(.solid(Self.blue), width: 100, height: 60, format: .nv12, counter: 9876, counterLayout: layout)
        #expect(readCounter(from: frame, layout: layout) == 9876)
        #expect(readCounter(from: frame) == nil)
    }
}
