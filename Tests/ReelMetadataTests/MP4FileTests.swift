import Foundation
import ReelTestSupport
import Testing

@testable import ReelMetadata

@Suite("MP4File: boxes, tracks and sample tables")
struct MP4FileTests {
    @Test(.requires(.sharedMedia))
    func goProMaxTracksAndSamples() throws {
        let file = try MP4File(contentsOf: TestFiles.sharedMedia("gpmf-parser_max-heromode.mp4"))
        #expect(try file.topLevelBoxes().map(\.type).contains("moov"))
        let tracks = try file.tracks()
        #expect(tracks.count == 5)
        #expect(tracks.map { $0.format?.description } == ["avc1", "mp4a", "tmcd", "gpmd", "fdsc"])
        let gpmd = try #require(tracks.first { $0.format == "gpmd" })
        #expect(gpmd.handlerName == "GoPro MET")
        #expect(gpmd.handlerType == "meta")
        #expect(gpmd.timescale == 1000)
        let samples = try gpmd.samples()
        #expect(samples.count == 11)
        #expect(samples.map(\.size) == [6188, 6200, 6144, 6280, 6124, 6292, 6280, 6272, 6200, 6208, 4140])
        #expect(samples.map(\.offset).prefix(3) == [417_048, 757_650, 1_099_894])
        #expect(samples.map(\.decodeTime) == (0..<11).map { Int64($0) * 1001 })
        // The sample table gives the last sample 533 ms (mdhd duration 10543); FFmpeg reports 507.
        #expect(samples.last?.duration == 533)
        #expect(gpmd.duration == 10_543)
        #expect(samples[1].timeRange == TimeRange(start: MediaTime(value: 1001, timescale: 1000), duration: MediaTime(value: 1001, timescale: 1000)))
        let video = try #require(tracks.first)
        #expect(try video.samples().count == 315)
    }

    @Test(.requires(.sharedMedia))
    func goProMaxTelemetryDecodesToKnownValues() throws {
        let file = try MP4File(contentsOf: TestFiles.sharedMedia("gpmf-parser_max-heromode.mp4"))
        let gpmd = try #require(try file.tracks().first { $0.format == "gpmd" })
        var groups: [TimedMetadataGroup] = []
        for sample in try gpmd.samples() {
            groups += try GPMF.groups(payload: file.data(of: sample), timeRange: sample.timeRange)
        }
        let fixes = groups.compactMap(GPSFix.init)
        // 191 fixes in the track (exiftool's 192 also counts the static moov/udta location).
        #expect(fixes.count == 191)
        #expect(groups.count == 191)
        let first = fixes[0]
        #expect(close(first.latitude, 33.12677))
        #expect(close(first.longitude, -117.3273436))
        #expect(close(first.altitude, -22.959))
        #expect(close(first.speed2D, 1.046))
        #expect(close(first.speed3D, 1.0))
        #expect(first.fix == 3)
        #expect(close(first.dop, 1.54))
        #expect(first.time == Date(timeIntervalSince1970: 1_574_120_714))
        #expect(groups[0].item(.quickTimeMetadataLocationISO6709)?.stringValue == "+33.1268-117.3273-022.959/")
        #expect(close(fixes[1].latitude, 33.1267696))
        #expect(close(fixes[1].longitude, -117.3273433))
        #expect(close(fixes[1].altitude, -22.941))
        // Groups tile the track: each payload's fixes cover its sample's span.
        #expect(groups[17].timeRange.start == MediaTime(value: 1001, timescale: 1000))
        #expect(groups.last?.timeRange.end == MediaTime(value: 10_543, timescale: 1000))
        #expect(groups.flatMap(\.items).contains { $0.identifier.rawValue == "gpmf/GYRO" && $0.unit == "rad/s" })
    }

    @Test(.requires(.sharedMedia))
    func iPhoneMebxKeys() throws {
        let file = try MP4File(contentsOf: TestFiles.sharedMedia("nom-exif_meta.mov"))
        let tracks = try file.tracks().filter { $0.format == "mebx" }
        #expect(tracks.count == 2)
        let faceKeys = tracks[0].sampleEntries[0].metadataKeys
        #expect(Set(faceKeys.map(\.localID)) == [1, 2, 3, 4, 5])
        #expect(faceKeys.allSatisfy { $0.key.hasPrefix("com.apple.quicktime.detected-face") })
        let face = try #require(faceKeys.first { $0.localID == 1 })
        #expect(face.namespace == "mdta")
        #expect(face.dataType == .reverseDNS("com.apple.quicktime.detected-face"))
        #expect(faceKeys.first { $0.localID == 4 }?.dataType == .wellKnown(QuickTimeDataType.float32))
        let orientation = try #require(tracks[1].sampleEntries[0].metadataKeys.first)
        #expect(orientation.localID == 1)
        #expect(orientation.key == "com.apple.quicktime.video-orientation")
        #expect(orientation.identifier.rawValue == "mdta/com.apple.quicktime.video-orientation")
        #expect(orientation.dataType == .wellKnown(QuickTimeDataType.int16))
        #expect(tracks[1].handlerName == "Core Media Metadata")
        #expect(tracks[1].timescale == 600)

        let sample = try #require(try tracks[1].samples().first)
        #expect(sample.timeRange == TimeRange(start: .zero, duration: MediaTime(value: 300, timescale: 600)))
        let group = try QuickTimeMetadataSample.group(
            sample: file.data(of: sample), keys: tracks[1].sampleEntries[0].metadataKeys,
            timeRange: sample.timeRange)
        #expect(group.items.count == 1)
        #expect(group.items[0].value == .integer(6))
        #expect(group.items[0].dataType == "com.apple.metadata.datatype.int16")
        // Track A's one sample is an empty filler item (local id 0): no faces.
        let faceSample = try #require(try tracks[0].samples().first)
        #expect(try QuickTimeMetadataSample.items(sample: file.data(of: faceSample), keys: faceKeys, timeRange: faceSample.timeRange).isEmpty)
    }

    /// A table of constant-size samples claims millions in a few bytes (PCM audio has one
    /// per audio frame): up to the ceiling they are laid out, past it refused.
    @Test func constantSizeTablesAreLaidOutUpToTheCeiling() throws {
        var table = MP4SampleTable()
        table.constantSampleSize = 4
        table.sampleToChunk = [.init(firstChunk: 1, samplesPerChunk: UInt32.max, descriptionIndex: 1)]
        table.chunkOffsets = [64]
        table.timeToSample = [.init(count: UInt32.max, delta: 1)]
        table.sampleCount = 100_000
        let samples = try table.samples(timescale: 48000)
        #expect(samples.count == 100_000)
        #expect(samples.last.map { $0.offset } == Int64(64 + 4 * 99_999))
        table.sampleCount = UInt32(MP4SampleTable.maximumSampleCount + 1)
        expectReelError(.corruptData) { try table.samples(timescale: 48000) }
    }

    @Test func sizesPastTheParentAreRefused() {
        // A 'moov' claiming 100 bytes in a 16-byte file.
        var w = ByteWriter()
        w.u32be(100)
        w.append(contentsOf: Array("moov".utf8))
        w.append(contentsOf: [UInt8](repeating: 0, count: 8))
        let file = MP4File(data: Data(w.bytes))
        do {
            _ = try file.tracks()
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .corruptData)
            #expect(error.message.contains("'moov'") && error.message.contains("100"))
        }
    }

    @Test func sixtyFourBitSizesAndZeroSize() throws {
        var w = ByteWriter()
        w.u32be(1)
        w.append(contentsOf: Array("free".utf8))
        w.u64be(24)
        w.u64be(0)
        w.u32be(0)
        w.append(contentsOf: Array("mdat".utf8))
        w.append(contentsOf: [1, 2, 3, 4])
        let boxes = try MP4File(data: Data(w.bytes)).topLevelBoxes()
        #expect(boxes.map(\.type) == ["free", "mdat"])
        #expect(boxes[0].headerSize == 16 && boxes[0].size == 24)
        #expect(boxes[1].size == 12)
        #expect(boxes[1].payloadRange == 32..<36)
    }

    @Test(.requires(.sharedMedia))
    func damagedMoovNeverCrashes() throws {
        let data = try TestFiles.sharedMediaData("nom-exif_meta.mov")
        let moovStart = 765_703
        let moov = data[moovStart...]
        var rng = SeededGenerator(seed: 9)
        // Truncated at every offset of the moov (as if the file ended there).
        for cut in stride(from: 0, to: moov.count, by: 1) {
            let file = MP4File(data: data.prefix(moovStart + cut))
            survivesMP4 { () throws(ReelError) in
                for track in try file.tracks() { _ = try track.samples() }
            }
        }
        // And with random bytes changed.
        for _ in 0..<400 {
            var copy = data
            for _ in 0..<4 { copy[moovStart + Int.random(in: 0..<moov.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng) }
            let file = MP4File(data: copy)
            survivesMP4 { () throws(ReelError) in
                for track in try file.tracks() {
                    for s in try track.samples().prefix(3) where s.offset + Int64(s.size) <= file.size { _ = try file.data(of: s) }
                }
            }
        }
    }

    @Test func randomBytes() {
        var rng = SeededGenerator(seed: 4)
        for _ in 0..<2000 {
            var bytes = [UInt8](rng.bytes(Int.random(in: 0...300, using: &rng)))
            if bytes.count >= 8, Bool.random(using: &rng) {
                let n = UInt32(bytes.count)
                bytes.replaceSubrange(0..<8, with: [UInt8(n >> 24), UInt8(n >> 16 & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF)] + Array("moov".utf8))
            }
            let file = MP4File(data: Data(bytes))
            survivesMP4 { () throws(ReelError) in
                for track in try file.tracks() { _ = try track.samples() }
            }
        }
    }
}

/// Like `survives`, but MP4 files may also be refused as not MP4 at all.
func survivesMP4<T>(_ body: () throws(ReelError) -> T) {
    do {
        _ = try body()
    } catch {
        #expect([.metadataFormat, .corruptData, .unsupportedFormat].contains(error.code), "unexpected error: \(error)")
    }
}
