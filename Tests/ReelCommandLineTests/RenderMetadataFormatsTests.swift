import Foundation
import ReelTestSupport
import Testing

/// The GPS dashboard example rendered over every camera file in ../shared/media that has
/// a metadata track, into each container: the render succeeds (converting the track where
/// the container needs another format) and the output's fixes are the input's.
@Suite("reel render keeps every camera's timed metadata", .serialized)
struct RenderMetadataFormatsTests {
    static let composition = TestFiles.packageRoot.appendingPathComponent("Examples/gps-dashboard/composition.json").path
    static let cameraFiles = ["gpmf-parser_max-heromode.mp4", "nom-exif_meta.mov", "kwiver_aphill_short.ts", "kwiver_mpeg2_klv.ts"]

    /// One row of `reel metadata export --format csv`.
    struct Fix: Equatable {
        var time: Double
        var latitude: Double
        var longitude: Double
        var altitude: Double?
        var speed2D: Double?
        var speed3D: Double?
        var fix: Double?
        var dop: Double?
        var gpsTime: String?
    }

    /// The fixes `reel metadata export --format csv` gives for `file`; nil when it has none.
    static func fixes(_ file: String, in folder: URL) async throws -> [Fix]? {
        let out = await ReelProcess.reel(["metadata", "export", file, "--format", "csv"], in: folder)
        guard out.status == 0 else { return nil }
        let rows = out.stdout.split(separator: "\n").dropFirst()
        return rows.compactMap { row in
            // time,latitude,longitude,altitude,speed2d,speed3d,fix,dop,gps_time
            let cells = row.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            guard cells.count >= 9, let time = Double(cells[0]), let lat = Double(cells[1]), let lon = Double(cells[2]) else { return nil }
            return Fix(
                time: time, latitude: lat, longitude: lon, altitude: Double(cells[3]), speed2D: Double(cells[4]),
                speed3D: Double(cells[5]), fix: Double(cells[6]), dop: Double(cells[7]), gpsTime: cells[8].isEmpty ? nil : cells[8])
        }
    }

    /// `reel metadata export --format json` of `file`: its timed fix count, and the time,
    /// identifier and value of every item.
    static func items(_ file: String, in folder: URL) async throws -> (fixCount: Int, items: [String]) {
        let out = await ReelProcess.reel(["metadata", "export", file, "--format", "json"], in: folder)
        try #require(out.status == 0, "\(out.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(out.stdout.utf8)) as? [String: Any])
        let groups = try #require(json["groups"] as? [[String: Any]])
        let items = groups.flatMap { ($0["items"] as? [[String: Any]] ?? []).map { "\($0["time"] ?? "") \($0["identifier"] ?? "") = \($0["value"] ?? "")" } }
        return (json["fixCount"] as? Int ?? -1, items)
    }

    /// ffprobe's frame duration of the first video stream of `file`, in seconds.
    static func frameDuration(_ file: String, in folder: URL) throws -> Double {
        let rate = try TestTools.outputString(
            "ffprobe",
            [
                "-v", "error", "-select_streams", "v:0", "-show_entries", "stream=r_frame_rate",
                "-of", "default=nw=1:nk=1", file,
            ], in: folder)
        let parts = rate.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: "/").compactMap { Double($0) }
        try #require(parts.count == 2 && parts[0] > 0, "r_frame_rate \(rate)")
        return parts[1] / parts[0]
    }

    /// How closely a field comes back, by the format it went through. ST 0601 (MPEG-TS)
    /// stores altitude in 16 bits over -900...19000 m and ground speed in whole m/s; GPMF
    /// altitude and speed in millimetres; ISO 6709 in mebx latitude and longitude to 1e-6.
    struct Tolerance {
        var degrees = 1e-6
        var altitude = 1e-3
        var speed = 1e-3
        static func of(input: String, container: String) -> Tolerance {
            var t = Tolerance()
            if container == "ts", !input.hasSuffix(".ts") { (t.altitude, t.speed) = (19900.0 / 65535 / 2 + 1e-3, 0.5 + 1e-3) }
            return t
        }
    }

    /// The identifier a conversion's warning names for each optional field of a fix.
    static let fieldIdentifiers: [(name: String, identifier: String, value: @Sendable (Fix) -> String?)] = [
        ("altitude", "reel/location.altitude", { $0.altitude.map { "\($0)" } }),
        ("2D speed", "reel/speed.2d", { $0.speed2D.map { "\($0)" } }),
        ("3D speed", "reel/speed.3d", { $0.speed3D.map { "\($0)" } }),
        ("fix type", "reel/gps.fix", { $0.fix.map { "\($0)" } }),
        ("DOP", "reel/gps.dop", { $0.dop.map { "\($0)" } }),
        ("GPS time", "reel/gps.time", { $0.gpsTime }),
    ]

    @Test(.requires(.sharedMedia, .ffmpeg, .ffprobe), arguments: cameraFiles, ["mp4", "mov", "ts"])
    func theDashboardRendersOverEveryCamera(file: String, container: String) async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = TestFiles.sharedMedia.appendingPathComponent(file).path
        let output = "out.\(container)"
        let render = await ReelProcess.reel(["render", Self.composition, "--source", input, "-o", output], in: folder)
        try #require(render.status == 0, "\(render.stderr)")
        // Every warning is one line naming the metadata track or the tags not carried.
        for line in render.stderrLines where line.contains("warning") {
            #expect(line.contains("metadata track") || line.contains("metadata not carried"), "\(line)")
        }
        let (fixCount, items) = try await Self.items(input, in: folder)
        guard fixCount > 0 else {
            // No timed GPS in the source (the phone's track holds its orientation; its one
            // location is the movie's static tag): the same items where the container holds
            // them (MP4, MOV), else one line saying the track is left out, and one that
            // MPEG-TS has no place for the location.
            try #require(!items.isEmpty, "no items in \(file)")
            if container == "ts" {
                #expect(render.stderr.contains("the track is left out"), "\(render.stderr)")
                #expect(
                    render.stderr.contains("metadata not carried: mpegts files have no place for") && render.stderr.contains("location"),
                    "\(render.stderr)")
            } else {
                await #expect(try Self.items(output, in: folder).items == items)
            }
            return
        }
        let before = try await #require(try Self.fixes(input, in: folder), "no fixes in \(file)")
        let after = try await #require(try Self.fixes(output, in: folder), "no fixes in the \(container) output")
        try #require(after.count == before.count, "\(before.count) fixes in, \(after.count) out")
        let tolerance = Tolerance.of(input: file, container: container)
        // The output's timeline starts where the composition does: its fixes are the
        // input's moved by one offset (the median of the differences), each within a frame.
        let frame = try Self.frameDuration(input, in: folder)
        let shifts = zip(before, after).map { $1.time - $0.time }.sorted()
        let offset = shifts[shifts.count / 2]
        var misplaced = 0
        for (a, b) in zip(before, after) {
            #expect(abs(a.latitude - b.latitude) < tolerance.degrees && abs(a.longitude - b.longitude) < tolerance.degrees, "\(a) became \(b)")
            if abs(b.time - (a.time + offset)) > frame + 1e-6 { misplaced += 1 }
            if let x = a.altitude, let y = b.altitude { #expect(abs(x - y) <= tolerance.altitude, "altitude \(x) became \(y)") }
            for (x, y) in [(a.speed2D, b.speed2D), (a.speed3D, b.speed3D)] {
                if let x, let y { #expect(abs(x - y) <= tolerance.speed, "speed \(x) became \(y)") }
            }
            if let x = a.fix, let y = b.fix { #expect(x == y, "fix \(x) became \(y)") }
        }
        #expect(misplaced == 0, "\(misplaced) of \(before.count) fixes moved by more than a frame (\(frame) s)")
        // Nothing the source did not have is claimed, and what it had and the output
        // lacks is named in the conversion's warning.
        for field in Self.fieldIdentifiers {
            let had = before.contains { field.value($0) != nil }
            let has = after.contains { field.value($0) != nil }
            #expect(had || !has, "the \(container) output has a \(field.name) the input did not have")
            if had, !has {
                #expect(
                    render.stderrLines.contains { $0.contains("metadata track") && $0.contains(field.identifier) },
                    "the \(field.name) was lost without a word: \(render.stderr)")
            }
        }
    }

    @Test(.requires(.sharedMedia, .ffmpeg, .ffprobe))
    func aRenderToMatroskaWithMetadataIsRefusedBeforeItStarts() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = TestFiles.sharedMedia.appendingPathComponent("kwiver_mpeg2_klv.ts").path
        let render = await ReelProcess.reel(["render", Self.composition, "--source", input, "-o", "out.mkv"], in: folder)
        #expect(render.status == 1)
        #expect(render.stderr.contains("mkv files hold none"), "\(render.stderr)")
        // One line: no progress before it, the track named once, the render's way out.
        #expect(render.stderrLines.count == 1, "\(render.stderr)")
        #expect(render.stderr.components(separatedBy: "track 2").count == 2, "\(render.stderr)")
        #expect(render.stderr.contains("output.metadataTrackIDs: []"), "\(render.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("out.mkv").path))
        // reel export names its own way out, and takes it.
        let export = await ReelProcess.reel(["export", input, "-o", "out.mkv"], in: folder)
        #expect(export.status == 1)
        #expect(export.stderr.contains("--no-metadata") && !export.stderr.contains("output.metadataTrackIDs"), "\(export.stderr)")
        let without = await ReelProcess.reel(["export", input, "-o", "out.mkv", "--no-metadata"], in: folder)
        #expect(without.status == 0, "\(without.stderr)")
        #expect(try Self.metadataCodecTags("out.mkv", in: folder).isEmpty)
        try FileManager.default.removeItem(at: folder.appendingPathComponent("out.mkv"))
        let asked = await ReelProcess.reel(["render", Self.composition, "--source", input, "-o", "out.ts", "--metadata-format", "mebx"], in: folder)
        #expect(asked.status == 1)
        #expect(asked.stderr.contains("does not go into mpegts"), "\(asked.stderr)")
        let bad = await ReelProcess.reel(["render", Self.composition, "--source", input, "-o", "out.ts", "--metadata-format", "gpx"], in: folder)
        #expect(bad.status == 2)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { !$0.hasPrefix(".") }.isEmpty)
    }
    /// The codec tag ffprobe gives the metadata (data) stream of `file` that is not a timecode.
    static func metadataCodecTags(_ file: String, in folder: URL) throws -> [String] {
        let out = try TestTools.outputString(
            "ffprobe",
            [
                "-v", "error", "-select_streams", "d", "-show_entries", "stream=codec_tag_string",
                "-of", "default=nw=1:nk=1", file,
            ], in: folder)
        return out.split(separator: "\n").map(String.init).filter { $0 != "tmcd" }
    }

    @Test(
        "a composition file's output.metadataFormat chooses the track's format; --metadata-format overrides it",
        .requires(.ffmpeg, .ffprobe))
    func theCompositionFileChoosesTheMetadataFormat() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = TestFiles.fixture("counter-gps.mp4").path
        func write(_ name: String, format: String) throws {
            var json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: Self.composition))) as? [String: Any])
            json["sources"] = [["name": "camera", "path": source]]
            var output = json["output"] as? [String: Any] ?? [:]
            output["metadataFormat"] = format
            json["output"] = output
            try JSONSerialization.data(withJSONObject: json).write(to: folder.appendingPathComponent(name))
        }
        try write("camm.json", format: "camm")
        let camm = await ReelProcess.reel(["render", "camm.json", "-o", "camm.mp4"], in: folder)
        try #require(camm.status == 0, "\(camm.stderr)")
        #expect(try Self.metadataCodecTags("camm.mp4", in: folder) == ["camm"])
        let before = try await #require(try Self.fixes(source, in: folder))
        let after = try await #require(try Self.fixes("camm.mp4", in: folder))
        #expect(after.count == before.count && !after.isEmpty)

        let flag = await ReelProcess.reel(["render", "camm.json", "-o", "mebx.mov", "--metadata-format", "mebx"], in: folder)
        try #require(flag.status == 0, "\(flag.stderr)")
        #expect(try Self.metadataCodecTags("mebx.mov", in: folder) == ["mebx"])

        // A format the container cannot hold is refused before anything is written, naming the key.
        try write("klv.json", format: "klv")
        let refused = await ReelProcess.reel(["render", "klv.json", "-o", "klv.mp4"], in: folder)
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("klv metadata does not go into mp4"), "\(refused.stderr)")
        #expect(!refused.stderr.contains("rendered 0/"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("klv.mp4").path))
    }

    /// The GoPro clip with the payload at 5.005 s damaged: garbled (a KLV key of 0xFF
    /// bytes) or zero-filled (a sample the camera never filled in).
    @Test(.requires(.sharedMedia, .ffmpeg, .ffprobe), arguments: ["garbled", "zeroed"])
    func aDamagedSampleInTheMiddleIsNamedAndTheRestKept(damage: String) async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let original = TestFiles.sharedMedia("gpmf-parser_max-heromode.mp4")
        let damaged = folder.appendingPathComponent("damaged.mp4")
        try FileManager.default.copyItem(at: original, to: damaged)
        // The gpmd packets' times, positions and sizes.
        let packets = try TestTools.outputString(
            "ffprobe",
            [
                "-v", "error", "-select_streams", "3", "-show_entries", "packet=pts_time,pos,size",
                "-of", "csv=p=0", damaged.path,
            ], in: folder
        )
        .split(separator: "\n").map { $0.split(separator: ",").compactMap { Double($0) } }.filter { $0.count == 3 }
        try #require(packets.count > 4, "\(packets)")
        let hit = packets[packets.count / 2]
        let (time, size, position) = (hit[0], Int(hit[1]), UInt64(hit[2]))
        let end = packets[packets.count / 2 + 1][0]
        let handle = try FileHandle(forWritingTo: damaged)
        if damage == "garbled" {
            try handle.seek(toOffset: position + 8)
            try handle.write(contentsOf: Data(repeating: 0xFF, count: 8))
        } else {
            try handle.seek(toOffset: position)
            try handle.write(contentsOf: Data(repeating: 0, count: size))
        }
        try handle.close()

        let export = await ReelProcess.reel(["export", "damaged.mp4", "-o", "out.mp4", "--preset", "passthrough"], in: folder)
        try #require(export.status == 0, "\(export.stderr)")
        let warnings = export.stderrLines.filter { $0.contains("warning") && $0.contains("skipped") }
        #expect(warnings.count == 1, "\(export.stderr)")
        let shown = String(format: "%.3f", time)
        #expect(warnings.first.map { $0.contains("track 4") && $0.contains("at \(shown) s") } == true, "\(warnings)")

        // Every fix outside the damaged payload is kept, in place.
        let all = try await #require(try Self.fixes(original.path, in: folder))
        let kept = all.filter { $0.time < time || $0.time >= end }
        try #require(kept.count < all.count, "no fix in \(time)...\(end)")
        let after = try await #require(try Self.fixes("out.mp4", in: folder))
        #expect(after.count == kept.count, "\(after.count) fixes out, \(kept.count) expected")
        for (a, b) in zip(kept, after) {
            #expect(abs(a.time - b.time) < 1e-3 && a.latitude == b.latitude && a.longitude == b.longitude, "\(a) became \(b)")
        }
    }
}
