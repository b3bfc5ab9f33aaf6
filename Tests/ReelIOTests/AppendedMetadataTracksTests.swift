import Foundation
import ReelCore
import ReelMetadata
import ReelTestSupport
import Testing

@testable import ReelIO

/// mebx and camm tracks written by AssetWriter (through the post-pass after FFmpeg's
/// trailer), re-read with Reel's own MP4 reader and cross-checked with ffprobe and exiftool.
@Suite("AppendedMetadataTracks")
struct AppendedMetadataTracksTests {
    static let exiftool = TestTools.which("exiftool")?.path

    /// Five fixes, 200 ms apart from 100 ms, along a short track near Oceanside.
    static let fixes: [GPSFix] = (0..<5).map { i in
        GPSFix(
            latitude: 33.126_77 + Double(i) * 0.000_123, longitude: -117.327_343_6 - Double(i) * 0.000_211, altitude: -22.959 + Double(i) * 1.5,
            speed2D: 1.25, course: 45, time: Date(timeIntervalSince1970: 1_574_120_714 + Double(i) * 0.2), fix: 3)
    }

    static func group(_ i: Int, extra: [MetadataItem] = []) -> TimedMetadataGroup {
        let range = TimeRange(start: MediaTime(value: 100 + Int64(i) * 200, timescale: 1000), duration: MediaTime(value: 200, timescale: 1000))
        return TimedMetadataGroup(timeRange: range, items: fixes[i].metadataItems(time: range.start, duration: range.duration) + extra)
    }

    static let orientation = MetadataItem(
        identifier: MetadataIdentifier(keySpace: .quickTimeMetadata, key: "com.apple.quicktime.video-orientation"),
        value: .integer(6), dataType: "com.apple.metadata.datatype.int16")

    /// Writes 30 frames at 30 fps plus mebx, camm and gpmd tracks of the five fixes.
    static func writeClip(to url: URL, fileType: AssetWriter.FileType, faststart: Bool) async throws {
        let writer = try AssetWriter(outputURL: url, fileType: fileType)
        writer.shouldOptimizeForNetworkUse = faststart
        let video = AssetWriterInput(settings: .video(.init(codec: .h264, width: 160, height: 120, preset: "ultrafast")))
        let mebx = AssetWriterInput(settings: .metadata(format: .mebx))
        let camm = AssetWriterInput(settings: .metadata(format: .camm))
        let gpmd = AssetWriterInput(settings: .metadata(format: .gpmd))
        for input in [video, mebx, camm, gpmd] { try writer.add(input) }
        let adaptors = try [mebx, camm, gpmd].map { try AssetWriterInputMetadataAdaptor(assetWriterInput: $0) }
        try await writer.start()
        writer.startSession(atSourceTime: .zero)
        for i in 0..<30 {
            try await video.append(AssetWriterTests.flatFrame(i), withPresentationTime: MediaTime(value: Int64(i), timescale: 30))
        }
        for i in fixes.indices {
            try await adaptors[0].append(group(i, extra: [orientation]))
            try await adaptors[1].append(group(i))
            try await adaptors[2].append(group(i))
        }
        try await writer.finishWriting()
    }

    static let cases: [(AssetWriter.FileType, Bool)] = [(.mp4, true), (.mp4, false), (.mov, true), (.mov, false)]

    @Test("mebx, camm and gpmd tracks come back from the MP4 reader with their samples, keys and links", arguments: cases)
    func roundTrip(fileType: AssetWriter.FileType, faststart: Bool) async throws {
        let folder = try TestFiles.scratchFolder()
        let url = folder.appendingPathComponent("out.\(fileType.rawValue)")
        try await Self.writeClip(to: url, fileType: fileType, faststart: faststart)
        // Nothing but the output is left beside it (no spool, no partial file).
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["out.\(fileType.rawValue)"])

        let file = try MP4File(contentsOf: url)
        let top = try file.topLevelBoxes().map(\.type)
        let moovFirst = try #require(top.firstIndex(of: "moov")) < (top.firstIndex(of: "mdat") ?? Int.max)
        #expect(moovFirst == faststart)
        let tracks = try file.tracks()
        #expect(tracks.map { $0.format?.description } == ["avc1", "gpmd", "mebx", "camm"])
        #expect(Set(tracks.map(\.trackID)).count == 4)
        let videoID = tracks[0].trackID
        for track in tracks.dropFirst() {
            #expect(track.references["cdsc"] == [videoID], "\(track.format!) links to the video")
            #expect(track.handlerType == "meta")
        }
        #expect(try tracks[0].samples().count == 30)

        let mebx = tracks[2]
        #expect(mebx.handlerName == "Core Media Metadata")
        let keys = mebx.sampleEntries[0].metadataKeys
        #expect(keys.map(\.key) == ["com.apple.quicktime.location.ISO6709", "com.apple.quicktime.video-orientation"])
        #expect(keys.map(\.dataType) == [.wellKnown(1), .wellKnown(66)])
        // The media starts with the first sample; the edit list delays it by 100 ms.
        let samples = try mebx.samples()
        #expect(samples.count == 5)
        #expect(samples.map(\.decodeTime) == [0, 18000, 36000, 54000, 72000])
        #expect(samples.map(\.duration) == [18000, 18000, 18000, 18000, 18000])
        for (i, sample) in samples.enumerated() {
            let items = try QuickTimeMetadataSample.items(sample: file.data(of: sample), keys: keys, timeRange: sample.timeRange)
            let fix = try #require(GPSFix(items: items))
            #expect(abs(fix.latitude - Self.fixes[i].latitude) < 1e-6)
            #expect(abs(fix.longitude - Self.fixes[i].longitude) < 1e-6)
            #expect(abs(fix.altitude! - Self.fixes[i].altitude!) < 1e-3)
            #expect(items.first { $0.identifier == Self.orientation.identifier }?.value == .integer(6))
        }

        let camm = tracks[3]
        for (i, sample) in try camm.samples().enumerated() {
            let records = try CAMM.records(sample: file.data(of: sample))
            guard case .gps(let gps)? = records.first else { Issue.record("expected a type 6 record"); continue }
            #expect(gps.latitude == Self.fixes[i].latitude)
            #expect(gps.longitude == Self.fixes[i].longitude)
            #expect(abs(gps.date!.timeIntervalSince(Self.fixes[i].time!)) < 1e-3)
            #expect(abs(gps.fix.speed2D! - 1.25) < 1e-5)
            #expect(abs(gps.fix.course! - 45) < 1e-3)
        }
        #expect(try camm.samples().count == 5)
    }

    @Test("the edit list starts a late metadata track on time, and video frames survive the move", arguments: [true, false])
    func editListAndVideoBytes(faststart: Bool) async throws {
        let folder = try TestFiles.scratchFolder()
        let url = folder.appendingPathComponent("out.mp4")
        try await Self.writeClip(to: url, fileType: .mp4, faststart: faststart)
        let probe = try #require(TestTools.which("ffprobe")?.path, "needs ffprobe")
        let json = try TestTools.outputString(
            probe,
            [
                "-v", "error", "-show_entries", "stream=index,codec_tag_string,nb_frames,start_time",
                "-of", "csv=p=0", url.path,
            ])
        let rows = json.split(separator: "\n").map { $0.split(separator: ",").map(String.init) }
        // index, codec tag, start time, frames
        #expect(rows.map { $0[1] } == ["avc1", "gpmd", "mebx", "camm"])
        #expect(rows.map { $0[3] } == ["30", "5", "5", "5"])
        #expect(rows[2][2] == "0.100000" && rows[3][2] == "0.100000", "the empty edit delays the first sample: \(rows)")
        // Every video frame decodes.
        let frames = try TestTools.outputString(
            probe,
            [
                "-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries", "stream=nb_read_frames",
                "-of", "csv=p=0", url.path,
            ])
        #expect(frames.trimmingCharacters(in: .whitespacesAndNewlines) == "30")
    }

    @Test("exiftool reads per-sample GPS from the mebx, camm and gpmd tracks", arguments: [AssetWriter.FileType.mp4, .mov])
    func exiftoolReadsGPS(fileType: AssetWriter.FileType) async throws {
        let exiftool = try #require(Self.exiftool, "needs exiftool (Debian: libimage-exiftool-perl)")
        let folder = try TestFiles.scratchFolder()
        let url = folder.appendingPathComponent("out.\(fileType.rawValue)")
        try await Self.writeClip(to: url, fileType: fileType, faststart: true)
        let out = try TestTools.outputString(exiftool, ["-ee", "-n", "-G3", "-GPSLatitude", "-GPSLongitude", "-GPSCoordinates", "-s", url.path])
        // One document per sample: Doc1..Doc15 (5 samples in each of 3 tracks). mebx
        // locations come as GPSCoordinates "lat lon alt", GPMF and CAMM as GPSLatitude/GPSLongitude.
        var latitudes: [Int: Double] = [:], longitudes: [Int: Double] = [:]
        for line in out.split(separator: "\n") {
            let parts = line.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, parts[0].hasPrefix("[Doc"), let close = parts[0].firstIndex(of: "]"),
                let doc = Int(parts[0][parts[0].index(parts[0].startIndex, offsetBy: 4)..<close])
            else { continue }
            let values = parts[1].split(separator: " ").compactMap { Double($0) }
            if parts[0].hasSuffix("GPSLatitude") { latitudes[doc] = values.first }
            if parts[0].hasSuffix("GPSLongitude") { longitudes[doc] = values.first }
            if parts[0].hasSuffix("GPSCoordinates"), values.count >= 2 { latitudes[doc] = values[0]; longitudes[doc] = values[1] }
        }
        #expect(latitudes.count == 15, "exiftool output:\n\(out)")
        // Tracks in file order gpmd, mebx, camm; each gives the five fixes in order.
        let sorted = latitudes.keys.sorted()
        for (n, doc) in sorted.enumerated() {
            let fix = Self.fixes[n % 5]
            // exiftool prints mebx coordinates with 6 decimals, GPMF's with GPS5's 1e-7 degrees.
            #expect(abs(latitudes[doc]! - fix.latitude) < 1e-6, "doc \(doc)")
            #expect(abs((longitudes[doc] ?? 0) - fix.longitude) < 1e-6, "doc \(doc)")
        }
    }

    @Test("the iPhone's mebx tracks, copied raw with their keys, read back as the same items", .requires(.sharedMedia))
    func copiesIPhoneMebx() async throws {
        let source = try MP4File(contentsOf: TestFiles.sharedMedia("nom-exif_meta.mov"))
        let sourceTracks = try source.tracks().filter { $0.format == "mebx" }
        #expect(sourceTracks.count == 2)

        let url = try TestFiles.scratchFolder().appendingPathComponent("copy.mov")
        let writer = try AssetWriter(outputURL: url, fileType: .mov)
        let video = AssetWriterInput(settings: .video(.init(codec: .h264, width: 160, height: 120, preset: "ultrafast")))
        try writer.add(video)
        var adaptors: [AssetWriterInputMetadataAdaptor] = []
        for track in sourceTracks {
            let input = AssetWriterInput(settings: .metadata(format: .mebx), sourceFormatHint: track.sampleEntries[0])
            try writer.add(input)
            adaptors.append(try AssetWriterInputMetadataAdaptor(assetWriterInput: input))
        }
        try await writer.start()
        writer.startSession(atSourceTime: .zero)
        for i in 0..<15 {
            try await video.append(AssetWriterTests.flatFrame(i), withPresentationTime: MediaTime(value: Int64(i), timescale: 30))
        }
        for (track, adaptor) in zip(sourceTracks, adaptors) {
            for sample in try track.samples() {
                try await adaptor.append(
                    TimedMetadataGroup(
                        timeRange: sample.timeRange,
                        items: [
                            MetadataItem(identifier: MetadataIdentifier(keySpace: "reel", key: "sample.mebx"), value: .data(try source.data(of: sample)))
                        ]))
            }
        }
        try await writer.finishWriting()

        let copy = try MP4File(contentsOf: url)
        let copied = try copy.tracks().filter { $0.format == "mebx" }
        #expect(copied.count == 2)
        var itemCount = 0
        for (original, written) in zip(sourceTracks, copied) {
            #expect(written.sampleEntries[0].metadataKeys == original.sampleEntries[0].metadataKeys)
            let a = try original.samples(), b = try written.samples()
            #expect(a.count == b.count)
            for (x, y) in zip(a, b) {
                let before = try QuickTimeMetadataSample.items(sample: source.data(of: x), keys: original.sampleEntries[0].metadataKeys, timeRange: x.timeRange)
                let after = try QuickTimeMetadataSample.items(sample: copy.data(of: y), keys: written.sampleEntries[0].metadataKeys, timeRange: y.timeRange)
                #expect(before.map(\.identifier) == after.map(\.identifier))
                #expect(before.map(\.value) == after.map(\.value))
                itemCount += before.count
            }
        }
        #expect(itemCount > 0, "the source's samples hold items")
    }

    @Test("a raw mebx sample whose key id the input does not know fails the write and leaves nothing")
    func unknownKeyFails() async throws {
        let folder = try TestFiles.scratchFolder()
        let url = folder.appendingPathComponent("out.mp4")
        let writer = try AssetWriter(outputURL: url, fileType: .mp4)
        let video = AssetWriterInput(settings: .video(.init(codec: .h264, width: 160, height: 120, preset: "ultrafast")))
        let mebx = AssetWriterInput(settings: .metadata(format: .mebx))
        try writer.add(video)
        try writer.add(mebx)
        let adaptor = try AssetWriterInputMetadataAdaptor(assetWriterInput: mebx)
        try await writer.start()
        writer.startSession(atSourceTime: .zero)
        try await video.append(AssetWriterTests.flatFrame(0), withPresentationTime: .zero)
        let sample: [UInt8] = [0, 0, 0, 9, 0, 0, 0, 7, 42]
        try? await adaptor.append(AssetWriterTests.rawGroup(sample, start: 0, duration: 100, format: .mebx))
        await expectReelError(.metadataFormat) { try await writer.finishWriting() }
        #expect(writer.status == .failed)
        #expect(writer.error?.message.contains("key id 7") == true)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
    }

    @Test("mebx and camm go into MP4 and MOV only, and need a track to describe")
    func refusals() throws {
        let folder = try TestFiles.scratchFolder()
        for format in [MetadataFormat.mebx, .camm] {
            let ts = try AssetWriter(outputURL: folder.appendingPathComponent("x.ts"), fileType: .mpegts)
            #expect(!ts.canAdd(AssetWriterInput(settings: .metadata(format: format))))
            let mp4 = try AssetWriter(outputURL: folder.appendingPathComponent("x.mp4"), fileType: .mp4)
            try mp4.add(AssetWriterInput(settings: .metadata(format: format)))
            expectReelError(.invalidArgument) { try mp4.startWriting() }
            #expect(mp4.error?.message.contains("add a video or audio input") == true)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
    }
}
