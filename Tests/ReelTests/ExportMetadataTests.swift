import Foundation
import Testing
import Reel

@Suite struct ExportMetadataTests {
    /// A clip with the counter's video and a gpmd track of 10 fixes a second, each with a
    /// latitude of its own, written with Reel's writer.
    static func makeGPSClip(in folder: URL) async throws -> URL {
        let url = folder.appendingPathComponent("gps-clip.mp4")
        let reader = try AssetReader(url: TestMedia.fixture("counter-320x240.mp4"))
        let frames = AssetReaderTrackOutput(trackID: 1, settings: .video(pixelFormat: .yuv420p))
        try reader.add(frames)
        try reader.startReading()
        let writer = try AssetWriter(outputURL: url, fileType: .mp4)
        let video = AssetWriterInput(settings: .video(VideoEncoderSettings(codec: .h264, width: 320, height: 240, quality: .crf(18), preset: "ultrafast", timescale: 15360)))
        let meta = AssetWriterInput(settings: .metadata(format: "gpmd"))
        try writer.add(video)
        try writer.add(meta)
        let adaptor = try AssetWriterInputMetadataAdaptor(assetWriterInput: meta)
        try writer.startWriting()
        writer.startSession(atSourceTime: .zero)
        for try await sample in frames { if let f = sample.videoFrame { try await video.append(f) } }
        video.markAsFinished()
        let groups = (0..<20).map { i in
            let t = MediaTime(value: Int64(i), timescale: 10)
            let fix = GPSFix(latitude: 10 + Double(i) * 0.001, longitude: 20, altitude: 100, speed2D: 5)
            return TimedMetadataGroup(timeRange: TimeRange(start: t, duration: MediaTime(value: 1, timescale: 10)),
                                      items: fix.metadataItems(time: t, duration: MediaTime(value: 1, timescale: 10)))
        }
        try await adaptor.appendGPS(groups)
        try await writer.finishWriting()
        return url
    }

    static func gpsGroups(_ url: URL) async throws -> [TimedMetadataGroup] {
        let reader = try AssetReader(url: url)
        let track = try #require(reader.tracks(withMediaType: .metadata).first)
        let output = AssetReaderTrackOutput(trackID: track.trackID, settings: .passthrough, bufferCapacity: 16)
        try reader.add(output)
        let adaptor = try AssetReaderOutputMetadataAdaptor(assetReaderTrackOutput: output)
        try reader.startReading()
        var groups: [TimedMetadataGroup] = []
        for try await group in adaptor { groups.append(group) }
        return groups
    }

    @Test func theGPSTrackIsCarriedThroughTheEdits() async throws {
        let folder = try TestMedia.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let clip = try await Self.makeGPSClip(in: folder)
        let sourceGroups = try await Self.gpsGroups(clip)
        try #require(sourceGroups.count == 20)

        let source = try await SourceDescription(asset: Asset(url: clip))
        var composition = MutableComposition()
        // Source [1, 2) at 0, then source [0, 0.5) at 1.
        try composition.insertTimeRange(TimeRange(start: .ratio(1, 1), duration: .ratio(1, 1)), of: source, at: .zero)
        try composition.insertTimeRange(TimeRange(start: .zero, duration: .ratio(1, 2)), of: source, at: .ratio(1, 1))
        let c = Composition(composition)
        let gpsTrack = try #require(c.tracks(withMediaType: .metadata).first)
        var v = MutableVideoComposition(propertiesOf: c)
        v.sourceSampleDataTrackIDs = [gpsTrack.trackID]
        v.instructions = v.instructions.compactMap { $0 as? VideoCompositionStandardInstruction }.map { instruction in
            var i = instruction
            i.requiredSourceSampleDataTrackIDs = [gpsTrack.trackID]
            return i
        }
        let session = AssetExportSession(composition: c, preset: .h264(crf: 30, preset: "ultrafast"))
        session.videoComposition = VideoComposition(v)
        let out = folder.appendingPathComponent("out.mp4")
        try await session.export(to: out, as: .mp4)

        let tracks = try await Asset(url: out).load(.tracks)
        #expect(tracks.contains { $0.mediaType == .metadata })
        let output = try await Self.gpsGroups(out)
        // What should come out: the source fixes starting inside each edit, moved.
        var expected: [(time: MediaTime, latitude: Double)] = []
        for (range, shift) in [(TimeRange(start: .ratio(1, 1), duration: .ratio(1, 1)), MediaTime.ratio(-1, 1)),
                               (TimeRange(start: .zero, duration: .ratio(1, 2)), MediaTime.ratio(1, 1))] {
            for g in sourceGroups where range.containsTime(g.timeRange.start) {
                expected.append((g.timeRange.start + shift, try #require(GPSFix(g)).latitude))
            }
        }
        try #require(output.count == expected.count, "output fixes \(output.count), expected \(expected.count)")
        for (got, want) in zip(output, expected) {
            let fix = try #require(GPSFix(got))
            #expect(abs(fix.latitude - want.latitude) < 1e-7)
            // GPMF spreads a sample's fixes evenly over it: a cut sample keeps them within a
            // fraction of their spacing (1.001 s / 11 here).
            #expect(abs((got.timeRange.start - want.time).seconds) < 0.03, "fix at \(got.timeRange.start.seconds) expected at \(want.time.seconds)")
        }
    }

    @Test func aTrackThatIsNotMetadataIsRefused() async throws {
        let folder = try TestMedia.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let composition = try await Composition(asset: Asset(url: TestMedia.fixture("counter-320x240.mp4")))
        var v = MutableVideoComposition(propertiesOf: composition)
        v.sourceSampleDataTrackIDs = []
        let session = AssetExportSession(composition: composition, preset: .h264(crf: 30, preset: "ultrafast"))
        session.videoComposition = VideoComposition(v)
        session.metadataTrackIDs = [2]
        let out = folder.appendingPathComponent("out.mp4")
        let error = await #expect(throws: ReelError.self) { try await session.export(to: out, as: .mp4) }
        #expect(error?.code == .invalidComposition)
        #expect(!FileManager.default.fileExists(atPath: out.path))
    }
}
