import Foundation
import Reel
import ReelTestSupport
import Testing

@Suite struct ExportJobFileLengthLimitTests {
    let counter = TestFiles.fixture("counter-320x240.mp4")

    /// H.264 with a keyframe every 10 frames (three groups of pictures a second), and sound.
    static let grouped = ExportPreset.custom(
        VideoEncoderSettings(
            codec: .h264, width: 0, height: 0, preset: "veryfast",
            keyframeInterval: 10))

    func session(_ preset: ExportPreset = grouped) async throws -> AssetExportSession {
        try await AssetExportSession(asset: Asset(url: counter), preset: preset)
    }

    static func size(_ url: URL) throws -> Int64 {
        try #require(try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber).int64Value
    }

    /// The presentation times of the video packets, and whether each is a keyframe, as ffprobe reads them.
    static func videoPackets(_ url: URL) throws -> [(time: Double, key: Bool)] {
        let text = try TestTools.outputString(
            "ffprobe",
            [
                "-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts_time,flags",
                "-of", "csv=p=0", url.path,
            ])
        return text.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: ",")
            guard fields.count >= 2, let time = Double(fields[0]) else { return nil }
            return (time, fields[1].hasPrefix("K"))
        }.sorted { $0.time < $1.time }
    }

    @Test(.requires(.ffmpeg, .ffprobe))
    func aLimitedExportEndsWithWholeGroupsOfPicturesWithinTheLimitAndPlays() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let full = folder.appendingPathComponent("full.mp4")
        try await session().export(to: full, as: .mp4)
        let fullSize = try Self.size(full)
        let fullPackets = try Self.videoPackets(full)

        let limited = folder.appendingPathComponent("limited.mp4")
        let session = try await session()
        let limit = fullSize / 2
        session.fileLengthLimit = limit
        #expect(session.fileLengthLimit == limit)
        try await session.export(to: limited, as: .mp4)
        #expect(session.status == .completed)
        let size = try Self.size(limited)
        #expect(size <= limit, "\(size) bytes, limit \(limit)")
        let packets = try Self.videoPackets(limited)
        // Shorter than asked, but not empty, and a whole number of groups of pictures.
        #expect(!packets.isEmpty && packets.count < fullPackets.count, "\(packets.count) of \(fullPackets.count) frames")
        #expect(packets.first?.key == true)
        #expect(packets.count % 10 == 0, "\(packets.count) frames is not a whole number of 10-frame groups")
        // It plays: every packet decodes.
        let decoded = try TestTools.run("ffmpeg", ["-v", "error", "-nostdin", "-i", limited.path, "-f", "null", "-"])
        #expect(decoded.status == 0 && decoded.stderr.isEmpty, "\(decoded.stderr)")
        // Nothing is left beside it.
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == ["full.mp4", "limited.mp4"])
    }

    @Test(.requires(.ffmpeg, .ffprobe))
    func anExportWithinTheLimitIsWrittenWhole() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let full = folder.appendingPathComponent("full.mp4")
        try await session().export(to: full, as: .mp4)
        let out = folder.appendingPathComponent("out.mp4")
        let session = try await session()
        let limit = try Self.size(full) * 2
        session.fileLengthLimit = limit
        try await session.export(to: out, as: .mp4)
        #expect(try Self.size(out) <= limit)
        #expect(try Self.videoPackets(out).count == Self.videoPackets(full).count)
    }

    @Test(.requires(.ffmpeg, .ffprobe))
    func anAudioOnlyExportEndsAtAWholeSampleWithinTheLimit() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let full = folder.appendingPathComponent("full.m4a")
        try await session(.appleM4A).export(to: full, as: .mp4)
        let limited = folder.appendingPathComponent("limited.m4a")
        let session = try await session(.appleM4A)
        let limit = try Self.size(full) * 2 / 3
        session.fileLengthLimit = limit
        try await session.export(to: limited, as: .mp4)
        #expect(try Self.size(limited) <= limit)
        func duration(_ url: URL) throws -> Double {
            Double(
                try TestTools.outputString("ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", url.path])
                    .trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        }
        let (short, long) = (try duration(limited), try duration(full))
        #expect(short > 0 && short < long, "\(short) s of \(long) s")
        let decoded = try TestTools.run("ffmpeg", ["-v", "error", "-nostdin", "-i", limited.path, "-f", "null", "-"])
        #expect(decoded.status == 0 && decoded.stderr.isEmpty, "\(decoded.stderr)")
    }

    @Test func aLimitSmallerThanTheFirstGroupOfPicturesWritesNothing() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("out.mp4")
        let session = try await session()
        session.fileLengthLimit = 2000
        _ = await expectReelError(.outputFailed) { try await session.export(to: out, as: .mp4) }
        #expect(session.status == .failed)
        #expect(session.error?.message.contains("2000 bytes") == true)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
    }

    @Test func anExistingFileIsRefusedBeforeAnythingIsWritten() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("out.mp4")
        try Data("keep".utf8).write(to: out)
        let session = try await session()
        session.fileLengthLimit = 1_000_000
        _ = await expectReelError(.outputExists) { try await session.export(to: out, as: .mp4) }
        #expect(try Data(contentsOf: out) == Data("keep".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["out.mp4"])
    }
}
