import ReelComposition
import ReelTestSupport
import Testing

@Suite struct MutableCompositionTests {
    @Test func insertingSourcesMakesTracksPerKind() throws {
        let one = SourceDescription(identifier: "one.mp4", tracks: [videoTrack("one.mp4", 1, duration: 3), audioTrack("one.mp4", 2, duration: 3)])
        let two = SourceDescription(identifier: "two.mp4", tracks: [videoTrack("two.mp4", 1, duration: 2), metadataTrack("two.mp4", 3, duration: 2)])
        var m = MutableComposition()
        try m.insertTimeRange(range(0, 3), of: one, at: .zero)
        try m.insertTimeRange(range(0, 2), of: two, at: t(3))
        let c = Composition(m)
        #expect(c.tracks.map(\.mediaType) == [.video, .audio, .metadata])
        #expect(c.duration == t(5))
        let video = try #require(c.tracks(withMediaType: .video).first)
        #expect(video.sourceTime(at: t(4))?.source.sourceIdentifier == "two.mp4")
        // The metadata track starts with an empty edit where `one` plays.
        let meta = try #require(c.tracks(withMediaType: .metadata).first)
        #expect(meta.sourceTime(at: t(1)) == nil)
        #expect(meta.sourceTime(at: t(3.5))?.time == t(0.5))
        #expect(c.sourceTrackReferences.count == 4)
    }

    @Test func insertingInFrontMovesEveryTrack() throws {
        let one = SourceDescription(identifier: "one", tracks: [videoTrack("one", 1, duration: 2), audioTrack("one", 2, duration: 2)])
        let two = SourceDescription(identifier: "two", tracks: [videoTrack("two", 1, duration: 1)])
        var m = MutableComposition()
        try m.insertTimeRange(range(0, 2), of: one, at: .zero)
        try m.insertTimeRange(range(0, 1), of: two, at: .zero)
        let audio = try #require(m.tracks(withMediaType: .audio).first)
        #expect(audio.timeRange == range(0, 3))
        #expect(audio.sourceTime(at: t(1))?.time == .zero)
        try m.removeTimeRange(range(0, 1))
        #expect(m.duration == t(2))
        try m.scaleTimeRange(range(0, 2), toDuration: t(4))
        #expect(m.duration == t(4))
    }

    @Test func tracksByID() throws {
        var m = MutableComposition()
        let v = m.addMutableTrack(withMediaType: .video, preferredTrackID: 7)
        let w = m.addMutableTrack(withMediaType: .video, preferredTrackID: 7)
        #expect(v == 7)
        #expect(w == 8)
        try m.insertTimeRange(range(0, 1), of: videoTrack("x", 1), intoTrackWithID: 8, at: .zero)
        #expect(m.track(withTrackID: 8)?.timeRange == range(0, 1))
        expectReelError(.invalidArgument) { try m.insertTimeRange(range(0, 1), of: videoTrack("x", 1), intoTrackWithID: 9, at: .zero) }
        m.removeTrack(withTrackID: 7)
        #expect(m.tracks.map(\.trackID) == [8])
    }
}
