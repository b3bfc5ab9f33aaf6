import Foundation
import Reel
import ReelTestSupport
import Testing

@Suite("reel render", .serialized)
struct RenderCommandTests {
    static let root = TestFiles.packageRoot

    /// Writes `json` as `c.json` in `folder`, with paths relative to the package root made absolute.
    static func write(_ json: String, in folder: URL) throws -> String {
        let fixed = json.replacingOccurrences(of: "../../Fixtures/", with: root.appendingPathComponent("Fixtures").path + "/")
        try Data(fixed.utf8).write(to: folder.appendingPathComponent("c.json"))
        return "c.json"
    }

    static var dashboard: String {
        (try? String(contentsOf: root.appendingPathComponent("Examples/gps-dashboard/composition.json"), encoding: .utf8)) ?? ""
    }

    @Test(.requires(.ffmpeg, .ffprobe))
    func rendersTheDashboardAndKeepsTheGPSTrack() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let c = try Self.write(Self.dashboard, in: folder)
        let out = await ReelProcess.reel(["render", c, "-o", "out.mp4"], in: folder)
        #expect(out.status == 0, "\(out.stderr)")
        #expect(ReelProcess.hashesCount(folder, "out.mp4") == 60)
        let csv = await ReelProcess.reel(["metadata", "export", "out.mp4", "--format", "csv"], in: folder)
        #expect(csv.status == 0)
        // Header plus the fixture's 10 fixes.
        #expect(csv.stdout.split(separator: "\n").count == 11, "\(csv.stdout)")
        // Rendering again without --overwrite fails and leaves the file alone.
        let again = await ReelProcess.reel(["render", c, "-o", "out.mp4"], in: folder)
        #expect(again.status == 1)
        #expect(again.stderr.contains("--overwrite"))
    }

    @Test(.requires(.ffmpeg, .ffprobe))
    func smartRenderCopiesWholeGroupsOfPicturesAndExplainsEachStretch() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // counter-gps.mp4 has a keyframe every second: 0.5..1 is cut, 1..2 whole.
        let c = try Self.write(
            """
            {"version": 1, "sources": [{"name": "a", "path": "../../Fixtures/counter-gps.mp4"}],
             "tracks": [{"trackID": 1, "mediaType": "video", "segments": [{"source": "a", "sourceStart": 0.5, "duration": 1.5}]}],
             "instructions": [{"timeRange": {"start": 0, "end": "end"}, "layerInstructions": [{"trackID": 1}]}]}
            """, in: folder)
        let out = await ReelProcess.reel(["render", c, "-o", "out.mp4", "--smart-render", "auto", "--explain"], in: folder)
        #expect(out.status == 0, "\(out.stderr)")
        let lines = out.stderrLines
        #expect(lines.contains { $0.contains("0.000..0.500 encoded, 15 frames") }, "\(out.stderr)")
        #expect(lines.contains { $0.contains("0.500..1.500 copied, 30 frames") }, "\(out.stderr)")
        #expect(lines.contains { $0.contains("smart render: 30 frames copied, 15 encoded") }, "\(out.stderr)")
        #expect(ReelProcess.hashesCount(folder, "out.mp4") == 45)
        let decode = try TestTools.run("ffmpeg", ["-v", "error", "-i", folder.appendingPathComponent("out.mp4").path, "-f", "null", "-"])
        #expect(decode.stderr.isEmpty, "\(decode.stderr)")
        let wrong = await ReelProcess.reel(["render", c, "-o", "other.mp4", "--smart-render", "sometimes"], in: folder)
        #expect(wrong.status != 0 && wrong.stderr.contains("--smart-render sometimes"), "\(wrong.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("other.mp4").path))
    }

    /// The GPS dashboard over the first 4.5 s of a 10 s clip with a GPS track (a keyframe
    /// every second), a passthrough instruction after: the dashboard's frames and the rest
    /// of the group of pictures the switch falls in are encoded, everything from the first
    /// keyframe after it (5 s) is copied, and the GPS track is the full render's.
    @Test(.requires(.ffmpeg, .ffprobe))
    func aDashboardOverTheFirstSecondsCopiesEverythingFromTheNextGroupOfPicturesOn() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let ffmpeg = try #require(TestTools.which("ffmpeg"))
        let made = try TestTools.run(
            ffmpeg,
            [
                "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30:duration=10", "-c:v", "libx264", "-preset", "veryfast",
                "-bf", "3", "-g", "30", "-keyint_min", "30", "-sc_threshold", "0", "-pix_fmt", "yuv420p",
                "-metadata", "creation_time=2024-05-01T10:00:00Z", "clip.mp4",
            ], in: folder)
        #expect(made.status == 0, "\(made.stderr)")
        // A fix every 0.2 s over the clip, moving north-east.
        let points = (0..<51).map { i in
            let seconds = String(format: "%02d.%03d", i / 5, i % 5 * 200)
            return "<trkpt lat=\"\(46.2 + 0.0001 * Double(i))\" lon=\"\(6.14 + 0.0001 * Double(i))\"><ele>\(375 + i)</ele>"
                + "<time>2024-05-01T10:00:\(seconds)Z</time></trkpt>"
        }
        try Data(
            ("<?xml version=\"1.0\"?><gpx version=\"1.1\" creator=\"test\" xmlns=\"http://www.topografix.com/GPX/1/1\"><trk><trkseg>"
                + points.joined() + "</trkseg></trk></gpx>").utf8
        ).write(to: folder.appendingPathComponent("track.gpx"))
        let imported = await ReelProcess.reel(["metadata", "import", "track.gpx", "--into", "clip.mp4", "-o", "camera.mp4"], in: folder)
        #expect(imported.status == 0, "\(imported.stderr)")
        let c = try Self.write(
            """
            {"version": 1, "sources": [{"name": "camera", "path": "camera.mp4"}],
             "tracks": [{"trackID": 1, "mediaType": "video", "segments": [{"source": "camera"}]},
                        {"trackID": 2, "mediaType": "metadata", "segments": [{"source": "camera"}]}],
             "sourceSampleDataTrackIDs": [2],
             "instructions": [{"timeRange": {"start": 0, "end": 4.5}, "requiredSourceSampleDataTrackIDs": [2], "layerInstructions": [{"trackID": 1}]},
                              {"timeRange": {"start": 4.5, "end": "end"}, "passthroughTrackID": 1}],
             "compositor": {"name": "gps-dashboard", "parameters": {"units": "metric"}},
             "output": {"video": {"codec": "h264", "crf": 23, "preset": "veryfast", "smartRender": "auto"}}}
            """, in: folder)
        let smart = await ReelProcess.reel(["render", c, "-o", "smart.mp4", "--explain"], in: folder)
        #expect(smart.status == 0, "\(smart.stderr)")
        #expect(smart.stderr.contains("smart render: 150 frames copied, 150 encoded"), "\(smart.stderr)")
        #expect(smart.stderrLines.contains { $0.contains("5.000..10.000 copied, 150 frames") }, "\(smart.stderr)")
        let full = await ReelProcess.reel(["render", c, "-o", "full.mp4", "--smart-render", "off"], in: folder)
        #expect(full.status == 0, "\(full.stderr)")
        let decode = try TestTools.run(ffmpeg, ["-v", "error", "-i", "smart.mp4", "-f", "null", "-"], in: folder)
        #expect(decode.status == 0 && decode.stderr.isEmpty, "\(decode.stderr)")
        #expect(ReelProcess.hashesCount(folder, "smart.mp4") == 300)
        // The copied frames are the source's; the dashboard's are drawn (not the source's).
        let source = try ReelProcess.frameHashes("camera.mp4", in: folder)
        let output = try ReelProcess.frameHashes("smart.mp4", in: folder)
        #expect(source.count == 300 && output.count == 300)
        #expect(Array(output[150...]) == Array(source[150...]))
        #expect(zip(output[..<135], source[..<135]).allSatisfy { $0 != $1 })
        // The GPS track over the whole clip, as the full render writes it.
        let a = await ReelProcess.reel(["metadata", "export", "smart.mp4", "--format", "csv"], in: folder)
        let b = await ReelProcess.reel(["metadata", "export", "full.mp4", "--format", "csv"], in: folder)
        #expect(a.status == 0 && a.stdout.split(separator: "\n").count > 40, "\(a.stderr)")
        #expect(a.stdout == b.stdout)
    }

    @Test(.requires(.ffmpeg, .ffprobe))
    func phoneFootageRendersUpright() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let c = try Self.write(
            """
            {"version": 1, "sources": [{"name": "phone", "path": "../../Fixtures/portrait.mp4"}],
             "tracks": [{"trackID": 1, "mediaType": "video", "segments": [{"source": "phone"}]}],
             "instructions": [{"timeRange": {"start": 0, "end": "end"}, "layerInstructions": [{"trackID": 1}]}]}
            """, in: folder)
        let out = await ReelProcess.reel(["render", c, "-o", "out.mp4"], in: folder)
        #expect(out.status == 0, "\(out.stderr)")
        // Drawn upright (the picture as shown), with no display matrix left to apply.
        let geometry = try ReelProcess.videoGeometry("out.mp4", in: folder)
        #expect(geometry.width == 120 && geometry.height == 160 && geometry.rotation == 0, "\(geometry)")
        let shown = try ReelProcess.shownPicture("out.mp4", in: folder)
        #expect(shown.gray(110, 10) > 200 && shown.gray(10, 10) < 50 && shown.gray(110, 150) < 50)
    }

    @Test(.requires(.sharedMedia, .ffmpeg, .ffprobe))
    func theMainJobKeepsEveryGoProFix() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let clip = TestFiles.sharedMedia.appendingPathComponent("gpmf-parser_max-heromode.mp4").path
        let out = await ReelProcess.reel(
            [
                "render", Self.root.appendingPathComponent("Examples/gps-dashboard/composition.json").path,
                "--source", clip, "-o", "out.mp4",
            ], in: folder)
        #expect(out.status == 0, "\(out.stderr)")
        #expect(ReelProcess.hashesCount(folder, "out.mp4") == 315)
        let source = await ReelProcess.reel(["metadata", "export", clip, "--format", "csv"], in: folder)
        let rendered = await ReelProcess.reel(["metadata", "export", "out.mp4", "--format", "csv"], in: folder)
        let fixes = rendered.stdout.split(separator: "\n").count - 1
        #expect(fixes == source.stdout.split(separator: "\n").count - 1)
        #expect(fixes >= 190)
        // The same GPS values, fix for fix. (The last payload, cut where the video ends,
        // is rewritten, so its fixes' times are spread over the shorter span.)
        func values(_ csv: String) -> [String] {
            let lines = csv.split(separator: "\n")
            let gpsTime = lines.first?.split(separator: ",").firstIndex(of: "gps_time") ?? 8
            return lines.map { line in
                var fields = line.split(separator: ",", omittingEmptySubsequences: false)
                if fields.count > gpsTime { fields.remove(at: gpsTime) }
                return fields.dropFirst().joined(separator: ",")
            }
        }
        #expect(values(rendered.stdout) == values(source.stdout))
    }

    // MARK: Broken composition files

    static let broken: [(name: String, from: String, to: String, mentions: String)] = [
        (
            "a gap", "\"timeRange\": {\"start\": 0, \"end\": \"end\"},",
            "\"timeRange\": {\"start\": 0, \"end\": 1}, \"layerInstructions\": [{\"trackID\": 1}], \"requiredSourceSampleDataTrackIDs\": [2]},\n    {\"timeRange\": {\"start\": 1.5, \"end\": \"end\"},",
            "instructions[1].timeRange: starts at 1.5 s but instructions[0] ends at 1 s"
        ),
        ("an unknown compositor", "\"name\": \"gps-dashboard\"", "\"name\": \"gps-dashbord\"", "compositor.name: no compositor named \"gps-dashbord\""),
        ("a missing source", "../../Fixtures/counter-gps.mp4", "../../Fixtures/no-such-clip.mp4", "sources[0].path: no such file"),
        ("a wrong type", "\"units\": \"metric\"", "\"units\": 3", "compositor.parameters.units"),
        (
            "a wrong type in the file", "\"sourceSampleDataTrackIDs\": [2]", "\"sourceSampleDataTrackIDs\": [\"abc\"]",
            "sourceSampleDataTrackIDs[0]: expected an integer, got \"abc\""
        ),
        ("bad JSON", "\"tracks\": [", "\"tracks\" [", "line 7, column 12: expected ':'"),
        (
            "an audio mix naming a video track", "\"sourceSampleDataTrackIDs\": [2]", "\"audioMix\": [{\"trackID\": 1}], \"sourceSampleDataTrackIDs\": [2]",
            "audioMix[0].trackID: is 1, a video track"
        ),
        (
            "an audio mix naming no track", "\"sourceSampleDataTrackIDs\": [2]", "\"audioMix\": [{\"trackID\": 9}], \"sourceSampleDataTrackIDs\": [2]",
            "audioMix[0].trackID: is 9: the composition has no such track (audio tracks: 3)"
        ),
        (
            "a negative volume", "\"sourceSampleDataTrackIDs\": [2]", "\"audioMix\": [{\"trackID\": 3, \"volume\": -1}], \"sourceSampleDataTrackIDs\": [2]",
            "audioMix[0].volume: is -1.0: volumes are 0 or more"
        ),
        (
            "overlapping volume ramps", "\"sourceSampleDataTrackIDs\": [2]",
            "\"audioMix\": [{\"trackID\": 3, \"volumeRamps\": [{\"from\": 1, \"to\": 0, \"timeRange\": {\"start\": 0, \"end\": 1}}, {\"from\": 0, \"to\": 1, \"timeRange\": {\"start\": 0.5, \"end\": 2}}]}], \"sourceSampleDataTrackIDs\": [2]",
            "audioMix[0].volumeRamps[1].timeRange: starts at 0.5 s, before the previous ramp ends at 1 s"
        ),
    ]

    @Test(arguments: broken.indices)
    func aBrokenFileIsOneLineAndExitStatus2(_ index: Int) async throws {
        let b = Self.broken[index]
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let json = Self.dashboard.replacingOccurrences(of: b.from, with: b.to)
        #expect(json != Self.dashboard, "\(b.name): the edit did not apply")
        let c = try Self.write(json, in: folder)
        let out = await ReelProcess.reel(["render", c, "-o", "out.mp4"], in: folder)
        #expect(out.status == 2, "\(b.name): \(out.stderr)")
        #expect(out.stderrLines.count == 1, "\(b.name): \(out.stderr)")
        #expect(out.stderr.hasPrefix("reel: c.json: "), "\(b.name): \(out.stderr)")
        #expect(out.stderr.contains(b.mentions), "\(b.name): \(out.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("out.mp4").path), "\(b.name)")
    }

    // MARK: Coding

    /// A grainy 320x240 clip of 3 s (what camera footage codes like), made by ffmpeg in `folder`.
    static func makeGrainyClip(_ name: String, in folder: URL) throws {
        let ffmpeg = try #require(TestTools.which("ffmpeg"))
        let made = try TestTools.run(
            ffmpeg,
            [
                "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30:duration=3,noise=alls=6:allf=t",
                "-c:v", "libx264", "-preset", "medium", "-crf", "20", "-g", "60", "-pix_fmt", "yuv420p", name,
            ], in: folder)
        #expect(made.status == 0, "\(made.stderr)")
    }

    /// A one-layer composition of `clip` coded with `video` (an `output.video` object).
    static func oneLayer(_ clip: URL, video: String) -> String {
        """
        {"version": 1, "sources": [{"name": "clip", "path": "\(clip.path)"}],
         "tracks": [{"trackID": 1, "mediaType": "video", "segments": [{"source": "clip"}]}],
         "instructions": [{"timeRange": {"start": 0, "end": "end"}, "layerInstructions": [{"trackID": 1}]}],
         "output": {"video": \(video)}}
        """
    }

    @Test(
        "A render codes as compactly as the library's export: a grainy clip comes out at most 10% larger with the same settings",
        .requires(.ffmpeg))
    func aRenderCodesAsCompactlyAsTheLibrarysExport() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try Self.makeGrainyClip("grain.mp4", in: folder)
        let clip = folder.appendingPathComponent("grain.mp4")
        let c = try Self.write(Self.oneLayer(clip, video: "{\"codec\": \"h264\", \"crf\": 23, \"preset\": \"veryfast\", \"keyframeInterval\": 60}"), in: folder)
        let out = await ReelProcess.reel(["render", c, "-o", "rendered.mp4"], in: folder)
        #expect(out.status == 0, "\(out.stderr)")
        // The library's export of the same clip: CRF 23, veryfast, a keyframe every 60 frames.
        let settings = VideoEncoderSettings(codec: .h264, width: 320, height: 240, quality: .crf(23), preset: "veryfast", keyframeInterval: 60)
        let session = try await AssetExportSession(asset: Asset(url: clip), preset: .custom(settings))
        session.shouldOptimizeForNetworkUse = false
        try await session.export(to: folder.appendingPathComponent("exported.mp4"), as: .mp4)
        let rendered = try Self.fileSize("rendered.mp4", in: folder), exported = try Self.fileSize("exported.mp4", in: folder)
        #expect(exported > 10_000)
        #expect(Double(rendered) <= 1.10 * Double(exported), "rendered \(rendered) bytes, exported \(exported) bytes")
    }

    @Test(
        "The same render twice, with other memory handed out, decodes to the same frames (x264 with its macroblock tree, and groups coded apart)",
        .requires(.reelBinary, .ffmpeg),
        arguments: [
            "{\"codec\": \"h264\", \"crf\": 23, \"preset\": \"medium\", \"keyframeInterval\": 10}",
            "{\"codec\": \"h264\", \"crf\": 23, \"preset\": \"veryfast\", \"keyframeInterval\": 10, \"independentGroups\": true}",
        ])
    func renderingAgainGivesTheSameFrames(video: String) async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // The dashboard over the counter clip gave other pictures from run to run when glibc
        // filled fresh and freed memory with another byte (MALLOC_PERTURB_), through x264's
        // AVX-512 code.
        let json = Self.dashboard.replacingOccurrences(
            of: "\"video\": {\"codec\": \"h264\", \"crf\": 23, \"preset\": \"veryfast\"}", with: "\"video\": \(video)")
        #expect(json != Self.dashboard)
        let c = try Self.write(json, in: folder)
        var hashes: [[String]] = []
        for (i, perturb) in ["0", "85", "170"].enumerated() {
            let out = try ReelProcess.launch(["render", c, "-o", "out\(i).mp4"], in: folder, environment: ["MALLOC_PERTURB_": perturb])
            #expect(out.status == 0, "\(out.stderr)")
            hashes.append(try ReelProcess.frameHashes("out\(i).mp4", in: folder))
        }
        #expect(hashes[0].count == 60)
        for other in hashes.dropFirst() {
            let differing = zip(hashes[0], other).filter { $0 != $1 }.count
            #expect(other.count == hashes[0].count && differing == 0, "\(differing) of \(hashes[0].count) frames differ")
        }
    }

    static func fileSize(_ name: String, in folder: URL) throws -> Int {
        try FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent(name).path)[.size] as? Int ?? 0
    }

    // MARK: --range

    @Test(.requires(.ffmpeg, .ffprobe))
    func rangePiecesJoinIntoTheWholeRender() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // Constant quantizer and a keyframe every 10 frames (1/3 s).
        let json = Self.dashboard.replacingOccurrences(
            of: "\"video\": {\"codec\": \"h264\", \"crf\": 23, \"preset\": \"veryfast\"}",
            with: "\"video\": {\"codec\": \"h264\", \"qp\": 24, \"preset\": \"veryfast\", \"keyframeInterval\": 10}")
        #expect(json != Self.dashboard)
        let c = try Self.write(json, in: folder)
        let pieces = try await Self.renderAndJoinPieces(c, in: folder)
        let whole = try ReelProcess.frameHashes("whole.mp4", in: folder)
        let joined = try ReelProcess.frameHashes("joined.mp4", in: folder)
        #expect(whole.count == 60)
        #expect(joined == whole)
        // Each piece was moved onto keyframes: 20 + 20 + 20 frames.
        #expect(try ReelProcess.frameHashes("p1.mp4", in: folder).count == 20)
        // No track of a piece outlasts its picture (the GPS samples are cut at the piece's
        // end: a longer track would place the next piece late), so the joined tracks end
        // where the single render's do.
        for (_, name) in pieces {
            let ends = try Self.streamEnds(name, in: folder)
            #expect(ends.count == 3, "\(name): \(ends)")
            #expect(ends.allSatisfy { $0 <= ends[0] + 0.002 }, "\(name): a track ends after the picture: \(ends)")
        }
        let wholeEnds = try Self.streamEnds("whole.mp4", in: folder)
        let joinedEnds = try Self.streamEnds("joined.mp4", in: folder)
        #expect(joinedEnds.count == wholeEnds.count)
        for (a, b) in zip(wholeEnds, joinedEnds) { #expect(abs(a - b) <= 0.002, "\(wholeEnds) against \(joinedEnds)") }
        // The same fixes at the same times (to the gpmd track's millisecond).
        let a = await ReelProcess.reel(["metadata", "export", "whole.mp4", "--format", "csv"], in: folder)
        let b = await ReelProcess.reel(["metadata", "export", "joined.mp4", "--format", "csv"], in: folder)
        #expect(a.status == 0 && b.status == 0, "\(a.stderr) \(b.stderr)")
        let rowsA = a.stdout.split(separator: "\n").dropFirst().map { $0.split(separator: ",", omittingEmptySubsequences: false) }
        let rowsB = b.stdout.split(separator: "\n").dropFirst().map { $0.split(separator: ",", omittingEmptySubsequences: false) }
        #expect(rowsA.count == 10)
        #expect(rowsB.count == rowsA.count)
        for (x, y) in zip(rowsA, rowsB) {
            #expect(abs((Double(x[0]) ?? -1) - (Double(y[0]) ?? 1)) <= 0.0015, "fix at \(x[0]) s joined at \(y[0]) s")
            #expect(x.dropFirst() == y.dropFirst())
        }
    }

    /// Renders `c` whole (`whole.mp4`) and as three `--range` pieces cut at 20 and 40 frames
    /// (a keyframe every 10), and joins the pieces as docs/composition-file.md does
    /// (`joined.mp4`): every track, by stream copy, with `-copyts`, which keeps the first
    /// piece's AAC priming at its negative time, where the edit list hides it.
    @discardableResult
    static func renderAndJoinPieces(_ c: String, in folder: URL) async throws -> [(range: String, file: String)] {
        #expect(await ReelProcess.reel(["render", c, "-o", "whole.mp4"], in: folder).status == 0)
        let pieces = [("..0.7", "p1.mp4"), ("0.7..1.4", "p2.mp4"), ("1.4..", "p3.mp4")]
        for (range, name) in pieces {
            let out = await ReelProcess.reel(["render", c, "-o", name, "--range", range], in: folder)
            #expect(out.status == 0, "\(range): \(out.stderr)")
        }
        let list = pieces.map { "file '\($0.1)'" }.joined(separator: "\n") + "\n"
        try Data(list.utf8).write(to: folder.appendingPathComponent("list.txt"))
        let ffmpeg = try #require(TestTools.which("ffmpeg"))
        let concat = try TestTools.run(
            ffmpeg, ["-v", "error", "-f", "concat", "-safe", "0", "-i", "list.txt", "-map", "0", "-c", "copy", "-copyts", "joined.mp4"],
            in: folder)
        #expect(concat.status == 0, "\(concat.stderr)")
        return pieces
    }

    /// Where each stream of `file` ends (start plus duration), in seconds, as ffprobe reads it.
    static func streamEnds(_ file: String, in folder: URL) throws -> [Double] {
        let ffprobe = try #require(TestTools.which("ffprobe"))
        let out = try TestTools.run(ffprobe, ["-v", "error", "-show_entries", "stream=start_time,duration", "-of", "csv=p=0", file], in: folder)
        return out.stdout.split(separator: "\n").map { line in
            line.split(separator: ",").compactMap { Double($0) }.reduce(0, +)
        }
    }

    static var crossfade: String {
        (try? String(contentsOf: root.appendingPathComponent("Examples/crossfade/composition.json"), encoding: .utf8)) ?? ""
    }

    /// The packet times and durations of the first audio stream, in its time base, and
    /// the duration of each stream.
    static func audioTiming(_ file: String, in folder: URL) throws -> (packets: [String], streams: [String]) {
        let ffprobe = try #require(TestTools.which("ffprobe"))
        let packets = try TestTools.run(
            ffprobe, ["-v", "error", "-select_streams", "a:0", "-show_entries", "packet=pts,duration", "-of", "csv=p=0", file],
            in: folder)
        let streams = try TestTools.run(ffprobe, ["-v", "error", "-show_entries", "stream=codec_type,start_time,duration", "-of", "csv=p=0", file], in: folder)
        return (packets.stdout.split(separator: "\n").map(String.init), streams.stdout.split(separator: "\n").map(String.init))
    }

    @Test(.requires(.ffmpeg, .ffprobe))
    func rangePiecesSoundJoinsSeamlesslyByStreamCopy() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // The crossfade (two tones mixed with volume ramps), a keyframe every 10 frames.
        let json = Self.crossfade.replacingOccurrences(
            of: "\"compositor\":",
            with: "\"output\": {\"video\": {\"codec\": \"h264\", \"qp\": 24, \"preset\": \"veryfast\", \"keyframeInterval\": 10}},\n  \"compositor\":")
        #expect(json != Self.crossfade)
        let c = try Self.write(json, in: folder)
        // Cut at 20 and 40 frames: samples 32,000 and 64,000, neither on a 1024-sample frame.
        try await Self.renderAndJoinPieces(c, in: folder)
        #expect(try ReelProcess.frameHashes("joined.mp4", in: folder) == ReelProcess.frameHashes("whole.mp4", in: folder))

        // No drift: the joined file's sound packets sit where the single render's do, and
        // its streams start and end as the single render's.
        let wholeTiming = try Self.audioTiming("whole.mp4", in: folder)
        let joinedTiming = try Self.audioTiming("joined.mp4", in: folder)
        #expect(wholeTiming.packets.count > 100)
        #expect(joinedTiming.packets == wholeTiming.packets)
        #expect(joinedTiming.streams == wholeTiming.streams)
        let single = try JoinCommandTests.samples("whole.mp4", in: folder)
        let joined = try JoinCommandTests.samples("joined.mp4", in: folder)
        #expect(single.count >= 120_000)
        #expect(joined.count == single.count)
        guard joined.count == single.count else { return }
        // Within AAC's tolerance everywhere.
        let difference = zip(single, joined).map { abs($0 - $1) }.max() ?? 1
        #expect(difference <= Self.aacTolerance, "largest difference \(difference)")
        for joint in [32000, 64000] {
            let around = (joint - 2048)..<(joint + 2048)
            // Sample by sample at the joint.
            let near = around.map { abs(single[$0] - joined[$0]) }.max() ?? 1
            #expect(near <= Self.aacTolerance, "a difference of \(near) near sample \(joint)")
            // No near-silent gap: every 5 ms keeps the single render's level.
            for start in stride(from: around.lowerBound, to: around.upperBound, by: 240) {
                func rms(_ x: [Float]) -> Float { (x[start..<(start + 240)].map { $0 * $0 }.reduce(0, +) / 240).squareRoot() }
                #expect(rms(joined) >= rms(single) * 0.9, "the level drops at sample \(start)")
            }
            // No click: no step larger than the single render's there.
            let steps = { (x: [Float]) in around.map { abs(x[$0] - x[$0 - 1]) }.max() ?? 0 }
            #expect(steps(joined) <= steps(single) + Self.aacTolerance, "a step of \(steps(joined)) near sample \(joint)")
        }
    }

    /// How far the pieces' sound may differ from the single render's, sample by sample: the
    /// pieces' encoders start from a pre-roll, and what is left of the difference in their
    /// rate control is below AAC's own coding error (the single render of the crossfade, a
    /// tone peaking at 0.13, is up to 0.1 from the exact mix at its start; two-frame
    /// pre-rolls left differences of 0.005 for 25 frames after each joint).
    static let aacTolerance: Float = 0.001

    // MARK: Where the output goes

    @Test(
        arguments: [("missing/out.mp4", "the folder"), ("existing.mp4", "exists (use --overwrite"), ("folder", "is a folder")])
    func unwritableOutputsAreRefusedBeforeRendering(output: String, problem: String) async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let c = try Self.write(Self.dashboard, in: folder)
        try Data("keep me".utf8).write(to: folder.appendingPathComponent("existing.mp4"))
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("folder"), withIntermediateDirectories: false)
        let out = await ReelProcess.reel(["render", c, "-o", output], in: folder)
        #expect(out.status == 1)
        // One line, the problem named, and no render started (no progress printed).
        #expect(out.stderr.split(separator: "\n").count == 1, "\(out.stderr)")
        #expect(out.stderr.contains(output) && out.stderr.contains(problem), "\(out.stderr)")
        #expect(try String(contentsOf: folder.appendingPathComponent("existing.mp4"), encoding: .utf8) == "keep me")
    }

    // MARK: Ctrl-C

    @Test(.requires(.reelBinary))
    func interruptingLeavesNoOutput() throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // The 2 s clip slowed down to 60 s: long enough to interrupt.
        let json = Self.dashboard.replacingOccurrences(
            of: "\"segments\": [{\"source\": \"camera\"}]}", with: "\"segments\": [{\"source\": \"camera\", \"scaledDuration\": 60}]}")
        let c = try Self.write(json, in: folder)
        let running = try TestTools.start(try #require(ReelProcess.binary), ["render", c, "-o", "out.mp4"], in: folder)
        // Interrupt once it says it is rendering (its first progress line), not after a guess.
        while running.process.isRunning && !running.stderrSoFar.contains("rendered ") { Thread.sleep(forTimeInterval: 0.05) }
        try #require(running.process.isRunning, "reel ended before it could be interrupted: \(running.stderrSoFar)")
        kill(running.process.processIdentifier, SIGINT)
        let out = try running.finish()
        #expect(out.status == 130, "\(out.stderr)")
        #expect(out.stderr.contains("interrupted"))
        let left = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        #expect(left.sorted() == ["c.json"], "left behind: \(left)")
    }
}

extension ReelProcess {
    static func hashesCount(_ folder: URL, _ file: String) -> Int {
        (try? frameHashes(file, in: folder).count) ?? -1
    }
}
