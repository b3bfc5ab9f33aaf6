import Foundation
import ReelTestSupport
import Testing

/// `reel inspect --json` agrees with `ffprobe -show_streams -show_format` on every file:
/// same tracks, types, codecs and ids, durations within one tick of the track's timescale.
@Suite("reel inspect --json against ffprobe")
struct InspectReportTests {
    struct Probe {
        var streams: [[String: Any]]
    }

    static func ffprobe(_ file: URL) throws -> Probe {
        let ffprobe = try #require(TestTools.which("ffprobe"))
        let result = try TestTools.run(ffprobe, ["-v", "error", "-show_streams", "-show_format", "-of", "json", file.path])
        try #require(result.status == 0, "ffprobe failed: \(result.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        return Probe(streams: object["streams"] as? [[String: Any]] ?? [])
    }

    static func reelJSON(_ file: URL) async throws -> [String: Any] {
        let result = await ReelProcess.reel(["inspect", "--json", file.path])
        try #require(result.status == 0, "reel inspect failed: \(result.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
    }

    /// ffprobe's codec_type for one of Reel's media types.
    /// FFmpeg's codec type for a track Reel lists as `mediaType` with `codec`: a chapter
    /// track is text to Reel (as to AVFoundation) and data to FFmpeg.
    static func ffprobeType(_ mediaType: String, codec: String) -> String {
        switch mediaType {
        case "video", "audio", "attachment": mediaType
        case "text" where codec == "bin_data": "data"
        case "subtitle", "text": "subtitle"
        default: "data"
        }
    }

    static func compare(_ file: URL) async throws {
        let probe = try ffprobe(file)
        let report = try await reelJSON(file)
        let tracks = try #require(report["tracks"] as? [[String: Any]])
        #expect(tracks.count == probe.streams.count, "\(file.lastPathComponent): track count")
        for (track, stream) in zip(tracks, probe.streams) {
            let index = stream["index"] as? Int ?? -1
            let name = "\(file.lastPathComponent) stream \(index)"
            #expect(track["index"] as? Int == index, "\(name): index")
            let mediaType = track["mediaType"] as? String ?? "?"
            #expect(
                ffprobeType(mediaType, codec: track["codec"] as? String ?? "?") == stream["codec_type"] as? String,
                "\(name): \(mediaType) vs \(stream["codec_type"] ?? "-")")
            let codec = track["codec"] as? String ?? "?"
            let theirs = stream["codec_name"] as? String ?? "unknown"
            #expect(codec == theirs || (codec == "none" && theirs == "unknown"), "\(name): codec \(codec) vs \(theirs)")
            if let id = stream["id"] as? String, id.hasPrefix("0x"), let value = Int(id.dropFirst(2), radix: 16) {
                #expect(track["trackID"] as? Int == value, "\(name): trackID")
            }
            if let tag = stream["codec_tag_string"] as? String, ["gpmd", "mebx", "camm", "tmcd", "fdsc"].contains(tag) {
                #expect(track["format"] as? String == tag, "\(name): format")
            }
            guard let text = stream["duration"] as? String, let seconds = Double(text) else { continue }
            let timescale = try #require(track["timescale"] as? Int, "\(name): timescale")
            let duration = try #require(track["duration"] as? [String: Any], "\(name): duration")
            let ours = try #require(duration["seconds"] as? Double)
            // One tick of the track's timescale, plus ffprobe's printing to six decimals.
            let tolerance = 1 / Double(timescale) + 5e-7
            #expect(abs(ours - seconds) <= tolerance, "\(name): duration \(ours) vs ffprobe \(seconds)")
            if let exact = duration["exact"] as? String, let v = duration["value"] as? Int, let t = duration["timescale"] as? Int {
                #expect(exact == "\(v)/\(t)")
            }
        }
    }

    @Test(
        "every fixture", .requires(.ffprobe),
        arguments: CLITestSupport.fixtureNames)
    func fixture(_ name: String) async throws {
        try await Self.compare(TestFiles.fixtures.appendingPathComponent(name))
    }

    @Test(
        "every container in ../shared/media",
        .requires(.ffprobe),
        .requires(.sharedMedia),
        arguments: CLITestSupport.sharedContainerNames)
    func sharedMedia(_ name: String) async throws {
        try await Self.compare(TestFiles.sharedMedia.appendingPathComponent(name))
    }

    @Test("the characteristics the container flags: dubbed sound, forced subtitles")
    func characteristics() async throws {
        let report = try await Self.reelJSON(TestFiles.fixtures.appendingPathComponent("selection.mp4"))
        let tracks = try #require(report["tracks"] as? [[String: Any]])
        let flags = Dictionary(
            uniqueKeysWithValues: tracks.compactMap { t -> (Int, [String])? in
                guard let id = t["trackID"] as? Int, let c = t["characteristics"] as? [String] else { return nil }
                return (id, c)
            })
        #expect(flags == [3: ["dubbedTranslation"], 5: ["containsOnlyForcedSubtitles"]])
    }

    @Test("the fixtures are all there")
    func fixturesPresent() {
        let names = Set(CLITestSupport.fixtureNames)
        for required in [
            "counter-320x240.mp4", "rotated-90.mp4", "vfr.mp4", "edit-list.mp4",
            "counter-gps.mp4", "counter-bars-320x240.mp4", "counter-gps-b.mp4",
        ] {
            #expect(names.contains(required), "Fixtures/\(required) is missing: run scripts/make-fixtures")
        }
    }

    @Test(
        "caption tracks are listed with their format, language and whether Reel reads them",
        .requires(.ffmpeg, .ffprobe))
    func captionTracks() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let srt = folder.appendingPathComponent("in.srt")
        try Data("1\n00:00:00,500 --> 00:00:01,500\nHello\n".utf8).write(to: srt)
        let mkv = folder.appendingPathComponent("clip.mkv")
        let ffmpeg = try #require(TestTools.which("ffmpeg"))
        let made = try TestTools.run(
            ffmpeg,
            [
                "-v", "error", "-f", "lavfi", "-i", "color=s=64x64:d=2:r=10", "-i", srt.path, "-i", srt.path,
                "-map", "0", "-map", "1", "-map", "2", "-c:v", "mpeg4", "-c:s:0", "srt", "-c:s:1", "ass",
                "-metadata:s:s:0", "language=fra", "-metadata:s:s:1", "language=deu", mkv.path,
            ])
        try #require(made.status == 0, "ffmpeg: \(made.stderr)")
        try await Self.compare(mkv)
        let captions = try await #require(try Self.reelJSON(mkv)["captions"] as? [[String: Any]])
        #expect(captions.map { $0["trackID"] as? Int } == [2, 3])
        #expect(captions.map { $0["format"] as? String } == ["subrip", "ass"])
        #expect(captions.map { $0["language"] as? String } == ["fra", "deu"])
        #expect(captions.map { $0["readable"] as? Bool } == [true, true])
        let text = await ReelProcess.reel(["inspect", mkv.path])
        #expect(text.stdout.contains("captions: track 2 (subrip, fra); track 3 (ass, deu)\n"))
    }

    @Test("a CEA-608 track in MOV is listed as readable", .requires(.ffmpeg))
    func cea608Track() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let scc = folder.appendingPathComponent("in.scc")
        try Data("Scenarist_SCC V1.0\n\n00:00:00;10\t94ae 94ae 9420 9420 c849 942f 942f\n\n00:00:01;00\t942c 942c\n\n00:00:01;10\t8080\n".utf8).write(to: scc)
        let mov = folder.appendingPathComponent("c608.mov")
        let made = try TestTools.run(
            try #require(TestTools.which("ffmpeg")),
            [
                "-v", "error", "-f", "lavfi", "-i", "color=s=64x64:d=2:r=10", "-i", scc.path,
                "-map", "0", "-map", "1", "-c:v", "mpeg4", "-c:s", "copy", mov.path,
            ])
        try #require(made.status == 0, "ffmpeg: \(made.stderr)")
        let captions = try #require(try await Self.reelJSON(mov)["captions"] as? [[String: Any]])
        #expect(captions.map { $0["format"] as? String } == ["c608"])
        #expect(captions.map { $0["readable"] as? Bool } == [true])
    }

    @Test("captions in a video's SEI are listed under the video track", .requires(.ffmpeg))
    func captionsInVideoSEI() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let clip = try SEIClip.make(words: SEIClip.hiWords, frames: 40, in: folder)
        let captions = try #require(try await Self.reelJSON(clip)["captions"] as? [[String: Any]])
        #expect(captions.map { $0["trackID"] as? Int } == [1])
        #expect(captions.map { $0["format"] as? String } == ["eia_608 in video"])
        #expect(captions.map { $0["readable"] as? Bool } == [true])
        // A video without captions lists none.
        let none = try await Self.reelJSON(TestFiles.fixture("counter-320x240.mp4"))
        #expect((none["captions"] as? [[String: Any]] ?? []).isEmpty)
    }
}
