import ReelCore

/// Where a burned-in counter sits in a frame: a black box at (`x`, `y`) holding
/// `digitCount` cells of a 3x5 bitmap font, each font pixel `scale` x `scale` frame
/// pixels. The box is `(4 * digitCount + 1) * scale` wide and `7 * scale` high.
public struct CounterLayout: Sendable, Hashable {
    /// The box's left edge, in frame pixels.
    public var x: Int
    /// The box's top edge, in frame pixels.
    public var y: Int
    /// Frame pixels per font pixel, across and down.
    public var scale: Int
    /// How many digit cells the box holds.
    public var digitCount: Int

    /// A layout with its box at (`x`, `y`); `scale` and `digitCount` must be positive.
    public init(x: Int = 0, y: Int = 0, scale: Int, digitCount: Int = 8) {
        precondition(scale > 0 && digitCount > 0, "a counter needs a positive scale and digit count")
        self.x = x
        self.y = y
        self.scale = scale
        self.digitCount = digitCount
    }

    /// Box width in pixels.
    public var width: Int { (4 * digitCount + 1) * scale }
    /// Box height in pixels.
    public var height: Int { 7 * scale }

    /// The layout ``SyntheticFrame`` and ``readCounter(from:)`` use for a frame size: top-left
    /// corner, as large as a third of the width allows (at least 1), up to 8 digits (fewer
    /// when the frame is narrower than 33 pixels).
    public static func standard(width: Int, height: Int) -> CounterLayout {
        let scale = max(1, min(width / 99, height / 28))
        let digits = max(1, min(8, (width / scale - 1) / 4))
        return CounterLayout(scale: scale, digitCount: digits)
    }

    /// The largest value that fits: `10^digitCount - 1`.
    public var maximumValue: Int {
        var v = 1
        for _ in 0..<digitCount { v *= 10 }
        return v - 1
    }
}

/// The tiny built-in digit font: 3 x 5 bits per digit, drawn white on black.
enum CounterFont {
    /// Rows top to bottom, 3 bits each, most significant bit leftmost.
    static let glyphs: [[UInt8]] = [
        [0b111, 0b101, 0b101, 0b101, 0b111],  // 0
        [0b010, 0b110, 0b010, 0b010, 0b111],  // 1
        [0b111, 0b001, 0b111, 0b100, 0b111],  // 2
        [0b111, 0b001, 0b111, 0b001, 0b111],  // 3
        [0b101, 0b101, 0b111, 0b001, 0b001],  // 4
        [0b111, 0b100, 0b111, 0b001, 0b111],  // 5
        [0b111, 0b100, 0b111, 0b101, 0b111],  // 6
        [0b111, 0b001, 0b001, 0b001, 0b001],  // 7
        [0b111, 0b101, 0b111, 0b101, 0b111],  // 8
        [0b111, 0b101, 0b111, 0b001, 0b111],  // 9
    ]

    /// The digits of `value`, right-aligned in the layout's cells; leading cells blank.
    static func cells(_ value: Int, digitCount: Int) -> [Int?] {
        var cells = [Int?](repeating: nil, count: digitCount)
        var v = value, i = digitCount - 1
        repeat {
            cells[i] = v % 10
            v /= 10
            i -= 1
        } while v > 0 && i >= 0
        return cells
    }

    /// Draws `value` (0 ... `layout.maximumValue`) into `image`, clipped to its bounds.
    static func draw(_ value: Int, into image: inout RasterImage, layout: CounterLayout) {
        precondition(
            value >= 0 && value <= layout.maximumValue,
            "counter \(value) does not fit \(layout.digitCount) digits")
        let cells = cells(value, digitCount: layout.digitCount)
        let channels = image.layout.channelCount
        // White or black, opaque: every colour channel the same, alpha (the last of 2 or 4) 255.
        let hasAlpha = image.layout == .rgba || image.layout == .grayAlpha
        let (width, height) = (image.width, image.height)
        image.pixels.withUnsafeMutableBufferPointer { out in
            for uy in 0..<7 {
                for ux in 0..<(4 * layout.digitCount + 1) {
                    let level: UInt8 = isLit(unitX: ux, unitY: uy, cells: cells) ? 255 : 0
                    for py in 0..<layout.scale {
                        for px in 0..<layout.scale {
                            let x = layout.x + ux * layout.scale + px, y = layout.y + uy * layout.scale + py
                            guard x >= 0, y >= 0, x < width, y < height else { continue }
                            let i = (y * width + x) * channels
                            for c in 0..<channels { out[i + c] = hasAlpha && c == channels - 1 ? 255 : level }
                        }
                    }
                }
            }
        }
    }

    /// Whether font unit (`unitX`, `unitY`) of the box is lit.
    private static func isLit(unitX: Int, unitY: Int, cells: [Int?]) -> Bool {
        guard unitY >= 1, unitY <= 5, unitX >= 1 else { return false }
        let cell = (unitX - 1) / 4, column = (unitX - 1) % 4
        guard column < 3, let digit = cells[cell] else { return false }
        return glyphs[digit][unitY - 1] & (0b100 >> UInt8(column)) != 0
    }

    /// The number in the box at `layout`, or nil when the box is not all there: every
    /// border and spacing unit must be dark, every cell blank or a digit, the digits
    /// contiguous and right-aligned.
    static func read(from buffer: PixelBuffer, layout: CounterLayout) -> Int? {
        guard layout.x >= 0, layout.y >= 0, layout.x + layout.width <= buffer.width,
            layout.y + layout.height <= buffer.height
        else { return nil }
        func lit(_ ux: Int, _ uy: Int) -> Bool {
            let x = layout.x + ux * layout.scale + layout.scale / 2
            let y = layout.y + uy * layout.scale + layout.scale / 2
            return buffer.normalizedLuma(x: x, y: y) > 0.5
        }
        let columns = 4 * layout.digitCount + 1
        for ux in 0..<columns where lit(ux, 0) || lit(ux, 6) { return nil }
        var value = 0, seenDigit = false
        for cell in 0..<layout.digitCount {
            let x0 = 1 + 4 * cell
            for uy in 0..<7 where lit(x0 + 3, uy) { return nil }
            if cell == 0 { for uy in 0..<7 where lit(0, uy) { return nil } }
            var rows: [UInt8] = []
            for uy in 1...5 {
                var bits: UInt8 = 0
                for c in 0..<3 where lit(x0 + c, uy) { bits |= 0b100 >> UInt8(c) }
                rows.append(bits)
            }
            if rows.allSatisfy({ $0 == 0 }) {
                if seenDigit { return nil }
                continue
            }
            guard let digit = glyphs.firstIndex(of: rows) else { return nil }
            seenDigit = true
            value = value * 10 + digit
        }
        return seenDigit ? value : nil
    }
}
