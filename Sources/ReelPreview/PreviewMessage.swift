import Foundation
import ReelCore

/// A message from the preview page to the server: one WebSocket text message, a JSON object
/// with a `type`.
///
/// - `{"type": "seek", "frame": N}`: show frame N. Seeks coalesce: while a frame is being
///   rendered, later seeks replace the one waiting, and only the newest is rendered.
///   `"toleranceBefore"` and `"toleranceAfter"` (frames, 0 by default) let the server show
///   any frame from N - toleranceBefore to N + toleranceAfter instead, the one quickest to
///   reach (`SeekLanding`): what a scrubber asks for while it is dragged.
/// - `{"type": "info"}`: describe the document again (its timeline, size, frame rate).
public enum PreviewRequest: Sendable, Hashable {
    case seek(frame: Int, toleranceBefore: Int = 0, toleranceAfter: Int = 0)
    case info

    /// The longest message taken; a longer one is refused unread.
    public static let maximumLength = 1024

    private struct Wire: Decodable {
        var type: String
        var frame: Int?
        var toleranceBefore: Int?
        var toleranceAfter: Int?
    }

    /// Parses one message for a document of `frameCount` frames. Throws `invalidArgument`
    /// with one line saying what is wrong: too long, not JSON, an unknown type, a frame
    /// that is missing or outside `0..<frameCount`, a negative tolerance.
    public static func parse(_ text: String, frameCount: Int) throws(ReelError) -> PreviewRequest {
        guard text.utf8.count <= maximumLength else {
            throw ReelError(.invalidArgument, "the message is \(text.utf8.count) bytes: at most \(maximumLength) are read")
        }
        let wire: Wire
        do {
            wire = try JSONDecoder().decode(Wire.self, from: Data(text.utf8))
        } catch {
            throw ReelError(.invalidArgument, "the message is not a JSON object with a \"type\" string")
        }
        switch wire.type {
        case "seek":
            guard let frame = wire.frame else { throw ReelError(.invalidArgument, "seek: \"frame\" is missing") }
            guard frame >= 0, frame < frameCount else {
                throw ReelError(.invalidArgument, "seek: frame \(frame) is outside 0...\(max(frameCount - 1, 0))")
            }
            let before = wire.toleranceBefore ?? 0, after = wire.toleranceAfter ?? 0
            guard before >= 0, after >= 0 else {
                throw ReelError(.invalidArgument, "seek: a tolerance is a number of frames, 0 or more (toleranceBefore \(before), toleranceAfter \(after))")
            }
            return .seek(frame: frame, toleranceBefore: before, toleranceAfter: after)
        case "info":
            return .info
        default:
            // Quoted with its control characters escaped: the error stays one line.
            throw ReelError(.invalidArgument, "\(String(reflecting: String(wire.type.prefix(40)))) is not a message type: seek or info")
        }
    }
}

/// Messages from the server to the page, as JSON text (a frame's header is followed by
/// the frame itself, a JPEG, as one binary message).
enum PreviewReply {
    static func json<T: Encodable>(_ value: T) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let data = try? encoder.encode(value) else { return "{\"type\":\"error\",\"message\":\"could not encode a reply\"}" }
        return String(decoding: data, as: UTF8.self)
    }

    struct Problem: Encodable {
        var type: String
        var message: String
    }

    /// An `error` (a message the server could not take) or `invalid` (the document no
    /// longer loads; the last good one stays) reply.
    static func problem(_ type: String, _ message: String) -> String { json(Problem(type: type, message: message)) }
}
