/// Where on the picture a caption sits (AVFoundation's `AVCaptionRegion`): an origin and a
/// size, each in character cells or percent of the picture.
///
/// The four edge regions (``top``, ``bottom``, ``left``, ``right``) are the ones iTT files
/// from Apple's tools use; CEA-608 maps ``top`` and ``bottom`` to its first and last rows.
public struct CaptionRegion: Sendable, Hashable, Codable {
    /// A length in cells (the format's character grid) or in percent of the picture.
    public struct Dimension: Sendable, Hashable, Codable, CustomStringConvertible {
        public enum Unit: String, Sendable, Hashable, Codable { case cells, percent }
        public var value: Double
        public var unit: Unit
        public init(_ value: Double, _ unit: Unit) {
            self.value = value
            self.unit = unit
        }
        public static func percent(_ v: Double) -> Dimension { Dimension(v, .percent) }
        public static func cells(_ v: Double) -> Dimension { Dimension(v, .cells) }

        /// `12.5%` or `3c`, as TTML writes lengths.
        public var description: String {
            let number = value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
            return number + (unit == .percent ? "%" : "c")
        }

        /// The length in pixels in a picture `extent` pixels and `cells` cells long.
        public func pixels(extent: Double, cells: Double) -> Double {
            unit == .percent ? value / 100 * extent : value / cells * extent
        }
    }

    /// Where the lines of a region sit inside it, across the lines (`tts:displayAlign`).
    public enum DisplayAlignment: String, Sendable, Hashable, Codable { case before, center, after }

    /// A name, when the format has one (iTT's `xml:id`).
    public var identifier: String?
    public var x: Dimension
    public var y: Dimension
    public var width: Dimension
    public var height: Dimension
    public var displayAlignment: DisplayAlignment

    public init(
        identifier: String? = nil, x: Dimension, y: Dimension, width: Dimension, height: Dimension,
        displayAlignment: DisplayAlignment = .after
    ) {
        self.identifier = identifier
        self.x = x
        self.y = y
        self.width = width
        self.height = height
        self.displayAlignment = displayAlignment
    }

    /// The top 15% of the picture, lines from its top.
    public static let top = CaptionRegion(
        identifier: "top", x: .percent(0), y: .percent(0), width: .percent(100), height: .percent(15), displayAlignment: .before)
    /// The bottom 15% of the picture, lines to its bottom.
    public static let bottom = CaptionRegion(
        identifier: "bottom", x: .percent(0), y: .percent(85), width: .percent(100), height: .percent(15), displayAlignment: .after)
    /// The left 15% of the picture.
    public static let left = CaptionRegion(
        identifier: "left", x: .percent(0), y: .percent(0), width: .percent(15), height: .percent(100), displayAlignment: .center)
    /// The right 15% of the picture.
    public static let right = CaptionRegion(
        identifier: "right", x: .percent(85), y: .percent(0), width: .percent(15), height: .percent(100), displayAlignment: .center)

    /// True when the region's centre is in the upper half of a picture `rows` cells high.
    public func isInUpperHalf(rows: Double) -> Bool {
        y.pixels(extent: 100, cells: rows) + height.pixels(extent: 100, cells: rows) / 2 < 50
    }
}
