import Foundation
import ReelCore
import ReelDocuments
import ReelIO
import ReelMetadata
import ReelTestSupport
import Testing

@testable import Reel

/// Smart render of H.264 trims and joins: clips made here with the ffmpeg CLI (x264 with
/// B-frames, a keyframe every 2 s), cut and joined by a composition file, rendered three
/// ways: smart, in full (every frame encoded), and losslessly (FFV1, the composition's
/// exact frames, the reference).
@Suite("SmartRender", .requires(.ffmpeg, .ffprobe))
struct SmartRenderTests {
    /// One cut of a source: `duration` seconds from `start`.
    struct Cut: Sendable {
        var source: String
        var start: Double
        var duration: Double
    }

    static let fps = 30
    static let gopFrames = 60
    static let cuts = [
        Cut(source: "a", start: 1, duration: 3.5), Cut(source: "b", start: 0.5, duration: 4.5),
        Cut(source: "c", start: 2, duration: 3.2),
    ]

    /// The clips, the composition and its three renders, made once for the suite.
    struct Renders: Sendable {
        var folder: URL
        var smart: URL
        var full: URL
        var reference: URL
        var summary: SmartRenderSummary
        var diagnostics: [String]
    }

    static let renders = Task { () throws -> Renders in try await makeRenders() }

    static func makeClip(_ name: String, source: String, in folder: URL, size: String = "320x240", codec: [String]? = nil) throws -> URL {
        let url = folder.appendingPathComponent("\(name).mp4")
        let video =
            codec ?? [
                "-c:v", "libx264", "-preset", "veryfast", "-crf", "20", "-bf", "3", "-g", "\(gopFrames)",
                "-keyint_min", "\(gopFrames)", "-sc_threshold", "0", "-pix_fmt", "yuv420p",
            ]
        try TestTools.output(
            "ffmpeg",
            [
                "-v", "error", "-y", "-f", "lavfi", "-i", "\(source)=size=\(size):rate=\(fps):duration=6",
                "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=6",
            ]
                + video + ["-c:a", "aac", "-shortest", url.path])
        return url
    }

    /// A composition file playing `cuts` one after another, video and sound.
    static func compositionJSON(_ cuts: [Cut], video: String) -> String {
        let sources = Set(cuts.map(\.source)).sorted().map { "{\"name\": \"\($0)\", \"path\": \"\($0).mp4\"}" }
        let segments = cuts.map { "{\"source\": \"\($0.source)\", \"sourceStart\": \($0.start), \"duration\": \($0.duration)}" }
        return """
            {"version": 1, "sources": [\(sources.joined(separator: ", "))],
             "tracks": [{"trackID": 1, "mediaType": "video", "segments": [\(segments.joined(separator: ", "))]},
                        {"trackID": 2, "mediaType": "audio", "segments": [\(segments.joined(separator: ", "))]}],
             "instructions": [{"timeRange": {"start": 0, "end": "end"}, "layerInstructions": [{"trackID": 1}]}],
             "output": {"video": \(video)}}
            """
    }

    /// Renders the composition file at `path` into `output`; returns the session and the
    /// diagnostic lines.
    static func render(_ path: URL, to output: URL, smart: SmartRendering) async throws -> (AssetExportSession, [String]) {
        let loaded = try await LoadedComposition.load(path: path.path)
        let out = loaded.file.output ?? CompositionFile.Output()
        let size = loaded.videoComposition.renderPixelSize
        let settings = try out.videoSettings(width: size.width, height: size.height, frameDuration: loaded.videoComposition.frameDuration)
        let fileType = try out.fileType(forOutputPath: output.path)
        let session = await loaded.makeExportSession(
            settings: settings, audioCodec: try out.audioEncoderCodec(for: fileType),
            metadataFormat: .auto, overwrite: true)
        session.smartRendering = smart
        // What `reel render` renders: the video's span (a camera's GPS track may outlast it).
        session.timeRange = loaded.renderRange
        let lines = Lock<[String]>([])
        var options = session.renderOptions
        options.diagnostics = { d in lines.withLock { $0.append(d.description) } }
        session.renderOptions = options
        try await session.export(to: output, as: fileType)
        return (session, lines.withLock { $0 })
    }

    static func makeRenders() async throws -> Renders {
        let folder = try TestFiles.scratchFolder()
        _ = try makeClip("a", source: "testsrc2", in: folder)
        _ = try makeClip("b", source: "testsrc", in: folder)
        _ = try makeClip("c", source: "rgbtestsrc", in: folder)
        let composition = folder.appendingPathComponent("cuts.json")
        try compositionJSON(cuts, video: "{\"codec\": \"h264\", \"crf\": 18}").write(to: composition, atomically: true, encoding: .utf8)
        let lossless = folder.appendingPathComponent("lossless.json")
        try compositionJSON(cuts, video: "{\"codec\": \"ffv1\"}").write(to: lossless, atomically: true, encoding: .utf8)
        let smart = folder.appendingPathComponent("smart.mp4"), full = folder.appendingPathComponent("full.mp4")
        let reference = folder.appendingPathComponent("reference.mkv")
        let (session, diagnostics) = try await render(composition, to: smart, smart: .auto)
        _ = try await render(composition, to: full, smart: .off)
        _ = try await render(lossless, to: reference, smart: .off)
        let summary = try #require(session.smartRenderSummary)
        return Renders(folder: folder, smart: smart, full: full, reference: reference, summary: summary, diagnostics: diagnostics)
    }

    /// Each frame's presentation time in seconds, in presentation order (ffprobe).
    static func frameTimes(_ url: URL) throws -> [Double] {
        try TestTools.outputString(
            "ffprobe",
            [
                "-v", "error", "-select_streams", "v:0", "-show_entries", "frame=pts_time",
                "-of", "csv=p=0", url.path,
            ]
        )
        .split(separator: "\n").compactMap { line in
            // A frame with side data has more (empty) fields after its time.
            line.split(separator: ",", omittingEmptySubsequences: false).first.flatMap { Double($0.trimmingCharacters(in: .whitespaces)) }
        }
    }

    /// Each frame's MD5 (ffmpeg framemd5), in presentation order.
    static func frameHashes(_ url: URL) throws -> [String] {
        try TestTools.outputString("ffmpeg", ["-v", "error", "-i", url.path, "-map", "0:v:0", "-pix_fmt", "yuv420p", "-f", "framemd5", "-"])
            .split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { $0.split(separator: ",").last?.trimmingCharacters(in: .whitespaces) }
    }

    /// Which output frames (by index) each stretch of the summary holds, copied or not.
    static func frameIsCopied(_ summary: SmartRenderSummary) -> [Bool] {
        summary.stretches.flatMap { [Bool](repeating: $0.isCopied, count: $0.frameCount) }
    }

    /// The frames of whole 2 s groups of pictures each cut shows: what must be copied.
    static var expectedCopiedFrames: Int {
        cuts.reduce(0) { total, cut in
            let first = Int((cut.start * Double(fps)).rounded()), end = first + Int((cut.duration * Double(fps)).rounded())
            let groups = stride(from: 0, to: 6 * fps, by: gopFrames).filter { $0 >= first && $0 + gopFrames <= end }
            return total + groups.count * gopFrames
        }
    }

    // MARK: The plan

    @Test func copiesEveryWholeGroupOfPicturesAndEncodesTheCuts() async throws {
        let r = try await Self.renders.value
        #expect(r.summary.fallbackReason == nil, "\(r.summary.lines)")
        #expect(r.diagnostics.isEmpty, "\(r.diagnostics)")
        #expect(r.summary.copiedFrameCount == Self.expectedCopiedFrames, "\(r.summary.lines)")
        let total = Self.cuts.reduce(0) { $0 + Int(($1.duration * Double(Self.fps)).rounded()) }
        #expect(r.summary.copiedFrameCount + r.summary.encodedFrameCount == total)
        // Every copied stretch is whole groups of pictures.
        #expect(r.summary.stretches.filter(\.isCopied).allSatisfy { $0.frameCount % Self.gopFrames == 0 }, "\(r.summary.lines)")
    }

    // MARK: Exactness

    @Test func frameCountAndEveryFrameTimeEqualAFullRender() async throws {
        let r = try await Self.renders.value
        let smart = try Self.frameTimes(r.smart), full = try Self.frameTimes(r.full)
        #expect(smart.count == full.count)
        #expect(smart.count == r.summary.copiedFrameCount + r.summary.encodedFrameCount)
        #expect(
            zip(smart, full).allSatisfy { abs($0 - $1) < 1e-6 },
            "first difference at frame \(smart.indices.first { $0 < full.count && abs(smart[$0] - full[$0]) >= 1e-6 } ?? -1)")
    }

    @Test func decodesWithNoMessage() async throws {
        let r = try await Self.renders.value
        let run = try TestTools.run("ffmpeg", ["-v", "error", "-i", r.smart.path, "-f", "null", "-"])
        #expect(run.status == 0)
        #expect(run.stderr.isEmpty, "\(run.stderr.prefix(600))")
    }

    /// A browser's decoder is stricter about a spliced stream than FFmpeg's: Chromium plays
    /// the smart render to its end with no dropped or corrupted frame.
    @Test(.requires(.chromium))
    func chromiumPlaysItToTheEnd() async throws {
        let r = try await Self.renders.value
        // A copy of its own: the page the script writes goes beside the video.
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let video = folder.appendingPathComponent("smart.mp4")
        try FileManager.default.copyItem(at: r.smart, to: video)
        let script = TestFiles.packageRoot.appendingPathComponent("Tests/Browser/play_video.py").path
        let run = try TestTools.run("python3", [script, video.path])
        #expect(run.status == 0, "\(run.stdout)\n\(run.stderr.suffix(1500))")
        let frames = try Self.frameTimes(r.smart).count
        #expect(run.stdout.contains("ended=True") && run.stdout.contains("frames=\(frames) "), "\(run.stdout)")
    }

    @Test func sampleDescriptionHoldsEveryParameterSetUnderDistinctIDs() async throws {
        let r = try await Self.renders.value
        let reader = try await AssetReader.open(url: r.smart)
        let track = try #require(reader.tracks(withMediaType: .video).first)
        let avcC = try #require(AVCConfiguration(track.formatDescription.codecConfiguration))
        let source = try await AssetReader.open(url: r.folder.appendingPathComponent("a.mp4"))
        let sourceTrack = try #require(source.tracks(withMediaType: .video).first)
        let sourceAVC = try #require(AVCConfiguration(sourceTrack.formatDescription.codecConfiguration))
        #expect(avcC.sequenceParameterSets.count == 2)
        #expect(Set(avcC.sequenceParameterSetIDs).count == 2)
        #expect(Set(avcC.pictureParameterSetIDs).count == 2)
        #expect(avcC.sequenceParameterSets.first == sourceAVC.sequenceParameterSets.first)
        #expect(avcC.profile == sourceAVC.profile && avcC.level == sourceAVC.level)
    }

    @Test func copiedPacketsAreTheSourcesBitForBit() async throws {
        let r = try await Self.renders.value
        // The output's packets by presentation time.
        func packets(_ url: URL) async throws -> [(MediaTime, Data)] { try await Self.samples(url, .video) }
        let output = try await packets(r.smart)
        var sources: [String: [(MediaTime, Data)]] = [:]
        for cut in Self.cuts where sources[cut.source] == nil {
            sources[cut.source] = try await packets(r.folder.appendingPathComponent("\(cut.source).mp4"))
        }
        var compared = 0
        var cutStart = 0.0
        for cut in Self.cuts {
            for stretch in r.summary.stretches where stretch.isCopied {
                let t = stretch.timeRange.start.seconds
                guard t >= cutStart - 1e-9, t < cutStart + cut.duration - 1e-9 else { continue }
                for (time, data) in output where stretch.timeRange.containsTime(time) {
                    let sourceTime = time.seconds - cutStart + cut.start
                    let match = sources[cut.source]?.first { abs($0.0.seconds - sourceTime) < 1e-6 }
                    #expect(match?.1 == data, "packet at \(time.seconds) s is not \(cut.source)'s at \(sourceTime) s")
                    compared += 1
                }
            }
            cutStart += cut.duration
        }
        #expect(compared == r.summary.copiedFrameCount)
        #expect(compared > 0)
    }

    @Test func copiedFramesDecodeToTheCompositionsFrames() async throws {
        let r = try await Self.renders.value
        let smart = try Self.frameHashes(r.smart), reference = try Self.frameHashes(r.reference)
        let copied = Self.frameIsCopied(r.summary)
        try #require(smart.count == reference.count && smart.count == copied.count)
        let differing = (0..<smart.count).filter { copied[$0] && smart[$0] != reference[$0] }
        #expect(differing.isEmpty, "copied frames \(differing.prefix(10)) differ from the composition's")
    }

    @Test func encodedFramesAreWithinPSNROfTheCompositionsFrames() async throws {
        let r = try await Self.renders.value
        let copied = Self.frameIsCopied(r.summary)
        for (name, against) in [("composition", r.reference), ("full render", r.full)] {
            let values = try Self.psnr(of: r.smart, against: against, log: r.folder.appendingPathComponent("psnr-\(name.count).log"))
            try #require(values.count == copied.count)
            let encoded = values.indices.filter { !copied[$0] }.map { values[$0] }
            try #require(!encoded.isEmpty)
            let average = encoded.reduce(0, +) / Double(encoded.count), worst = encoded.min() ?? 0
            print("smart render PSNR of \(encoded.count) encoded frames against the \(name): average \(average) dB, worst \(worst) dB")
            if name == "composition" {
                #expect(average >= 42, "average \(average) dB")
                #expect(worst >= 38, "worst \(worst) dB")
            }
        }
    }

    /// Each frame's PSNR (all planes, dB; 100 for identical frames) of `video` against
    /// `reference`, frame by frame in order (ffmpeg's psnr filter, its statistics in `log`).
    static func psnr(of video: URL, against reference: URL, log: URL) throws -> [Double] {
        try TestTools.output(
            "ffmpeg",
            [
                "-v", "error", "-i", video.path, "-i", reference.path,
                "-lavfi", "[0:v]setpts=N/(\(fps)*TB)[a];[1:v]setpts=N/(\(fps)*TB)[b];[a][b]psnr=stats_file=\(log.path)", "-f", "null", "-",
            ])
        // Lines "n:1 mse_avg:... psnr_avg:43.21 ..." (n counts from 1; inf for identical frames).
        return try String(contentsOf: log, encoding: .utf8).split(separator: "\n").map { line -> Double in
            let field = line.split(separator: " ").first { $0.hasPrefix("psnr_avg:") }?.dropFirst("psnr_avg:".count) ?? ""
            return field == "inf" ? 100 : Double(field) ?? 0
        }
    }

    // MARK: Sound

    @Test func soundIsTheFullRendersPacketForPacket() async throws {
        let r = try await Self.renders.value
        func audio(_ url: URL) async throws -> [(MediaTime, Data)] { try await Self.samples(url, .audio) }
        let smart = try await audio(r.smart), full = try await audio(r.full)
        try #require(!smart.isEmpty)
        #expect(smart.count == full.count)
        let differing = zip(smart, full).enumerated().filter { $0.element.0.0 != $0.element.1.0 || $0.element.0.1 != $0.element.1.1 }.map { $0.offset }
        #expect(differing.isEmpty, "audio packets \(differing.prefix(10)) differ from the full render's")
    }

    // MARK: A crossfade

    @Test func aCrossfadeEncodesOnlyTheGroupsOfPicturesItTouches() async throws {
        let r = try await Self.renders.value
        // A for 4.5 s, B from 3.5 s on a second track, a 1 s opacity ramp between.
        let fadeStart = 3.5, fadeEnd = 4.5
        let json = """
            {"version": 1, "sources": [{"name": "a", "path": "a.mp4"}, {"name": "b", "path": "b.mp4"}],
             "tracks": [{"trackID": 1, "mediaType": "video", "segments": [{"source": "a", "duration": \(fadeEnd)}]},
                        {"trackID": 2, "mediaType": "video", "segments": [{"empty": \(fadeStart)}, {"source": "b"}]}],
             "instructions": [{"timeRange": {"start": 0, "end": \(fadeStart)}, "layerInstructions": [{"trackID": 1}]},
               {"timeRange": {"start": \(fadeStart), "end": \(fadeEnd)}, "layerInstructions": [
                 {"trackID": 2, "opacityRamps": [{"from": 0, "to": 1, "timeRange": {"start": \(fadeStart), "end": \(fadeEnd)}}]}, {"trackID": 1}]},
               {"timeRange": {"start": \(fadeEnd), "end": "end"}, "layerInstructions": [{"trackID": 2}]}],
             "output": {"video": {"codec": "h264", "crf": 18}, "audio": false}}
            """
        let composition = r.folder.appendingPathComponent("crossfade.json")
        try json.write(to: composition, atomically: true, encoding: .utf8)
        let output = r.folder.appendingPathComponent("crossfade.mp4"), full = r.folder.appendingPathComponent("crossfade-full.mp4")
        let (session, diagnostics) = try await Self.render(composition, to: output, smart: .auto)
        _ = try await Self.render(composition, to: full, smart: .off)
        let summary = try #require(session.smartRenderSummary)
        #expect(summary.fallbackReason == nil && diagnostics.isEmpty, "\(summary.lines) \(diagnostics)")
        // The groups of pictures the fade touches: A's that holds its start, B's that holds its end.
        let gop = Double(Self.gopFrames) / Double(Self.fps)
        let touchedFrom = (fadeStart / gop).rounded(.down) * gop
        let touchedTo = fadeStart + ((fadeEnd - fadeStart) / gop).rounded(.up) * gop
        let frames = try Self.frameTimes(output)
        let copied = Self.frameIsCopied(summary)
        try #require(frames.count == copied.count)
        for (time, isCopied) in zip(frames, copied) {
            let touched = time >= touchedFrom - 1e-6 && time < touchedTo - 1e-6
            #expect(isCopied == !touched, "the frame at \(time) s is \(isCopied ? "copied" : "encoded")")
        }
        #expect(try Self.frameTimes(full) == frames)
        let run = try TestTools.run("ffmpeg", ["-v", "error", "-i", output.path, "-f", "null", "-"])
        #expect(run.stderr.isEmpty, "\(run.stderr.prefix(600))")
    }

    // MARK: Metadata

    /// The samples (time, bytes) of the first track of `type` in `url`.
    static func samples(_ url: URL, _ type: MediaType) async throws -> [(MediaTime, Data)] {
        try await sampleBuffers(url, type).map { ($0.presentationTime, $0.data) }
    }

    /// The samples of the first track of `type` in `url`, as the reader gives them.
    static func sampleBuffers(_ url: URL, _ type: MediaType) async throws -> [SampleBuffer] {
        let reader = try await AssetReader.open(url: url)
        let track = try #require(reader.tracks(withMediaType: type).first)
        let output = AssetReaderTrackOutput(trackID: track.trackID, settings: .passthrough)
        try reader.add(output)
        try reader.startReading()
        var out: [SampleBuffer] = []
        while let s = try await output.next() { if let b = s.sampleBuffer { out.append(b) } }
        return out
    }

    /// A composition file in `folder` playing two camera chapters one after the other,
    /// video, GPS and sound: `files` copied in as `a.mp4` and `b.mp4`.
    static func chapters(_ files: [URL], in folder: URL) throws -> URL {
        for (file, name) in zip(files, ["a.mp4", "b.mp4"]) {
            try FileManager.default.copyItem(at: file, to: folder.appendingPathComponent(name))
        }
        let both = "[{\"source\": \"a\"}, {\"source\": \"b\"}]"
        let json = """
            {"version": 1, "sources": [{"name": "a", "path": "a.mp4"}, {"name": "b", "path": "b.mp4"}],
             "tracks": [{"trackID": 1, "mediaType": "video", "segments": \(both)}, {"trackID": 2, "mediaType": "metadata", "segments": \(both)},
                        {"trackID": 3, "mediaType": "audio", "segments": \(both)}],
             "instructions": [{"timeRange": {"start": 0, "end": "end"}, "layerInstructions": [{"trackID": 1}]}],
             "output": {"video": {"codec": "h264", "crf": 18}}}
            """
        let composition = folder.appendingPathComponent("chapters.json")
        try json.write(to: composition, atomically: true, encoding: .utf8)
        return composition
    }

    @Test func cameraChaptersJoinByCopyingEveryFrameAndKeepTheirGPSTrack() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let composition = try Self.chapters([TestFiles.fixture("counter-gps.mp4"), TestFiles.fixture("counter-gps-b.mp4")], in: folder)
        let smart = folder.appendingPathComponent("smart.mp4"), full = folder.appendingPathComponent("full.mp4")
        let (session, diagnostics) = try await Self.render(composition, to: smart, smart: .auto)
        _ = try await Self.render(composition, to: full, smart: .off)
        let summary = try #require(session.smartRenderSummary)
        #expect(diagnostics.isEmpty, "\(diagnostics)")
        let sourceFrames =
            try Self.frameTimes(folder.appendingPathComponent("a.mp4")).count
            + Self.frameTimes(folder.appendingPathComponent("b.mp4")).count
        #expect(summary.encodedFrameCount == 0 && summary.copiedFrameCount == sourceFrames, "\(summary.lines)")
        // The video packets are the two files' one after the other.
        let packets = try await Self.samples(smart, .video).map { $0.1 }
        let sources =
            try await Self.samples(folder.appendingPathComponent("a.mp4"), .video).map { $0.1 }
            + Self.samples(folder.appendingPathComponent("b.mp4"), .video).map { $0.1 }
        #expect(packets == sources)
        // The GPS track is written as a full render writes it.
        let gps = try await Self.samples(smart, .metadata), fullGPS = try await Self.samples(full, .metadata)
        try #require(!gps.isEmpty)
        #expect(gps.map { $0.0 } == fullGPS.map { $0.0 } && gps.map { $0.1 } == fullGPS.map { $0.1 })
        let run = try TestTools.run("ffmpeg", ["-v", "error", "-i", smart.path, "-f", "null", "-"])
        #expect(run.stderr.isEmpty, "\(run.stderr.prefix(600))")
    }

    // MARK: Full range

    /// A full-range source (`yuvj420p`, as GoPro cameras write): its copied groups and the
    /// encoded stretches are all full range, and the encoded frames are the source's.
    @Test func aFullRangeSourceIsCopiedAndItsStretchesCodedFullRange() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        _ = try Self.makeClip(
            "a", source: "testsrc2", in: folder,
            codec: [
                "-c:v", "libx264", "-preset", "veryfast", "-crf", "20", "-bf", "3", "-g", "\(Self.gopFrames)",
                "-keyint_min", "\(Self.gopFrames)", "-sc_threshold", "0", "-pix_fmt", "yuvj420p",
            ])
        let composition = folder.appendingPathComponent("cut.json")
        try Self.compositionJSON([Cut(source: "a", start: 0.5, duration: 5)], video: "{\"codec\": \"h264\", \"crf\": 18}")
            .write(to: composition, atomically: true, encoding: .utf8)
        let smart = folder.appendingPathComponent("smart.mp4")
        let (session, diagnostics) = try await Self.render(composition, to: smart, smart: .auto)
        let summary = try #require(session.smartRenderSummary)
        #expect(diagnostics.isEmpty, "\(diagnostics)")
        // The group at 2 s is whole inside [0.5, 5.5): copied; the rest encoded.
        #expect(summary.copiedFrameCount == Self.gopFrames && summary.encodedFrameCount == 90, "\(summary.lines)")
        let ranges = try TestTools.outputString(
            "ffprobe",
            [
                "-v", "error", "-select_streams", "v:0", "-show_entries", "frame=color_range",
                "-of", "csv=p=0", smart.path,
            ]
        ).split(separator: "\n")
            // A frame with side data has more (empty) fields after its range.
            .map { $0.split(separator: ",", omittingEmptySubsequences: false).first.map { $0.trimmingCharacters(in: .whitespaces) } ?? "" }
        #expect(ranges.count == 150 && Set(ranges) == ["pc"], "\(Set(ranges)) over \(ranges.count) frames")
        // Against the source's frames over the same span, in the same range.
        let psnr = try TestTools.run(
            "ffmpeg",
            [
                "-v", "info", "-i", smart.path, "-i", folder.appendingPathComponent("a.mp4").path,
                "-lavfi", "[1:v]trim=start=0.5:duration=5,setpts=PTS-STARTPTS[b];[0:v][b]psnr=stats_file=-", "-f", "null", "-",
            ])
        let perFrame = psnr.stdout.split(separator: "\n").compactMap { line in
            line.split(separator: " ").first { $0.hasPrefix("psnr_avg:") }.map { $0.dropFirst("psnr_avg:".count) }
        }.map { $0 == "inf" ? Double.infinity : Double($0) ?? 0 }
        #expect(perFrame.count == 150)
        #expect(perFrame.min() ?? 0 >= 38, "worst \(perFrame.min() ?? 0) dB")
        let encoded = perFrame.filter(\.isFinite)
        #expect(!encoded.isEmpty && encoded.reduce(0, +) / Double(encoded.count) >= 42, "average \(encoded.reduce(0, +) / Double(max(encoded.count, 1))) dB")
        let run = try TestTools.run("ffmpeg", ["-v", "error", "-i", smart.path, "-f", "null", "-"])
        #expect(run.status == 0 && run.stderr.isEmpty, "\(run.stderr.prefix(600))")
    }

    // MARK: A real camera

    /// A real camera's chapters: the GoPro MAX clip (full range, with sound, a GPMF track,
    /// a timecode track and user data) twice, one after the other, as a camera splits one
    /// recording. Every frame copied; the timecode and the camera's user data kept; the
    /// first chapter's GPMF payloads the camera's, but for its last, which outlasts its video
    /// by 6.5 ms and is rebuilt for the part inside (docs/smart-render.md).
    @Test(.requires(.sharedMedia))
    func goProChaptersAreCopiedWithTheirTimecodeUserDataAndGPS() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let clip = TestFiles.sharedMedia("gpmf-parser_max-heromode.mp4")
        let composition = try Self.chapters([clip, clip], in: folder)
        let joined = folder.appendingPathComponent("joined.mp4")
        let (session, diagnostics) = try await Self.render(composition, to: joined, smart: .auto)
        let summary = try #require(session.smartRenderSummary)
        #expect(diagnostics.isEmpty, "\(diagnostics)")
        #expect(summary.fallbackReason == nil && summary.encodedFrameCount == 0 && summary.copiedFrameCount == 630, "\(summary.lines)")
        let packets = try await Self.samples(joined, .video).map { $0.1 }, sourcePackets = try await Self.samples(clip, .video).map { $0.1 }
        #expect(packets == sourcePackets + sourcePackets)
        let gps = try await Self.samples(joined, .metadata).map { $0.1 }, sourceGPS = try await Self.samples(clip, .metadata).map { $0.1 }
        try #require(sourceGPS.count == 11 && gps.count >= 20)
        // The first chapter's first ten payloads are the camera's bytes, in order (the
        // second chapter's are restamped: GPMF's STMP is on the track's clock).
        #expect(Array(gps[0..<10]) == Array(sourceGPS[0..<10]))
        let format = try TestTools.outputString("ffprobe", ["-v", "error", "-show_entries", "stream_tags=timecode:format_tags", "-of", "flat", joined.path])
        #expect(format.contains("timecode=\"15:44:35:10\""), "\(format)")
        // The firmware and the place, as QuickTime keys (ffprobe's flat names).
        #expect(format.contains("software=\"H19.03.01.30.00\""), "\(format)")
        #expect(format.contains("ISO6709=\"+33.1268-117.3273/\""), "\(format)")
        let run = try TestTools.run("ffmpeg", ["-v", "error", "-i", joined.path, "-f", "null", "-"])
        #expect(run.status == 0 && run.stderr.isEmpty, "\(run.stderr.prefix(600))")
    }

    /// A camera's next chapter: `clip` with every GPMF stream stamp (STMP) moved `offset`
    /// later, as a camera stamps a chapter after the first (from the start of the
    /// recording, not of the file). The stamps are patched where they lie in the file.
    static func laterChapter(of clip: URL, by offset: MediaTime, to url: URL) throws -> Int {
        var bytes = [UInt8](try Data(contentsOf: clip))
        let klv: [UInt8] = Array("STMP".utf8) + [0x4A, 0x08, 0x00, 0x01]  // 'J': one uint64
        let micros = UInt64(offset.convertScale(1_000_000, method: .roundHalfAwayFromZero).value)
        var patched = 0, at = 0
        while at + 16 <= bytes.count {
            guard bytes[at] == klv[0], Array(bytes[at..<(at + 8)]) == klv else { at += 1; continue }
            let old = bytes[(at + 8)..<(at + 16)].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            let new = old + micros
            for k in 0..<8 { bytes[at + 8 + k] = UInt8(truncatingIfNeeded: new >> (56 - 8 * UInt64(k))) }
            patched += 1
            at += 16
        }
        try Data(bytes).write(to: url)
        return patched
    }

    /// The GoPro MAX clip followed by its next chapter as the camera stamps it: the second
    /// chapter's GPMF payloads are copied byte for byte (their stamps count from the start
    /// of the recording, so they already hold their place in the join), and read back from
    /// the join, their samples are placed by those stamps.
    @Test(.requires(.sharedMedia))
    func aCamerasLaterChapterKeepsItsGPMFPayloadsByteForByte() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let clip = TestFiles.sharedMedia("gpmf-parser_max-heromode.mp4")
        // The composition plays each track's chapters one after the other, so the second
        // chapter's GPS track starts where the first's ends.
        let firstPayloads = try await Self.sampleBuffers(clip, .metadata)
        let firstLength = try #require(try await AssetReader.open(url: clip).tracks(withMediaType: .metadata).first).timeRange.end
        let second = folder.appendingPathComponent("second-chapter.mp4")
        #expect(try Self.laterChapter(of: clip, by: firstLength, to: second) == 165)
        let composition = try Self.chapters([clip, second], in: folder)
        let joined = folder.appendingPathComponent("joined.mp4")
        let (session, diagnostics) = try await Self.render(composition, to: joined, smart: .auto)
        #expect(diagnostics.isEmpty, "\(diagnostics)")
        #expect(session.smartRenderSummary?.encodedFrameCount == 0)
        let gps = try await Self.sampleBuffers(joined, .metadata), chapter = try await Self.sampleBuffers(second, .metadata)
        try #require(chapter.count == 11)
        // The second chapter's payloads, after the first's, but for its last (which outlasts
        // its video and is cut at the end): the camera's bytes, at their times in the join.
        let later = gps.filter { !($0.presentationTime < firstLength) }
        try #require(later.count >= 10, "\(gps.map(\.presentationTime))")
        #expect(later.prefix(10).map(\.data) == chapter.prefix(10).map(\.data))
        #expect(later.prefix(10).map(\.presentationTime.seconds) == chapter.prefix(10).map { ($0.presentationTime + firstLength).seconds })
        // Read from the join, those stamps are on its clock: the second chapter's first
        // payload places its samples as the first chapter's first does, one chapter later.
        let before = try GPMF.groups(payload: firstPayloads[0].data, timeRange: firstPayloads[0].timeRange).flatMap(\.items).map(\.time.seconds)
        let after = try GPMF.groups(payload: later[0].data, timeRange: later[0].timeRange).flatMap(\.items).map(\.time.seconds)
        try #require(!before.isEmpty && before.count == after.count)
        let worst = zip(before, after).map { abs($1 - firstLength.seconds - $0) }.max() ?? 0
        #expect(worst < 1e-6, "samples placed up to \(worst) s away")
    }

    // MARK: Damaged packets

    /// A packet that does not parse, in a group of pictures that would be copied: said with
    /// its time, and that group encoded from what the decoder makes of it; the others copied.
    @Test func aDamagedPacketIsSaidWithItsTimeAndItsGroupEncoded() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let clip = try Self.makeClip("a", source: "testsrc2", in: folder)
        let time = try #require(try DamagedVideo.damage(clip, packetsAtOrAfter: 2.5).first)
        let composition = folder.appendingPathComponent("whole.json")
        try Self.compositionJSON([Cut(source: "a", start: 0, duration: 6)], video: "{\"codec\": \"h264\", \"crf\": 18}")
            .write(to: composition, atomically: true, encoding: .utf8)
        let smart = folder.appendingPathComponent("smart.mp4")
        let (session, diagnostics) = try await Self.render(composition, to: smart, smart: .auto)
        let summary = try #require(session.smartRenderSummary)
        let said = String(format: "a damaged packet at %.3f s of a.mp4", time)
        #expect(diagnostics.count == 1 && diagnostics.first?.contains(said) == true, "\(diagnostics)")
        #expect(diagnostics.first?.contains("past the packet's end") == true, "\(diagnostics)")
        // Its group (2 s to 4 s) encoded, the two others copied.
        #expect(summary.copiedFrameCount == 2 * Self.gopFrames && summary.encodedFrameCount == Self.gopFrames, "\(summary.lines)")
        #expect(summary.stretches.filter { !$0.isCopied }.map(\.timeRange.start.seconds) == [2], "\(summary.lines)")
        #expect(summary.stretches.first { !$0.isCopied }?.reason.contains(said) == true, "\(summary.lines)")
        #expect(try Self.frameTimes(smart).count == 6 * Self.fps)
        let run = try TestTools.run("ffmpeg", ["-v", "error", "-i", smart.path, "-f", "null", "-"])
        #expect(run.status == 0 && run.stderr.isEmpty, "\(run.stderr.prefix(600))")
    }

    // MARK: Fallback

    @Test func aSourceThatCannotBeMatchedRendersEveryFrameSayingWhyOnce() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        _ = try Self.makeClip("a", source: "testsrc2", in: folder, codec: ["-c:v", "mpeg4", "-q:v", "3", "-g", "\(Self.gopFrames)"])
        let composition = folder.appendingPathComponent("cut.json")
        try Self.compositionJSON([Cut(source: "a", start: 1, duration: 4)], video: "{\"codec\": \"h264\", \"crf\": 18}")
            .write(to: composition, atomically: true, encoding: .utf8)
        let output = folder.appendingPathComponent("out.mp4")
        let (session, diagnostics) = try await Self.render(composition, to: output, smart: .auto)
        let reason = try #require(session.smartRenderSummary?.fallbackReason)
        #expect(reason.contains("a.mp4") && reason.contains("mpeg4"), "\(reason)")
        #expect(diagnostics.count == 1 && diagnostics.first?.contains(reason) == true, "\(diagnostics)")
        #expect(try Self.frameTimes(output).count == 4 * Self.fps)
    }

    /// An H.264 High 10 source: its whole groups copied, the cuts coded in 10 bits with
    /// parameter-set IDs of their own, one stream that decodes with no message.
    @Test func aTenBitSourceIsCopiedAndItsStretchesCodedInTenBits() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let codec = [
            "-c:v", "libx264", "-preset", "veryfast", "-crf", "20", "-bf", "3", "-g", "\(Self.gopFrames)",
            "-keyint_min", "\(Self.gopFrames)", "-sc_threshold", "0", "-pix_fmt", "yuv420p10le",
        ]
        let clip = try Self.makeClip("a", source: "testsrc2", in: folder, codec: codec)
        let cut = [Cut(source: "a", start: 1, duration: 4)]
        let composition = folder.appendingPathComponent("cut.json")
        try Self.compositionJSON(cut, video: "{\"codec\": \"h264\", \"crf\": 18}").write(to: composition, atomically: true, encoding: .utf8)
        let lossless = folder.appendingPathComponent("lossless.json")
        try Self.compositionJSON(cut, video: "{\"codec\": \"ffv1\"}").write(to: lossless, atomically: true, encoding: .utf8)
        let output = folder.appendingPathComponent("out.mp4"), reference = folder.appendingPathComponent("reference.mkv")
        let (session, diagnostics) = try await Self.render(composition, to: output, smart: .auto)
        _ = try await Self.render(lossless, to: reference, smart: .off)
        let summary = try #require(session.smartRenderSummary)
        #expect(summary.fallbackReason == nil && diagnostics.isEmpty, "\(summary.lines) \(diagnostics)")
        // Frames 30 to 149 of the clip: the group of frames 60 to 119 is whole.
        #expect(summary.copiedFrameCount == 60, "\(summary.lines)")
        try Self.expectTenBitStream(output, frames: 4 * Self.fps, profile: "High 10")
        let source = Set(try await Self.samples(clip, .video).map(\.1))
        #expect(try await Self.samples(output, .video).filter { source.contains($0.1) }.count == 60)
        let values = try Self.psnr(of: output, against: reference, log: folder.appendingPathComponent("psnr.log"))
        let encoded = zip(values, Self.frameIsCopied(summary)).filter { !$0.1 }.map(\.0)
        try #require(values.count == 4 * Self.fps && !encoded.isEmpty)
        let average = encoded.reduce(0, +) / Double(encoded.count)
        #expect(average >= 42 && (encoded.min() ?? 0) >= 38, "average \(average) dB, worst \(encoded.min() ?? 0) dB")
    }

    /// `video` decodes with no message, `frames` frames all in 10 bits (`yuv420p10le`), and
    /// its stream names `profile`.
    static func expectTenBitStream(_ video: URL, frames: Int, profile: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let run = try TestTools.run("ffmpeg", ["-v", "error", "-i", video.path, "-f", "null", "-"])
        #expect(run.status == 0 && run.stderr.isEmpty, "\(run.stderr.prefix(600))", sourceLocation: sourceLocation)
        let formats = try TestTools.outputString(
            "ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "frame=pix_fmt", "-of", "csv=p=0", video.path])
        let pixelFormats = formats.split(separator: "\n").map { $0.split(separator: ",").first.map(String.init) ?? "" }
        #expect(pixelFormats.count == frames && Set(pixelFormats) == ["yuv420p10le"], "\(Set(pixelFormats))", sourceLocation: sourceLocation)
        let named = try TestTools.outputString(
            "ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=profile", "-of", "csv=p=0", video.path])
        #expect(named.contains(profile), "\(named)", sourceLocation: sourceLocation)
    }

    @Test func aFourTwoTwoSourceRendersEveryFrameSayingWhyOnce() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        _ = try Self.makeClip("a", source: "testsrc2", in: folder, codec: ["-c:v", "libx264", "-preset", "veryfast", "-g", "60", "-pix_fmt", "yuv422p"])
        let composition = folder.appendingPathComponent("cut.json")
        try Self.compositionJSON([Cut(source: "a", start: 1, duration: 4)], video: "{\"codec\": \"h264\", \"crf\": 18}")
            .write(to: composition, atomically: true, encoding: .utf8)
        let output = folder.appendingPathComponent("out.mp4")
        let (session, diagnostics) = try await Self.render(composition, to: output, smart: .auto)
        let reason = try #require(session.smartRenderSummary?.fallbackReason)
        #expect(reason.contains("a.mp4 is H.264 profile 122 at 8 bits, chroma format 2"), "\(reason)")
        #expect(diagnostics.count == 1 && diagnostics.first?.contains(reason) == true, "\(diagnostics)")
        #expect(try Self.frameTimes(output).count == 4 * Self.fps)
    }
}
