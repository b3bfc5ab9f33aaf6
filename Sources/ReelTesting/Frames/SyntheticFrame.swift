import ReelCore

/// What a synthetic frame shows.
public enum FramePattern: Sendable, Hashable {
    /// One colour everywhere.
    case solid(Color)
    /// Left edge `from`, right edge `to`, linear in between.
    case horizontalGradient(from: Color, to: Color)
    /// Top edge `from`, bottom edge `to`, linear in between.
    case verticalGradient(from: Color, to: Color)
    /// Squares of `cellSize` pixels alternating between two colours, the top-left one `first`.
    case checkerboard(cellSize: Int, first: Color, second: Color)

    /// The colour of pixel (`x`, `y`) in a frame of `width` x `height`.
    public func color(x: Int, y: Int, width: Int, height: Int) -> Color {
        func mix(_ a: Color, _ b: Color, _ t: Double) -> Color {
            Color(
                red: a.red + (b.red - a.red) * t, green: a.green + (b.green - a.green) * t,
                blue: a.blue + (b.blue - a.blue) * t, alpha: a.alpha + (b.alpha - a.alpha) * t)
        }
        switch self {
        case .solid(let c): return c
        case .horizontalGradient(let a, let b): return mix(a, b, width > 1 ? Double(x) / Double(width - 1) : 0)
        case .verticalGradient(let a, let b): return mix(a, b, height > 1 ? Double(y) / Double(height - 1) : 0)
        case .checkerboard(let size, let a, let b):
            let cell = max(size, 1)
            return (x / cell + y / cell) % 2 == 0 ? a : b
        }
    }
}

/// Frames made from nothing: solid colours, gradients, checkerboards, and a burned-in
/// frame counter that ``readCounter(from:)`` reads back. In any `PixelFormat` and size.
///
/// ```swift
/// let red = SyntheticFrame.make(.solid(Color(red: 1, green: 0, blue: 0)), width: 64, height: 36, format: .nv12)
/// let seven = SyntheticFrame.make(.checkerboard(cellSize: 8, first: .white, second: .black),
///                                 width: 320, height: 180, format: .yuv420p, counter: 7)
/// readCounter(from: seven)   // 7
/// ```
public enum SyntheticFrame {
    /// The pattern as an 8-bit RGBA image, with `counter` burned in at `counterLayout`
    /// (by default ``CounterLayout/standard(width:height:)``) when given.
    public static func image(
        _ pattern: FramePattern, width: Int, height: Int,
        counter: Int? = nil, counterLayout: CounterLayout? = nil
    ) -> RasterImage {
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        let solid: RGBA? = if case .solid(let c) = pattern { RGBA(c) } else { nil }
        pixels.withUnsafeMutableBufferPointer { out in
            for y in 0..<height {
                for x in 0..<width {
                    let c = solid ?? RGBA(pattern.color(x: x, y: y, width: width, height: height))
                    let i = (y * width + x) * 4
                    out[i] = c.r; out[i + 1] = c.g; out[i + 2] = c.b; out[i + 3] = c.a
                }
            }
        }
        var image = RasterImage(width: width, height: height, layout: .rgba, pixels: pixels)
        if let counter {
            CounterFont.draw(counter, into: &image, layout: counterLayout ?? .standard(width: width, height: height))
        }
        return image
    }

    /// A frame of `format` showing `pattern`, with `counter` burned in when given.
    public static func make(
        _ pattern: FramePattern, width: Int, height: Int, format: PixelFormat,
        counter: Int? = nil, counterLayout: CounterLayout? = nil
    ) -> PixelBuffer {
        PixelBuffer(image(pattern, width: width, height: height, counter: counter, counterLayout: counterLayout), format: format)
    }

    /// A frame of one colour.
    public static func solid(_ color: Color, width: Int, height: Int, format: PixelFormat) -> PixelBuffer {
        make(.solid(color), width: width, height: height, format: format)
    }

    /// A frame showing the number `value` over a mid-gray background: the usual "which
    /// source frame is this?" frame.
    public static func counter(
        _ value: Int, width: Int, height: Int, format: PixelFormat,
        background: FramePattern = .solid(Color(red: 0.5, green: 0.5, blue: 0.5))
    ) -> PixelBuffer {
        make(background, width: width, height: height, format: format, counter: value)
    }
}

/// Reads the counter that ``SyntheticFrame`` burned into `buffer` at the standard place
/// for its size, or nil when there is none (or it was drawn over).
public func readCounter(from buffer: PixelBuffer) -> Int? {
    CounterFont.read(from: buffer, layout: .standard(width: buffer.width, height: buffer.height))
}

/// Reads a counter drawn at `layout` (for a source frame that a compositor placed
/// unscaled at some offset of its output, move `layout.x`/`layout.y` by that offset).
public func readCounter(from buffer: PixelBuffer, layout: CounterLayout) -> Int? {
    CounterFont.read(from: buffer, layout: layout)
}
