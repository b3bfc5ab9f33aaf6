import Foundation
import Reel
import ReelDocuments
import ReelTestSupport
import ReelTesting
import Testing

@Suite struct ExportMetadataTests {
    /// The counter's video with a gpmd track that `writeTrack` fills (the adaptor over it),
    /// written with Reel's writer.
    static func makeClip(
        _ name: String, in folder: URL, crf: Int = 18,
        writeTrack: (AssetWriterInputMetadataAdaptor) async throws -> Void
    ) async throws -> URL {
        let url = folder.appendingPathComponent(name)
        let reader = try await AssetReader.open(url: TestFiles.fixture("counter-320x240.mp4"))
        let frames = AssetReaderTrackOutput(trackID: 1, settings: .video(pixelFormat: .yuv420p))
        try reader.add(frames)
        try reader.startReading()
        let writer = try AssetWriter(outputURL: url, fileType: .mp4)
        let video = AssetWriterInput(
            settings: .video(VideoEncoderSettings(codec: .h264, width: 320, height: 240, quality: .crf(crf), preset: "ultrafast", timescale: 15360)))
        let meta = AssetWriterInput(settings: .metadata(format: .gpmd))
        try writer.add(video)
        try writer.add(meta)
        let adaptor = try AssetWriterInputMetadataAdaptor(assetWriterInput: meta)
        try await writer.start()
        writer.startSession(atSourceTime: .zero)
        for try await sample in frames { if let f = sample.videoFrame { try await video.append(f) } }
        video.markAsFinished()
        try await writeTrack(adaptor)
        try await writer.finishWriting()
        return url
    }

    /// A clip with the counter's video and a gpmd track of 10 fixes a second, each with a
    /// latitude of its own.
    static func makeGPSClip(in folder: URL) async throws -> URL {
        try await makeClip("gps-clip.mp4", in: folder) { adaptor in
            let groups = (0..<20).map { i in
                let t = MediaTime(value: Int64(i), timescale: 10)
                let fix = GPSFix(latitude: 10 + Double(i) * 0.001, longitude: 20, altitude: 100, speed2D: 5)
                return TimedMetadataGroup(
                    timeRange: TimeRange(start: t, duration: MediaTime(value: 1, timescale: 10)),
                    items: fix.metadataItems(time: t, duration: MediaTime(value: 1, timescale: 10)))
            }
            try await adaptor.appendGPS(groups)
        }
    }

    static func gpsGroups(_ url: URL) async throws -> [TimedMetadataGroup] {
        let reader = try await AssetReader.open(url: url)
        let track = try #require(reader.tracks(withMediaType: .metadata).first)
        let output = AssetReaderTrackOutput(trackID: track.trackID, settings: .passthrough, bufferCapacity: 16)
        try reader.add(output)
        let adaptor = try AssetReaderOutputMetadataAdaptor(assetReaderTrackOutput: output)
        try reader.startReading()
        var groups: [TimedMetadataGroup] = []
        for try await group in adaptor { groups.append(group) }
        return groups
    }

    @Test("chapters come through an export with a GPS track: those of its time range, moved with it and cut at its end")
    func chaptersComeThroughAnExportWithAGPSTrack() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let clip = try await Self.makeGPSClip(in: folder)
        let source = try await SourceDescription(asset: Asset(url: clip))
        var composition = MutableComposition()
        try composition.insertTimeRange(TimeRange(start: .zero, duration: .ratio(2, 1)), of: source, at: .zero)
        func chapter(_ title: String, _ start: MediaTime, _ duration: MediaTime = .zero) -> TimedMetadataGroup {
            TimedMetadataGroup(
                timeRange: TimeRange(start: start, duration: duration),
                items: [MetadataItem(identifier: .commonIdentifierTitle, value: .string(title), time: start, duration: duration)])
        }
        let session = AssetExportSession(composition: Composition(composition), preset: .h264(crf: 30, preset: "ultrafast"))
        // "Before" ends before the range; "Under way" runs into it until "Middle"; "Late" starts after it.
        session.chapters = [
            chapter("Under way", .ratio(1, 4)), chapter("Before", .zero, .ratio(1, 10)),
            chapter("Middle", .ratio(1, 1)), chapter("Late", .ratio(19, 10)),
        ]
        session.timeRange = TimeRange(start: .ratio(1, 2), duration: .ratio(1, 1))
        session.metadataTrackIDs = session.composition.tracks(withMediaType: .metadata).map(\.trackID)
        let out = folder.appendingPathComponent("out.mp4")
        try await session.export(to: out, as: .mp4)
        let read = try await Asset(url: out).load(.chapters)
        let titles = read.map { $0.items.first { $0.identifier == .commonIdentifierTitle }?.stringValue ?? "" }
        #expect(titles == ["Under way", "Middle"])
        #expect(read.map { ($0.timeRange.start.seconds * 1000).rounded() } == [0, 500])
        // The GPS track is still there beside the chapter track.
        #expect(try await Self.gpsGroups(out).contains { GPSFix($0) != nil })
    }

    @Test func theGPSTrackIsCarriedThroughTheEdits() async throws {
        let folder = try TestFiles.scratchFolder()
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
        v.instructions = v.instructions.compactMap { $0 as? VideoCompositionInstruction }.map { instruction in
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
        // The groups holding a fix: the track starts at the export's start, with a payload
        // holding none before the first fix (1 ms here).
        let output = try await Self.gpsGroups(out).filter { GPSFix($0) != nil }
        // What should come out: the source fixes starting inside each edit, moved.
        var expected: [(time: MediaTime, latitude: Double)] = []
        for (range, shift) in [
            (TimeRange(start: .ratio(1, 1), duration: .ratio(1, 1)), MediaTime.ratio(-1, 1)),
            (TimeRange(start: .zero, duration: .ratio(1, 2)), MediaTime.ratio(1, 1)),
        ] {
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
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let composition = try await Composition(asset: Asset(url: TestFiles.fixture("counter-320x240.mp4")))
        var v = MutableVideoComposition(propertiesOf: composition)
        v.sourceSampleDataTrackIDs = []
        let session = AssetExportSession(composition: composition, preset: .h264(crf: 30, preset: "ultrafast"))
        session.videoComposition = VideoComposition(v)
        session.metadataTrackIDs = [2]
        let out = folder.appendingPathComponent("out.mp4")
        let error = await expectReelError(.invalidComposition) { try await session.export(to: out, as: .mp4) }
        #expect(error?.code == .invalidComposition)
        #expect(!FileManager.default.fileExists(atPath: out.path))
    }

    // MARK: Formats and containers

    /// Every group of the first metadata track of `url`, the whole track decoded in order.
    static func allGroups(_ url: URL) async throws -> [TimedMetadataGroup] {
        let reader = try await AssetReader.open(url: url)
        let track = try #require(reader.tracks(withMediaType: .metadata).first)
        let output = AssetReaderTrackOutput(trackID: track.trackID, settings: .passthrough, bufferCapacity: 16)
        try reader.add(output)
        try reader.startReading()
        var decoder = TimedMetadataDecoder(format: try #require(track.metadataFormat))
        var groups: [TimedMetadataGroup] = []
        for try await sample in output {
            if let buffer = sample.sampleBuffer { groups += try decoder.groups(for: buffer) }
        }
        return groups
    }

    /// Exports the whole of `input` into `name`, collecting the warnings.
    static func export(
        _ input: URL, to name: String, in folder: URL, as fileType: AssetWriter.FileType,
        format: MetadataOutputFormat = .auto
    ) async throws -> (URL, [String]) {
        let session = try await AssetExportSession(asset: Asset(url: input), preset: .h264(crf: 35, preset: "ultrafast"))
        session.metadataFormat = format
        let warnings = Lock<[String]>([])
        var options = session.renderOptions
        options.diagnostics = { d in warnings.withLock { $0.append(d.message) } }
        session.renderOptions = options
        let out = folder.appendingPathComponent(name)
        try await session.export(to: out, as: fileType)
        return (out, warnings.withLock { $0 })
    }

    /// The same fixes in `b` as in `a`, within `degrees`, at the same times within
    /// `seconds` once both start at zero (an export starts where the source's first track
    /// does).
    static func expectSameFixes(
        _ a: [TimedMetadataGroup], _ b: [TimedMetadataGroup], degrees: Double, seconds: Double,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let (x, y) = (a.compactMap { g in GPSFix(g).map { (g.timeRange.start, $0) } }, b.compactMap { g in GPSFix(g).map { (g.timeRange.start, $0) } })
        try #require(x.count == y.count, "fixes: \(x.count) in, \(y.count) out", sourceLocation: sourceLocation)
        let shift = (y.first?.0 ?? .zero) - (x.first?.0 ?? .zero)
        for ((t, f0), (t1, f1)) in zip(x, y) {
            let t0 = t + shift
            #expect(abs(f0.latitude - f1.latitude) < degrees, sourceLocation: sourceLocation)
            #expect(abs(f0.longitude - f1.longitude) < degrees, sourceLocation: sourceLocation)
            #expect(abs((t0 - t1).seconds) < seconds, "fix at \(t1.seconds) s, was at \(t0.seconds) s", sourceLocation: sourceLocation)
        }
    }

    @Test(.requires(.sharedMedia))
    func aDroneKLVTrackStaysKLVInMPEGTS() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = TestFiles.sharedMedia("kwiver_aphill_short.ts")
        let (out, warnings) = try await Self.export(input, to: "out.ts", in: folder, as: .mpegts)
        #expect(warnings.isEmpty, "\(warnings)")
        let track = try #require(try await AssetReader.open(url: out).tracks(withMediaType: .metadata).first)
        #expect(track.metadataFormat == .klv)
        // The source's clock starts at 1.4 s; the export's at zero, the offsets between tracks kept.
        let source = try await Self.allGroups(input), written = try await Self.allGroups(out)
        try Self.expectSameFixes(source, written, degrees: 1e-9, seconds: 1e-6)
    }

    @Test(.requires(.sharedMedia))
    func aDroneKLVTrackBecomesGPMFInMP4WithAWarning() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = TestFiles.sharedMedia("kwiver_mpeg2_klv.ts")
        let (out, warnings) = try await Self.export(input, to: "out.mp4", in: folder, as: .mp4)
        let track = try #require(try await AssetReader.open(url: out).tracks(withMediaType: .metadata).first)
        #expect(track.metadataFormat == .gpmd)
        #expect(warnings.count == 1)
        #expect(warnings.first?.contains("converted from klv") == true, "\(warnings)")
        let source = try await Self.allGroups(input), written = try await Self.allGroups(out)
        #expect(source.compactMap { GPSFix($0) }.count == 30)
        // GPMF holds latitude and longitude to 1e-7 degrees and spreads a payload's fixes evenly.
        try Self.expectSameFixes(source, written, degrees: 2e-7, seconds: 0.02)
    }

    @Test func aGoProTrackBecomesKLVInMPEGTS() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = TestFiles.fixture("counter-gps.mp4")
        let (out, _) = try await Self.export(input, to: "out.ts", in: folder, as: .mpegts)
        let track = try #require(try await AssetReader.open(url: out).tracks(withMediaType: .metadata).first)
        #expect(track.metadataFormat == .klv)
        let source = try await Self.allGroups(input), written = try await Self.allGroups(out)
        #expect(!source.isEmpty)
        // ST 0601 maps latitude onto 32 bits (about 4e-8 degrees).
        try Self.expectSameFixes(source, written, degrees: 1e-7, seconds: 1e-3)
    }

    @Test func matroskaIsRefusedBeforeAnythingIsWritten() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let error = await expectReelError(.invalidArgument) {
            _ = try await Self.export(TestFiles.fixture("counter-gps.mp4"), to: "out.mkv", in: folder, as: .mkv)
        }
        #expect(error?.message.contains("mkv files hold none") == true)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
    }

    /// The counter's video with a gpmd track of one-second GPRI payloads (a drone-mounted
    /// GoPro's raw receiver records), four records each.
    static func makeGPRIClip(in folder: URL) async throws -> URL {
        try await makeClip("gpri.mp4", in: folder, crf: 30) { adaptor in
            for second in 0..<2 {
                let records = (0..<4).map { i in
                    let t = Double(second) + Double(i) / 4
                    return GPRIRecord(time: 100 + t, latitude: 46.5 + t / 1000, longitude: 7.9, altitude: 2000 + t, speed: 12, course: 90)
                }
                let payload = try SyntheticMetadata.gpriPayload(records)
                try await adaptor.assetWriterInput.append(
                    SampleBuffer(
                        data: payload, presentationTime: MediaTime(value: Int64(second), timescale: 1),
                        duration: MediaTime(value: 1, timescale: 1), format: "gpmd"))
            }
        }
    }

    @Test func aTrimmedExportKeepsEverySampleThatOverlapsTheRangeWithItsItems() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let clip = try await Self.makeGPRIClip(in: folder)
        let source = try await Self.allGroups(clip)
        #expect(source.compactMap { GPSFix($0) }.count == 8)
        let session = try await AssetExportSession(asset: Asset(url: clip), preset: .h264(crf: 35, preset: "ultrafast"))
        session.timeRange = TimeRange(start: .ratio(1, 2), end: .ratio(3, 2))
        let out = folder.appendingPathComponent("cut.mp4")
        try await session.export(to: out, as: .mp4)
        let written = try await Self.allGroups(out)
        // Both one-second samples overlap [0.5, 1.5): the fixes at 0.5, 0.75, 1 and 1.25 s.
        let fixes = written.compactMap { GPSFix($0) }
        let expected = source.filter { $0.timeRange.start >= .ratio(1, 2) && $0.timeRange.start < .ratio(3, 2) }.compactMap { GPSFix($0) }
        try #require(fixes.count == 4, "\(fixes.count) fixes written")
        for (a, b) in zip(expected, fixes) {
            #expect(abs(a.latitude - b.latitude) < 1e-7)
            #expect(abs((a.altitude ?? 0) - (b.altitude ?? 1)) < 1e-3)
        }
        // The raw GPRI records come along, not only the fixes made from them.
        #expect(written.contains { $0.items.contains { $0.identifier == MetadataIdentifier(keySpace: .gpmf, key: "GPRI") } })
    }

    @Test(.requires(.sharedMedia))
    func aTrimmedGoProExportKeepsEachFixAtItsTime() async throws {
        // The MAX's payloads stamp their streams' first samples (STMP): a cut moves the
        // stamps with the samples, so each fix stays on its frame.
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let clip = TestFiles.sharedMedia("gpmf-parser_max-heromode.mp4")
        let source = try await Self.allGroups(clip).compactMap { g in GPSFix(g).map { (g.timeRange.start, $0) } }
        let session = try await AssetExportSession(asset: Asset(url: clip), preset: .h264(crf: 35, preset: "ultrafast"))
        session.timeRange = TimeRange(start: .ratio(1, 2), end: MediaTime(value: 6, timescale: 1))
        let out = folder.appendingPathComponent("cut.mp4")
        try await session.export(to: out, as: .mp4)
        let written = try await Self.allGroups(out).compactMap { g in GPSFix(g).map { (g.timeRange.start, $0) } }
        // The payloads wholly inside the cut, [1.001, 5.005) s, are copied as they are.
        let inside = source.filter { $0.0 >= MediaTime(value: 1001, timescale: 1000) && $0.0 < MediaTime(value: 5005, timescale: 1000) }
        try #require(inside.count > 60)
        for (time, fix) in inside {
            let moved = time - .ratio(1, 2)
            let match = written.first { abs(($0.0 - moved).seconds) < 0.001 }
            #expect(match.map { abs($0.1.latitude - fix.latitude) < 1e-7 } == true, "no fix at \(moved.seconds) s (was at \(time.seconds) s)")
        }
    }
}
