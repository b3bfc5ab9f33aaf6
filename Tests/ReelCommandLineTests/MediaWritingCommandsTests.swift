import Foundation
import ReelTestSupport
import Testing

/// Every command that writes media, run on one camera-like file (video, sound, a GPS track,
/// a start timecode, container tags and chapters): what it writes keeps each of them, or
/// says in one warning line that it leaves it out.
@Suite("commands that write media keep what the file carries", .serialized)
struct MediaWritingCommandsTests {
    /// The GPS fixture with a start timecode and two chapters added by ffmpeg.
    static func cameraFile(in folder: URL) throws -> String {
        let meta = folder.appendingPathComponent("chapters.txt")
        try Data(";FFMETADATA1\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=0\nEND=1000\ntitle=One\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=1000\nEND=2000\ntitle=Two\n".utf8)
            .write(to: meta)
        let ffmpeg = try #require(TestTools.which("ffmpeg"))
        let made = try TestTools.run(
            ffmpeg,
            [
                "-v", "error", "-i", TestFiles.fixture("counter-gps.mp4").path, "-i", meta.path,
                "-map", "0", "-map_metadata", "0", "-map_chapters", "1", "-c", "copy",
                "-timecode", "01:02:03:04", "camera.mp4",
            ], in: folder)
        try #require(made.status == 0, "\(made.stderr)")
        return "camera.mp4"
    }

    /// What a file carries: its tracks' sample entries (`avc1`, `mp4a`, `gpmd`, `tmcd`), its timecode,
    /// its chapter titles and its title tag.
    struct Carried: Equatable {
        var streams: Set<String>
        var timecode: String?
        var chapters: [String]
        var title: String?
    }

    static func carried(_ file: String, in folder: URL) throws -> Carried {
        let ffprobe = try #require(TestTools.which("ffprobe"))
        let out = try TestTools.run(ffprobe, ["-v", "error", "-show_streams", "-show_chapters", "-show_format", "-of", "json", file], in: folder)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(out.stdout.utf8)) as? [String: Any])
        let streams = json["streams"] as? [[String: Any]] ?? []
        let chapters = json["chapters"] as? [[String: Any]] ?? []
        let format = json["format"] as? [String: Any] ?? [:]
        // The QuickTime chapter track (`text`) is checked as the chapters it holds.
        return Carried(
            streams: Set(streams.compactMap { $0["codec_tag_string"] as? String }).subtracting(["text"]),
            timecode: streams.lazy.compactMap { ($0["tags"] as? [String: Any])?["timecode"] as? String }.first,
            chapters: chapters.compactMap { ($0["tags"] as? [String: Any])?["title"] as? String },
            title: (format["tags"] as? [String: Any])?["title"] as? String)
    }

    @Test(.requires(.ffmpeg, .ffprobe))
    func everyCommandKeepsOrNamesWhatTheFileCarries() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let camera = try Self.cameraFile(in: folder)
        let source = try Self.carried(camera, in: folder)
        try #require(
            source == Carried(streams: ["avc1", "mp4a", "gpmd", "tmcd"], timecode: "01:02:03:04", chapters: ["One", "Two"], title: "Reel counter"),
            "\(source)")
        try Data("1\n00:00:00,500 --> 00:00:01,000\nHELLO\n".utf8).write(to: folder.appendingPathComponent("c.srt"))
        try Data("<gpx><trk><trkseg><trkpt lat=\"46.2\" lon=\"6.1\"><time>2024-01-01T00:00:00Z</time></trkpt></trkseg></trk></gpx>".utf8)
            .write(to: folder.appendingPathComponent("t.gpx"))
        let composition = try JoinCommandTests.dashboard(video: JoinCommandTests.qp, in: folder, source: camera)

        // The whole file: everything kept, nothing said.
        for (name, arguments) in [
            ("export", ["export", camera, "-o", "export.mp4"]),
            ("captions burn", ["captions", "burn", camera, "--captions", "c.srt", "-o", "burn.mp4"]),
        ] {
            let run = await ReelProcess.reel(arguments, in: folder)
            #expect(run.status == 0, "\(name): \(run.stderr)")
            #expect(try Self.carried(arguments[arguments.count - 1], in: folder) == source, "\(name)")
            #expect(!run.stderr.contains("warning"), "\(name): \(run.stderr)")
        }
        // A new GPS track in place of the camera's: the old one is named in one line.
        let imported = await ReelProcess.reel(["metadata", "import", "t.gpx", "--into", camera, "-o", "import.mp4"], in: folder)
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(try Self.carried("import.mp4", in: folder) == source)
        let importNotes = imported.stderr.split(separator: "\n")
        #expect(importNotes.count == 1 && importNotes.first?.contains("track 3 (gpmd)") == true, "\(imported.stderr)")
        // A composition of the file: its picture, sound, GPS track, timecode and tags; the
        // chapters are the composition's own (it has none), since its time is not the file's.
        var composed = source
        composed.chapters = []
        let rendered = await ReelProcess.reel(["render", composition, "-o", "render.mp4"], in: folder)
        #expect(rendered.status == 0, "\(rendered.stderr)")
        #expect(try Self.carried("render.mp4", in: folder) == composed)
        try await JoinCommandTests.renderPieces(composition, pieces: 2, in: folder)
        let joined = await ReelProcess.reel(["join", "plan.json", "-o", "join.mp4"], in: folder)
        #expect(joined.status == 0, "\(joined.stderr)")
        #expect(try Self.carried("join.mp4", in: folder) == composed)
    }
}
