/// One caption: text with styled ranges, shown over a time range in a region
/// (AVFoundation's `AVCaption`).
///
/// Style ranges count `Character`s of ``text``. Ranges may overlap: the style of a
/// character merges every range holding it, later ranges winning (``style(at:)``).
/// ``spans`` gives the text cut into runs of one style, the shape caption formats write.
public struct Caption: Sendable, Hashable {
    /// A style over a range of the text's characters.
    public struct StyledRange: Sendable, Hashable {
        public var range: Range<Int>
        public var style: CaptionStyle
        public init(_ range: Range<Int>, _ style: CaptionStyle) {
            self.range = range
            self.style = style
        }
    }

    /// A run of text in one style.
    public struct Span: Sendable, Hashable {
        public var text: String
        public var style: CaptionStyle
        public init(_ text: String, _ style: CaptionStyle = .plain) {
            self.text = text
            self.style = style
        }
    }

    /// `AVCaption.TextAlignment`.
    public enum TextAlignment: String, Sendable, Hashable, Codable { case start, center, end, left, right }

    /// `AVCaption.Animation`: how the text appears. `characterReveal` is CEA-608 paint-on
    /// and roll-up, where characters appear as they arrive.
    public enum Animation: String, Sendable, Hashable, Codable { case none, characterReveal }

    /// The text; lines are separated by `"\n"`.
    public var text: String
    public var timeRange: TimeRange
    public var styles: [StyledRange]
    public var region: CaptionRegion?
    public var textAlignment: TextAlignment?
    public var animation: Animation

    public init(
        _ text: String, timeRange: TimeRange, styles: [StyledRange] = [], region: CaptionRegion? = nil,
        textAlignment: TextAlignment? = nil, animation: Animation = .none
    ) {
        self.text = text
        self.timeRange = timeRange
        self.styles = styles
        self.region = region
        self.textAlignment = textAlignment
        self.animation = animation
    }

    /// A caption made of styled runs, joined into one text.
    public init(
        spans: [Span], timeRange: TimeRange, region: CaptionRegion? = nil,
        textAlignment: TextAlignment? = nil, animation: Animation = .none
    ) {
        var text = ""
        var styles: [StyledRange] = []
        var at = 0
        for span in spans {
            let n = span.text.count
            if !span.style.isPlain, n > 0 {
                if let last = styles.last, last.range.upperBound == at, last.style == span.style {
                    styles[styles.count - 1].range = last.range.lowerBound..<(at + n)
                } else {
                    styles.append(StyledRange(at..<(at + n), span.style))
                }
            }
            text += span.text
            at += n
        }
        self.init(text, timeRange: timeRange, styles: styles, region: region, textAlignment: textAlignment, animation: animation)
    }

    /// The style of the character at `index`: every range holding it, merged in order.
    public func style(at index: Int) -> CaptionStyle {
        styles.reduce(CaptionStyle.plain) { $1.range.contains(index) ? $0.merging($1.style) : $0 }
    }

    /// The text cut where the style changes, each run with its merged style.
    public var spans: [Span] {
        var result: [Span] = []
        for (i, ch) in text.enumerated() {
            let style = styles.isEmpty ? .plain : self.style(at: i)
            if let last = result.last, last.style == style {
                result[result.count - 1].text.append(ch)
            } else {
                result.append(Span(String(ch), style))
            }
        }
        return result
    }

    /// The lines of the text.
    public var lines: [String] { text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) }

    /// The same caption with its style ranges normalised (``CaptionStyle/normalized``) and
    /// merged into the fewest runs: two captions that look the same compare equal.
    public var normalized: Caption {
        Caption(
            spans: spans.map { Span($0.text, $0.style.normalized) }, timeRange: timeRange, region: region,
            textAlignment: textAlignment, animation: animation)
    }
}
