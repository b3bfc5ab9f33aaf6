import Foundation
import ReelCore
import ReelTestSupport
import Testing

@testable import ReelIO

@Suite("AssetTrackSegment")
struct AssetTrackSegmentTests {
    func video(_ name: String) async throws -> AssetTrack {
        try #require(try await Asset(url: TestFiles.fixture(name)).loadTracks(withMediaType: .video).first)
    }

    func seconds(_ s: Int64, _ scale: Int32 = 1) -> MediaTime { MediaTime(value: s, timescale: scale) }

    @Test("the segment holding a time: the empty edit before the media, then the media")
    func holding() async throws {
        let track = try await video("edit-list.mp4")
        let empty = try #require(try await track.loadSegment(forTrackTime: seconds(1, 4)))
        #expect(empty.isEmpty)
        #expect(empty.timeMapping.target == TimeRange(start: .zero, duration: seconds(1, 2)))
        let media = try #require(try await track.loadSegment(forTrackTime: seconds(1)))
        #expect(!media.isEmpty)
        // The media from its B-frame delay (the edit's media time, 1024 of 15360).
        #expect(media.timeMapping.source == TimeRange(start: MediaTime(value: 1024, timescale: 15360), duration: track.timeRange.duration))
        #expect(media.timeMapping.target == track.timeRange)
        // The boundary belongs to the later segment (half-open ranges).
        #expect(track.segment(forTrackTime: seconds(1, 2))?.isEmpty == false)
    }

    @Test("a time outside every segment gets the nearest one; an invalid time gets none")
    func nearest() async throws {
        let track = try await video("edit-list.mp4")
        #expect(track.segment(forTrackTime: seconds(10))?.isEmpty == false)
        #expect(track.segment(forTrackTime: seconds(-3))?.isEmpty == true)
        #expect(track.segment(forTrackTime: .invalid) == nil)
        #expect(track.segment(forTrackTime: .positiveInfinity)?.isEmpty == false)
    }

    @Test("a stream copy cut at 0.5 s into MOV: one edit showing the media from the cut", .requires(.ffmpeg))
    func streamCopyCut() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("cut.mov")
        // 20 frames a group of pictures (keyframes at 0, 2/3 s, ...): the copy starts at the
        // keyframe before 0.5 s and its edit list skips to 0.5 s.
        let source = folder.appendingPathComponent("source.mp4")
        try TestTools.output(
            "ffmpeg",
            [
                "-v", "error", "-nostdin", "-f", "lavfi", "-i", "testsrc=size=64x48:rate=30:duration=2",
                "-c:v", "libx264", "-preset", "ultrafast", "-g", "20", "-bf", "0", "-video_track_timescale", "30",
                source.path,
            ])
        try TestTools.output("ffmpeg", ["-v", "error", "-nostdin", "-ss", "0.5", "-i", source.path, "-c", "copy", url.path])
        let track = try #require(try await Asset(url: url).loadTracks(withMediaType: .video).first)
        let shown = track.segments.filter { !$0.isEmpty }
        try #require(shown.count == 1, "\(track.segments)")
        // The media is shown from 0.5 s, not from the keyframe the copy starts at.
        #expect(shown[0].source.start == MediaTime(value: 15, timescale: 30), "\(shown[0])")
        #expect(shown[0].rate == 1)
        let atStart = try #require(try await track.loadSegment(forTrackTime: shown[0].target.start))
        #expect(atStart.timeMapping == shown[0])
    }
}
