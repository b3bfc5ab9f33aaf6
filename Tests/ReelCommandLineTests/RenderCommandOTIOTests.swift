import Foundation
import Reel
import ReelDocuments
import ReelTestSupport
import Testing

/// `reel render EDIT.otio`: timelines written by OpenTimelineIO's own Python library (and
/// its CMX 3600 adapter) render to the frames, sound and GPS fixes they describe.
@Suite("reel render EDIT.otio", .serialized)
struct RenderCommandOTIOTests {
    /// 64x48 clips at 30000/1001 fps, coded losslessly, whose every frame is one grey
    /// level: `g.mp4` is 2 per frame number (with a 440 Hz tone), `h.mp4` 250 minus that
    /// (no sound), so a frame's mean tells which source frame it shows.
    static func makeMedia(in folder: URL) throws {
        for (name, lum, sound) in [("g.mp4", "min(250,N*2)", true), ("h.mp4", "250-min(250,N*2)", false)] {
            var args = ["-v", "error", "-y", "-f", "lavfi", "-i", "color=c=black:s=64x48:r=30000/1001:d=4,format=gray,geq=lum='\(lum)'"]
            if sound { args += ["-f", "lavfi", "-i", "sine=f=440:r=48000:d=4", "-c:a", "aac", "-shortest"] }
            args += ["-c:v", "libx264", "-qp", "0", "-pix_fmt", "yuv420p", name]
            try TestTools.output("ffmpeg", args, in: folder)
        }
    }

    /// The mean grey level of every frame of `file`'s first video track, in order.
    static func greys(_ file: String, in folder: URL, width: Int = 64, height: Int = 48) throws -> [Double] {
        let data = try TestTools.output(
            "ffmpeg",
            [
                "-v", "error", "-i", file, "-map", "0:v:0", "-fps_mode", "passthrough",
                "-f", "rawvideo", "-pix_fmt", "gray", "-",
            ], in: folder)
        let size = width * height
        return stride(from: 0, to: data.count - size + 1, by: size).map { start in
            Double(data[start..<(start + size)].reduce(0) { $0 + Int($1) }) / Double(size)
        }
    }

    /// The RMS level of `file`'s sound (mono, 48 kHz) from `start` to `end` seconds.
    static func level(_ file: String, in folder: URL, from start: Double, to end: Double) throws -> Double {
        let data = try TestTools.output("ffmpeg", ["-v", "error", "-i", file, "-map", "0:a:0", "-ac", "1", "-ar", "48000", "-f", "s16le", "-"], in: folder)
        let samples = data.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
        let a = Int(start * 48000), b = min(samples.count, Int(end * 48000))
        guard b > a else { return -1 }
        let sum = samples[a..<b].reduce(0.0) { $0 + Double($1) * Double($1) }
        return (sum / Double(b - a)).squareRoot() / 32768
    }

    static func python(_ script: String, in folder: URL) throws {
        try Data(script.utf8).write(to: folder.appendingPathComponent("make.py"))
        try TestTools.output("python3", ["make.py"], in: folder)
    }

    /// A 29.97 timeline with a dissolve, a gap, a 2x time warp, a freeze frame, a second
    /// video track on top for 10 frames, a marker, and Reel's output settings in
    /// `metadata.reel`, as OpenTimelineIO's library writes it.
    static let timeline = """
        import opentimelineio as otio
        RT = otio.opentime.RationalTime; TR = otio.opentime.TimeRange
        r = 29.97
        def clip(name, path, start, frames, effects=()):
            c = otio.schema.Clip(name=name, media_reference=otio.schema.ExternalReference(target_url=path),
                                 source_range=TR(RT(start, r), RT(frames, r)))
            for e in effects: c.effects.append(e)
            return c
        tl = otio.schema.Timeline(name="edit")
        v1 = otio.schema.Track(name="V1", kind=otio.schema.TrackKind.Video)
        v1.append(clip("A", "g.mp4", 10, 20))
        v1.append(otio.schema.Transition(transition_type=otio.schema.TransitionTypes.SMPTE_Dissolve, in_offset=RT(4, r), out_offset=RT(4, r)))
        v1.append(clip("B", "h.mp4", 30, 20))
        v1.append(otio.schema.Gap(source_range=TR(RT(0, r), RT(10, r))))
        v1.append(clip("C", "g.mp4", 40, 20, [otio.schema.LinearTimeWarp(time_scalar=2.0)]))
        v1.append(clip("D", "g.mp4", 5, 10, [otio.schema.FreezeFrame()]))
        v2 = otio.schema.Track(name="V2", kind=otio.schema.TrackKind.Video)
        v2.append(otio.schema.Gap(source_range=TR(RT(0, r), RT(60, r))))
        v2.append(clip("E", "h.mp4", 0, 10))
        tl.tracks.append(v1); tl.tracks.append(v2)
        tl.tracks.markers.append(otio.schema.Marker(name="Second half", marked_range=TR(RT(40, r), RT(0, r))))
        tl.metadata["reel"] = {"output": {"video": {"codec": "ffv1"}}}
        otio.adapters.write_to_file(tl, "edit.otio")
        """

    @Test(
        "A timeline written by OpenTimelineIO renders to the frames and sound it describes",
        .requires(.ffmpeg, .ffprobe, .openTimelineIO))
    func rendersATimelineWrittenByOpenTimelineIO() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try Self.makeMedia(in: folder)
        try Self.python(Self.timeline, in: folder)
        let out = await ReelProcess.reel(["render", "edit.otio", "-o", "out.mkv"], in: folder)
        #expect(out.status == 0, "\(out.stderr)")
        let g = try Self.greys("g.mp4", in: folder), h = try Self.greys("h.mp4", in: folder)
        let shown = try Self.greys("out.mkv", in: folder)
        // 20 + 20 + 10 + 20 + 10 frames at 30000/1001.
        #expect(shown.count == 80)
        let rate = try TestTools.outputString(
            "ffprobe",
            [
                "-v", "error", "-select_streams", "v:0", "-show_entries", "stream=r_frame_rate",
                "-of", "csv=p=0", "out.mkv",
            ], in: folder)
        #expect(rate.trimmingCharacters(in: .whitespacesAndNewlines) == "30000/1001")
        guard shown.count == 80, g.count >= 80, h.count >= 80 else { return }
        for f in 0..<80 {
            let expected: Double
            switch f {
            case 0..<16: expected = g[10 + f]
            case 16..<24:
                // The dissolve: A (past its cut by 4 frames) over B (4 frames before its start).
                let alpha = 1 - Double(f - 16) / 8
                expected = alpha * g[10 + f] + (1 - alpha) * h[30 + f - 20]
            case 24..<40: expected = h[10 + f]
            case 40..<50: expected = 0
            case 50..<60: expected = g[40 + 2 * (f - 50)]
            case 60..<70: expected = h[f - 60]
            default: expected = g[5]
            }
            #expect(abs(shown[f] - expected) <= 2, "frame \(f): \(shown[f]), expected \(expected)")
        }
        // The sound follows V1: A's tone fading out over the dissolve, silence under B (no
        // sound) and the gap, C's tone at twice the speed, silence under the held frame.
        // The marker is a chapter of the output, from frame 40 (1.334667 s) to the end (2.669333 s).
        let chapters = try TestTools.outputString(
            "ffprobe",
            [
                "-v", "error", "-show_entries", "chapter=start_time,end_time:chapter_tags=title",
                "-of", "csv=p=0", "out.mkv",
            ], in: folder)
        #expect(chapters.trimmingCharacters(in: .whitespacesAndNewlines) == "1.334667,2.669333,Second half", "\(chapters)")
        let tone = try Self.level("out.mkv", in: folder, from: 0.1, to: 0.45)
        #expect(tone > 0.05)
        #expect(try Self.level("out.mkv", in: folder, from: 0.55, to: 0.62) > Self.level("out.mkv", in: folder, from: 0.72, to: 0.79))
        #expect(try Self.level("out.mkv", in: folder, from: 0.9, to: 1.6) < 0.005)
        #expect(try Self.level("out.mkv", in: folder, from: 1.75, to: 2.3) > 0.05)
        #expect(try Self.level("out.mkv", in: folder, from: 2.45, to: 2.6) < 0.005)
    }

    @Test("An EDL converted by otioconvert (CMX 3600 adapter) renders", .requires(.ffmpeg, .openTimelineIO))
    func rendersAnEDLConvertedByOTIOConvert() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try Self.makeMedia(in: folder)
        // Two events cut together at 30 fps non-drop: g 10..30, then h 30..45.
        let edl = """
            TITLE: reel test
            FCM: NON-DROP FRAME

            001  AX       V     C        00:00:00:10 00:00:01:00 01:00:00:00 01:00:00:20
            * FROM FILE: g.mp4
            002  AX       V     C        00:00:01:00 00:00:01:15 01:00:00:20 01:00:01:05
            * FROM FILE: h.mp4

            """
        try Data(edl.utf8).write(to: folder.appendingPathComponent("edit.edl"))
        try TestTools.output("otioconvert", ["-i", "edit.edl", "-o", "edit.otio", "-a", "rate=30"], in: folder)
        let otio = try String(contentsOf: folder.appendingPathComponent("edit.otio"), encoding: .utf8)
        #expect(otio.contains("\"g.mp4\"") && otio.contains("\"h.mp4\""))
        let out = await ReelProcess.reel(["render", "edit.otio", "-o", "out.mkv", "--parameters", "{}"], in: folder)
        #expect(out.status == 0, "\(out.stderr)")
        let shown = try Self.greys("out.mkv", in: folder)
        // 35 frames at 30 fps of 30000/1001 media: the render's frames show g's frames near
        // 10... and h's near 30..., and the grey levels climb then fall at the cut.
        #expect(shown.count == 35)
        guard shown.count == 35 else { return }
        #expect(shown[0] < 30 && shown[19] > 50 && shown[19] < 80, "\(shown)")
        #expect(shown[20] > 170 && shown[34] < shown[20], "\(shown)")
    }

    /// A three-clip edit of `clip` (cuts and one dissolve) made with OTIO's library, rendered
    /// with the GPS dashboard; the output's GPS track holds exactly the fixes of the kept
    /// stretches, at their new times.
    func checkDashboardEdit(clip: URL, rate: String, stretches: [(start: Int, frames: Int)], dissolveFrames: Int) async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let script = """
            import opentimelineio as otio
            RT = otio.opentime.RationalTime; TR = otio.opentime.TimeRange
            r = \(rate)
            def clip(start, frames):
                return otio.schema.Clip(name="cam %d" % start, media_reference=otio.schema.ExternalReference(target_url="file://\(clip.path)"),
                                        source_range=TR(RT(start, r), RT(frames, r)))
            tl = otio.schema.Timeline(name="ride")
            v = otio.schema.Track(kind=otio.schema.TrackKind.Video)
            s = [\(stretches.map { "(\($0.start), \($0.frames))" }.joined(separator: ", "))]
            v.append(clip(*s[0]))
            v.append(clip(*s[1]))
            v.append(otio.schema.Transition(transition_type="SMPTE_Dissolve", in_offset=RT(\(dissolveFrames), r), out_offset=RT(\(dissolveFrames), r)))
            v.append(clip(*s[2]))
            tl.tracks.append(v)
            tl.metadata["reel"] = {"output": {"video": {"codec": "h264", "crf": 30, "preset": "ultrafast"}}}
            otio.adapters.write_to_file(tl, "ride.otio")
            """
        try Self.python(script, in: folder)
        let out = await ReelProcess.reel(["render", "ride.otio", "--compositor", "gps-dashboard", "-o", "out.mp4"], in: folder)
        #expect(out.status == 0, "\(out.stderr)")
        let source = try Self.fixes(await ReelProcess.reel(["metadata", "export", clip.path, "--format", "csv"], in: folder).stdout)
        let written = try Self.fixes(await ReelProcess.reel(["metadata", "export", "out.mp4", "--format", "csv"], in: folder).stdout)
        guard let (n, d) = rate == "30" ? (Int64(30), Int64(1)) : (rate == "29.97" ? (Int64(30000), Int64(1001)) : nil) else { return }
        var expected: [(Double, String)] = []
        var position = 0
        for s in stretches {
            let start = Double(Int64(s.start) * d) / Double(n), end = Double(Int64(s.start + s.frames) * d) / Double(n)
            let at = Double(Int64(position) * d) / Double(n)
            for (t, fix) in source where t >= start - 1e-6 && t < end - 1e-6 { expected.append((t - start + at, fix)) }
            position += s.frames
        }
        #expect(written.count == expected.count, "\(written.count) fixes written, \(expected.count) kept")
        // The same fixes in the same order, each within a millisecond of its new time (a
        // payload cut at a clip's edge has its fixes spread again over what is kept, which
        // moves them by up to 0.4 ms; the GPS time column follows by the same amount).
        for (w, e) in zip(written, expected) {
            #expect(Self.position(w.1) == Self.position(e.1) && abs(w.0 - e.0) < 0.001, "\(w) for \(e)")
        }
    }

    /// A fix's values without its GPS time (the CSV's columns after the time: latitude,
    /// longitude, altitude, speeds, fix, DOP, then gps_time, then the rest).
    static func position(_ rest: String) -> String {
        var fields = rest.split(separator: ",", omittingEmptySubsequences: false)
        if fields.count > 7 { fields.remove(at: 7) }
        return fields.joined(separator: ",")
    }

    /// (time, the rest of the line) for each fix of a `reel metadata export --format csv`.
    static func fixes(_ csv: String) throws -> [(Double, String)] {
        csv.split(separator: "\n").dropFirst().compactMap { line in
            guard let comma = line.firstIndex(of: ","), let t = Double(line[..<comma]) else { return nil }
            return (t, String(line[line.index(after: comma)...]))
        }
    }

    @Test(
        "The GPS dashboard over a three-clip OTIO edit of the GPS fixture keeps the kept stretches' fixes at their new times",
        .requires(.ffmpeg, .openTimelineIO))
    func dashboardOverAnEditOfTheFixture() async throws {
        // 0..0.5 s, 1.0..1.5 s, then (after a dissolve of 4 frames each side) 1.5..2.0 s.
        try await checkDashboardEdit(
            clip: TestFiles.fixture("counter-gps.mp4"), rate: "30",
            stretches: [(0, 15), (30, 15), (45, 15)], dissolveFrames: 4)
    }

    @Test(
        "The GPS dashboard over a three-clip OTIO edit of the GoPro MAX sample keeps the kept stretches' fixes at their new times",
        .requires(.ffmpeg, .openTimelineIO, .sharedMedia))
    func dashboardOverAnEditOfTheGoProSample() async throws {
        // 29.97 fps: 1.0..2.5 s, 5.0..6.5 s, then (dissolve of 15 frames each side) 8.0..9.5 s.
        try await checkDashboardEdit(
            clip: TestFiles.sharedMedia("gpmf-parser_max-heromode.mp4"), rate: "29.97",
            stretches: [(30, 45), (150, 45), (240, 45)], dissolveFrames: 15)
    }

    @Test("A missing media file names the clip and its path; nothing is written")
    func missingMediaNamesTheClip() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let otio = Self.oneClip(target: "gone.mp4", clipSchema: "Clip.2")
        try Data(otio.utf8).write(to: folder.appendingPathComponent("edit.otio"))
        let out = await ReelProcess.reel(["render", "edit.otio", "-o", "out.mp4"], in: folder)
        #expect(out.status == 2)
        #expect(out.stderr.split(separator: "\n").count == 1, "\(out.stderr)")
        #expect(out.stderr.contains("tracks.children[0].children[0].media_references.DEFAULT_MEDIA.target_url"), "\(out.stderr)")
        #expect(out.stderr.contains("clip \"shot 1\"") && out.stderr.contains("gone.mp4"), "\(out.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("out.mp4").path))
    }

    @Test("A truncated .otio file is one line naming the JSON path where it ends")
    func truncatedFileNamesThePath() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let otio = Self.oneClip(target: TestFiles.fixture("counter-gps.mp4").path, clipSchema: "Clip.2")
        let cut = otio.range(of: "\"rate\": 30")!.upperBound
        try Data(otio[..<cut].utf8).write(to: folder.appendingPathComponent("edit.otio"))
        let out = await ReelProcess.reel(["render", "edit.otio", "-o", "out.mp4"], in: folder)
        #expect(out.status == 2)
        #expect(out.stderr.split(separator: "\n").count == 1, "\(out.stderr)")
        #expect(out.stderr.contains("tracks.children[0].children[0].source_range.start_time"), "\(out.stderr)")
        #expect(out.stderr.contains("truncated"), "\(out.stderr)")
    }

    @Test("An unknown schema type is one line naming its object path, exit status 2")
    func unknownSchemaNamesThePath() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let otio = Self.oneClip(target: TestFiles.fixture("counter-gps.mp4").path, clipSchema: "Foo.1")
        try Data(otio.utf8).write(to: folder.appendingPathComponent("edit.otio"))
        let out = await ReelProcess.reel(["render", "edit.otio", "-o", "out.mp4"], in: folder)
        #expect(out.status == 2)
        #expect(out.stderr.contains("edit.otio: tracks.children[0].children[0]: \"Foo.1\" is not supported"), "\(out.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("out.mp4").path))
    }

    /// A one-clip timeline, clip 0.5 s of `target`, the clip's schema as given.
    static func oneClip(target: String, clipSchema: String) -> String {
        """
        {"OTIO_SCHEMA": "Timeline.1", "name": "t", "tracks": {"OTIO_SCHEMA": "Stack.1", "children": [
          {"OTIO_SCHEMA": "Track.1", "kind": "Video", "children": [
            {"OTIO_SCHEMA": "\(clipSchema)", "name": "shot 1",
             "source_range": {"OTIO_SCHEMA": "TimeRange.1",
                              "start_time": {"OTIO_SCHEMA": "RationalTime.1", "rate": 30, "value": 0},
                              "duration": {"OTIO_SCHEMA": "RationalTime.1", "rate": 30, "value": 15}},
             "media_references": {"DEFAULT_MEDIA": {"OTIO_SCHEMA": "ExternalReference.1", "target_url": "\(target)"}},
             "active_media_reference_key": "DEFAULT_MEDIA"}]}]}}
        """
    }
}
