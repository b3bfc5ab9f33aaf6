import Foundation
import ReelTestSupport
import Testing

@testable import Reel

@Suite struct ExportTimecodeTests {
    static let goPro = TestFiles.sharedMedia("gpmf-parser_max-heromode.mp4")
    static let goProStart = Timecode(hours: 15, minutes: 44, seconds: 35, frames: 10)

    @Test func aLabelMovesByTheSourceFramesElapsed() {
        let start = Self.goProStart
        // 2.5 s of 29.97 fps video is 75 frames.
        #expect(ExportTimecode.label(start, sourceFrameRate: 30000.0 / 1001, elapsed: .ratio(5, 2), outputFrameDuration: nil).description == "15:44:37:25")
        #expect(ExportTimecode.label(start, sourceFrameRate: 25, elapsed: .zero, outputFrameDuration: MediaTime(value: 1, timescale: 25)) == start)
        // Counted at 60 the same instant is frame 20 of its second.
        #expect(
            ExportTimecode.label(start, sourceFrameRate: 30, elapsed: .zero, outputFrameDuration: MediaTime(value: 1, timescale: 60)).description
                == "15:44:35:20")
        // Drop-frame labels stay drop-frame at 60, not at 25.
        let drop = Timecode("01:00:00;00")!
        #expect(
            ExportTimecode.label(drop, sourceFrameRate: 30000.0 / 1001, elapsed: .zero, outputFrameDuration: MediaTime(value: 1001, timescale: 60000))
                .isDropFrame)
        #expect(
            !ExportTimecode.label(drop, sourceFrameRate: 30000.0 / 1001, elapsed: .zero, outputFrameDuration: MediaTime(value: 1, timescale: 25)).isDropFrame)
    }

    @Test(.requires(.sharedMedia))
    func anExportKeepsTheCamerasTimecodeAndFrames() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let session = try await AssetExportSession(asset: Asset(url: Self.goPro), preset: .h264(crf: 35, preset: "ultrafast"))
        let out = folder.appendingPathComponent("out.mp4")
        try await session.export(to: out, as: .mp4)
        let tracks = try await Asset(url: out).load(.tracks)
        let video = try #require(tracks.first { $0.mediaType == .video })
        #expect(video.startTimecode == Self.goProStart)
        #expect(tracks.contains { $0.mediaType == .timecode })
        // The audio runs 7 ms past the last picture: no frame is made up for it.
        let source = try #require(try await Asset(url: Self.goPro).load(.tracks).first)
        #expect(video.sampleCount == source.sampleCount)
    }

    @Test(.requires(.sharedMedia))
    func aTrimmedExportStartsAtTheTimecodeOfItsFirstFrame() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let session = try await AssetExportSession(asset: Asset(url: Self.goPro), preset: .h264(crf: 35, preset: "ultrafast"))
        session.timeRange = TimeRange(start: .ratio(5, 2), end: MediaTime(value: 4, timescale: 1))
        let out = folder.appendingPathComponent("cut.mov")
        try await session.export(to: out, as: .mov)
        let video = try #require(try await Asset(url: out).load(.tracks).first { $0.mediaType == .video })
        #expect(video.startTimecode?.description == "15:44:37:25")
    }

    @Test(.requires(.ffmpeg))
    func aPassthroughExportKeepsTheTimecode() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let clip = folder.appendingPathComponent("tc.mov")
        _ = try TestTools.run(
            "ffmpeg",
            [
                "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25:duration=1",
                "-c:v", "libx264", "-preset", "ultrafast", "-timecode", "09:59:58:12", clip.path,
            ]
        ).succeeded("ffmpeg")
        let session = try await AssetExportSession(asset: Asset(url: clip), preset: .passthrough)
        let out = folder.appendingPathComponent("copy.mp4")
        try await session.export(to: out, as: .mp4)
        let video = try #require(try await Asset(url: out).load(.tracks).first { $0.mediaType == .video })
        #expect(video.startTimecode?.description == "09:59:58:12")
        #expect(video.nominalFrameRate == 25)
    }
}
