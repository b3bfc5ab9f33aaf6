import Foundation
import ReelCore
import ReelIO
import ReelMetadata
import ReelTestSupport
import Testing

@Suite("AssetReaderOutputMetadataAdaptor")
struct AssetReaderOutputMetadataAdaptorTests {
    static let maxFile = "gpmf-parser_max-heromode.mp4"

    func gpmdOutput() throws -> (AssetReader, AssetReaderTrackOutput) {
        let reader = try AssetReader(url: TestFiles.sharedMedia(Self.maxFile))
        let track = try #require(reader.tracks(withMediaType: .metadata).first { $0.metadataFormat == .gpmd })
        let output = AssetReaderTrackOutput(trackID: track.trackID, settings: .passthrough, bufferCapacity: 64)
        try reader.add(output)
        return (reader, output)
    }

    @Test("groups come from the decode function, in order", .requires(.sharedMedia))
    func customDecode() async throws {
        let (reader, output) = try gpmdOutput()
        // Two groups per sample: the two halves of its time span.
        let adaptor = try AssetReaderOutputMetadataAdaptor(assetReaderTrackOutput: output) { sample in
            let half = sample.duration.multiplied(byRatio: 1, 2)
            let item = MetadataItem(identifier: MetadataIdentifier(keySpace: "test", key: "size"), value: .integer(Int64(sample.data.count)))
            return [
                TimedMetadataGroup(timeRange: TimeRange(start: sample.presentationTime, duration: half), items: [item]),
                TimedMetadataGroup(timeRange: TimeRange(start: sample.presentationTime + half, duration: half), items: [item]),
            ]
        }
        try reader.startReading()
        var groups: [TimedMetadataGroup] = []
        for try await group in adaptor { groups.append(group) }
        #expect(groups.count == 22)
        #expect(zip(groups, groups.dropFirst()).allSatisfy { $0.timeRange.end == $1.timeRange.start })
        #expect(groups.first?.timeRange.start == .zero)
    }

    @Test("gpmd samples decode to GPS groups", .requires(.sharedMedia))
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

    @Test("KLV samples in MPEG-TS decode to located groups", .requires(.sharedMedia))
    func klvDecode() async throws {
        let reader = try await AssetReader.open(url: TestFiles.sharedMedia("kwiver_aphill_short.ts"))
        let track = try #require(reader.tracks(withMediaType: .metadata).first { $0.metadataFormat == .klv })
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
        let sample = SampleBuffer(
            data: Data([1, 2, 3]), presentationTime: MediaTime(value: 5, timescale: 10),
            duration: MediaTime(value: 1, timescale: 10), format: "mebx")
        let groups = try AssetReaderOutputMetadataAdaptor.defaultDecode(sample)
        #expect(groups.count == 1)
        #expect(groups.first?.timeRange == sample.timeRange)
        #expect(groups.first?.item(MetadataIdentifier(keySpace: "reel", key: "sample.mebx"))?.dataValue == Data([1, 2, 3]))
    }

    @Test("a sample the decode function rejects is skipped with a warning naming its time and track", .requires(.sharedMedia))
    func decodeError() async throws {
        struct Broken: Error {}
        let (reader, output) = try gpmdOutput()
        let adaptor = try AssetReaderOutputMetadataAdaptor(assetReaderTrackOutput: output) { sample in
            if sample.presentationTime == .zero { throw Broken() }
            return [AssetReaderOutputMetadataAdaptor.rawGroup(sample)]
        }
        try reader.startReading()
        var groups: [TimedMetadataGroup] = []
        for try await group in adaptor { groups.append(group) }
        #expect(groups.count == 10)
        #expect(adaptor.warnings.count == 1)
        #expect(adaptor.warnings.first?.time == .zero)
        #expect(adaptor.warnings.first?.trackID == output.trackID)
        #expect(adaptor.warnings.first?.description.contains("gpmd") == true)
    }

    /// Reads every group of `trackID` in `url` with Reel's own decoding.
    static func groups(_ url: URL, trackID: Int32) async throws -> (groups: [TimedMetadataGroup], warnings: [MetadataReadWarning]) {
        let reader = try await AssetReader.open(url: url)
        let output = AssetReaderTrackOutput(trackID: trackID, settings: .passthrough, bufferCapacity: 64)
        try reader.add(output)
        let adaptor = try AssetReaderOutputMetadataAdaptor(assetReaderTrackOutput: output)
        try reader.startReading()
        var groups: [TimedMetadataGroup] = []
        for try await group in adaptor { groups.append(group) }
        return (groups, adaptor.warnings)
    }

    @Test(
        "mebx items decode with the keys of the track's sample description, no keys passed",
        .requires(.sharedMedia))
    func mebxKeys() async throws {
        let url = TestFiles.sharedMedia("nom-exif_meta.mov")
        let reader = try await AssetReader.open(url: url)
        let mebx = reader.tracks(withMediaType: .metadata).filter { $0.metadataFormat == .mebx }
        #expect(mebx.count == 2)
        let keyNames = mebx.map { $0.formatDescription.metadataKeys.map(\.key) }
        #expect(keyNames.first?.count == 5)
        #expect(keyNames.first?.allSatisfy { $0.hasPrefix("com.apple.quicktime.detected-face") } == true, "\(keyNames)")
        #expect(keyNames.last == ["com.apple.quicktime.video-orientation"])
        let (groups, warnings) = try await Self.groups(url, trackID: try #require(mebx.last).trackID)
        #expect(warnings.isEmpty)
        let orientation = groups.first?.item(MetadataIdentifier(keySpace: .quickTimeMetadata, key: "com.apple.quicktime.video-orientation"))
        #expect(orientation?.value == .integer(6))
        #expect(groups.first?.timeRange == TimeRange(start: .zero, duration: MediaTime(value: 300, timescale: 600)))
    }

    /// The GPS fixture's gpmd track ID and its per-sample group counts.
    static let gpsFixture = TestFiles.fixture("counter-gps.mp4")

    static func gpmdTrackID(_ url: URL) throws -> Int32 {
        try #require(try AssetReader(url: url).tracks(withMediaType: .metadata).first { $0.metadataFormat == .gpmd }).trackID
    }

    static func ffmpeg(_ arguments: [String], name: String) throws -> URL {
        let out = try TestFiles.scratchFolder().appendingPathComponent(name)
        _ = try TestTools.outputString(try #require(TestTools.which("ffmpeg")?.path), ["-v", "error", "-y"] + arguments + [out.path])
        return out
    }

    @Test("a fragmented MP4 gives the same groups as the file it was made from", .requires(.ffmpeg))
    func fragmented() async throws {
        let source = Self.gpsFixture
        let fragmented = try Self.ffmpeg(["-i", source.path, "-map", "0", "-c", "copy", "-movflags", "+frag_keyframe+empty_moov"], name: "frag.mp4")
        let plain = try await Self.groups(source, trackID: try Self.gpmdTrackID(source)).groups
        let split = try await Self.groups(fragmented, trackID: try Self.gpmdTrackID(fragmented)).groups
        #expect(split.count == plain.count)
        // The fixes of each sample are spread over its span, which runs to the next sample
        // (the fragments give no duration FFmpeg passes on) or to the track's end.
        #expect(split.allSatisfy { $0.timeRange.duration > .zero })
        #expect(zip(split, split.dropFirst()).allSatisfy { $0.timeRange.end == $1.timeRange.start })
        #expect(split.first?.timeRange.start == .zero)
        let position = { (g: TimedMetadataGroup) in GPSFix(g).map { [$0.latitude, $0.longitude] } }
        #expect(split.map(position) == plain.map(position))
    }

    @Test("an edit list that trims the start moves the groups with the video", .requires(.ffmpeg))
    func trimmedStart() async throws {
        let source = Self.gpsFixture
        let trimmed = try Self.ffmpeg(["-ss", "1.5", "-i", source.path, "-map", "0", "-c", "copy"], name: "trimmed.mp4")
        let plain = try await Self.groups(source, trackID: try Self.gpmdTrackID(source)).groups
        let cut = try await Self.groups(trimmed, trackID: try Self.gpmdTrackID(trimmed)).groups
        // The edit starts 1.5 s into the media: a group at source time t is at t - 1.5 s.
        let offset = MediaTime(value: 3, timescale: 2)
        let expected = plain.filter { $0.timeRange.end > offset }
        #expect(cut.count == expected.count)
        for (got, want) in zip(cut, expected) {
            #expect(got.timeRange.start == want.timeRange.start - offset)
            #expect(GPSFix(got) == GPSFix(want))
        }
        #expect(cut.first.map { $0.timeRange.containsTime(.zero) } == true)
    }

    @Test("an edit list that delays the track moves the groups as it moves the video", .requires(.ffmpeg))
    func delayedStart() async throws {
        let source = Self.gpsFixture
        let delayed = try Self.ffmpeg(["-itsoffset", "2", "-i", source.path, "-map", "0", "-c", "copy"], name: "delayed.mp4")
        let plain = try await Self.groups(source, trackID: try Self.gpmdTrackID(source)).groups
        let moved = try await Self.groups(delayed, trackID: try Self.gpmdTrackID(delayed)).groups
        let reader = try await AssetReader.open(url: delayed)
        let video = AssetReaderTrackOutput(trackID: try #require(reader.tracks(withMediaType: .video).first).trackID, settings: .passthrough)
        try reader.add(video)
        try reader.startReading()
        let firstFrame = try #require(try await video.next()).presentationTime
        #expect(firstFrame == MediaTime(value: 2, timescale: 1))
        #expect(moved.count == plain.count)
        #expect(zip(moved, plain).allSatisfy { $0.timeRange.start == $1.timeRange.start + firstFrame && GPSFix($0) == GPSFix($1) })
        #expect(moved.last?.timeRange.end == plain.last.map { $0.timeRange.end + firstFrame })
    }

    @Test("a corrupt sample in the middle is skipped with a warning; the rest of the track is kept")
    func corruptSample() async throws {
        let source = Self.gpsFixture
        let trackID = try Self.gpmdTrackID(source)
        let track = try #require(try MP4File(contentsOf: source).tracks().first { Int64($0.trackID) == Int64(trackID) })
        let samples = try track.samples()
        try #require(samples.count >= 2)
        let bad = samples[samples.count / 2]
        var bytes = try Data(contentsOf: source)
        for i in 0..<bad.size { bytes[Int(bad.offset) + i] = 0xFF }
        let damaged = try TestFiles.scratchFolder().appendingPathComponent("damaged.mp4")
        try bytes.write(to: damaged)
        let plain = try await Self.groups(source, trackID: trackID).groups
        let (groups, warnings) = try await Self.groups(damaged, trackID: trackID)
        #expect(warnings.count == 1)
        #expect(warnings.first?.time == bad.presentationTime)
        #expect(warnings.first?.trackID == trackID)
        let badRange = bad.timeRange
        #expect(groups == plain.filter { !badRange.containsTime($0.timeRange.start) })
        #expect(!groups.isEmpty)
    }

    @Test("needs a passthrough output")
    func needsPassthrough() {
        let output = AssetReaderTrackOutput(trackID: 1, settings: .video(pixelFormat: .bgra))
        expectReelError(.invalidArgument) { try AssetReaderOutputMetadataAdaptor(assetReaderTrackOutput: output) }
    }
}
