import Foundation
import ReelTestSupport
import Testing

@testable import ReelMetadata

@Suite("GPMF on damaged and random bytes")
struct GPMFRobustnessTests {
    @Test(
        .requires(.sharedMedia),
        arguments: ["gpmf-parser_hero6.raw", "gpmf-parser_Fusion.raw"])
    func everyTruncation(name: String) throws {
        let data = try TestFiles.sharedMediaData(name)
        var thrown = 0
        for cut in 0..<data.count {
            if survives({ () throws(ReelError) in try GPMF.groups(payload: data.prefix(cut), timeRange: oneSecond) }) { thrown += 1 }
        }
        // Cutting inside the one top-level DEVC always leaves a KLV running past the end.
        #expect(thrown == data.count - 1)
    }

    @Test(.requires(.sharedMedia))
    func everyTruncationOfAHero9Payload() throws {
        let payloads = try GPMF.splitStream(TestFiles.sharedMediaData("gopro-dashboard-overlay_rotation-example.gpmd"))
        let data = payloads[0]
        for cut in 0..<data.count {
            survives { () throws(ReelError) in try GPMF.groups(payload: data.prefix(cut), timeRange: oneSecond) }
        }
        // The whole stream too, cut at a spread of offsets (every 97th byte).
        let stream = try TestFiles.sharedMediaData("gopro-dashboard-overlay_rotation-example.gpmd")
        for cut in stride(from: 0, to: stream.count, by: 97) {
            survives { () throws(ReelError) in try GPMF.splitStream(stream.prefix(cut)) }
        }
    }

    @Test(.requires(.sharedMedia))
    func everyTruncationOfEveryMaxPayload() throws {
        let file = try MP4File(contentsOf: TestFiles.sharedMedia("gpmf-parser_max-heromode.mp4"))
        let gpmd = try #require(try file.tracks().first { $0.format == "gpmd" })
        for sample in try gpmd.samples() {
            let data = try file.data(of: sample)
            var thrown = 0
            for cut in 0..<data.count {
                if survives({ () throws(ReelError) in try GPMF.groups(payload: data.prefix(cut), timeRange: sample.timeRange) }) { thrown += 1 }
            }
            #expect(thrown == data.count - 1)
        }
    }

    @Test func hostileNumbersInModifiers() throws {
        // A float DVID of NaN, a NaN SCAL and a huge repeat of nothing must not trap.
        let dvid = GPMFNodeTests.klv("DVID", 0x66, 4, 1, [0x7F, 0xC0, 0, 0])
        let scal = GPMFNodeTests.klv("SCAL", 0x66, 4, 1, [0x7F, 0xC0, 0, 0])
        let gps = GPMFNodeTests.klv("GPS5", 0x6C, 20, 1, [UInt8](repeating: 0xFF, count: 20))
        let strm = GPMFNodeTests.klv("STRM", 0, 1, scal.count + gps.count, scal + gps)
        let devc = GPMFNodeTests.klv("DEVC", 0, 1, dvid.count + strm.count, dvid + strm)
        let groups = try GPMF.groups(payload: Data(devc), timeRange: oneSecond)
        #expect(groups.count == 1)
    }

    @Test(.requires(.sharedMedia))
    func corruptedBytes() throws {
        let data = try TestFiles.sharedMediaData("gpmf-parser_hero6.raw")
        var rng = SeededGenerator(seed: 6)
        for _ in 0..<1000 {
            var copy = data
            for _ in 0..<Int.random(in: 1...8, using: &rng) {
                copy[Int.random(in: 0..<copy.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
            }
            survives { () throws(ReelError) in try GPMF.groups(payload: copy, timeRange: oneSecond) }
        }
    }

    @Test func randomBytes() {
        var rng = SeededGenerator(seed: 42)
        for i in 0..<3000 {
            var bytes = rng.bytes(Int.random(in: 0...512, using: &rng))
            // Half the time start with a plausible header so the walk gets further.
            if i % 2 == 0, bytes.count >= 8 {
                bytes.replaceSubrange(0..<4, with: Array("DEVC".utf8))
                bytes[4] = 0
            }
            survives { () throws(ReelError) in try GPMF.groups(payload: bytes, timeRange: oneSecond) }
            survives { () throws(ReelError) in try GPMF.splitStream(bytes) }
        }
    }
}
