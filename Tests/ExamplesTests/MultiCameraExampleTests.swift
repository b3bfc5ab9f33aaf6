import Foundation
import Reel
import ReelDocuments
import ReelTestSupport
import Testing

/// The multi-camera example delivers two different GPS tracks to its compositor, and only
/// the ones each instruction requires.
@Suite("Examples: multi-camera")
struct MultiCameraExampleTests {
    /// What one request carried: its time, the metadata tracks delivered, and the fix of
    /// each track's group.
    struct Delivery: Sendable {
        var time: MediaTime
        var trackIDs: [Int32]
        var fixes: [Int32: GPSFix]
    }

    /// Passes every request on to the example's own compositor after noting what the
    /// request delivered.
    final class RecordingCompositor: VideoCompositing {
        let inner: any VideoCompositing
        let deliveries = Lock<[Delivery]>([])

        init(_ inner: any VideoCompositing) { self.inner = inner }

        var sourcePixelBufferAttributes: PixelBufferAttributes? { inner.sourcePixelBufferAttributes }
        var requiredPixelBufferAttributesForRenderContext: PixelBufferAttributes { inner.requiredPixelBufferAttributesForRenderContext }

        func renderContextChanged(_ newRenderContext: VideoCompositionRenderContext) {
            inner.renderContextChanged(newRenderContext)
        }

        func startRequest(_ request: AsynchronousVideoCompositionRequest) {
            var fixes: [Int32: GPSFix] = [:]
            for id in request.sourceSampleDataTrackIDs {
                if let group = request.sourceTimedMetadata(byTrackID: id), let fix = GPSFix(group) { fixes[id] = fix }
            }
            let delivery = Delivery(time: request.compositionTime, trackIDs: request.sourceSampleDataTrackIDs, fixes: fixes)
            deliveries.withLock { $0.append(delivery) }
            inner.startRequest(request)
        }

        func cancelAllPendingVideoCompositionRequests() async {
            await inner.cancelAllPendingVideoCompositionRequests()
        }
    }

    /// Renders the whole example through a recording compositor; the deliveries in time order.
    static func deliveries() async throws -> [Delivery] {
        let loaded = try await LoadedComposition.load(path: ExampleSupport.compositionPath("multi-camera"), registry: ExampleSupport.registry)
        let makeCompositor = try #require(loaded.videoComposition.customVideoCompositor, "multi-camera names no compositor")
        let recorder = RecordingCompositor(makeCompositor())
        var options = RenderEngine.Options()
        options.timeRange = loaded.renderRange
        let engine = RenderEngine(
            composition: loaded.composition, videoComposition: loaded.videoComposition,
            sources: AssetRenderSources(files: loaded.sourceURLs), options: options)
        var frames = 0
        for try await _ in try engine.frames(compositor: recorder) { frames += 1 }
        #expect(frames == 45, "1.5 s at 30 fps")
        return recorder.deliveries.withLock { $0 }.sorted { $0.time < $1.time }
    }

    @Test(
        "both cameras' tracks in the first second, with different routes; then only camera B's",
        .requires(.dejaVuFont))
    func twoDifferentTracksThenOne() async throws {
        let deliveries = try await Self.deliveries()
        try #require(deliveries.count == 45)
        let one = MediaTime(value: 1, timescale: 1)
        let bothPart = deliveries.filter { $0.time < one }
        let bPart = deliveries.filter { $0.time >= one }
        #expect(bothPart.count == 30 && bPart.count == 15)

        for d in bothPart {
            #expect(d.trackIDs == [3, 4], "at \(d.time.secondsDescription)")
            guard let a = d.fixes[3], let b = d.fixes[4] else {
                Issue.record("at \(d.time.secondsDescription): a track has no GPS fix (\(d.fixes.keys.sorted()))")
                continue
            }
            // Camera A rides along the lakefront (46.2044 N, 374 m, 7.5 to 8.6 m/s), camera B
            // climbs through Champel (46.1931 N, 401 m, 4.1 to 4.6 m/s): the two dashboards
            // never show the same values.
            #expect(abs(a.latitude - b.latitude) > 0.01, "at \(d.time.secondsDescription): \(a.latitude) vs \(b.latitude)")
            #expect(a.longitude != b.longitude, "at \(d.time.secondsDescription)")
            #expect(abs((a.altitude ?? 0) - (b.altitude ?? 0)) > 20, "at \(d.time.secondsDescription)")
            #expect(abs((a.speed2D ?? 0) - (b.speed2D ?? 0)) > 2, "at \(d.time.secondsDescription)")
        }

        // At 0 s camera A is at track.gpx's first point; camera B, which starts 0.5 s into
        // its clip, at track-b.gpx's third (0.4 s, the fix whose range holds 0.5 s).
        let first = try #require(bothPart.first)
        #expect(first.time == .zero)
        #expect(abs((first.fixes[3]?.latitude ?? 0) - 46.2043907) < 1e-7)
        #expect(abs((first.fixes[3]?.longitude ?? 0) - 6.1431577) < 1e-7)
        #expect(abs((first.fixes[4]?.latitude ?? 0) - 46.1931700) < 1e-7)
        #expect(abs((first.fixes[4]?.longitude ?? 0) - 6.1553023) < 1e-7)

        for d in bPart {
            #expect(d.trackIDs == [4], "at \(d.time.secondsDescription): only camera B's track is required")
            #expect(d.fixes[3] == nil, "at \(d.time.secondsDescription)")
            #expect(abs((d.fixes[4]?.latitude ?? 0) - 46.1931) < 0.0001, "at \(d.time.secondsDescription)")
        }
    }
}
