import Foundation
import PropertyBased
import ReelCore
import Testing

@Suite("MediaTime: text and Codable")
struct MediaTimeCodableTests {
    struct ParseCase: Sendable, CustomTestStringConvertible {
        let text: String
        let value: Int64
        let timescale: Int32
        let epoch: Int64
        var testDescription: String { "\"\(text)\"" }
        init(_ text: String, _ value: Int64, _ timescale: Int32, epoch: Int64 = 0) {
            self.text = text
            self.value = value
            self.timescale = timescale
            self.epoch = epoch
        }
    }

    @Test(arguments: [
        ParseCase("1001/30000", 1001, 30000),
        ParseCase("-1/2", -1, 2),
        ParseCase(" 3/4 ", 3, 4),
        ParseCase("5/1@3", 5, 1, epoch: 3),
        ParseCase("2.5", 25, 10),
        ParseCase("-0.001", -1, 1000),
        ParseCase("+7", 7, 1),
        ParseCase(".5", 5, 10),
        ParseCase("5.", 5, 1),
        ParseCase("0.000000001", 1, 1_000_000_000),
        ParseCase("9223372036.854775807", .max, 1_000_000_000),
        ParseCase("-9223372036.854775808", .min, 1_000_000_000),
        ParseCase("9223372036854775807", .max, 1),
        ParseCase("-9223372036854775808", .min, 1),
    ])
    func parsesExactly(_ c: ParseCase) throws {
        let t = try #require(MediaTime(parsing: c.text))
        #expect(t.value == c.value && t.timescale == c.timescale && t.epoch == c.epoch)
        #expect(!t.hasBeenRounded)
    }

    @Test(arguments: [
        "", "-", ".", "abc", "1/0", "1/-5", "1/", "/3", "1.2.3", "1e3", "0.1234567891",
        "9223372036.854775808", "9223372036854775808", "-9223372036854775809", "1/2147483648",
        "١٢٣", "1/2@x", "+-1", "--1", "1 / 2", "0x10",
    ])
    func rejectsBadText(_ text: String) {
        #expect(MediaTime(parsing: text) == nil)
    }

    @Test func specialNames() {
        #expect(MediaTime(parsing: "invalid").map { !$0.isValid } == true)
        #expect(MediaTime(parsing: "indefinite")?.isIndefinite == true)
        #expect(MediaTime(parsing: "+infinity")?.isPositiveInfinity == true)
        #expect(MediaTime(parsing: "infinity")?.isPositiveInfinity == true)
        #expect(MediaTime(parsing: "-infinity")?.isNegativeInfinity == true)
    }

    @Test func jsonRoundTripKeepsEveryField() throws {
        let times: [MediaTime] = [
            MediaTime(value: 1001, timescale: 30000), MediaTime(value: 2, timescale: 4),
            MediaTime(value: -7, timescale: 3, epoch: 5), MediaTime(value: .min, timescale: Int32.max),
            .invalid, .indefinite, .positiveInfinity, .negativeInfinity,
        ]
        let data = try JSONEncoder().encode(times)
        let text = try #require(String(data: data, encoding: .utf8))
        #expect(text == #"["1001\/30000","2\/4","-7\/3@5","-9223372036854775808\/2147483647","invalid","indefinite","+infinity","-infinity"]"#)
        let back = try JSONDecoder().decode([MediaTime].self, from: data)
        #expect(back.count == times.count)
        for (a, b) in zip(times, back) { #expect(same(a, b), "\(a) came back as \(b)") }
    }

    @Test func decodesNumbersOfSecondsExactly() throws {
        let back = try JSONDecoder().decode([MediaTime].self, from: Data("[2, 0.1, -1.25, 30]".utf8))
        #expect(same(back[0], MediaTime(value: 2, timescale: 1)))
        #expect(back[1] == MediaTime(value: 1, timescale: 10))
        #expect(!back[1].hasBeenRounded)
        #expect(back[2] == MediaTime(value: -5, timescale: 4))
        #expect(back[3] == MediaTime(value: 30, timescale: 1))
    }

    @Test func decodingErrorsSayWhatWasExpected() {
        for json in [#"["1/0"]"#, #"[true]"#, #"["soon"]"#] {
            #expect(throws: DecodingError.self) {
                _ = try JSONDecoder().decode([MediaTime].self, from: Data(json.utf8))
            }
        }
        do {
            _ = try JSONDecoder().decode([MediaTime].self, from: Data(#"["soon"]"#.utf8))
        } catch let DecodingError.dataCorrupted(context) {
            #expect(context.debugDescription.contains("\"soon\""))
            #expect(context.debugDescription.contains("1001/30000"))
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    @Test func anyNumericTimeRoundTripsThroughJSON() async throws {
        await propertyCheck(count: 200, input: TimeGen.any) { t in
            let data = try JSONEncoder().encode([t])
            let back = try JSONDecoder().decode([MediaTime].self, from: data)
            #expect(back.count == 1)
            if t.isNumeric {
                #expect(back.first.map { same($0, t) } == true)
            } else {
                #expect(back.first.map { MediaTime.compare($0, t) == 0 } == true)
            }
        }
    }
}
