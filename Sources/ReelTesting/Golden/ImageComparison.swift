import Foundation
import ReelCore

/// How far an image may be from its golden and still match.
public struct ImageTolerance: Sendable, Hashable, CustomStringConvertible {
    /// The largest difference allowed in any one channel of any one pixel (0...255).
    public var maximumChannelDifference: Int
    /// The lowest peak signal-to-noise ratio allowed, in dB; nil for no PSNR limit.
    public var minimumPSNR: Double?

    /// A tolerance of `maximumChannelDifference` in any channel and, unless nil, a PSNR of
    /// at least `minimumPSNR` dB.
    public init(maximumChannelDifference: Int = 0, minimumPSNR: Double? = nil) {
        self.maximumChannelDifference = maximumChannelDifference
        self.minimumPSNR = minimumPSNR
    }

    /// Every channel of every pixel identical.
    public static let exact = ImageTolerance()

    public var description: String {
        var s = "max channel difference \(maximumChannelDifference)"
        if let minimumPSNR { s += ", PSNR >= \(minimumPSNR) dB" }
        return s
    }
}

/// How two images of the same size differ.
public struct ImageComparison: Sendable, Hashable, CustomStringConvertible {
    /// The first differing pixel in reading order (top row first).
    public struct Difference: Sendable, Hashable {
        /// The pixel's column, 0 at the left.
        public var x: Int
        /// The pixel's row, 0 at the top.
        public var y: Int
        /// The pixel in the expected image, as RGBA.
        public var expected: RGBA
        /// The pixel in the actual image, as RGBA.
        public var actual: RGBA
    }

    /// The largest difference in any channel of any pixel.
    public var maximumChannelDifference: Int
    /// Peak signal-to-noise ratio over every channel, in dB; `.infinity` when identical.
    public var psnr: Double
    /// How many pixels differ in at least one channel.
    public var differingPixelCount: Int
    /// The first differing pixel; nil when no pixel differs.
    public var firstDifference: Difference?

    /// Compares two images pixel by pixel in RGBA (gray spread to R, G, B; missing alpha
    /// opaque). The images must be the same size.
    public init(expected: RasterImage, actual: RasterImage) {
        precondition(
            expected.width == actual.width && expected.height == actual.height,
            "compared images must be the same size")
        let compareAlpha =
            expected.layout == .rgba || expected.layout == .grayAlpha
            || actual.layout == .rgba || actual.layout == .grayAlpha
        var maxDiff = 0, differing = 0
        var squares = 0.0
        var first: Difference?
        for y in 0..<expected.height {
            for x in 0..<expected.width {
                let e = expected.rgba(x: x, y: y), a = actual.rgba(x: x, y: y)
                var d = [abs(Int(e.r) - Int(a.r)), abs(Int(e.g) - Int(a.g)), abs(Int(e.b) - Int(a.b))]
                if compareAlpha { d.append(abs(Int(e.a) - Int(a.a))) }
                let m = d.max() ?? 0
                if m > 0 {
                    differing += 1
                    if first == nil { first = Difference(x: x, y: y, expected: e, actual: a) }
                    maxDiff = max(maxDiff, m)
                    for v in d { squares += Double(v * v) }
                }
            }
        }
        let samples = Double(expected.width * expected.height * (compareAlpha ? 4 : 3))
        let mse = squares / samples
        self.maximumChannelDifference = maxDiff
        self.psnr = mse == 0 ? .infinity : 10 * log10(255 * 255 / mse)
        self.differingPixelCount = differing
        self.firstDifference = first
    }

    /// Whether the difference is within `tolerance`.
    public func isWithin(_ tolerance: ImageTolerance) -> Bool {
        guard maximumChannelDifference <= tolerance.maximumChannelDifference else { return false }
        if let minimum = tolerance.minimumPSNR, psnr < minimum { return false }
        return true
    }

    public var description: String {
        var s = "max channel difference \(maximumChannelDifference), PSNR "
        s += psnr.isInfinite ? "inf" : String(format: "%.2f dB", psnr)
        s += ", \(differingPixelCount) pixel(s) differ"
        if let f = firstDifference {
            s += ", first at (\(f.x), \(f.y)): expected \(f.expected), got \(f.actual)"
        }
        return s
    }

    /// A picture of where two images differ: differing pixels red (brighter for larger
    /// differences), the rest the expected image dimmed to a quarter.
    public static func differenceImage(expected: RasterImage, actual: RasterImage) -> RasterImage {
        var pixels: [UInt8] = []
        pixels.reserveCapacity(expected.width * expected.height * 3)
        for y in 0..<expected.height {
            for x in 0..<expected.width {
                let e = expected.rgba(x: x, y: y), a = actual.rgba(x: x, y: y)
                let d = max(abs(Int(e.r) - Int(a.r)), abs(Int(e.g) - Int(a.g)), abs(Int(e.b) - Int(a.b)), abs(Int(e.a) - Int(a.a)))
                if d > 0 {
                    pixels += [UInt8(min(255, 96 + d * 4)), 0, 0]
                } else {
                    let l = e.luma / 4
                    pixels += [l, l, l]
                }
            }
        }
        return RasterImage(width: expected.width, height: expected.height, layout: .rgb, pixels: pixels)
    }
}
