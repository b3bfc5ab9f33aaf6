import Foundation

/// The one error type Reel throws: what failed, where (file, track, time, field), and why.
///
/// `description` reads as one line, for example
/// `clip.mp4: not a media file FFmpeg can read (Invalid data found when processing input)`.
public struct ReelError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is, for code that handles some and not others.
    public enum Code: String, Sendable, Hashable, Codable {
        case fileNotFound
        case notAFile
        case unreadable
        case unsupportedFormat
        case corruptData
        case invalidArgument
        case invalidComposition
        case outputExists
        case outputFailed
        case decoderFailed
        case encoderFailed
        case writerState
        case compositorFailed
        case cancelled
        case metadataFormat
        case captionFormat
        case internalError
    }

    public var code: Code
    /// What went wrong, in words, without the location (that is in the other fields).
    public var message: String
    /// The file (or composition file) it happened in.
    public var path: String?
    /// The track it happened on.
    public var trackID: Int32?
    /// The media or composition time it happened at.
    public var time: MediaTime?
    /// A field of a document (`instructions[2].timeRange`), where the error is about one.
    public var field: String?
    /// The cause, such as an FFmpeg error.
    public var underlying: (any Error & Sendable)?

    public init(
        _ code: Code, _ message: String, path: String? = nil, trackID: Int32? = nil,
        time: MediaTime? = nil, field: String? = nil, underlying: (any Error & Sendable)? = nil
    ) {
        self.code = code
        self.message = message
        self.path = path
        self.trackID = trackID
        self.time = time
        self.field = field
        self.underlying = underlying
    }

    public var description: String {
        var text = ""
        if let path { text += "\(path): " }
        if let field { text += "\(field): " }
        text += message
        var whereParts: [String] = []
        if let trackID { whereParts.append("track \(trackID)") }
        if let time, time.isValid { whereParts.append("at \(time.secondsDescription)") }
        if !whereParts.isEmpty { text += " (" + whereParts.joined(separator: ", ") + ")" }
        if let underlying { text += ": \(underlying)" }
        return text
    }
}

extension MediaTime {
    /// Seconds with up to six decimals and the exact rational, e.g. `1.001 s (1001/1000)`.
    public var secondsDescription: String {
        guard isNumeric else { return description }
        var s = String(format: "%.6f", seconds)
        while s.hasSuffix("0") { s.removeLast() }
        if s.hasSuffix(".") { s.removeLast() }
        return timescale == 1 || Double(value) / Double(timescale) == Double(s) && timescale <= 1000
            ? "\(s) s" : "\(s) s (\(value)/\(timescale))"
    }
}
