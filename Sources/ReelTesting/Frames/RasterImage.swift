import ReelCore

/// A plain 8-bit image in memory: rows of interleaved channels, no padding.
///
/// What PNG files hold and what golden-image comparison works on. Make one from a frame
/// with ``init(_:)`` (YUV frames are converted to RGB in their own encoding) and a frame from one
/// with `PixelBuffer(_:format:)`.
public struct RasterImage: Sendable, Hashable {
    /// The channels of each pixel, in memory order.
    public enum Layout: Int, Sendable, Hashable, CaseIterable {
        /// One channel: gray.
        case gray = 1
        /// Two channels: gray, then alpha.
        case grayAlpha = 2
        /// Three channels: red, green, blue.
        case rgb = 3
        /// Four channels: red, green, blue, alpha.
        case rgba = 4

        /// Bytes per pixel.
        public var channelCount: Int { rawValue }
    }

    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// The channels of each pixel.
    public let layout: Layout
    /// `width * height * layout.channelCount` bytes, row after row.
    public var pixels: [UInt8]

    /// An image of the given pixels; `pixels.count` must be `width * height * layout.channelCount`.
    public init(width: Int, height: Int, layout: Layout, pixels: [UInt8]) {
        precondition(width > 0 && height > 0, "an image needs a positive size, not \(width)x\(height)")
        precondition(
            pixels.count == width * height * layout.channelCount,
            "\(width)x\(height) \(layout) needs \(width * height * layout.channelCount) bytes, not \(pixels.count)")
        self.width = width
        self.height = height
        self.layout = layout
        self.pixels = pixels
    }

    /// An image with every pixel set to `channels` (one value per channel of `layout`).
    public init(width: Int, height: Int, layout: Layout, filledWith channels: [UInt8]) {
        precondition(channels.count == layout.channelCount, "\(layout) has \(layout.channelCount) channels")
        var pixels: [UInt8] = []
        pixels.reserveCapacity(width * height * channels.count)
        for _ in 0..<(width * height) { pixels.append(contentsOf: channels) }
        self.init(width: width, height: height, layout: layout, pixels: pixels)
    }

    /// The channels of the pixel at (`x`, `y`), top-left origin.
    public subscript(x: Int, y: Int) -> [UInt8] {
        get {
            let i = (y * width + x) * layout.channelCount
            return Array(pixels[i..<(i + layout.channelCount)])
        }
        set {
            precondition(newValue.count == layout.channelCount, "\(layout) has \(layout.channelCount) channels")
            let i = (y * width + x) * layout.channelCount
            pixels.replaceSubrange(i..<(i + layout.channelCount), with: newValue)
        }
    }

    /// The pixel at (`x`, `y`) as RGBA, whatever the layout (gray spread to R, G and B;
    /// opaque when the layout has no alpha).
    public func rgba(x: Int, y: Int) -> RGBA {
        let i = (y * width + x) * layout.channelCount
        switch layout {
        case .gray: return RGBA(pixels[i], pixels[i], pixels[i], 255)
        case .grayAlpha: return RGBA(pixels[i], pixels[i], pixels[i], pixels[i + 1])
        case .rgb: return RGBA(pixels[i], pixels[i + 1], pixels[i + 2], 255)
        case .rgba: return RGBA(pixels[i], pixels[i + 1], pixels[i + 2], pixels[i + 3])
        }
    }

    /// The same pixels in another layout: colour to gray uses BT.709 luma weights; a
    /// dropped alpha is discarded, an added one is opaque.
    public func converted(to target: Layout) -> RasterImage {
        if target == layout { return self }
        let n = target.channelCount
        var out = [UInt8](repeating: 0, count: width * height * n)
        out.withUnsafeMutableBufferPointer { dst in
            for y in 0..<height {
                for x in 0..<width {
                    let p = rgba(x: x, y: y), i = (y * width + x) * n
                    switch target {
                    case .gray: dst[i] = p.luma
                    case .grayAlpha: dst[i] = p.luma; dst[i + 1] = p.a
                    case .rgb: dst[i] = p.r; dst[i + 1] = p.g; dst[i + 2] = p.b
                    case .rgba: dst[i] = p.r; dst[i + 1] = p.g; dst[i + 2] = p.b; dst[i + 3] = p.a
                    }
                }
            }
        }
        return RasterImage(width: width, height: height, layout: target, pixels: out)
    }
}

/// One 8-bit RGBA pixel, straight alpha.
public struct RGBA: Sendable, Hashable, CustomStringConvertible {
    /// Red, green, blue and alpha, 0...255 (alpha 255 is opaque).
    public var r: UInt8, g: UInt8, b: UInt8, a: UInt8

    /// A pixel of the given channels, opaque unless `a` says otherwise.
    public init(_ r: UInt8, _ g: UInt8, _ b: UInt8, _ a: UInt8 = 255) {
        self.r = r; self.g = g; self.b = b; self.a = a
    }

    /// The nearest 8-bit values of a `Color` (components clamped to 0...1).
    public init(_ color: Color) {
        func q(_ v: Double) -> UInt8 { UInt8((min(max(v, 0), 1) * 255).rounded()) }
        self.init(q(color.red), q(color.green), q(color.blue), q(color.alpha))
    }

    /// Full-range BT.709 luma, 0...255.
    public var luma: UInt8 {
        let y: Double = 0.2126 * Double(r) + 0.7152 * Double(g) + 0.0722 * Double(b)
        return UInt8(y.rounded())
    }

    public var description: String { "rgba(\(r), \(g), \(b), \(a))" }
}
