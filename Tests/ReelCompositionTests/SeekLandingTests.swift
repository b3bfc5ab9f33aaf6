import ReelComposition
import Testing

/// A video source that knows only where its keyframes are (no pictures).
private struct KeyframedSource: VideoFrameSource {
    var keyframes: [MediaTime]?

    func frame(at sourceTime: MediaTime) async throws(ReelError) -> VideoFrame? { nil }

    func randomAccessTime(atOrBefore sourceTime: MediaTime) async -> MediaTime? {
        keyframes?.last { !(sourceTime < $0) }
    }
}

@Suite struct SeekLandingTests {
    /// Track 1: source "a" 2-8 s at 0 (keyframes every second); track 2: source "b" 0-6 s at
    /// 0 (keyframes every 1.5 s). One instruction, over `instructionRange` (0-6 s), drawing
    /// the tracks in `layers` (track 1).
    struct Setup {
        var composition: Composition
        var sources = RenderSources()

        init(
            aKeyframes: [MediaTime]? = stride(from: 0.0, through: 10, by: 1).map { t($0) },
            bKeyframes: [MediaTime]? = stride(from: 0.0, through: 6, by: 1.5).map { t($0) }
        ) throws {
            var m = MutableComposition()
            let one = m.addMutableTrack(withMediaType: .video)
            let two = m.addMutableTrack(withMediaType: .video)
            try m.insertTimeRange(range(2, 8), of: videoTrack("a", 1), intoTrackWithID: one, at: .zero)
            try m.insertTimeRange(range(0, 6), of: videoTrack("b", 1), intoTrackWithID: two, at: .zero)
            composition = Composition(m)
            sources.add(KeyframedSource(keyframes: aKeyframes), for: SourceTrackReference(sourceIdentifier: "a", trackID: 1))
            sources.add(KeyframedSource(keyframes: bKeyframes), for: SourceTrackReference(sourceIdentifier: "b", trackID: 1))
        }

        func land(_ target: Double, before: Double, after: Double = 0, layers: [Int32]? = [1], instructionRange: TimeRange = range(0, 6)) async -> MediaTime {
            let video = VideoComposition(
                frameDuration: t(0.1), renderSize: Size(width: 64, height: 36),
                instructions: [
                    TestInstruction(timeRange: instructionRange, requiredSourceTrackIDs: layers)
                ])
            return await SeekLanding.time(
                for: t(target), earliest: t(target - before), latest: t(target + after),
                composition: composition, videoComposition: video, sources: sources)
        }
    }

    @Test func aKeyframeInTheWindowIsTheLanding() async throws {
        let s = try Setup()
        // Composition 3.7 s is source 5.7 s; its keyframe shows at source 5 s, composition 3 s.
        #expect(await s.land(3.7, before: 1) == t(3))
        #expect(await s.land(3.7, before: 0.7) == t(3))
    }

    @Test func withTheKeyframeOutsideTheWindowTheEarliestTimeIsTheNearestToIt() async throws {
        let s = try Setup()
        #expect(await s.land(3.7, before: 0.5) == t(3.2))
    }

    @Test func noToleranceIsExact() async throws {
        let s = try Setup()
        #expect(await s.land(3.7, before: 0) == t(3.7))
    }

    @Test func aKeyframeAfterTheTargetCountsWhenToleranceAfterReachesIt() async throws {
        let s = try Setup()
        // The keyframe at source 6 s shows at composition 4 s: nothing to decode past it.
        #expect(await s.land(3.7, before: 0, after: 0.5) == t(4))
        // Not reached: exact.
        #expect(await s.land(3.7, before: 0, after: 0.2) == t(3.7))
        // Keyframes on both sides (composition 3 s and 4 s), each with nothing to decode:
        // the nearer one.
        #expect(await s.land(3.2, before: 1, after: 1) == t(3))
    }

    @Test func aSourceThatDoesNotKnowItsKeyframesLandsOnTheTarget() async throws {
        let s = try Setup(aKeyframes: nil)
        #expect(await s.land(3.7, before: 2) == t(3.7))
    }

    @Test func theWindowStopsAtTheInstructionAndTheSegment() async throws {
        let s = try Setup()
        // The instruction starts at 3.5 s: the keyframe at 3 s is outside it.
        #expect(await s.land(3.7, before: 2, instructionRange: range(3.5, 6)) == t(3.5))
        // Composition 0.4 s is source 2.4 s: its keyframe (source 2 s) is the segment's start.
        #expect(await s.land(0.4, before: 1) == t(0))
    }

    @Test func withTwoLayersTheLandingLeavesTheLeastToDecodeOverBoth() async throws {
        // Source a with keyframes every 2 s. At 4.4 s: track 1 shows source a 6.4 s (keyframe
        // 6 s, composition 4 s), track 2 source b 4.4 s (keyframe 3 s, composition 3 s).
        // Landing on 4 s leaves 0 of a and 1 s of b to decode; on 3 s 1 s of a (from its
        // keyframe at 4 s) and 0 of b; on 4.4 s 0.4 + 1.4. 4 s and 3 s cost 1 s each: the
        // nearer to the target wins.
        let s = try Setup(aKeyframes: stride(from: 0.0, through: 10, by: 2).map { t($0) })
        #expect(await s.land(4.4, before: 1.5, layers: [1, 2]) == t(4))
        // Only track 2 drawn: its own keyframe.
        #expect(await s.land(4.4, before: 1.5, layers: [2]) == t(3))
    }
}
