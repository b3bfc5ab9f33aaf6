import Foundation
import Reel
import ReelDocuments
import ReelTestSupport
import Testing

@Suite("reel convert", .serialized)
struct ConvertCommandTests {
    /// What OpenTimelineIO's library reads in a file: per video track, each item as
    /// `Clip file start+duration [effects]`, `Gap duration` or `Transition in/out`, in
    /// frames at 30000/1001 (29.97 in OTIO's own arithmetic is 29.97 exactly, in Reel's
    /// 30000/1001: the same frames).
    static let summary = """
        import sys, os, opentimelineio as otio
        tl = otio.adapters.read_from_file(sys.argv[1])
        s = lambda t: "%.3f" % t.value_rescaled_to(30000 / 1001)
        for track in tl.video_tracks():
            items = []
            for c in track:
                if isinstance(c, otio.schema.Transition):
                    items.append("Transition %s %s/%s" % (c.transition_type, s(c.in_offset), s(c.out_offset)))
                elif isinstance(c, otio.schema.Gap):
                    items.append("Gap %s" % s(c.duration()))
                else:
                    fx = ",".join("%s:%g" % (e.schema_name(), getattr(e, "time_scalar", 1)) for e in c.effects)
                    url = os.path.basename(c.media_reference.target_url)
                    items.append("Clip %s %s+%s %s" % (url, s(c.source_range.start_time), s(c.source_range.duration), fx))
            print(" | ".join(items))
        print("Markers " + " | ".join("%s at %s" % (m.name, s(m.marked_range.start_time)) for m in tl.tracks.markers))
        """

    @Test(
        ".otio files Reel writes are read back by OpenTimelineIO with the same clips, ranges and transitions",
        .requires(.ffmpeg, .openTimelineIO))
    func openTimelineIOReadsWhatReelWrites() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try RenderCommandOTIOTests.makeMedia(in: folder)
        try RenderCommandOTIOTests.python(RenderCommandOTIOTests.timeline, in: folder)
        try Data(Self.summary.utf8).write(to: folder.appendingPathComponent("summary.py"))
        // OTIO -> composition file -> OTIO.
        let toJSON = await ReelProcess.reel(["convert", "edit.otio", "-o", "c.json"], in: folder)
        #expect(toJSON.status == 0, "\(toJSON.stderr)")
        #expect(!toJSON.stderr.contains("marker"), "\(toJSON.stderr)")
        let toOTIO = await ReelProcess.reel(["convert", "c.json", "-o", "back.otio"], in: folder)
        #expect(toOTIO.status == 0, "\(toOTIO.stderr)")
        let original = try TestTools.outputString("python3", ["summary.py", "edit.otio"], in: folder)
        let back = try TestTools.outputString("python3", ["summary.py", "back.otio"], in: folder)
        #expect(back == original)
        #expect(original.contains("Transition SMPTE_Dissolve 4.000/4.000"), "\(original)")
        #expect(original.contains("LinearTimeWarp:2") && original.contains("FreezeFrame:0"), "\(original)")
        // The marker went into the composition file as a chapter and came back as a marker.
        #expect(original.contains("Markers Second half at 40.000"), "\(original)")
        // Reel's settings ride along in metadata.reel.
        let json = try String(contentsOf: folder.appendingPathComponent("c.json"), encoding: .utf8)
        #expect(json.contains("\"codec\" : \"ffv1\""))
        #expect(json.contains("\"title\" : \"Second half\""), "\(json)")
        let reread = try TestTools.outputString(
            "python3",
            ["-c", "import opentimelineio as otio; t = otio.adapters.read_from_file('back.otio'); print(t.metadata['reel']['output']['video']['codec'])"],
            in: folder)
        #expect(reread.trimmingCharacters(in: .whitespacesAndNewlines) == "ffv1")
    }

    @Test(
        "A composition file round trips through OTIO: tracks, ranges and compositor kept, one warning for the metadata track")
    func compositionRoundTrip() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let dashboard = try String(contentsOf: TestFiles.packageRoot.appendingPathComponent("Examples/gps-dashboard/composition.json"), encoding: .utf8)
            .replacingOccurrences(of: "../../Fixtures/", with: TestFiles.fixtures.path + "/")
        try Data(dashboard.utf8).write(to: folder.appendingPathComponent("c.json"))
        let toOTIO = await ReelProcess.reel(["convert", "c.json", "-o", "edit.otio"], in: folder)
        #expect(toOTIO.status == 0, "\(toOTIO.stderr)")
        #expect(toOTIO.stderr.split(separator: "\n").count == 1 && toOTIO.stderr.contains("metadata track 2 is not written"), "\(toOTIO.stderr)")
        let back = await ReelProcess.reel(["convert", "edit.otio", "-o", "back.json"], in: folder)
        #expect(back.status == 0, "\(back.stderr)")
        let original = try CompositionFile.load(path: folder.appendingPathComponent("c.json").path)
        let file = try CompositionFile.load(path: folder.appendingPathComponent("back.json").path)
        #expect(file.compositor == original.compositor)
        #expect(file.output == original.output)
        let video = file.tracks.filter { $0.mediaType == .video }
        #expect(video.count == 1 && video.first?.segments.count == 1)
        #expect(video.first?.segments.first?.sourceStart == .zero && video.first?.segments.first?.duration == MediaTime(value: 2, timescale: 1))
        // The GPS comes back in as a metadata track the compositor reads.
        let metadata = file.tracks.filter { $0.mediaType == .metadata }
        #expect(metadata.count == 1 && file.sourceSampleDataTrackIDs == metadata.map(\.trackID))
    }

    @Test("An unknown schema type stops the conversion with exit status 2 and writes nothing")
    func unknownSchemaWritesNothing() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let otio = RenderCommandOTIOTests.oneClip(target: TestFiles.fixture("counter-gps.mp4").path, clipSchema: "Stack.1")
        try Data(otio.utf8).write(to: folder.appendingPathComponent("edit.otio"))
        let out = await ReelProcess.reel(["convert", "edit.otio", "-o", "c.json"], in: folder)
        #expect(out.status == 2)
        #expect(out.stderr.contains("tracks.children[0].children[0]: \"Stack.1\" is not supported in a track"), "\(out.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("c.json").path))
    }
}
