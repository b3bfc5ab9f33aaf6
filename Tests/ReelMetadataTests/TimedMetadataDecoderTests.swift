import Foundation
import ReelTestSupport
import Testing

@testable import ReelMetadata

@Suite("TimedMetadataDecoder: any track's samples to groups")
struct TimedMetadataDecoderTests {
    @Test(.requires(.sharedMedia))
    func decodesEveryRealTrackKind() throws {
        // GPMF and mebx from MP4/MOV sample tables.
        for (name, format, expectedGroups) in [("gpmf-parser_max-heromode.mp4", MetadataFormat.gpmd, 191), ("nom-exif_meta.mov", .mebx, 2)] {
            let file = try MP4File(contentsOf: TestFiles.sharedMedia(name))
            var count = 0
            for track in try file.tracks() where track.metadataFormat == format {
                var decoder = TimedMetadataDecoder(format: format, keys: track.sampleEntries.first?.metadataKeys ?? [])
                for s in try track.samples() {
                    let buffer = SampleBuffer(data: try file.data(of: s), presentationTime: s.presentationTime, duration: s.durationTime, format: format)
                    count += try decoder.groups(for: buffer).count
                }
            }
            #expect(count == expectedGroups, "\(name)")
        }
        // KLV from MPEG-TS: asynchronous ST 0601 packets are placed by their time stamps.
        var decoder = TimedMetadataDecoder(format: .klv)
        var groups: [TimedMetadataGroup] = []
        for pes in TestTransportStream.klvPackets(try TestFiles.sharedMediaData("kwiver_mpeg2_klv.ts")) {
            groups += try decoder.groups(for: SampleBuffer(data: pes.data, presentationTime: pes.pts ?? .invalid, duration: .invalid, format: "klv"))
        }
        #expect(groups.count == 30)
        #expect(groups[0].timeRange.start == .zero)
        let batch = try KLV.groups(packets: TestTransportStream.klvPackets(try TestFiles.sharedMediaData("kwiver_mpeg2_klv.ts")).map { ($0.data, $0.pts) })
        #expect(groups.map(\.timeRange.start) == batch.map(\.timeRange.start))
        #expect(groups.allSatisfy { GPSFix($0) != nil })
    }

    @Test func camm() throws {
        var decoder = TimedMetadataDecoder(format: .camm)
        let sample = SampleBuffer(
            data: CAMM.encode([.location(latitude: 1, longitude: 2, altitude: 3)]),
            presentationTime: MediaTime(value: 5, timescale: 1), duration: MediaTime(value: 1, timescale: 1), format: "camm")
        let groups = try decoder.groups(for: sample)
        #expect(groups.count == 1 && GPSFix(groups[0])?.altitude == 3)
        #expect(groups[0].timeRange == sample.timeRange)
    }

    @Test func unknownFormatIsUnsupported() {
        var decoder = TimedMetadataDecoder(format: MetadataFormat(rawValue: "fdsc"))
        #expect(!TimedMetadataDecoder.canDecode(format: MetadataFormat(rawValue: "fdsc")))
        do {
            _ = try decoder.groups(for: SampleBuffer(data: Data(), presentationTime: .zero, duration: .zero, format: "fdsc"))
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .unsupportedFormat)
            #expect(error.message.contains("fdsc"))
        }
    }
}
