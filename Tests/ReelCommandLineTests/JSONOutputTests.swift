import Foundation
import Reel
import Testing

@testable import ReelCommandLine

@Suite("JSONOutput")
struct JSONOutputTests {
    struct Rate: Encodable {
        var track: Int
        var nominalFrameRate: Double
    }

    @Test("encodes sorted, pretty JSON")
    func encodes() throws {
        #expect(
            try JSONOutput.text(Rate(track: 1, nominalFrameRate: 30), describing: "the rate") == """
                {
                  "nominalFrameRate" : 30,
                  "track" : 1
                }
                """)
    }

    @Test("a value JSON cannot hold is an error naming the file and field, not `{}`")
    func refusesNonFiniteNumbers() {
        #expect {
            try JSONOutput.text(Rate(track: 1, nominalFrameRate: .infinity), describing: "the report", path: "clip.mp4")
        } throws: { error in
            guard let error = error as? ReelError else { return false }
            return error.code == .outputFailed && error.path == "clip.mp4" && error.field == "nominalFrameRate"
                && error.message.contains("the report")
        }
    }
}
