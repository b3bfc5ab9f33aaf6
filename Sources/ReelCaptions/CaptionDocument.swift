import Foundation

/// What reading a caption file gives: its captions in file order, and what the reader
/// noticed but could read past (overlapping cues, bytes with bad parity, unknown styles).
public struct CaptionDocument: Sendable, Hashable {
    public var captions: [Caption]
    public var warnings: [CaptionWarning]

    public init(captions: [Caption], warnings: [CaptionWarning] = []) {
        self.captions = captions
        self.warnings = warnings
    }
}

/// Something a caption reader or writer read past, with where it was: the line of the
/// file, the caption's time, or both.
public struct CaptionWarning: Sendable, Hashable, CustomStringConvertible {
    public var format: CaptionFormat
    public var message: String
    public var line: Int?
    public var time: MediaTime?

    public init(_ format: CaptionFormat, _ message: String, line: Int? = nil, time: MediaTime? = nil) {
        self.format = format
        self.message = message
        self.line = line
        self.time = time
    }

    /// `SRT line 12 (at 1.5 s): cue 3 starts before cue 2 ends`.
    public var description: String {
        var s = format.description
        if let line { s += " line \(line)" }
        if let time, time.isNumeric { s += " (at \(time.secondsDescription))" }
        return s + ": " + message
    }
}

extension ReelError {
    /// A caption file breaks its format's rules, at a line of the file (or a time).
    static func captionFormat(_ format: CaptionFormat, _ message: String, line: Int? = nil, time: MediaTime? = nil) -> ReelError {
        ReelError(.captionFormat, "\(format): \(message)", time: time, field: line.map { "line \($0)" })
    }
}
