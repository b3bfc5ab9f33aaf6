import Foundation
import ReelCore
import ReelIO
import ReelMetadata
import ReelTestSupport
import Testing

@Suite("AssetWriterInputMetadataAdaptor")
struct AssetWriterInputMetadataAdaptorTests {
    /// Ten fixes 100 ms apart, walking north.
    static let fixes: [(TimeRange, GPSFix)] = (0..<10).map { i in
        (
            TimeRange(start: MediaTime(value: Int64(i) * 100, timescale: 1000), duration: MediaTime(value: 100, timescale: 1000)),
            GPSFix(latitude: 47.0 + Double(i) * 0.0001, longitude: 8.5, altitude: 400 + Double(i), speed2D: 1.5, speed3D: 1.5)
        )
    }

    static func group(_ range: TimeRange, _ fix: GPSFix) -> TimedMetadataGroup {
        TimedMetadataGroup(timeRange: range, items: fix.metadataItems(time: range.start, duration: range.duration))
    }

    /// Writes a short video with a gpmd track made by `fill`, then reads the fixes back.
    func roundTrip(_ fill: (AssetWriterInputMetadataAdaptor) async throws -> Void) async throws -> (groups: Int, fixes: [GPSFix]) {
        let url = try TestFiles.scratchFolder().appendingPathComponent("gps.mp4")
        let writer = try AssetWriter(outputURL: url, fileType: .mp4)
        let video = AssetWriterInput(settings: .video(.init(codec: .h264, width: 64, height: 48, preset: "ultrafast")))
        let gpmd = AssetWriterInput(settings: .metadata(format: .gpmd))
        try writer.add(video)
        try writer.add(gpmd)
        let adaptor = try AssetWriterInputMetadataAdaptor(assetWriterInput: gpmd)
        try await writer.start()
        writer.startSession(atSourceTime: .zero)
        for i in 0..<30 {
            try await video.append(PixelBuffer(width: 64, height: 48, format: .yuv420p), withPresentationTime: MediaTime(value: Int64(i), timescale: 30))
        }
        try await fill(adaptor)
        try await writer.finishWriting()

        let reader = try await AssetReader.open(url: url)
        let track = try #require(reader.tracks(withMediaType: .metadata).first)
        let output = AssetReaderTrackOutput(trackID: track.trackID, settings: .passthrough)
        try reader.add(output)
        let readBack = try AssetReaderOutputMetadataAdaptor(assetReaderTrackOutput: output)
        try reader.startReading()
        var groups: [TimedMetadataGroup] = []
        for try await group in readBack { groups.append(group) }
        return (groups.count, groups.compactMap { GPSFix($0) })
    }

    @Test("one GPMF sample per group, read back as the same fixes")
    func groupPerSample() async throws {
        let result = try await roundTrip { adaptor in
            for (range, fix) in Self.fixes { try await adaptor.append(Self.group(range, fix)) }
        }
        #expect(result.fixes.count == 10)
        for (got, want) in zip(result.fixes, Self.fixes.map(\.1)) {
            #expect(abs(got.latitude - want.latitude) < 1e-7 && abs(got.longitude - want.longitude) < 1e-7)
            #expect(abs((got.altitude ?? 0) - (want.altitude ?? 0)) < 1e-3)
        }
    }

    @Test("appendGPS packs fixes into payloads of the given duration")
    func payloads() async throws {
        let result = try await roundTrip { adaptor in
            try await adaptor.appendGPS(Self.fixes.map { Self.group($0.0, $0.1) }, payloadDuration: MediaTime(value: 500, timescale: 1000))
        }
        #expect(result.fixes.count == 10)
        #expect(abs((result.fixes.last?.latitude ?? 0) - 47.0009) < 1e-7)
    }

    @Test("groups without a fix, or for another format, are refused clearly")
    func refusals() async throws {
        let input = AssetWriterInput(settings: .metadata(format: .gpmd))
        let adaptor = try AssetWriterInputMetadataAdaptor(assetWriterInput: input)
        let empty = TimedMetadataGroup(timeRange: TimeRange(start: .zero, duration: MediaTime(value: 1, timescale: 1)), items: [])
        await #expect { try await adaptor.append(empty) } throws: { ($0 as? ReelError)?.code == .metadataFormat }
        let klv = try AssetWriterInputMetadataAdaptor(assetWriterInput: AssetWriterInput(settings: .metadata(format: .klv)))
        await #expect { try await klv.appendGPS([]) } throws: { ($0 as? ReelError)?.code == .invalidArgument }
        expectReelError(.invalidArgument) {
            try AssetWriterInputMetadataAdaptor(assetWriterInput: AssetWriterInput(settings: .audio(.init())))
        }
    }
}

@Suite("AssetWriterInputMetadataAdaptor: mebx, camm and KLV encoding")
struct AssetWriterInputMetadataAdaptorFormatTests {
    static let fix = GPSFix(
        latitude: 38.1601, longitude: -77.3561, altitude: 120, speed2D: 12, course: 10,
        time: Date(timeIntervalSince1970: 1_200_000_000))
    static let group = TimedMetadataGroup(
        timeRange: TimeRange(start: .zero, duration: MediaTime(value: 1, timescale: 10)),
        items: fix.metadataItems())

    @Test func klvIsMISB0601WithAValidChecksum() throws {
        let data = try AssetWriterInputMetadataAdaptor.defaultEncode(forFormat: .klv)(Self.group)
        // decode checks the checksum.
        let fix = try #require(try MISB0601.decode(data).sensorFix)
        #expect(abs(fix.latitude - 38.1601) < 1e-6)
        #expect(abs(fix.longitude - -77.3561) < 1e-6)
        let bytes = [UInt8](data)
        #expect(MISB0601.checksum(bytes.dropLast(2)) == UInt16(bytes[bytes.count - 2]) << 8 | UInt16(bytes[bytes.count - 1]))
    }

    @Test func cammIsATypeSixRecord() throws {
        let data = try AssetWriterInputMetadataAdaptor.defaultEncode(forFormat: .camm)(Self.group)
        guard case .gps(let gps)? = try CAMM.records(sample: data).first else { Issue.record("expected a type 6 record"); return }
        #expect(gps.latitude == 38.1601 && gps.longitude == -77.3561)
    }

    @Test func mebxGrowsTheInputsKeysAndNeedsTheInput() throws {
        let input = AssetWriterInput(settings: .metadata(format: .mebx))
        let encode = AssetWriterInputMetadataAdaptor.defaultEncode(forFormat: .mebx, input: input)
        let data = try encode(Self.group)
        #expect(input.metadataKeys.map(\.key) == ["com.apple.quicktime.location.ISO6709"])
        let items = try QuickTimeMetadataSample.items(sample: data, keys: input.metadataKeys, timeRange: Self.group.timeRange)
        #expect(items.first?.value == .string("+38.160100-077.356100+120.000/"))
        expectReelError(.invalidArgument) { try AssetWriterInputMetadataAdaptor.defaultEncode(forFormat: .mebx)(Self.group) }
        expectReelError(.metadataFormat) {
            try AssetWriterInputMetadataAdaptor.defaultEncode(forFormat: .camm)(TimedMetadataGroup(timeRange: Self.group.timeRange, items: []))
        }
    }
}
