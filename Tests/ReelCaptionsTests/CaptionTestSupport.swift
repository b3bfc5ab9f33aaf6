import Foundation
import ReelTestSupport
import Testing

@testable import ReelCaptions

/// Captions and comparisons the caption format tests share.
enum CaptionSamples {
    static func ms(_ v: Int64) -> MediaTime { MediaTime(value: v, timescale: 1000) }
    static func range(_ a: Int64, _ b: Int64) -> TimeRange { TimeRange(start: ms(a), end: ms(b)) }

    /// Three captions with the styles SRT, WebVTT, iTT and SCC all hold (italic, underline,
    /// a 608 colour), two lines, a top region, and accented letters in the 608 set.
    static let portable: [Caption] = [
        Caption(spans: [.init("Hello "), .init("world", CaptionStyle(italic: true))], timeRange: range(1000, 2500)),
        Caption(
            spans: [.init("Second line one\nline "), .init("two", CaptionStyle(underline: true))],
            timeRange: range(3000, 5000), region: .top),
        Caption(spans: [.init("Señor "), .init("Müller", CaptionStyle(textColor: .yellow)), .init(" ♪")], timeRange: range(6000, 8000)),
    ]

    /// Runs of a caption as (text, style) with the style of whitespace taken from the
    /// character before it (spaces show no letter, and 608 styles them that way).
    static func looks(_ caption: Caption) -> [Caption.Span] {
        var spans: [Caption.Span] = []
        var previous = CaptionStyle.plain
        for span in caption.normalized.spans {
            for ch in span.text {
                let s = ch.isWhitespace ? previous : span.style
                previous = s
                if let last = spans.last, last.style == s { spans[spans.count - 1].text.append(ch) } else { spans.append(Caption.Span(String(ch), s)) }
            }
        }
        return spans
    }

    /// Expects the same text, styles and top/bottom placement, and times within `tolerance`.
    static func expectSame(_ a: [Caption], _ b: [Caption], tolerance: MediaTime, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(a.count == b.count, "caption counts differ", sourceLocation: sourceLocation)
        for (x, y) in zip(a, b) {
            #expect(looks(x) == looks(y), "\(x.text) vs \(y.text)", sourceLocation: sourceLocation)
            #expect(
                (x.timeRange.start - y.timeRange.start).magnitude <= tolerance, "start \(x.timeRange.start) vs \(y.timeRange.start)",
                sourceLocation: sourceLocation)
            #expect((x.timeRange.end - y.timeRange.end).magnitude <= tolerance, "end \(x.timeRange.end) vs \(y.timeRange.end)", sourceLocation: sourceLocation)
            #expect(
                (x.region?.isInUpperHalf(rows: 15) ?? false) == (y.region?.isInUpperHalf(rows: 15) ?? false), "region of \(x.text)",
                sourceLocation: sourceLocation)
        }
    }

    /// Half a 29.97 fps frame: SCC times are within this of the time asked for.
    static let halfFrame = MediaTime(value: 1001, timescale: 60000)
}

/// The ffmpeg command line, for reading Reel's files with an independent reader.
enum FFmpegTool {
    /// Converts `data` (a file named `input`) with ffmpeg to `outputName` and returns its bytes.
    static func convert(_ data: Data, input: String, outputName: String, arguments: [String] = []) throws -> Data {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let inURL = folder.appendingPathComponent(input), outURL = folder.appendingPathComponent(outputName)
        try data.write(to: inURL)
        try TestTools.output("ffmpeg", ["-hide_banner", "-loglevel", "error", "-i", inURL.path] + arguments + [outURL.path])
        return try Data(contentsOf: outURL)
    }
}
