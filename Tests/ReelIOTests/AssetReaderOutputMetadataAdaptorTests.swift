import Foundation
import Testing
import ReelCore
import ReelIO

@Suite("AssetReaderOutputMetadataAdaptor")
struct AssetReaderOutputMetadataAdaptorTests {
    static let maxFile = "gpmf-parser_max-heromode.mp4"

    func gpmdOutput() throws -> (AssetReader, AssetReaderTrackOutput) {
        let reader = try AssetReader(url: ReadWriteTestMedia.shared(Self.maxFile))
        let track = try #require(reader.tracks(withMediaType: .metadata).first { $0.metadataFormat == "gpmd" })
        let output = AssetReaderTrackOutput(trackID: track.trackID, settings: .passthrough, bufferCapacity: 64)
        try reader.add(output)
        return (reader, output)
    }

    @Test("groups come from the decode function, in order", .enabled(if: ReadWriteTestMedia.hasShared(maxFile), "needs ../shared/media"))
    func customDecode() async throws {
        let (reader, output) = try gpmdOutput()
        // Two groups per sample: the two halves of its time span.
        let adaptor = try AssetReaderOutputMetadataAdaptor(assetReaderTrackOutput: output) { sample in
            let half = sample.duration.multiplied(byRatio: 1, 2)
            let item = MetadataItem(identifier: MetadataIdentifier(keySpace: "test", key: "size"), value: .integer(Int64(sample.data.count)))
            return [TimedMetadataGroup(timeRange: TimeRange(start: sample.presentationTime, duration: half), items: [item]),
                    TimedMetadataGroup(timeRange: TimeRange(start: sample.presentationTime + half, duration: half), items: [item])]
        }
        try reader.startReading()
        var groups: [TimedMetadataGroup] = []
        for try await group in adaptor { groups.append(group) }
        #expect(groups.count == 22)
        #expect(zip(groups, groups.dropFirst()).allSatisfy { $0.timeRange.end == $1.timeRange.start })
        #expect(groups.first?.timeRange.start == .zero)
    }

    @Test("gpmd samples decode to GPS groups", .enabled(if: ReadWriteTestMedia.hasShared(maxFile), "needs ../shared/media"))
    func gpmfDecode() throws {
        let (reader, output) = try gpmdOutput()
        let adaptor = try AssetReaderOutputMetadataAdaptor(assetReaderTrackOutput: output)
        try reader.startReading()
        var groups: [TimedMetadataGroup] = []
        while let group = try adaptor.nextTimedMetadataGroup() { groups.append(group) }
        let fixes = groups.compactMap { GPSFix($0) }
        // 191 GPS5 samples in the track (exiftool's 192 lines add the static moov/udta location).
        #expect(fixes.count == 191)
        let first = try #require(fixes.first)
        #expect(abs(first.latitude - 33.12677) < 1e-6)
        #expect(abs(first.longitude - -117.3273436) < 1e-6)
        #expect(zip(groups, groups.dropFirst()).allSatisfy { !($1.timeRange.start < $0.timeRange.start) })
    }

    @Test("KLV samples in MPEG-TS decode to located groups", .enabled(if: ReadWriteTestMedia.hasShared("kwiver_aphill_short.ts"), "needs ../shared/media"))
    func klvDecode() async throws {
        let reader = try AssetReader(url: ReadWriteTestMedia.shared("kwiver_aphill_short.ts"))
        let track = try #require(reader.tracks(withMediaType: .metadata).first { $0.metadataFormat == "klv" })
        let output = AssetReaderTrackOutput(trackID: track.trackID, settings: .passthrough, bufferCapacity: 64)
        try reader.add(output)
        let adaptor = try AssetReaderOutputMetadataAdaptor(assetReaderTrackOutput: output)
        try reader.startReading()
        var groups: [TimedMetadataGroup] = []
        for try await group in adaptor { groups.append(group) }
        #expect(groups.count == 48)
        let latitudes = groups.compactMap { $0.number(.latitude) }
        #expect(!latitudes.isEmpty && latitudes.allSatisfy { abs($0 - 38.16) < 0.1 }, "\(latitudes.prefix(3))")
        #expect(zip(groups, groups.dropFirst()).allSatisfy { $0.timeRange.start < $1.timeRange.start })
    }

    @Test("formats without a decoder give their raw bytes")
    func rawFallback() throws {
        let sample = SampleBuffer(data: Data([1, 2, 3]), presentationTime: MediaTime(value: 5, timescale: 10),
                                  duration: MediaTime(value: 1, timescale: 10), format: "mebx")
        let groups = try AssetReaderOutputMetadataAdaptor.defaultDecode(sample)
        #expect(groups.count == 1)
        #expect(groups.first?.timeRange == sample.timeRange)
        #expect(groups.first?.item(MetadataIdentifier(keySpace: "reel", key: "sample.mebx"))?.dataValue == Data([1, 2, 3]))
    }

    @Test("a decode error names the time and the format", .enabled(if: ReadWriteTestMedia.hasShared(maxFile), "needs ../shared/media"))
    func decodeError() async throws {
        struct Broken: Error {}
        let (reader, output) = try gpmdOutput()
        let adaptor = try AssetReaderOutputMetadataAdaptor(assetReaderTrackOutput: output) { _ in throw Broken() }
        try reader.startReading()
        await #expect { _ = try await adaptor.next() } throws: { error in
            guard let error = error as? ReelError else { return false }
            return error.code == .metadataFormat && error.time == .zero && error.message.contains("gpmd")
        }
    }

    @Test("needs a passthrough output")
    func needsPassthrough() {
        let output = AssetReaderTrackOutput(trackID: 1, settings: .video(pixelFormat: .bgra))
        #expect(throws: ReelError.self) { try AssetReaderOutputMetadataAdaptor(assetReaderTrackOutput: output) }
    }
}
