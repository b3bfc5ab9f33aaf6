import ReelTestSupport
import ReelTesting
import Testing

@Suite struct InMemoryRenderTests {
    static let frameDuration = MediaTime(value: 1, timescale: 30)

    /// One second of a 30 fps counter clip (track 1) with GPS every quarter second (track 2),
    /// speed 1, 2, 3, 4 m/s.
    static func clip() throws -> InMemorySource {
        var clip = InMemorySource(identifier: "clip")
        try clip.addCounterVideoTrack(trackID: 1, frameCount: 30, frameDuration: frameDuration, width: 64, height: 36)
        let gps = (0..<4).map { i in
            GPSSample(
                time: MediaTime(value: Int64(i), timescale: 4),
                fix: GPSFix(latitude: 46.5 + Double(i) * 0.001, longitude: 6.6, speed2D: Double(i + 1)))
        }
        try clip.addMetadataTrack(trackID: 2, groups: try SyntheticMetadata.gpsGroups(gps))
        return clip
    }

    static func setup(passthrough: Bool = false) throws -> (Composition, VideoComposition, InMemorySource) {
        let clip = try clip()
        var m = MutableComposition()
        try m.insertTimeRange(clip.timeRange, of: clip.description, at: .zero)
        let composition = Composition(m)
        let instruction: any VideoCompositionInstructionProtocol =
            passthrough
            ? VideoCompositionInstruction(timeRange: composition.timeRange, passthroughTrackID: 1)
            : SpeedBarInstruction(timeRange: composition.timeRange)
        let video = VideoComposition(
            frameDuration: MediaTime(value: 1, timescale: 10), renderSize: Size(width: 64, height: 36),
            instructions: [instruction], sourceSampleDataTrackIDs: passthrough ? [] : [2])
        return (composition, video, clip)
    }

    @Test func describesItsTracks() throws {
        let clip = try Self.clip()
        #expect(clip.description.tracks.map(\.mediaType) == [.video, .metadata])
        #expect(clip.timeRange == TimeRange(start: .zero, duration: MediaTime(value: 1, timescale: 1)))
        #expect(clip.description.tracks[0].naturalSize == Size(width: 64, height: 36))
        var again = clip
        expectReelError(.invalidArgument) { try again.addMetadataTrack(trackID: 1, groups: []) }
    }

    @Test func rendersThroughTheEngineWithNoFiles() async throws {
        let (composition, video, clip) = try Self.setup()
        let frames = try await InMemoryRender.frames(
            composition: composition, videoComposition: video, sources: clip,
            compositor: AsyncVideoCompositorAdapter(SpeedBar()))
        #expect(frames.map(\.time) == (0..<10).map { MediaTime(value: Int64($0), timescale: 10) })
        for (k, frame) in frames.enumerated() {
            // Output time k/10 s shows source frame 3k of the 30 fps clip...
            #expect(readCounter(from: frame.pixelBuffer) == 3 * k, "frame \(k)")
            // ...and the GPS group of its quarter second: a bar of 4 px per m/s.
            let speed = k * 10 / 25 + 1
            #expect(frame.pixelBuffer.rgba(x: 4 * speed - 1, y: 35) == RGBA(255, 255, 0), "frame \(k)")
            #expect(frame.pixelBuffer.rgba(x: 4 * speed, y: 35) != RGBA(255, 255, 0), "frame \(k)")
        }
    }

    @Test func hashLinesAreStableAndMatchTheGolden() async throws {
        let (composition, video, clip) = try Self.setup()
        let lines = try await InMemoryRender.hashLines(
            composition: composition, videoComposition: video, sources: clip,
            compositor: AsyncVideoCompositorAdapter(SpeedBar()))
        #expect(lines.count == 10)
        #expect(lines[1].hasPrefix("1/10 1/10 "))
        let again = try await InMemoryRender.hashLines(
            composition: composition, videoComposition: video, sources: clip,
            compositor: AsyncVideoCompositorAdapter(SpeedBar()))
        #expect(lines == again)
        try Golden(packageDirectory: "Fixtures/goldens").verifyLines(lines, named: "reeltesting-speedbar")
    }

    @Test func passthroughNeverReachesTheCompositor() async throws {
        let (composition, video, clip) = try Self.setup(passthrough: true)
        let manual = ManualCompositor()
        let frames = try await InMemoryRender.frames(composition: composition, videoComposition: video, sources: clip, compositor: manual)
        #expect(manual.startedTimes.isEmpty)
        #expect(frames.allSatisfy { $0.isPassthrough })
        #expect(frames.map { readCounter(from: $0.pixelBuffer) } == (0..<10).map { 3 * $0 })
    }
}
