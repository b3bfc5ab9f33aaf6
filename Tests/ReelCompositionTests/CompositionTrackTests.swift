import ReelComposition
import ReelTestSupport
import Testing

@Suite struct CompositionTrackTests {
    let a = videoTrack("a.mp4", 1)
    let b = videoTrack("b.mp4", 1)

    @Test func insertAppendsAndMapsTime() throws {
        var track = CompositionTrack(trackID: 1, mediaType: .video)
        try track.insertTimeRange(range(2, 4), of: a, at: .zero)
        try track.insertTimeRange(range(0, 1), of: b, at: t(2))
        #expect(track.timeRange == range(0, 3))
        #expect(track.segments.count == 2)
        #expect(track.sourceTime(at: t(1.5))?.time == t(3.5))
        #expect(track.sourceTime(at: t(2.5))?.source == b.reference)
        #expect(track.sourceTime(at: t(2.5))?.time == t(0.5))
        #expect(track.sourceTime(at: t(3)) == nil)
        #expect(track.naturalSize == a.naturalSize)
        #expect(track.segmentProblem() == nil)
    }

    @Test func insertInTheMiddleSplitsAndShifts() throws {
        var track = CompositionTrack(trackID: 1, mediaType: .video)
        try track.insertTimeRange(range(0, 4), of: a, at: .zero)
        try track.insertTimeRange(range(0, 1), of: b, at: t(1))
        #expect(track.segments.map(\.target) == [range(0, 1), range(1, 2), range(2, 5)])
        #expect(track.segments[2].timeMapping.source == range(1, 4))
        #expect(track.sourceTime(at: t(2))?.time == t(1))
        #expect(track.sourceTime(at: t(2))?.source == a.reference)
    }

    @Test func insertPastTheEndAddsAnEmptyEdit() throws {
        var track = CompositionTrack(trackID: 1, mediaType: .video)
        try track.insertTimeRange(range(0, 1), of: a, at: t(2))
        #expect(track.segments.count == 2)
        #expect(track.segments[0].isEmpty)
        #expect(track.sourceTime(at: t(1)) == nil)
        #expect(track.sourceTime(at: t(2.5))?.time == t(0.5))
    }

    @Test func removeAndInsertEmpty() throws {
        var track = CompositionTrack(trackID: 1, mediaType: .video)
        try track.insertTimeRange(range(0, 6), of: a, at: .zero)
        try track.removeTimeRange(range(1, 3))
        #expect(track.timeRange == range(0, 4))
        #expect(track.sourceTime(at: t(1))?.time == t(3))
        try track.insertEmptyTimeRange(range(1, 2))
        #expect(track.sourceTime(at: t(1.5)) == nil)
        #expect(track.sourceTime(at: t(2))?.time == t(3))
        #expect(track.segmentProblem() == nil)
    }

    @Test func scaleSlowsDown() throws {
        var track = CompositionTrack(trackID: 1, mediaType: .video)
        try track.insertTimeRange(range(0, 4), of: a, at: .zero)
        try track.scaleTimeRange(range(1, 2), toDuration: t(2))
        #expect(track.timeRange == range(0, 5))
        #expect(track.sourceTime(at: t(2))?.time == t(1.5))
        #expect(track.sourceTime(at: t(3))?.time == t(2))
        #expect(track.sourceTime(at: t(4.5))?.time == t(3.5))
        let slow = try #require(track.segment(forTrackTime: t(2)))
        #expect(slow.compositionTime(forSourceTime: t(1.75)) == t(2.5))
    }

    @Test func captionsAreCutToEachSegmentAndRetimed() async throws {
        // Source 0-4 s played twice as fast over 1-3 s, then an empty edit, then source 6-8 s at 4 s.
        let ref = SourceTrackReference(sourceIdentifier: "s", trackID: 1)
        let track = CompositionTrack(
            trackID: 1, mediaType: .subtitle,
            segments: [
                CompositionTrackSegment(emptyTarget: range(0, 1)),
                CompositionTrackSegment(sourceTrack: ref, timeMapping: TimeMapping(source: range(0, 4), target: range(1, 3))),
                CompositionTrackSegment(emptyTarget: range(3, 4)),
                CompositionTrackSegment(sourceTrack: ref, timeMapping: TimeMapping(source: range(6, 8), target: range(4, 6))),
            ])
        let asked = Recorder<SourceTrackReference>()
        let captions = try await track.compositionCaptions { r throws(ReelError) in
            asked.append(r)
            return [Caption("one", timeRange: range(1, 3)), Caption("two", timeRange: range(3.5, 6.5)), Caption("three", timeRange: range(9, 10))]
        }
        #expect(asked.all == [ref], "each source track is read once")
        #expect(captions.map(\.text) == ["one", "two", "two"])
        #expect(captions.map(\.timeRange) == [range(1.5, 2.5), range(2.75, 3), range(4, 4.5)])
        #expect(track.segments[0].compositionCaption(Caption("x", timeRange: range(0, 1))) == nil, "an empty edit shows nothing")
    }

    @Test func wrongKindOrRangeIsAClearError() {
        var track = CompositionTrack(trackID: 3, mediaType: .audio)
        expectReelError(.invalidArgument) { try track.insertTimeRange(range(0, 1), of: a, at: .zero) }
        var video = CompositionTrack(trackID: 1, mediaType: .video)
        do {
            try video.insertTimeRange(range(8, 12), of: a, at: .zero)
            Issue.record("expected an error")
        } catch {
            #expect(error.description.contains("outside a.mp4 track 1"))
        }
        expectReelError(.invalidArgument) { try video.insertTimeRange(range(1, 1), of: a, at: .zero) }
    }
}
