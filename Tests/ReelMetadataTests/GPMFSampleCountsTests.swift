import Foundation
import ReelTestSupport
import Testing

@testable import ReelMetadata

@Suite("GPMFSampleCounts: placing streams without STMP by their TSMP")
struct GPMFSampleCountsTests {
    /// GPS at 18.18 Hz in payloads of 1.001 s, each STRM with a TSMP and no STMP: from the
    /// second payload on, the TSMP counts place every fix within a frame (1/30 s) of when
    /// it was taken; spread evenly over each payload, they miss by up to 0.05 s.
    @Test(arguments: [0.0, 0.02, 0.05])
    func tsmpPlacesFixesWithoutSTMP(phase: Double) throws {
        let rate = 18.18, payload = 1.001
        func taken(_ c: Int) -> Double { phase + Double(c - 1) / rate }
        var decoder = TimedMetadataDecoder(format: .gpmd)
        var c = 1
        var checked = 0
        for k in 0..<12 {
            let start = Double(k) * payload, end = Double(k + 1) * payload
            var fixes: [GPSFix] = []
            while taken(c) < end {
                fixes.append(GPSFix(latitude: 10 + Double(c) * 1e-4, longitude: 20))
                c += 1
            }
            var devc = try #require(try GPMFNode.parse(GPMFWriter.payload(fixes: fixes)).first)
            let s = try #require(devc.children.firstIndex { $0.key == "STRM" })
            devc.children[s].children.insert(.integers("TSMP", .uint32, [[Int64(c - 1)]]), at: 0)
            let sample = SampleBuffer(
                data: try devc.encoded(), presentationTime: MediaTime(seconds: start, preferredTimescale: 1000),
                duration: MediaTime(value: 1001, timescale: 1000), format: .gpmd)
            let groups = try decoder.groups(for: sample)
            #expect(groups.count == fixes.count)
            guard k > 0 else { continue }
            for group in groups {
                let fix = try #require(GPSFix(group))
                let count = Int(((fix.latitude - 10) / 1e-4).rounded())
                let time = GPSFix.time(in: group).seconds
                #expect(abs(time - taken(count)) < 1.0 / 30, "payload \(k), fix \(count): \(time) for \(taken(count))")
                checked += 1
            }
        }
        #expect(checked > 150)
    }

    @Test("a payload read alone, or a count that goes back, is spread evenly")
    func withoutHistoryTheSpreadIsEven() throws {
        func payload(total: Int64, fixes: Int) throws -> Data {
            var devc = try #require(try GPMFNode.parse(GPMFWriter.payload(fixes: (0..<fixes).map { GPSFix(latitude: Double($0), longitude: 0) })).first)
            let s = try #require(devc.children.firstIndex { $0.key == "STRM" })
            devc.children[s].children.insert(.integers("TSMP", .uint32, [[total]]), at: 0)
            return try devc.encoded()
        }
        let first = TimeRange(start: .zero, duration: MediaTime(value: 1, timescale: 1))
        let second = TimeRange(start: MediaTime(value: 1, timescale: 1), duration: MediaTime(value: 1, timescale: 1))
        var counts = GPMFSampleCounts()
        _ = try GPMF.groups(payload: payload(total: 10, fixes: 10), timeRange: first, counts: &counts)
        // A new recording: the count starts again, so nothing is measured from the old one.
        let restarted = try GPMF.groups(payload: payload(total: 8, fixes: 8), timeRange: second, counts: &counts)
        #expect(
            restarted.map { GPSFix.time(in: $0) }
                == (0..<8).map { MediaTime(value: 1, timescale: 1) + MediaTime(value: 1, timescale: 1).multiplied(byRatio: Int32($0), 8) })
    }
}
