import Foundation
import ReelPreview
import ReelTestSupport
import Testing

@Suite("PreviewRequest")
struct PreviewRequestTests {
    @Test("seek and info parse; the frame must be inside the document")
    func parses() throws {
        #expect(try PreviewRequest.parse(#"{"type": "seek", "frame": 12}"#, frameCount: 60) == .seek(frame: 12))
        #expect(try PreviewRequest.parse(#"{"type":"seek","frame":0}"#, frameCount: 1) == .seek(frame: 0))
        #expect(try PreviewRequest.parse(#"{"type": "info"}"#, frameCount: 60) == .info)
        // A scrubber's seek: any frame up to 150 before it.
        #expect(
            try PreviewRequest.parse(#"{"type": "seek", "frame": 12, "toleranceBefore": 150}"#, frameCount: 60)
                == .seek(frame: 12, toleranceBefore: 150, toleranceAfter: 0))
        #expect(
            try PreviewRequest.parse(#"{"type": "seek", "frame": 12, "toleranceAfter": 3}"#, frameCount: 60)
                == .seek(frame: 12, toleranceBefore: 0, toleranceAfter: 3))
    }

    @Test(
        "bad messages are one clear line each",
        arguments: [
            (#"{"type": "seek", "frame": 60}"#, "outside 0...59"),
            (#"{"type": "seek", "frame": -1}"#, "outside 0...59"),
            (#"{"type": "seek"}"#, "\"frame\" is missing"),
            (#"{"type": "seek", "frame": 3, "toleranceBefore": -1}"#, "0 or more"),
            (#"{"type": "seek", "frame": 3, "toleranceAfter": "x"}"#, "not a JSON object"),
            (#"{"type": "seek", "frame": 1.5}"#, "not a JSON object"),
            (#"{"type": "jump", "frame": 1}"#, "not a message type"),
            // A line break in the echoed type stays escaped (found by fuzzing).
            (#"{"type": "a\nb"}"#, "not a message type"),
            ("not json", "not a JSON object"),
            (#"[1, 2]"#, "not a JSON object"),
            (#"{"frame": 3}"#, "not a JSON object"),
            (String(repeating: " ", count: 2000), "at most 1024"),
        ])
    func refuses(message: String, expected: String) {
        let error = expectReelError(.invalidArgument) { _ = try PreviewRequest.parse(message, frameCount: 60) }
        #expect(error?.message.contains(expected) == true, "\(error?.message ?? "no error")")
        #expect(error?.message.contains("\n") == false)
    }
}
