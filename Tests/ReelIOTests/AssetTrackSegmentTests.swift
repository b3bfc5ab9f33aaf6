import ReelCore
@testable import ReelIO
import Testing
import ReelTestSupport

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
        #expect(media.timeMapping.source == track.timeRange && media.timeMapping.target == track.timeRange)
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
}
