import Foundation

/// The text of an SRT or WebVTT file cut into blocks: runs of non-blank lines, each line
/// with its 1-based line number. Accepts LF, CRLF and CR line ends and a UTF-8 byte order
/// mark; text that is not UTF-8 is an error naming the format.
struct CueBlocks {
    struct Line {
        var number: Int
        var text: Substring
    }
    var blocks: [[Line]] = []

    init(_ data: Data, format: CaptionFormat) throws(ReelError) {
        var bytes = data
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        guard let text = String(data: bytes, encoding: .utf8) else {
            throw .captionFormat(format, "the file is not UTF-8 text")
        }
        var current: [Line] = []
        var number = 0
        // Split on "\n" (CRLF is one Character in Swift, so it splits too) and on "\r".
        for line in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }) {
            number += 1
            if line.allSatisfy({ $0 == " " || $0 == "\t" }) {
                if !current.isEmpty { blocks.append(current); current = [] }
            } else {
                current.append(Line(number: number, text: line))
            }
        }
        if !current.isEmpty { blocks.append(current) }
    }
}
