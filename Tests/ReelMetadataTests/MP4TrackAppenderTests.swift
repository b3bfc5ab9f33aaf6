import Foundation
import ReelTestSupport
import Testing

@testable import ReelMetadata

@Suite("MP4TrackAppender: adding metadata tracks to finished files")
struct MP4TrackAppenderTests {
    static func temporary(_ name: String) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("reel-appender-\(getpid())-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder.appendingPathComponent(name)
    }

    /// The iPhone clip's two mebx tracks, their samples read in place from the clip.
    static func iPhoneTracks() throws -> [MP4AppendedTrack] {
        let source = try MP4File(contentsOf: TestFiles.sharedMedia("nom-exif_meta.mov"))
        return try source.tracks().filter { $0.format == "mebx" }.map { track in
            MP4AppendedTrack(
                sampleEntry: track.sampleEntries[0], handlerName: track.handlerName, timescale: track.timescale,
                samples: try track.samples().map { .init(offset: $0.offset, size: $0.size, time: $0.decodeTime + 60, duration: $0.duration) })
        }
    }

    @Test(
        "the iPhone's mebx tracks added to the GoPro clip read back with their keys, samples and link; every old sample keeps its bytes",
        .requires(.sharedMedia))
    func addsTracksAndMovesOffsets() throws {
        let sourceURL = TestFiles.sharedMedia("gpmf-parser_max-heromode.mp4")
        let out = try Self.temporary("out.mp4")
        let added = try Self.iPhoneTracks()
        try MP4TrackAppender.write(sourceURL, adding: added, sampleData: TestFiles.sharedMedia("nom-exif_meta.mov"), to: out)

        let before = try MP4File(contentsOf: sourceURL), after = try MP4File(contentsOf: out)
        let old = try before.tracks(), new = try after.tracks()
        #expect(new.count == old.count + 2)
        #expect(new.suffix(2).map(\.trackID) == [6, 7])
        // The gpmd track FFmpeg-style files lack a cdsc link: now it has one to the video.
        #expect(new.first { $0.format == "gpmd" }?.references["cdsc"] == [old[0].trackID])
        for (track, source) in zip(new.suffix(2), added) {
            #expect(track.sampleEntries[0].metadataKeys == source.sampleEntry.metadataKeys)
            #expect(track.references["cdsc"] == [old[0].trackID])
            #expect(track.handlerType == "meta")
            #expect(track.timescale == source.timescale)
            let samples = try track.samples()
            #expect(samples.map(\.size) == source.samples.map(\.size))
            let iPhone = try MP4File(contentsOf: TestFiles.sharedMedia("nom-exif_meta.mov"))
            for (written, original) in zip(samples, source.samples) {
                #expect(try after.data(of: written) == iPhone.read(original.offset..<(original.offset + Int64(original.size))))
            }
        }
        // Old samples: same bytes at their new places.
        for (a, b) in zip(old, new) {
            let x = try a.samples(), y = try b.samples()
            #expect(x.count == y.count)
            for i in [0, x.count / 2, x.count - 1] where !x.isEmpty {
                #expect(try before.data(of: x[i]) == after.data(of: y[i]), "track \(a.trackID) sample \(i)")
            }
        }
    }

    @Test(
        "a moov at the end stays at the end, after the new mdat; QuickTime's dialect for a QuickTime file",
        .requires(.sharedMedia))
    func keepsMoovAtTheEnd() throws {
        let iPhone = TestFiles.sharedMedia("nom-exif_meta.mov")
        let file = try MP4File(contentsOf: iPhone)
        let boxes = try file.topLevelBoxes()
        #expect(boxes.map(\.type) == ["ftyp", "wide", "mdat", "moov"])
        let out = try Self.temporary("out.mov")
        try MP4TrackAppender.write(iPhone, adding: try Self.iPhoneTracks(), sampleData: iPhone, to: out)
        let written = try MP4File(contentsOf: out)
        #expect(try written.topLevelBoxes().map(\.type) == ["ftyp", "wide", "mdat", "mdat", "moov"])
        let tracks = try written.tracks()
        #expect(tracks.count == 6)
        // QuickTime dialect: gmhd, Pascal handler name.
        #expect(tracks[4].handlerName == "Core Media Metadata")
        let video = try tracks[0].samples()
        #expect(try written.data(of: video[3]) == file.data(of: try file.tracks()[0].samples()[3]))
    }

    @Test("bad input: no moov; nothing is left behind")
    func refusesBadInput() throws {
        let junk = try Self.temporary("junk.mp4")
        try Data(repeating: 0x41, count: 64).write(to: junk)
        let out = junk.deletingLastPathComponent().appendingPathComponent("out.mp4")
        expectReelError(.corruptData) { try MP4TrackAppender.write(junk, adding: [], sampleData: nil, to: out) }
        #expect(!FileManager.default.fileExists(atPath: out.path))
    }

    @Test("bad input: samples outside the data, samples out of order; nothing is left behind", .requires(.sharedMedia))
    func refusesBadSamples() throws {
        let junk = try Self.temporary("junk.mp4")
        try Data(repeating: 0x41, count: 64).write(to: junk)
        let out = junk.deletingLastPathComponent().appendingPathComponent("out.mp4")
        let source = TestFiles.sharedMedia("nom-exif_meta.mov")
        let entry = MP4SampleEntry(format: "camm")
        let outside = MP4AppendedTrack(sampleEntry: entry, handlerName: "", timescale: 1000, samples: [.init(offset: 60, size: 10, time: 0, duration: 10)])
        do {
            try MP4TrackAppender.write(source, adding: [outside], sampleData: junk, to: out)
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .invalidArgument)
            #expect(error.message.contains("sample 0"))
        }
        let backwards = MP4AppendedTrack(
            sampleEntry: entry, handlerName: "", timescale: 1000,
            samples: [.init(offset: 0, size: 4, time: 10, duration: 10), .init(offset: 4, size: 4, time: 5, duration: 10)])
        expectReelError(.invalidArgument) { try MP4TrackAppender.write(source, adding: [backwards], sampleData: junk, to: out) }
        #expect(!FileManager.default.fileExists(atPath: out.path))
    }

    /// A fuzz regression input, by name.
    static func regression(_ name: String) -> URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fuzz/regressions/mp4-append/\(name)")
    }

    /// `source` with a `mebx` track of one ISO 6709 location sample appended, as the
    /// mp4-append fuzz target does; the output file and the sample's bytes.
    static func appendingALocationTrack(to source: URL) throws -> (out: URL, sample: Data) {
        let location = QuickTimeMetadataKey(localID: 1, key: "com.apple.quicktime.location.ISO6709", dataType: .wellKnown(1))
        var table = QuickTimeMetadataKeyTable(keys: [location])
        let sample = try QuickTimeMetadataSample.encode(
            [MetadataItem(identifier: .quickTimeMetadataLocationISO6709, value: .string("+46.5000+006.6000/"))],
            keys: &table)
        let data = try temporary("samples.bin"), out = try temporary("out.mp4")
        try sample.write(to: data)
        let track = MP4AppendedTrack(
            sampleEntry: MP4SampleEntry(format: "mebx", metadataKeys: [location]), handlerName: "Core Media Metadata",
            timescale: 1000, samples: [.init(offset: 0, size: sample.count, time: 0, duration: 1000)])
        try MP4TrackAppender.write(source, adding: [track], sampleData: data, to: out)
        return (out, sample)
    }

    @Test("a box whose size runs to the end of the file gets its real size, so the new mdat and moov after it still parse")
    func sizesABoxThatRanToTheEnd() throws {
        // Found by the mp4-append fuzz target: a moov, then a box with size 0 ("to the end of the file").
        let source = Self.regression("size-zero-box-after-moov.mp4")
        let file = try MP4File(contentsOf: source)
        let top = try file.topLevelBoxes()
        #expect(top.last?.end == file.size)
        let before = try file.tracks()

        let (out, sample) = try Self.appendingALocationTrack(to: source)

        let written = try MP4File(contentsOf: out)
        let after = try written.tracks()
        #expect(after.count == before.count + 1)
        #expect(try written.topLevelBoxes().map(\.type).suffix(3) == [top.last!.type, "mdat", "moov"])
        let added = try #require(after.last)
        #expect(try written.data(of: try added.samples()[0]) == sample)
    }

    @Test("a second moov is kept as a free box of the same bytes, so the rewritten moov is the one read")
    func keepsASecondMoovAsFreeSpace() throws {
        // Found by the mp4-append fuzz target: a moov in front, then a damaged second moov;
        // the rewritten moov went after it, and readers, which take the first, lost the new track.
        let source = Self.regression("second-moov-before-the-rewritten-one")
        let file = try MP4File(contentsOf: source)
        let top = try file.topLevelBoxes()
        try #require(top.filter { $0.type == "moov" }.count == 2)
        let before = try file.tracks()

        let (out, _) = try Self.appendingALocationTrack(to: source)

        let written = try MP4File(contentsOf: out)
        #expect(try written.tracks().count == before.count + 1)
        let boxes = try written.topLevelBoxes()
        #expect(boxes.filter { $0.type == "moov" }.count == 1)
        // The damaged moov's bytes are all there, under another name.
        let second = top.filter { $0.type == "moov" }[1]
        let free = try #require(boxes.first { $0.type == "free" && $0.size == second.size })
        #expect(try written.readBytes((free.offset + 8)..<free.end) == (try file.readBytes((second.offset + 8)..<second.end)))
    }

    @Test("a mebx sample entry's keys survive encoding and parsing")
    func sampleEntryRoundTrip() throws {
        let keys = [
            QuickTimeMetadataKey(localID: 1, key: "com.apple.quicktime.location.ISO6709", dataType: .wellKnown(1)),
            QuickTimeMetadataKey(localID: 7, key: "com.example.face", dataType: .reverseDNS("com.apple.quicktime.detected-face")),
            QuickTimeMetadataKey(localID: 8, key: "no type"),
        ]
        let bytes = MP4SampleEntry(format: "mebx", metadataKeys: keys).encoded()
        let box = try #require(try MP4Box.parse(bytes, range: 0..<bytes.count, base: 0, parent: "test").first)
        let entry = try MP4SampleEntry(parsing: bytes, box: box, base: 0, track: "test")
        #expect(entry.format == "mebx")
        #expect(entry.metadataKeys == keys)
    }
}
