import Foundation

/// Checks captions against what a format can hold before converting them
/// (AVFoundation's `AVCaptionConversionValidator`), and lists each problem with the
/// caption it is about and why.
///
/// The rules come from `CaptionFormat`: lines and line length (CEA-608's 4 rows of 32),
/// style attributes and text colours, overlapping captions in a format that shows one at a
/// time, and for SCC characters outside the CEA-608 set. A writer still writes what it can
/// (SCC drops unknown characters and styles, shortens overlapping captions); the validator
/// says beforehand what would be lost.
public struct CaptionConversionValidator: Sendable {
    public let captions: [Caption]
    public let format: CaptionFormat

    public init(captions: [Caption], format: CaptionFormat) {
        self.captions = captions
        self.format = format
    }

    /// Every problem, in caption order (problems of one caption in rule order).
    public func validate() -> [CaptionConversionWarning] {
        var warnings: [CaptionConversionWarning] = []
        func add(_ i: Int, _ reason: CaptionConversionWarning.Reason) {
            warnings.append(CaptionConversionWarning(captionIndex: i, caption: captions[i], format: format, reason: reason))
        }
        // The caption showing longest so far, for overlaps in time order.
        let order = captions.indices.sorted { captions[$0].timeRange.start < captions[$1].timeRange.start }
        var overlapping: [Int: Int] = [:]
        var latest: Int?
        for i in order {
            let range = captions[i].timeRange
            if let l = latest, captions[l].timeRange.end > range.start, !format.allowsOverlappingCaptions { overlapping[i] = l }
            if latest == nil || range.end > captions[latest!].timeRange.end { latest = i }
        }
        for (i, caption) in captions.enumerated() {
            let range = caption.timeRange
            if !range.isValid || !range.start.isNumeric || !range.duration.isNumeric || range.duration <= .zero || range.start < .zero {
                add(i, .invalidTimeRange)
            }
            let lines = caption.lines
            if let maximum = format.maximumLines, lines.count > maximum { add(i, .tooManyLines(lines.count, maximum: maximum)) }
            if let maximum = format.maximumLineLength {
                for (n, line) in lines.enumerated() where line.count > maximum {
                    add(i, .lineTooLong(line: n + 1, length: line.count, maximum: maximum))
                }
            }
            var unsupported: CaptionStyle.Attributes = []
            var colors: [CaptionColor] = []
            for span in caption.spans where !span.text.allSatisfy(\.isWhitespace) || span.style.normalized.underline != nil {
                unsupported.formUnion(span.style.attributes.subtracting(format.supportedStyles))
                if let allowed = format.supportedTextColors, let c = span.style.normalized.textColor, !allowed.contains(c), !colors.contains(c) {
                    colors.append(c)
                }
            }
            if !unsupported.isEmpty { add(i, .unsupportedStyle(unsupported)) }
            for c in colors { add(i, .unsupportedColor(c)) }
            if let previous = overlapping[i] { add(i, .overlaps(previousIndex: previous)) }
            if format == .scc {
                var seen: [Character] = []
                for ch in caption.text where !CEA608.canEncode(ch) && !seen.contains(ch) { seen.append(ch) }
                if !seen.isEmpty { add(i, .unsupportedCharacters(seen)) }
            }
        }
        return warnings
    }
}

/// One problem a ``CaptionConversionValidator`` found: the caption (its index in the list,
/// its time and text) and why the format cannot hold it as it is.
public struct CaptionConversionWarning: Sendable, Hashable, CustomStringConvertible {
    public enum Reason: Sendable, Hashable {
        /// The caption has more lines than the format shows.
        case tooManyLines(Int, maximum: Int)
        /// A line (1-based) is longer than the format's rows.
        case lineTooLong(line: Int, length: Int, maximum: Int)
        /// Style attributes the format has no way to write.
        case unsupportedStyle(CaptionStyle.Attributes)
        /// A text colour outside the format's palette.
        case unsupportedColor(CaptionColor)
        /// The caption starts while an earlier one (by index) still shows, in a format that
        /// shows one caption at a time.
        case overlaps(previousIndex: Int)
        /// Characters outside the format's character set (CEA-608's for SCC).
        case unsupportedCharacters([Character])
        /// An empty, negative or non-numeric time range.
        case invalidTimeRange
    }

    public var captionIndex: Int
    public var caption: Caption
    public var format: CaptionFormat
    public var reason: Reason

    public var reasonDescription: String {
        switch reason {
        case .tooManyLines(let n, let maximum): "\(n) lines, \(format) shows at most \(maximum)"
        case .lineTooLong(let line, let length, let maximum): "line \(line) has \(length) characters, \(format) rows hold \(maximum)"
        case .unsupportedStyle(let a): "\(format) cannot hold \(a)"
        case .unsupportedColor(let c): "\(format) has no text colour \(c)"
        case .overlaps(let previous): "overlaps caption \(previous + 1); \(format) shows one caption at a time"
        case .unsupportedCharacters(let chars):
            "characters outside the \(format == .scc ? "CEA-608" : format.description) set: "
                + chars.map { "\"\($0)\" (U+\(String($0.unicodeScalars.first!.value, radix: 16, uppercase: true)))" }.joined(separator: ", ")
        case .invalidTimeRange: "its time range \(caption.timeRange) is empty, negative or not a number"
        }
    }

    /// `caption 3 at 1.5 s "Hello wor…": 5 lines, SCC shows at most 4`.
    public var description: String {
        var text = caption.text.replacingOccurrences(of: "\n", with: " / ")
        if text.count > 40 { text = String(text.prefix(39)) + "…" }
        let at = caption.timeRange.start.isNumeric ? " at \(caption.timeRange.start.secondsDescription)" : ""
        return "caption \(captionIndex + 1)\(at) \"\(text)\": \(reasonDescription)"
    }
}
