import Foundation
import Testing
import ReelTestSupport

/// The GPS dashboard example rendered over every camera file in ../shared/media that has
/// a metadata track, into each container: the render succeeds (converting the track where
/// the container needs another format) and the output's fixes are the input's.
@Suite("reel render keeps every camera's timed metadata", .serialized)
struct RenderMetadataFormatsTests {
    static let composition = TestFiles.packageRoot.appendingPathComponent("Examples/gps-dashboard/composition.json").path
    static let cameraFiles = ["gpmf-parser_max-heromode.mp4", "nom-exif_meta.mov", "kwiver_aphill_short.ts", "kwiver_mpeg2_klv.ts"]

    struct Fix: Equatable {
        var latitude: Double
        var longitude: Double
    }

    /// The fixes `reel metadata export --format csv` gives for `file`; nil when it has none.
    static func fixes(_ file: String, in folder: URL) throws -> [Fix]? {
        let out = try ReelProcess.reel(["metadata", "export", file, "--format", "csv"], in: folder)
        guard out.status == 0 else { return nil }
        let rows = out.stdout.split(separator: "\n").dropFirst()
        return rows.compactMap { row in
            let cells = row.split(separator: ",", omittingEmptySubsequences: false)
            guard cells.count > 2, let lat = Double(cells[1]), let lon = Double(cells[2]) else { return nil }
            return Fix(latitude: lat, longitude: lon)
        }
    }

    /// The identifiers and values of every item `reel metadata export --format json` gives for `file`.
    static func items(_ file: String, in folder: URL) throws -> [String] {
        let out = try ReelProcess.reel(["metadata", "export", file, "--format", "json"], in: folder)
        try #require(out.status == 0, "\(out.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(out.stdout.utf8)) as? [String: Any])
        let groups = try #require(json["groups"] as? [[String: Any]])
        return groups.flatMap { ($0["items"] as? [[String: Any]] ?? []).map { "\($0["identifier"] ?? "") = \($0["value"] ?? "")" } }
    }

    @Test(.requires(.sharedMedia, .reelBinary, .ffmpeg, .ffprobe), arguments: cameraFiles, ["mp4", "mov", "ts"])
    func theDashboardRendersOverEveryCamera(file: String, container: String) throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = TestFiles.sharedMedia.appendingPathComponent(file).path
        let output = "out.\(container)"
        let render = try ReelProcess.reel(["render", Self.composition, "--source", input, "-o", output], in: folder)
        try #require(render.status == 0, "\(render.stderr)")
        // Every warning is one line naming the metadata track or the tags not carried.
        for line in render.stderrLines where line.contains("warning") {
            #expect(line.contains("metadata track") || line.contains("metadata not carried"), "\(line)")
        }
        let before = try Self.fixes(input, in: folder)
        guard let before, !before.isEmpty else {
            // No GPS in the source (the phone's track holds its orientation): the same items
            // where the container holds them (MP4, MOV), else one line saying it is left out.
            let items = try Self.items(input, in: folder)
            try #require(!items.isEmpty, "no items in \(file)")
            if container == "ts" {
                #expect(render.stderr.contains("the track is left out"), "\(render.stderr)")
            } else {
                #expect(try Self.items(output, in: folder) == items)
            }
            return
        }
        if before.count == 1, container == "ts" {
            // A static location only (the phone's): MPEG-TS holds no location tag, and says so.
            #expect(render.stderr.contains("metadata not carried: mpegts files have no place for") && render.stderr.contains("location"),
                    "\(render.stderr)")
            return
        }
        let after = try #require(try Self.fixes(output, in: folder), "no fixes in the \(container) output")
        try #require(after.count == before.count, "\(before.count) fixes in, \(after.count) out")
        for (a, b) in zip(before, after) {
            // The coarsest format on the way: GPMF (1e-7 degrees), ISO 6709 in mebx (1e-6).
            #expect(abs(a.latitude - b.latitude) < 1e-6 && abs(a.longitude - b.longitude) < 1e-6, "\(a) became \(b)")
        }
    }

    @Test(.requires(.sharedMedia, .reelBinary, .ffmpeg, .ffprobe))
    func aRenderToMatroskaWithMetadataIsRefusedBeforeItStarts() throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = TestFiles.sharedMedia.appendingPathComponent("kwiver_mpeg2_klv.ts").path
        let render = try ReelProcess.reel(["render", Self.composition, "--source", input, "-o", "out.mkv"], in: folder)
        #expect(render.status == 1)
        #expect(render.stderr.contains("mkv files hold none"), "\(render.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("out.mkv").path))
        let asked = try ReelProcess.reel(["render", Self.composition, "--source", input, "-o", "out.ts", "--metadata-format", "mebx"], in: folder)
        #expect(asked.status == 1)
        #expect(asked.stderr.contains("does not go into mpegts"), "\(asked.stderr)")
        let bad = try ReelProcess.reel(["render", Self.composition, "--source", input, "-o", "out.ts", "--metadata-format", "gpx"], in: folder)
        #expect(bad.status == 2)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { !$0.hasPrefix(".") }.isEmpty)
    }
}
