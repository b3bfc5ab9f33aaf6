import Foundation
import Testing
@testable import Reel

/// ISO 8601 UTC times as GPX and CSV carry them, and numbers as Reel's text formats write them.
@Suite("UTC timestamps and decimal text")
struct MetadataUTCTimestampTests {
    @Test("formats UTC with milliseconds, rounding to the nearest")
    func format() {
        #expect(UTCTimestamp.string(from: Date(timeIntervalSince1970: 1_574_120_714)) == "2019-11-18T23:45:14.000Z")
        #expect(UTCTimestamp.string(from: Date(timeIntervalSince1970: 1_704_067_199.9996)) == "2024-01-01T00:00:00.000Z")
        #expect(UTCTimestamp.string(from: Date(timeIntervalSince1970: 951_782_400.25)) == "2000-02-29T00:00:00.250Z")
        #expect(UTCTimestamp.string(from: Date(timeIntervalSince1970: -0.5)) == "1969-12-31T23:59:59.500Z")
    }

    @Test("parses the forms GPX files use", arguments: [
        ("2024-01-01T00:00:00Z", 1_704_067_200.0),
        ("2024-01-01T00:00:00.200Z", 1_704_067_200.2),
        ("2024-01-01 00:00:00,5", 1_704_067_200.5),
        ("2024-01-01T01:30:00+01:30", 1_704_067_200.0),
        ("2023-12-31T23:00:00-0100", 1_704_067_200.0),
        ("2024-01-01T00:00:00", 1_704_067_200.0),
        ("2024-01-01t00:00:00z", 1_704_067_200.0),
    ])
    func parse(_ text: String, _ seconds: Double) throws {
        let date = try #require(UTCTimestamp.date(from: text))
        #expect(abs(date.timeIntervalSince1970 - seconds) < 1e-6)
    }

    @Test("refuses what is not such a time", arguments: ["", "2024-01-01", "2024-13-01T00:00:00Z", "2024-01-01T24:00:00Z",
                                                        "2024-01-01T00:00:00.Z", "2024-01-01T00:00:00+1", "2024-01-01T00:00:00 UTC"])
    func refuses(_ text: String) {
        #expect(UTCTimestamp.date(from: text) == nil)
    }

    @Test("numbers: shortest form that reads back, never an exponent")
    func decimals() {
        #expect(DecimalText.string(33.12677) == "33.12677")
        #expect(DecimalText.string(-22.959) == "-22.959")
        #expect(DecimalText.string(1) == "1")
        #expect(DecimalText.string(0.000001) == "0.000001")
        #expect(DecimalText.string(1e21) == "1000000000000000000000")
        #expect(DecimalText.string(.nan) == "")
        #expect(DecimalText.seconds(1001.0 / 30000) == "0.033367")
        #expect(DecimalText.seconds(2) == "2")
        #expect(DecimalText.seconds(-0.0000001) == "0")
    }
}
