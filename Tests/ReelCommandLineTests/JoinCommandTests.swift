import Foundation
import ReelTestSupport
import Testing

/// `reel plan`, `reel render --plan` and `reel join` end to end: pieces rendered by separate
/// processes (as array tasks would), joined, and compared with a single render.
@Suite("reel join", .serialized)
struct JoinCommandTests {
    /// The GPS dashboard (video, the camera's sound, its GPS track) with `video` settings.
    static func dashboard(video: String, in folder: URL, source: String? = nil) throws -> String {
        var json = RenderCommandTests.dashboard.replacingOccurrences(
            of: "\"video\": {\"codec\": \"h264\", \"crf\": 23, \"preset\": \"veryfast\"}",
            with: "\"video\": \(video)")
        if let source { json = json.replacingOccurrences(of: "../../Fixtures/counter-gps.mp4", with: source) }
        return try RenderCommandTests.write(json, in: folder)
    }

    /// The bytes of `file`'s first video stream's packets (ffprobe).
    static func videoBytes(_ file: String, in folder: URL) throws -> Int {
        let ffprobe = try #require(TestTools.which("ffprobe"))
        let out = try TestTools.run(ffprobe, ["-v", "error", "-select_streams", "v:0", "-show_entries", "packet=size", "-of", "csv=p=0", file], in: folder)
        return out.stdout.split(separator: "\n").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }.reduce(0, +)
    }

    static let qp = "{\"codec\": \"h264\", \"qp\": 24, \"preset\": \"veryfast\", \"keyframeInterval\": 10}"

    /// Plans `c` in `pieces` pieces and renders each in a process of its own.
    static func renderPieces(_ c: String, pieces: Int, in folder: URL) async throws {
        let plan = await ReelProcess.reel(["plan", c, "--chunks", String(pieces), "-o", "plan.json"], in: folder)
        #expect(plan.status == 0, "\(plan.stderr)")
        for k in 0..<pieces {
            let out = await ReelProcess.reel(["render", "--plan", "plan.json", "--chunk", String(k)], in: folder)
            #expect(out.status == 0, "piece \(k): \(out.stderr)")
        }
    }

    /// The first audio track decoded to 32-bit float samples, mono.
    static func samples(_ file: String, in folder: URL) throws -> [Float] {
        let ffmpeg = try #require(TestTools.which("ffmpeg"))
        let raw = "\(file).f32"
        let out = try TestTools.run(ffmpeg, ["-v", "error", "-y", "-i", file, "-map", "0:a:0", "-ac", "1", "-f", "f32le", raw], in: folder)
        #expect(out.status == 0, "\(out.stderr)")
        let data = try Data(contentsOf: folder.appendingPathComponent(raw))
        return data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }

    static func exists(_ name: String, in folder: URL) -> Bool {
        FileManager.default.fileExists(atPath: folder.appendingPathComponent(name).path)
    }

    @Test(.requires(.ffmpeg, .ffprobe))
    func qpPiecesJoinIntoExactlyTheSingleRenderWithItsSoundAndGPS() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let c = try Self.dashboard(video: Self.qp, in: folder)
        #expect(await ReelProcess.reel(["render", c, "-o", "whole.mp4"], in: folder).status == 0)
        #expect(await ReelProcess.reel(["plan", c, "--chunks", "4", "-o", "plan.json"], in: folder).status == 0)
        // Each piece by the index a scheduler gives, or by --chunk.
        let indexes: [(arguments: [String], environment: [String: String])] = [
            ([], ["SLURM_ARRAY_TASK_ID": "0"]), ([], ["JOB_COMPLETION_INDEX": "1"]),
            ([], ["AWS_BATCH_JOB_ARRAY_INDEX": "2"]), (["--chunk", "3"], [:]),
        ]
        for (k, index) in indexes.enumerated() {
            let out = await ReelProcess.reel(["render", "--plan", "plan.json"] + index.arguments, in: folder, environment: index.environment)
            #expect(out.status == 0 && out.stderr.contains("wrote piece \(k)"), "\(out.stderr)")
        }
        let join = await ReelProcess.reel(["join", "plan.json", "-o", "joined.mp4"], in: folder)
        #expect(join.status == 0, "\(join.stderr)")

        let whole = try ReelProcess.frameHashes("whole.mp4", in: folder)
        #expect(whole.count == 60)
        #expect(try ReelProcess.frameHashes("joined.mp4", in: folder) == whole)
        // The GPS track, as `reel metadata export` reads it.
        for format in ["csv", "json", "gpx"] {
            let a = await ReelProcess.reel(["metadata", "export", "whole.mp4", "--format", format], in: folder)
            let b = await ReelProcess.reel(["metadata", "export", "joined.mp4", "--format", format], in: folder)
            // (A GPX track is named after its file.)
            #expect(a.status == 0 && !a.stdout.isEmpty && b.stdout.replacingOccurrences(of: "joined.mp4", with: "whole.mp4") == a.stdout, "\(format)")
        }
        // The sound, sample by sample, and no step at the joints larger than the single
        // render has anywhere.
        let single = try Self.samples("whole.mp4", in: folder)
        let joined = try Self.samples("joined.mp4", in: folder)
        #expect(single.count >= 96000)
        #expect(joined.count == single.count)
        let difference = zip(single, joined).map { abs($0 - $1) }.max() ?? 1
        #expect(difference <= 1e-4, "largest difference \(difference)")
        let largestStep = zip(single, single.dropFirst()).map { abs($1 - $0) }.max() ?? 0
        for joint in [20, 30, 50].map({ $0 * 48000 / 30 }) {
            let step = abs(joined[joint] - joined[joint - 1])
            #expect(step <= largestStep, "a step of \(step) at sample \(joint)")
        }
        // Container tags carried.
        let probe = try TestTools.run(
            try #require(TestTools.which("ffprobe")),
            ["-v", "error", "-show_entries", "format_tags=title,creation_time", "-of", "compact", "joined.mp4"], in: folder)
        #expect(probe.stdout.contains("title=Reel counter") && probe.stdout.contains("creation_time=2024-01-01"), "\(probe.stdout)")
    }

    /// The crossfade, a real mix (two tones under volume ramps): the join mixes and encodes
    /// the sound once over the whole timeline, so it is the single render's, sample by sample.
    @Test(.requires(.ffmpeg, .ffprobe))
    func aMixedSoundJoinsIntoTheSingleRendersSound() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let json = RenderCommandTests.crossfade.replacingOccurrences(of: "\"compositor\":", with: "\"output\": {\"video\": \(Self.qp)},\n  \"compositor\":")
        #expect(json != RenderCommandTests.crossfade)
        let c = try RenderCommandTests.write(json, in: folder)
        #expect(await ReelProcess.reel(["render", c, "-o", "whole.mp4"], in: folder).status == 0)
        try await Self.renderPieces(c, pieces: 3, in: folder)
        let join = await ReelProcess.reel(["join", "plan.json", "-o", "joined.mp4"], in: folder)
        #expect(join.status == 0, "\(join.stderr)")
        #expect(try ReelProcess.frameHashes("joined.mp4", in: folder) == ReelProcess.frameHashes("whole.mp4", in: folder))
        let single = try Self.samples("whole.mp4", in: folder)
        let joined = try Self.samples("joined.mp4", in: folder)
        // 2.5 s at 48 kHz, both tones heard.
        #expect(single.count >= 120_000)
        #expect((single.map { $0 * $0 }.reduce(0, +) / Float(max(single.count, 1))).squareRoot() > 0.05)
        #expect(joined.count == single.count)
        let difference = zip(single, joined).map { abs($0 - $1) }.max() ?? 1
        #expect(difference <= 1e-4, "largest difference \(difference)")
    }

    @Test(
        .requires(.ffmpeg, .ffprobe),
        arguments: ["{\"codec\": \"h264\", \"crf\": 23, \"keyframeInterval\": 10}", "{\"codec\": \"hevc\", \"crf\": 28, \"keyframeInterval\": 10}"])
    func rateControlledPiecesJoinToTheRenderThatCodesGroupsApartAndKeepKeyframesOnTheCuts(video: String) async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // The render the pieces join to: every group of pictures coded by an encoder of its
        // own, as each piece's are. A plain render codes on with one encoder.
        let apart = video.replacingOccurrences(of: "}", with: ", \"independentGroups\": true}")
        _ = try Self.dashboard(video: apart, in: folder)
        #expect(await ReelProcess.reel(["render", "c.json", "-o", "apart.mp4"], in: folder).status == 0)
        let c = try Self.dashboard(video: video, in: folder)
        #expect(await ReelProcess.reel(["render", c, "-o", "whole.mp4"], in: folder).status == 0)
        try await Self.renderPieces(c, pieces: 3, in: folder)
        let join = await ReelProcess.reel(["join", "plan.json", "-o", "joined.mp4"], in: folder)
        #expect(join.status == 0, "\(join.stderr)")
        let joined = try ReelProcess.frameHashes("joined.mp4", in: folder)
        #expect(joined.count == 60)
        #expect(try ReelProcess.frameHashes("apart.mp4", in: folder) == joined)
        // Against the plain render: close, and no larger (docs/scale-out.md).
        let ffmpeg = try #require(TestTools.which("ffmpeg"))
        let psnr = try TestTools.run(
            ffmpeg, ["-v", "error", "-i", "joined.mp4", "-i", "whole.mp4", "-lavfi", "[0:v][1:v]psnr=stats_file=psnr.txt", "-f", "null", "-"], in: folder)
        #expect(psnr.status == 0, "\(psnr.stderr)")
        let values = try String(contentsOf: folder.appendingPathComponent("psnr.txt"), encoding: .utf8).split(separator: "\n").compactMap { line in
            line.split(separator: " ").first { $0.hasPrefix("psnr_avg:") }.map { Double($0.dropFirst("psnr_avg:".count)) ?? .infinity }
        }
        #expect(values.count == 60)
        #expect(values.allSatisfy { $0 >= 33 }, "\(values.min() ?? 0) dB")
        let sizes = try ["joined.mp4", "whole.mp4"].map { try Self.videoBytes($0, in: folder) }
        #expect(Double(sizes[0]) <= 1.05 * Double(sizes[1]), "joined \(sizes[0]) bytes of video, the single render \(sizes[1])")
        // A keyframe exactly every 10 frames, the cuts among them, and nowhere else.
        let ffprobe = try #require(TestTools.which("ffprobe"))
        let packets = try TestTools.run(
            ffprobe, ["-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts,flags", "-of", "csv=p=0", "joined.mp4"], in: folder)
        var rows: [(pts: Int, keyframe: Bool)] = []
        for line in packets.stdout.split(separator: "\n") {
            let fields = line.split(separator: ",")
            guard fields.count >= 2, let pts = Int(fields[0]) else { continue }
            rows.append((pts, fields[1].contains("K")))
        }
        rows.sort { $0.pts < $1.pts }
        #expect(rows.count == 60)
        let keyframes: [Int] = rows.indices.filter { rows[$0].keyframe }
        #expect(keyframes == [0, 10, 20, 30, 40, 50], "\(keyframes)")
    }

    @Test(.requires(.ffmpeg, .ffprobe))
    func aMissingOrUnfinishedPieceIsNamedAndNothingIsWritten() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let c = try Self.dashboard(video: Self.qp, in: folder)
        try await Self.renderPieces(c, pieces: 3, in: folder)
        let pieces = folder.appendingPathComponent("plan.pieces")
        // Piece 1 never ran; piece 2 was killed after its file was replaced but before its stamp.
        try FileManager.default.removeItem(at: pieces.appendingPathComponent("piece-0001.mov"))
        try FileManager.default.removeItem(at: pieces.appendingPathComponent("piece-0002.json"))
        let join = await ReelProcess.reel(["join", "plan.json", "-o", "joined.mp4"], in: folder)
        #expect(join.status == 2)
        #expect(join.stderrLines.count == 1 && join.stderr.contains("missing pieces 1, 2"), "\(join.stderr)")
        #expect(!Self.exists("joined.mp4", in: folder))
        // A piece whose file was changed after its stamp is bad, and named.
        #expect(await ReelProcess.reel(["render", "--plan", "plan.json", "--chunk", "1"], in: folder).status == 0)
        #expect(await ReelProcess.reel(["render", "--plan", "plan.json", "--chunk", "2"], in: folder).status == 0)
        let handle = try FileHandle(forWritingTo: pieces.appendingPathComponent("piece-0000.mov"))
        try handle.truncate(atOffset: 1000)
        try handle.close()
        let bad = await ReelProcess.reel(["join", "plan.json", "-o", "joined.mp4"], in: folder)
        #expect(bad.status == 2 && bad.stderrLines.count == 1 && bad.stderr.contains("bad piece 0"), "\(bad.stderr)")
        #expect(!Self.exists("joined.mp4", in: folder))
    }

    /// Puts `file` in place of piece `index` of `folder`'s plan and stamps it complete, as a
    /// task that had rendered it would (the stamp's size is the new file's).
    static func replacePiece(_ index: Int, with file: URL, in folder: URL) throws {
        let piece = folder.appendingPathComponent(String(format: "plan.pieces/piece-%04d.mov", index))
        let stamp = piece.deletingPathExtension().appendingPathExtension("json")
        try FileManager.default.removeItem(at: piece)
        try FileManager.default.copyItem(at: file, to: piece)
        var fields = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: stamp)) as? [String: Any])
        fields["bytes"] = try #require(try FileManager.default.attributesOfItem(atPath: piece.path)[.size] as? NSNumber)
        try JSONSerialization.data(withJSONObject: fields).write(to: stamp)
    }

    /// A join of the plan in `folder` that must fail naming `mentions`, on one line, and
    /// write nothing.
    static func expectJoinRefused(in folder: URL, mentions: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let join = await ReelProcess.reel(["join", "plan.json", "-o", "joined.mp4"], in: folder)
        #expect(join.status == 2 && join.stderrLines.count == 1, "\(join.stderr)", sourceLocation: sourceLocation)
        #expect(join.stderr.contains(mentions), "\(join.stderr)", sourceLocation: sourceLocation)
        let written = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasPrefix("joined") || $0.hasPrefix(".joined") }
        #expect(written.isEmpty, "\(written)", sourceLocation: sourceLocation)
    }

    @Test(.requires(.ffmpeg, .ffprobe))
    func aStampedPieceWithOtherCodecSettingsFramesOrTimesIsNamedAndNothingIsWritten() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let c = try Self.dashboard(video: Self.qp, in: folder)
        try await Self.renderPieces(c, pieces: 3, in: folder)
        let pieces = folder.appendingPathComponent("plan.pieces")
        let kept = folder.appendingPathComponent("kept")
        try FileManager.default.copyItem(at: pieces, to: kept)
        #expect(await ReelProcess.reel(["join", "plan.json", "-o", "first.mp4"], in: folder).status == 0)
        // The same render with x264's "slow" preset (another reference frame count in its
        // SPS): piece 1 of it has the same frames at the same times, in another codec
        // configuration, which a decoder of the joined stream would not be told about.
        let other = folder.appendingPathComponent("other")
        try FileManager.default.createDirectory(at: other, withIntermediateDirectories: true)
        let slow = try Self.dashboard(video: Self.qp.replacingOccurrences(of: "veryfast", with: "slow"), in: other)
        try await Self.renderPieces(slow, pieces: 3, in: other)
        try Self.replacePiece(1, with: other.appendingPathComponent("plan.pieces/piece-0001.mov"), in: folder)
        try await Self.expectJoinRefused(in: folder, mentions: "bad piece 1 (its codec configuration differs from piece 0's")
        try Self.replacePiece(1, with: kept.appendingPathComponent("piece-0001.mov"), in: folder)
        // Piece 2 cut to its first group of pictures: 10 of its 20 frames.
        let ffmpeg = try #require(TestTools.which("ffmpeg"))
        let short = folder.appendingPathComponent("short.mov")
        let cut = try TestTools.run(
            ffmpeg,
            [
                "-v", "error", "-i", kept.appendingPathComponent("piece-0002.mov").path, "-map", "0:v",
                "-c", "copy", "-frames:v", "10", short.path,
            ])
        #expect(cut.status == 0, "\(cut.stderr)")
        try Self.replacePiece(2, with: short, in: folder)
        try await Self.expectJoinRefused(in: folder, mentions: "bad piece 2 (piece-0002.mov has 10 frames, expected 20)")
        try Self.replacePiece(2, with: kept.appendingPathComponent("piece-0002.mov"), in: folder)
        // Piece 0 with its times doubled: the right frames, one every two frame durations.
        let slowed = folder.appendingPathComponent("slowed.mov")
        let times = try TestTools.run(
            ffmpeg,
            [
                "-v", "error", "-i", kept.appendingPathComponent("piece-0000.mov").path, "-map", "0:v",
                "-c", "copy", "-bsf:v", "setts=pts=2*PTS:dts=2*DTS:duration=2*DURATION", slowed.path,
            ])
        #expect(times.status == 0, "\(times.stderr)")
        try Self.replacePiece(0, with: slowed, in: folder)
        try await Self.expectJoinRefused(in: folder, mentions: "bad piece 0 (piece-0000.mov: frame 1 is at ")
        // Put back, the pieces join into the same file as before.
        try Self.replacePiece(0, with: kept.appendingPathComponent("piece-0000.mov"), in: folder)
        #expect(await ReelProcess.reel(["join", "plan.json", "-o", "second.mp4"], in: folder).status == 0)
        #expect(try ReelProcess.frameHashes("second.mp4", in: folder) == ReelProcess.frameHashes("first.mp4", in: folder))
    }

    @Test(.requires(.ffmpeg, .ffprobe))
    func aRotatedSourceJoinsUprightLikeTheSingleRender() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let c = try RenderCommandTests.write(
            """
            {"version": 1, "sources": [{"name": "camera", "path": "../../Fixtures/rotated-90.mp4"}],
             "tracks": [{"trackID": 1, "mediaType": "video", "segments": [{"source": "camera"}]},
                        {"trackID": 2, "mediaType": "audio", "segments": [{"source": "camera"}]}],
             "instructions": [{"timeRange": {"start": 0, "end": "end"}, "layerInstructions": [{"trackID": 1}]}],
             "output": {"video": {"codec": "h264", "qp": 24, "preset": "veryfast", "keyframeInterval": 10}}}
            """, in: folder)
        #expect(await ReelProcess.reel(["render", c, "-o", "whole.mp4"], in: folder).status == 0)
        try await Self.renderPieces(c, pieces: 3, in: folder)
        let join = await ReelProcess.reel(["join", "plan.json", "-o", "joined.mp4"], in: folder)
        #expect(join.status == 0, "\(join.stderr)")
        // The source is coded 320x240 with a 90° display matrix; a render turns the pictures
        // upright (240x320, no matrix left), and the join is that render, frame for frame.
        let ffprobe = try #require(TestTools.which("ffprobe"))
        func orientation(_ file: String) throws -> String {
            let out = try TestTools.run(
                ffprobe,
                [
                    "-v", "error", "-select_streams", "v:0", "-show_entries", "stream=width,height:stream_side_data=rotation",
                    "-of", "compact=p=0:nk=1", file,
                ], in: folder)
            return out.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let source = try orientation(TestFiles.fixture("rotated-90.mp4").path), single = try orientation("whole.mp4")
        #expect(source == "320|240|90" && single == "240|320", "\(source); \(single)")
        #expect(try orientation("joined.mp4") == single)
        let whole = try ReelProcess.frameHashes("whole.mp4", in: folder)
        #expect(whole.count == 60)
        #expect(try ReelProcess.frameHashes("joined.mp4", in: folder) == whole)
        // Turned the right way: close to the source as a player shows it (ffmpeg applies its
        // display matrix), far from it turned upside down.
        func psnr(_ graph: String) throws -> Double {
            let ffmpeg = try #require(TestTools.which("ffmpeg"))
            let out = try TestTools.run(
                ffmpeg, ["-i", "joined.mp4", "-i", TestFiles.fixture("rotated-90.mp4").path, "-lavfi", graph, "-f", "null", "-"], in: folder)
            let average = out.stderr.components(separatedBy: "average:").last?.split(separator: " ").first
            return try #require(average.flatMap { Double($0) }, "\(out.stderr.suffix(300))")
        }
        #expect(try psnr("[0:v][1:v]psnr") >= 35)
        #expect(try psnr("[1:v]hflip,vflip[r];[0:v][r]psnr") < 20)
    }

    @Test(.requires(.ffmpeg, .ffprobe))
    func aRerunPieceIsNotRenderedAgainAndARenderedAgainOneJoinsTheSame() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let c = try Self.dashboard(video: Self.qp, in: folder)
        try await Self.renderPieces(c, pieces: 3, in: folder)
        #expect(await ReelProcess.reel(["join", "plan.json", "-o", "first.mp4"], in: folder).status == 0)
        let piece = folder.appendingPathComponent("plan.pieces/piece-0001.mov")
        let before = try FileManager.default.attributesOfItem(atPath: piece.path)[.modificationDate] as? Date
        let again = await ReelProcess.reel(["render", "--plan", "plan.json", "--chunk", "1"], in: folder)
        #expect(again.status == 0 && again.stderr.contains("piece 1 is already complete"), "\(again.stderr)")
        #expect(try FileManager.default.attributesOfItem(atPath: piece.path)[.modificationDate] as? Date == before)
        // Its stamp gone (a task killed while rendering it again): rendered again, same result.
        try FileManager.default.removeItem(at: folder.appendingPathComponent("plan.pieces/piece-0001.json"))
        let rerun = await ReelProcess.reel(["render", "--plan", "plan.json", "--chunk", "1"], in: folder)
        #expect(rerun.status == 0 && rerun.stderr.contains("wrote piece 1"), "\(rerun.stderr)")
        #expect(await ReelProcess.reel(["join", "plan.json", "-o", "second.mp4"], in: folder).status == 0)
        #expect(try ReelProcess.frameHashes("second.mp4", in: folder) == ReelProcess.frameHashes("first.mp4", in: folder))
        // The join refuses to replace an output without --overwrite.
        let exists = await ReelProcess.reel(["join", "plan.json", "-o", "second.mp4"], in: folder)
        #expect(exists.status == 1 && exists.stderr.contains("--overwrite"))
    }

    @Test(.requires(.ffmpeg, .ffprobe))
    func aPieceFromAChangedSourceIsRefused() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = folder.appendingPathComponent("camera.mp4")
        try FileManager.default.copyItem(at: TestFiles.packageRoot.appendingPathComponent("Fixtures/counter-gps.mp4"), to: source)
        let c = try Self.dashboard(video: Self.qp, in: folder, source: source.path)
        try await Self.renderPieces(c, pieces: 2, in: folder)
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: 60)], ofItemAtPath: source.path)
        let render = await ReelProcess.reel(["render", "--plan", "plan.json", "--chunk", "1"], in: folder)
        #expect(render.status == 2 && render.stderrLines.count == 1 && render.stderr.contains("source \"camera\""), "\(render.stderr)")
        let join = await ReelProcess.reel(["join", "plan.json", "-o", "joined.mp4"], in: folder)
        #expect(join.status == 2 && join.stderrLines.count == 1 && join.stderr.contains("changed"), "\(join.stderr)")
        #expect(!Self.exists("joined.mp4", in: folder))
        // Planned again, the old pieces belong to the old plan and are rendered again.
        #expect(await ReelProcess.reel(["plan", c, "--chunks", "2", "-o", "plan.json", "--overwrite"], in: folder).status == 0)
        let stale = await ReelProcess.reel(["join", "plan.json", "-o", "joined.mp4"], in: folder)
        #expect(stale.status == 2 && stale.stderr.contains("bad piece 0 (it was rendered for another plan)"), "\(stale.stderr)")
    }

    @Test(.requires(.ffmpeg, .ffprobe))
    func badInputIsOneLineAndLeavesNoPiece() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let c = try Self.dashboard(video: Self.qp, in: folder)
        #expect(await ReelProcess.reel(["plan", c, "--chunks", "2", "-o", "plan.json"], in: folder).status == 0)
        // A plan for another composition.
        try RenderCommandTests.dashboard.write(to: folder.appendingPathComponent("other.json"), atomically: true, encoding: .utf8)
        let other = await ReelProcess.reel(["render", "other.json", "--plan", "plan.json", "--chunk", "0"], in: folder)
        #expect(other.status == 2 && other.stderrLines.count == 1 && other.stderr.contains("not the composition the plan was made for"), "\(other.stderr)")
        // A piece index out of range, given or from the scheduler.
        let range = await ReelProcess.reel(["render", "--plan", "plan.json", "--chunk", "2"], in: folder)
        #expect(
            range.status == 2 && range.stderrLines.count == 1 && range.stderr.contains("piece 2 is out of range: the plan has 2 pieces, 0 to 1"),
            "\(range.stderr)")
        let environment = await ReelProcess.reel(["render", "--plan", "plan.json"], in: folder, environment: ["SLURM_ARRAY_TASK_ID": "7"])
        #expect(environment.status == 2 && environment.stderr.contains("piece 7 is out of range"), "\(environment.stderr)")
        let none = await ReelProcess.reel(["render", "--plan", "plan.json"], in: folder)
        #expect(none.status == 2 && none.stderr.contains("--chunk"), "\(none.stderr)")
        // A work folder that cannot be made (its parent is a file).
        try Data("not a folder".utf8).write(to: folder.appendingPathComponent("file"))
        #expect(await ReelProcess.reel(["plan", c, "--chunks", "2", "-o", "blocked.json", "--work-folder", "file/pieces"], in: folder).status == 0)
        let blocked = await ReelProcess.reel(["render", "--plan", "blocked.json", "--chunk", "0"], in: folder)
        #expect(blocked.status == 1 && blocked.stderrLines.count == 1, "\(blocked.stderr)")
        #expect(
            blocked.stderr.contains("\(folder.path)/file/pieces: the work folder cannot be made: \(folder.path)/file is a file, not a folder"),
            "\(blocked.stderr)")
        // A negative index, with or without `=`: one line.
        for arguments in [["--chunk", "-1"], ["--chunk=-1"]] {
            let negative = await ReelProcess.reel(["render", "--plan", "plan.json"] + arguments, in: folder)
            #expect(negative.status == 2 && negative.stderrLines.count == 1 && negative.stderr.contains("piece -1 is out of range"), "\(negative.stderr)")
        }
        // A file that is not a plan.
        let notPlan = await ReelProcess.reel(["join", c, "-o", "out.mp4"], in: folder)
        #expect(notPlan.status == 2 && notPlan.stderrLines.count == 1 && notPlan.stderr.contains("is not a render plan"), "\(notPlan.stderr)")
        // Nothing was rendered, nothing looks complete.
        let work = (try? FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("plan.pieces").path)) ?? []
        #expect(work.isEmpty, "\(work)")
        #expect(!Self.exists("out.mp4", in: folder))
    }

    // MARK: Smart-rendered pieces

    /// Three 6 s clips (x264 with `bFrames` B-frames, a keyframe every 2 s, the same settings, so one
    /// set of parameter sets), cut into a 10.7 s composition that smart-renders: the first
    /// 4 s of `a` (two whole groups of pictures, copied), then `b` from 1 s and `c` from 2 s.
    static func smartComposition(in folder: URL, bFrames: Int) throws -> String {
        let ffmpeg = try #require(TestTools.which("ffmpeg"))
        for (name, source) in [("a", "testsrc2"), ("b", "testsrc"), ("c", "rgbtestsrc")] {
            let out = try TestTools.run(
                ffmpeg,
                [
                    "-v", "error", "-y", "-f", "lavfi", "-i", "\(source)=size=320x240:rate=30:duration=6",
                    "-c:v", "libx264", "-preset", "veryfast", "-crf", "20", "-bf", "\(bFrames)", "-g", "60", "-keyint_min", "60",
                    "-sc_threshold", "0", "-pix_fmt", "yuv420p", "\(name).mp4",
                ], in: folder)
            #expect(out.status == 0, "\(out.stderr)")
        }
        func composition(_ video: String) -> String {
            let cuts = [("a", 0.0, 4.0), ("b", 1.0, 3.5), ("c", 2.0, 3.2)]
            let segments = cuts.map { "{\"source\": \"\($0.0)\", \"sourceStart\": \($0.1), \"duration\": \($0.2)}" }.joined(separator: ", ")
            return """
                {"version": 1, "sources": [{"name": "a", "path": "a.mp4"}, {"name": "b", "path": "b.mp4"}, {"name": "c", "path": "c.mp4"}],
                 "tracks": [{"trackID": 1, "mediaType": "video", "segments": [\(segments)]}],
                 "instructions": [{"timeRange": {"start": 0, "end": "end"}, "layerInstructions": [{"trackID": 1}]}],
                 "output": {"video": \(video)}}
                """
        }
        try composition("{\"codec\": \"ffv1\"}").write(to: folder.appendingPathComponent("lossless.json"), atomically: true, encoding: .utf8)
        try composition("{\"codec\": \"h264\", \"crf\": 18, \"smartRender\": \"auto\"}")
            .write(to: folder.appendingPathComponent("smart.json"), atomically: true, encoding: .utf8)
        return "smart.json"
    }

    /// The MD5 of each of `file`'s video packets' payload, in decode order (ffprobe).
    static func videoPacketHashes(_ file: String, in folder: URL) throws -> [String] {
        let ffprobe = try #require(TestTools.which("ffprobe"))
        let out = try TestTools.run(
            ffprobe, ["-v", "error", "-select_streams", "v:0", "-show_data_hash", "md5", "-show_entries", "packet=data_hash", "-of", "csv=p=0", file],
            in: folder)
        return out.stdout.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { $0.hasPrefix("MD5:") }
    }

    /// A smart render planned in three pieces: the first copies everything (its sample
    /// description holds the sources' parameter sets alone), the second copies and
    /// encodes, the last encodes everything (a piece boundary cuts its one group of
    /// pictures). The join holds every parameter set the pieces use, decode times that
    /// increase across the joints, the single render's frame times, the sources' packets
    /// bit for bit where copied, and the composition's frames. (The single render copies
    /// a group more: the one the second piece boundary cuts.) Sources with no B-frames
    /// give pieces of different reorder delays: copied packets decode as they present, the
    /// encoded stretches two frames ahead.
    @Test(.requires(.ffmpeg, .ffprobe), arguments: [3, 0])
    func smartRenderedPiecesJoinIntoOneCleanStreamOfCopiedAndEncodedFrames(bFrames: Int) async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let c = try Self.smartComposition(in: folder, bFrames: bFrames)
        let whole = await ReelProcess.reel(["render", c, "-o", "whole.mp4"], in: folder)
        #expect(whole.status == 0 && whole.stderr.contains("smart render: 240 frames copied, 81 encoded"), "\(whole.stderr)")
        #expect(await ReelProcess.reel(["render", "lossless.json", "-o", "reference.mkv"], in: folder).status == 0)
        #expect(await ReelProcess.reel(["plan", c, "--chunks", "3", "-o", "plan.json"], in: folder).status == 0)
        // Pieces of 120, 120 and 81 frames.
        let expected = ["120 frames copied, 0 encoded", "60 frames copied, 60 encoded", "0 frames copied, 81 encoded"]
        for (k, said) in expected.enumerated() {
            let out = await ReelProcess.reel(["render", "--plan", "plan.json", "--chunk", String(k)], in: folder)
            #expect(out.status == 0 && out.stderr.contains("smart render: \(said)"), "piece \(k): \(out.stderr)")
        }
        let join = await ReelProcess.reel(["join", "plan.json", "-o", "joined.mp4"], in: folder)
        #expect(join.status == 0, "\(join.stderr)")
        // Decoded with no message at all (a parameter set missing from the sample
        // description says "non-existing PPS"; decode times out of order, "non monotonic").
        let ffmpeg = try #require(TestTools.which("ffmpeg"))
        let decode = try TestTools.run(ffmpeg, ["-v", "error", "-i", "joined.mp4", "-f", "null", "-"], in: folder)
        #expect(decode.status == 0 && decode.stderr.isEmpty, "\(decode.stderr)")
        let ffprobe = try #require(TestTools.which("ffprobe"))
        let dts = try TestTools.run(
            ffprobe, ["-v", "error", "-select_streams", "v:0", "-show_entries", "packet=dts", "-of", "csv=p=0", "joined.mp4"], in: folder)
        let decodeTimes = dts.stdout.split(separator: "\n").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        #expect(decodeTimes.count == 321 && zip(decodeTimes, decodeTimes.dropFirst()).allSatisfy { $0 < $1 }, "\(decodeTimes)")
        // The single render's frames and times.
        // (A frame with side data has more, empty, fields after its time.)
        let times = { (file: String) throws -> [Double] in
            try TestTools.run(ffprobe, ["-v", "error", "-select_streams", "v:0", "-show_entries", "frame=pts_time", "-of", "csv=p=0", file], in: folder)
                .stdout.split(separator: "\n").compactMap { $0.split(separator: ",").first.flatMap { Double($0.trimmingCharacters(in: .whitespaces)) } }
        }
        #expect(try times("joined.mp4") == times("whole.mp4"))
        #expect(try times("joined.mp4").count == 321)
        // Every packet of the three groups of pictures the pieces show whole, bit for bit.
        let joined = try Self.videoPacketHashes("joined.mp4", in: folder)
        var sources: Set<String> = []
        for name in ["a.mp4", "b.mp4", "c.mp4"] { sources.formUnion(try Self.videoPacketHashes(name, in: folder)) }
        #expect(joined.filter { sources.contains($0) }.count == 180)
        // The composition's frames (frame by frame: the Matroska reference's times are in
        // milliseconds): copied ones exactly, encoded ones within 42 dB on average.
        let psnr = try TestTools.run(
            ffmpeg,
            [
                "-v", "error", "-i", "joined.mp4", "-i", "reference.mkv", "-lavfi",
                "[0:v]setpts=N/(30*TB)[a];[1:v]setpts=N/(30*TB)[b];[a][b]psnr=stats_file=psnr.txt", "-f", "null", "-",
            ], in: folder)
        #expect(psnr.status == 0, "\(psnr.stderr)")
        let values = try String(contentsOf: folder.appendingPathComponent("psnr.txt"), encoding: .utf8).split(separator: "\n").compactMap { line in
            line.split(separator: " ").first { $0.hasPrefix("psnr_avg:") }.map { Double($0.dropFirst("psnr_avg:".count)) ?? .infinity }
        }
        #expect(values.count == 321)
        let finite = values.filter(\.isFinite)
        #expect(values.count - finite.count >= 180, "\(values.count - finite.count) frames identical")
        #expect(finite.reduce(0, +) / Double(max(finite.count, 1)) >= 42 && (finite.min() ?? 0) >= 38, "\(finite)")
    }
}
