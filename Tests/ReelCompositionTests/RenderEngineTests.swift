import Foundation
import ReelComposition
import ReelTestSupport
import Synchronization
import Testing

/// What a compositor saw in one request.
struct SeenRequest: Sendable {
    var time: MediaTime
    var instructionStart: MediaTime
    var sourceTrackIDs: [Int32]
    var sampleDataTrackIDs: [Int32]
    var groupRanges: [Int32: TimeRange]
    var groupValues: [Int32: Double]
    var sixIsNil: Bool
}

/// Records every request, then finishes it with a frame whose first byte is the request's index.
final class RecordingCompositor: VideoCompositing {
    let seen = Recorder<SeenRequest>()
    let contexts = Recorder<String>()
    let cancels = Atomic<Int>(0)
    var sourcePixelBufferAttributes: PixelBufferAttributes? { .bgra }
    var requiredPixelBufferAttributesForRenderContext: PixelBufferAttributes { .bgra }

    func renderContextChanged(_ c: VideoCompositionRenderContext) { contexts.append("\(c.width)x\(c.height) \(c.pixelFormat)") }

    func startRequest(_ request: AsynchronousVideoCompositionRequest) {
        var ranges: [Int32: TimeRange] = [:], values: [Int32: Double] = [:]
        for id in request.sourceSampleDataTrackIDs {
            ranges[id] = request.sourceTimedMetadata(byTrackID: id)?.timeRange
            values[id] = request.sourceTimedMetadata(byTrackID: id)?.items.first?.numberValue
        }
        seen.append(
            SeenRequest(
                time: request.compositionTime, instructionStart: request.videoCompositionInstruction.timeRange.start,
                sourceTrackIDs: request.sourceTrackIDs, sampleDataTrackIDs: request.sourceSampleDataTrackIDs,
                groupRanges: ranges, groupValues: values, sixIsNil: request.sourceTimedMetadata(byTrackID: 6) == nil))
        let out = request.renderContext.newPixelBuffer()
        out.withUnsafeMutableBytes(plane: 0) { $0[0] = UInt8(truncatingIfNeeded: seen.all.count - 1) }
        request.finish(withComposedVideoFrame: out)
    }

    func cancelAllPendingVideoCompositionRequests() async { cancels.add(1, ordering: .relaxed) }
}

/// Builds the WWDC-style source: audio 1, video 2 and 3, metadata 4, 5, 6, each of
/// `duration` seconds; metadata groups carry their start time as value.
struct SampleSource {
    static let id = "wwdc.mov"
    static func ref(_ track: Int32) -> SourceTrackReference { SourceTrackReference(sourceIdentifier: id, trackID: track) }

    static func description(duration: Double = 6) -> SourceDescription {
        SourceDescription(
            identifier: id,
            tracks: [
                audioTrack(id, 1, duration: duration), videoTrack(id, 2, duration: duration), videoTrack(id, 3, duration: duration),
                metadataTrack(id, 4, duration: duration), metadataTrack(id, 5, duration: duration), metadataTrack(id, 6, duration: duration),
            ])
    }

    static func groups(_ spans: [(Double, Double)]) -> InMemoryTimedMetadataSource {
        InMemoryTimedMetadataSource(
            samples: spans.map { s, e in
                let item = MetadataItem(identifier: .speed2D, value: .double(s))
                let group = TimedMetadataGroup(timeRange: range(s, e), items: [item])
                return TimedMetadataSample(
                    group: group, sampleBuffer: SampleBuffer(data: Data([1, 2, 3]), presentationTime: t(s), duration: t(e - s), format: "test"))
            })
    }

    static func sources(frameDuration: MediaTime = MediaTime(value: 1, timescale: 10)) -> RenderSources {
        var s = RenderSources()
        s.add(InMemoryVideoFrameSource(count: 60, frameDuration: frameDuration) { numbered($0) }, for: ref(2))
        s.add(InMemoryVideoFrameSource(count: 60, frameDuration: frameDuration) { numbered(100 + $0) }, for: ref(3))
        // Track 4: half-second groups everywhere. Track 5: groups with a hole from 3 s to 4 s.
        s.add(groups(stride(from: 0.0, to: 6, by: 0.5).map { ($0, $0 + 0.5) }), for: ref(4))
        s.add(groups([(0, 1), (1, 2), (2, 3), (4, 6)]), for: ref(5))
        s.add(groups([(0, 6)]), for: ref(6))
        return s
    }
}

@Suite struct RenderEngineTests {
    /// The source from 1 s to 5 s, played from composition time 0: composition time t is source time t + 1.
    func wwdcComposition() throws -> Composition {
        var m = MutableComposition()
        try m.insertTimeRange(range(1, 5), of: SampleSource.description(), at: .zero)
        return Composition(m)
    }

    func wwdcVideoComposition(_ c: Composition) -> VideoComposition {
        let video = c.tracks(withMediaType: .video).map(\.trackID)
        let meta = c.tracks(withMediaType: .metadata).map(\.trackID)
        #expect(video == [2, 3] && meta == [4, 5, 6])
        return VideoComposition(
            frameDuration: MediaTime(value: 1, timescale: 4), renderSize: Size(width: 64, height: 36),
            instructions: [
                TestInstruction(timeRange: range(0, 2), requiredSourceTrackIDs: [2], requiredSourceSampleDataTrackIDs: [4]),
                TestInstruction(timeRange: range(2, 4), requiredSourceTrackIDs: [3, 2], requiredSourceSampleDataTrackIDs: [4, 5]),
            ],
            sourceSampleDataTrackIDs: [4, 5])
    }

    @Test func wwdcExampleDeliversMetadataOnlyForBothLists() async throws {
        let c = try wwdcComposition()
        let v = wwdcVideoComposition(c)
        let compositor = RecordingCompositor()
        let engine = RenderEngine(composition: c, videoComposition: v, sources: SampleSource.sources())
        let frames = try await engine.renderAll(compositor: compositor)
        #expect(frames.count == 16)
        #expect(frames.map(\.time) == (0..<16).map { MediaTime(value: Int64($0), timescale: 4) })
        let seen = compositor.seen.all
        #expect(seen.count == 16)
        #expect(compositor.contexts.all == ["64x36 bgra"])
        for request in seen {
            let first = request.instructionStart == .zero
            #expect(request.sourceTrackIDs == (first ? [2] : [3, 2]))
            // Track 6 never arrives; 4 always; 5 only in the second instruction, and not
            // in its hole (source 3..4 s = composition 2..3 s): no carry-forward.
            #expect(request.sixIsNil)
            #expect(request.sampleDataTrackIDs.contains(4))
            let hole = t(2) <= request.time && request.time < t(3)
            #expect(request.sampleDataTrackIDs == (first || hole ? [4] : [4, 5]))
            // Each group's range, in composition time, holds the request's time.
            for (id, groupRange) in request.groupRanges {
                #expect(groupRange.containsTime(request.time), "track \(id) group \(groupRange) at \(request.time)")
            }
            // The group is the one of source time t + 1.
            let sourceTime = request.time.seconds + 1
            #expect(request.groupValues[4] == (sourceTime * 2).rounded(.down) / 2)
        }
    }

    @Test func sourceFramesFollowTheSegments() async throws {
        let c = try wwdcComposition()
        let frames = Recorder<(MediaTime, UInt8?)>()
        struct Probe: AsyncVideoCompositing {
            let frames: Recorder<(MediaTime, UInt8?)>
            func compose(_ request: AsynchronousVideoCompositionRequest) async throws -> PixelBuffer {
                frames.append((request.compositionTime, request.sourceFrame(byTrackID: 2).map { pixel($0, 0, 0)[0] }))
                #expect(request.sourceFrame(byTrackID: 3) == nil, "track 3 is not required by the first instruction")
                return request.renderContext.newPixelBuffer()
            }
        }
        let v = wwdcVideoComposition(c)
        let engine = RenderEngine(
            composition: c, videoComposition: v, sources: SampleSource.sources(),
            options: .init(timeRange: range(0, 1)))
        _ = try await engine.renderAll(compositor: AsyncVideoCompositorAdapter(Probe(frames: frames)))
        // Requests run concurrently, so compose calls may come in any order: compare by time.
        // Composition 0.25 s is source 1.25 s: frame 12 of a 10 fps source.
        #expect(frames.all.sorted { $0.0 < $1.0 }.map(\.1) == [10, 12, 15, 17])
    }

    @Test func invalidCompositionFailsBeforeRendering() throws {
        let c = try wwdcComposition()
        var v = MutableVideoComposition(wwdcVideoComposition(c))
        v.sourceSampleDataTrackIDs = [4]
        let engine = RenderEngine(composition: c, videoComposition: VideoComposition(v), sources: SampleSource.sources())
        expectReelError(.invalidComposition) { try engine.frames(compositor: RecordingCompositor()) }
    }
}

/// Caption tracks through the engine: groups retimed through the edits, delivered only where
/// the instruction asks for the track.
@Suite struct RenderEngineCaptionTests {
    /// What a compositor saw of caption track 2 at one time.
    struct Seen: Sendable {
        var time: MediaTime
        var trackIDs: [Int32]
        var range: TimeRange?
        var texts: [String]
    }

    struct Probe: AsyncVideoCompositing {
        let seen: Recorder<Seen>
        func compose(_ request: AsynchronousVideoCompositionRequest) async throws -> PixelBuffer {
            let group = request.sourceCaptionGroup(byTrackID: 2)
            seen.append(
                Seen(
                    time: request.compositionTime, trackIDs: request.sourceCaptionTrackIDs, range: group?.timeRange,
                    texts: group?.captions.map(\.text) ?? []))
            return request.renderContext.newPixelBuffer()
        }
    }

    /// Source "clip": video 1 and captions 2 (A 0.5-1.5 s, B 2-3.5 s, C 4-5 s), played as two
    /// segments: source 1-2.5 s at 0, then source 3-5 s at 1.5 s. The first instruction
    /// (0-2 s) asks for the captions, the second (2-3.5 s) does not.
    func render() async throws -> [Seen] {
        let captionTrack = SourceTrackDescription(
            reference: SourceTrackReference(sourceIdentifier: "clip", trackID: 2), mediaType: .subtitle,
            timeRange: range(0, 6))
        let clip = SourceDescription(identifier: "clip", tracks: [videoTrack("clip", 1, duration: 6), captionTrack])
        var m = MutableComposition()
        try m.insertTimeRange(range(1, 2.5), of: clip, at: .zero)
        try m.insertTimeRange(range(3, 5), of: clip, at: t(1.5))
        let c = Composition(m)
        #expect(c.tracks.map(\.mediaType) == [.video, .subtitle])
        let v = VideoComposition(
            frameDuration: t(0.25), renderSize: Size(width: 64, height: 36),
            instructions: [
                TestInstruction(timeRange: range(0, 2), requiredSourceCaptionTrackIDs: [2]),
                TestInstruction(timeRange: range(2, 3.5)),
            ])
        var sources = RenderSources()
        sources.add(
            InMemoryVideoFrameSource(count: 60, frameDuration: t(0.1)) { numbered($0) }, for: SourceTrackReference(sourceIdentifier: "clip", trackID: 1))
        sources.add(
            InMemoryCaptionSource(captions: [
                Caption("A", timeRange: range(0.5, 1.5)), Caption("B", timeRange: range(2, 3.5)),
                Caption("C", timeRange: range(4, 5)),
            ]),
            for: SourceTrackReference(sourceIdentifier: "clip", trackID: 2))
        let seen = Recorder<Seen>()
        _ = try await RenderEngine(composition: c, videoComposition: v, sources: sources).renderAll(compositor: AsyncVideoCompositorAdapter(Probe(seen: seen)))
        return seen.all.sorted { $0.time < $1.time }
    }

    @Test func groupsAreCutToTheSegmentsAndMovedToCompositionTime() async throws {
        let seen = try await render()
        #expect(seen.count == 14)
        for s in seen {
            let expected: (TimeRange, String)?
            switch s.time.seconds {
            case ..<0.5: expected = (range(0, 0.5), "A")  // source 1-1.5 s
            case 1..<1.5: expected = (range(1, 1.5), "B")  // source 2-2.5 s, end of the first segment
            case 1.5..<2: expected = (range(1.5, 2), "B")  // source 3-3.5 s, the second segment
            default: expected = nil  // no caption, or not asked for (C at 2.5-3.5 s)
            }
            #expect(s.range == expected?.0, "at \(s.time.seconds) s")
            #expect(s.texts == (expected.map { [$0.1] } ?? []), "at \(s.time.seconds) s")
            #expect(s.trackIDs == (expected == nil ? [] : [2]), "at \(s.time.seconds) s")
        }
    }

    @Test func anInstructionNamingANonCaptionTrackIsInvalid() throws {
        let clip = SourceDescription(identifier: "clip", tracks: [videoTrack("clip", 1, duration: 2)])
        var m = MutableComposition()
        try m.insertTimeRange(range(0, 2), of: clip, at: .zero)
        let v = VideoComposition(
            frameDuration: t(0.5), renderSize: Size(width: 64, height: 36),
            instructions: [TestInstruction(timeRange: range(0, 2), requiredSourceCaptionTrackIDs: [1])])
        let problems = v.validate(for: Composition(m))
        #expect(problems.map(\.field) == ["instructions[0].requiredSourceCaptionTrackIDs[0]"])
        #expect(problems.first?.message.contains("only caption tracks") == true)
    }
}

/// Accepts only yuv420p sources and renders yuv420p; records the formats it was given and
/// keeps the render context.
final class YUVOnlyCompositor: VideoCompositing {
    let formats = Recorder<PixelFormat>()
    let events = Recorder<String>()
    let context = Lock<VideoCompositionRenderContext?>(nil)
    var sourcePixelBufferAttributes: PixelBufferAttributes? { events.append("source attributes"); return .yuv420p }
    var requiredPixelBufferAttributesForRenderContext: PixelBufferAttributes { events.append("render attributes"); return .yuv420p }
    func renderContextChanged(_ c: VideoCompositionRenderContext) {
        events.append("context \(c.width)x\(c.height) \(c.pixelFormat)")
        context.withLock { $0 = c }
    }
    func startRequest(_ request: AsynchronousVideoCompositionRequest) {
        events.append("request")
        let out = request.renderContext.newPixelBuffer()
        for id in request.sourceTrackIDs {
            if let f = request.sourceFrame(byTrackID: id) {
                formats.append(f.format)
                let y = pixel(f, 0, 0)[0]
                out.withUnsafeMutableBytes(plane: 0) { $0[0] = y }
            }
        }
        request.finish(withComposedVideoFrame: out)
    }
    func cancelAllPendingVideoCompositionRequests() async {}
}

@Suite struct RenderEngineTimingAndFormatTests {
    func oneTrack(frames: [VideoFrame], duration: Double, frameTiming: Bool) throws -> RenderEngine {
        var m = MutableComposition()
        try m.insertTimeRange(range(0, duration), of: SourceDescription(identifier: "v", tracks: [videoTrack("v", 1, duration: duration)]), at: .zero)
        let c = Composition(m)
        let v = VideoComposition(
            frameDuration: t(0.5), renderSize: Size(width: 64, height: 36),
            instructions: [TestInstruction(timeRange: range(0, duration))],
            sourceTrackIDForFrameTiming: frameTiming ? 1 : nil)
        var s = RenderSources()
        s.add(InMemoryVideoFrameSource(frames: frames), for: SourceTrackReference(sourceIdentifier: "v", trackID: 1))
        return RenderEngine(composition: c, videoComposition: v, sources: s)
    }

    @Test func attributesReadOnceAndSourcesConverted() async throws {
        let frames = (0..<4).map { VideoFrame(pixelBuffer: numbered($0), timeRange: range(Double($0) * 0.5, Double($0) * 0.5 + 0.5)) }
        let compositor = YUVOnlyCompositor()
        let out = try await oneTrack(frames: frames, duration: 2, frameTiming: false).renderAll(compositor: compositor)
        #expect(out.count == 4)
        #expect(compositor.formats.all == [.yuv420p, .yuv420p, .yuv420p, .yuv420p])
        #expect(
            compositor.events.all == [
                "render attributes", "source attributes", "context 64x36 yuv420p",
                "request", "request", "request", "request",
            ])
        #expect(out.allSatisfy { $0.pixelBuffer.format == .yuv420p })
    }

    @Test func framesFollowTheTimingTrack() async throws {
        // Variable frame durations: 0.1, 0.3, 0.6, then 1 s.
        let bounds = [0, 0.1, 0.4, 1.0, 2.0]
        let frames = (0..<4).map { VideoFrame(pixelBuffer: numbered($0), timeRange: range(bounds[$0], bounds[$0 + 1])) }
        let out = try await oneTrack(frames: frames, duration: 2, frameTiming: true).renderAll(compositor: RecordingCompositor())
        #expect(out.map(\.time) == [t(0), t(0.1), t(0.4), t(1)])
        #expect(out.map(\.duration) == [t(0.1), t(0.3), t(0.6), t(1)])
    }

    @Test func poolStaysFlatAndOutputIsDeterministic() async throws {
        let frames = (0..<120).map { VideoFrame(pixelBuffer: numbered($0), timeRange: range(Double($0) * 0.5, Double($0) * 0.5 + 0.5)) }
        var first: [[UInt8]] = []
        for inFlight in [1, 3, 6] {
            let compositor = YUVOnlyCompositor()
            var engine = try oneTrack(frames: frames, duration: 60, frameTiming: false)
            engine = RenderEngine(
                composition: engine.composition, videoComposition: engine.videoComposition, sources: engine.sources,
                options: .init(maximumRequestsInFlight: inFlight))
            var hashes: [[UInt8]] = []
            for try await frame in try engine.frames(compositor: compositor) { hashes.append(pixel(frame.pixelBuffer, 0, 0)) }
            #expect(hashes.count == 120)
            if first.isEmpty { first = hashes } else { #expect(hashes == first) }
            #expect(Set(hashes.map { $0[0] }).count >= 8, "frames differ from one another")
            let allocations = compositor.context.withLock { $0?.pixelBufferPool.allocationCount ?? -1 }
            #expect(allocations >= 1 && allocations <= inFlight + 2, "\(allocations) output buffers for \(inFlight) in flight")
        }
    }
}

/// A source that writes each frame asked for, and its closing, to a shared log.
private struct LoggingSource: VideoFrameSource {
    let name: String
    let log: Recorder<String>

    func frame(at sourceTime: MediaTime) async throws(ReelError) -> VideoFrame? {
        log.append("\(name) \(sourceTime.seconds)")
        return VideoFrame(pixelBuffer: PixelBuffer(width: 64, height: 36, format: .bgra), timeRange: TimeRange(start: sourceTime, duration: t(0.25)))
    }

    func seekFrame(at sourceTime: MediaTime, acceptedFormats: [PixelFormat]?) async throws(ReelError) -> VideoFrame? {
        log.append("\(name) seek")
        return try await frame(at: sourceTime)
    }

    func close() async { log.append("\(name) closed") }
}

@Suite struct RenderEngineSourceClosingTests {
    /// a, b and a again, one second each, then c: four frames a second.
    func setup() throws -> (Composition, VideoComposition, RenderSources, Recorder<String>) {
        var m = MutableComposition()
        let track = m.addMutableTrack(withMediaType: .video)
        try m.insertTimeRange(range(0, 1), of: videoTrack("a", 1), intoTrackWithID: track, at: t(0))
        try m.insertTimeRange(range(0, 1), of: videoTrack("b", 1), intoTrackWithID: track, at: t(1))
        try m.insertTimeRange(range(5, 6), of: videoTrack("a", 1), intoTrackWithID: track, at: t(2))
        try m.insertTimeRange(range(0, 1), of: videoTrack("c", 1), intoTrackWithID: track, at: t(3))
        let log = Recorder<String>()
        var sources = RenderSources()
        for name in ["a", "b", "c"] {
            sources.add(LoggingSource(name: name, log: log), for: SourceTrackReference(sourceIdentifier: name, trackID: 1))
        }
        let video = VideoComposition(
            frameDuration: t(0.25), renderSize: Size(width: 64, height: 36),
            instructions: [TestInstruction(timeRange: range(0, 4), requiredSourceTrackIDs: [track])])
        return (Composition(m), video, sources, log)
    }

    @Test("a render whose first frame is a seek asks its sources for that frame as a seek's, and for no other")
    func theFirstFrameOfASeekingRenderIsAskedForAsASeeks() async throws {
        for seeking in [true, false] {
            let (c, v, sources, log) = try setup()
            var options = RenderEngine.Options()
            options.timeRange = range(1.5, 3.5)
            options.firstFrameIsSeek = seeking
            let frames = try await RenderEngine(composition: c, videoComposition: v, sources: sources, options: options)
                .renderAll(compositor: RecordingCompositor())
            #expect(frames.count == 8)
            let asked = log.all.filter { !$0.hasSuffix("closed") }
            // b from 0.5 s, then a from 5 s (a cut, not a seek), then c.
            #expect(asked.filter { $0.hasSuffix("seek") } == (seeking ? ["b seek"] : []))
            #expect(asked.filter { !$0.hasSuffix("seek") }.first == "b 0.5")
            if seeking { #expect(asked.first == "b seek") }
        }
    }

    @Test("a render whose first frame is a seek asks for no frame after it until the next is asked for")
    func aSeekingRenderReadsOnOnlyWhenAsked() async throws {
        for seeking in [false, true] {
            let (c, v, sources, log) = try setup()
            var options = RenderEngine.Options()
            options.timeRange = range(1.5, 3.5)
            options.firstFrameIsSeek = seeking
            var frames = try RenderEngine(composition: c, videoComposition: v, sources: sources, options: options)
                .frames(compositor: RecordingCompositor()).makeAsyncIterator()
            _ = try #require(try await frames.next())
            // Turns enough for a render working ahead to ask for the next frame's source (the
            // render that does not seek shows that it does).
            for _ in 0..<1000 where !log.all.contains("b 0.75") { await Task.yield() }
            let before = log.all.filter { !$0.hasSuffix("closed") }
            _ = try #require(try await frames.next())
            let after = log.all.filter { !$0.hasSuffix("closed") }
            if seeking {
                #expect(before == ["b seek", "b 0.5"])
                // Then the render works ahead again.
                #expect(Array(after.prefix(3)) == ["b seek", "b 0.5", "b 0.75"])
            } else {
                #expect(before.contains("b 0.75"), "\(before)")
            }
            await frames.stop()
        }
    }

    @Test func aSourceIsClosedOnceItsLastSegmentIsAskedForAndNotBefore() async throws {
        let (c, v, sources, log) = try setup()
        let frames = try await RenderEngine(composition: c, videoComposition: v, sources: sources).renderAll(compositor: RecordingCompositor())
        #expect(frames.count == 16)
        let lines = log.all
        let index = { (line: String) in lines.firstIndex(of: line) ?? -1 }
        // b is done after its last frame, before the second part of a; a after that part,
        // before c; c is the render's last and stays open.
        #expect(lines.filter { $0.hasSuffix("closed") } == ["b closed", "a closed"])
        #expect(index("b 0.75") < index("b closed") && index("b closed") < index("a 5.0"))
        #expect(index("a 5.75") < index("a closed") && index("a closed") < index("c 0.0"))
        #expect(lines.filter { $0.hasPrefix("a ") && !$0.hasSuffix("closed") }.count == 8)
    }

    @Test func aRenderOfOneFrameClosesNothing() async throws {
        // An image generator's render: one frame, the sources kept for the next one.
        let (c, v, sources, log) = try setup()
        var options = RenderEngine.Options(maximumRequestsInFlight: 1)
        options.timeRange = range(0.75, 1)
        let frames = try await RenderEngine(composition: c, videoComposition: v, sources: sources, options: options).renderAll(
            compositor: RecordingCompositor())
        #expect(frames.count == 1)
        #expect(log.all == ["a 0.75"])
    }
}
