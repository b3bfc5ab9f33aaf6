import ReelComposition
import ReelTesting
import Testing

/// `n` tenths of a second, exactly.
func tenths(_ n: Int64) -> MediaTime { MediaTime(value: n, timescale: 10) }

/// What the playback compositor saw in one request.
struct PlaybackRequest: Sendable, Equatable {
    var time: MediaTime
    var width: Int
    var groups: [Int32: TimedMetadataGroup]
}

/// Finishes each request at once with a frame whose first byte is the frame index
/// (composition time in tenths) and second byte the render width; records requests,
/// render contexts and cancels.
final class PlaybackCompositor: VideoCompositing {
    let requests = Recorder<PlaybackRequest>()
    let contexts = Recorder<(width: Int, height: Int)>()
    let cancels = Recorder<Int>()
    /// Fails the request at this time, when set.
    let failAt = Lock<MediaTime?>(nil)
    var sourcePixelBufferAttributes: PixelBufferAttributes? { .bgra }
    var requiredPixelBufferAttributesForRenderContext: PixelBufferAttributes { .bgra }

    func renderContextChanged(_ c: VideoCompositionRenderContext) { contexts.append((c.width, c.height)) }

    func startRequest(_ request: AsynchronousVideoCompositionRequest) {
        var groups: [Int32: TimedMetadataGroup] = [:]
        for id in request.sourceSampleDataTrackIDs { groups[id] = request.sourceTimedMetadata(byTrackID: id) }
        requests.append(PlaybackRequest(time: request.compositionTime, width: request.renderContext.width, groups: groups))
        if failAt.withLock({ $0 }) == request.compositionTime {
            request.finish(with: ReelError(.compositorFailed, "test failure", time: request.compositionTime))
            return
        }
        let out = request.renderContext.newPixelBuffer()
        let index = (request.compositionTime.seconds * 10).rounded()
        out.withUnsafeMutableBytes(plane: 0) { raw in
            for i in 0..<raw.count { raw[i] = 0 }
            raw[0] = UInt8(truncatingIfNeeded: Int(index))
            raw[1] = UInt8(truncatingIfNeeded: request.renderContext.width)
        }
        request.finish(withComposedVideoFrame: out)
    }

    func cancelAllPendingVideoCompositionRequests() async { cancels.append(1) }

    var times: [MediaTime] { requests.all.map(\.time) }
}

/// A 3 s clip at 10 frames a second (counter frames, 64x36), video track 1, and a metadata
/// track 2 of groups every half second whose one item's value is the group's index.
enum PlaybackClip {
    static let frameDuration = tenths(1)

    static func source() throws -> InMemorySource {
        var clip = InMemorySource(identifier: "clip")
        try clip.addCounterVideoTrack(trackID: 1, frameCount: 30, frameDuration: frameDuration, width: 64, height: 36)
        let groups = (0..<6).map { i in
            TimedMetadataGroup(
                items: [MetadataItem(identifier: .speed2D, value: .double(Double(i)))],
                timeRange: TimeRange(start: tenths(Int64(5 * i)), duration: tenths(5)))
        }
        try clip.addMetadataTrack(trackID: 2, groups: groups)
        return clip
    }

    static func composition(_ clip: InMemorySource) throws -> Composition {
        var composition = MutableComposition()
        try composition.insertTimeRange(clip.timeRange, of: clip.description, at: .zero)
        return Composition(composition)
    }

    static func videoComposition(_ composition: Composition, compositor: (any VideoCompositing)?, metadata: Bool = true) -> VideoComposition {
        var v = MutableVideoComposition()
        v.frameDuration = frameDuration
        v.renderSize = Size(width: 64, height: 36)
        v.sourceSampleDataTrackIDs = metadata ? [2] : []
        var instruction = MutableVideoCompositionInstruction()
        instruction.timeRange = composition.timeRange
        instruction.requiredSourceSampleDataTrackIDs = metadata ? [2] : []
        instruction.layerInstructions = [VideoCompositionLayerInstruction(trackID: 1)]
        v.instructions = [instruction]
        if let compositor { v.customVideoCompositor = { compositor } }
        return VideoComposition(v)
    }

    /// An item over the clip rendered by `compositor`.
    static func item(compositor: (any VideoCompositing)? = nil, sound: (any SoundSource)? = nil) throws -> PlayerItem {
        let clip = try source()
        let composition = try composition(clip)
        return PlayerItem(
            composition: composition, videoComposition: videoComposition(composition, compositor: compositor),
            sources: clip, sound: sound)
    }
}

/// A player on a manual clock with a ready item over the clip.
struct PlaybackRig {
    let clock = ManualClock()
    let compositor: any VideoCompositing
    let item: PlayerItem
    let player: Player
    let output = PlayerItemVideoOutput()

    init(compositor: any VideoCompositing = PlaybackCompositor(), sound: (any SoundSource)? = nil, ready: Bool = true) async throws {
        self.compositor = compositor
        item = try PlaybackClip.item(compositor: compositor, sound: sound)
        item.add(output)
        player = Player(playerItem: item, clock: clock)
        if ready {
            try await waitUntilReady()
            // A ready item shows its first frame: render it, so tests start from a quiet compositor.
            if let manual = compositor as? ManualCompositor {
                await manual.waitForRequests(count: 1)
                manual.finishAll { _ in SyntheticFrame.counter(0, width: 64, height: 36, format: .bgra) }
            }
            _ = await frame(at: .zero)
        }
    }

    var recording: PlaybackCompositor { compositor as! PlaybackCompositor }

    func waitUntilReady() async throws { try await item.waitUntilReady() }

    /// Waits for the frame at `time` to be rendered (from the cache or a render).
    func frame(at time: MediaTime) async -> RenderedFrame? { await output.renderedFrame(at: time) }
}

extension PlayerItem {
    /// Waits until the item has loaded, and requires it to be ready to play.
    func waitUntilReady() async throws {
        for await status in statusUpdates where status != .unknown { break }
        try #require(status == .readyToPlay)
    }
}

extension PlayerItemVideoOutput {
    /// Waits for the frame at `time` to be rendered (from the cache or a render).
    func renderedFrame(at time: MediaTime) async -> RenderedFrame? {
        var changes = mediaDataChanges.makeAsyncIterator()
        if let f = copyFrame(forItemTime: time) { return f }
        while let f = await changes.next() {
            if f.time <= time && time < f.time + f.duration { return f }
        }
        return nil
    }
}

/// The first byte of a frame: the frame index the playback compositor wrote.
func frameIndex(_ buffer: PixelBuffer?) -> Int? {
    buffer?.withUnsafeBytes(plane: 0) { Int($0[0]) }
}
