/// What a ``Player`` plays (`AVPlayerItem`): a composition with its video composition and
/// audio mix, the sources its tracks come from, its status, and its outputs.
///
/// ```swift
/// let item = PlayerItem(composition: composition, videoComposition: videoComposition, sources: clip)
/// let output = PlayerItemVideoOutput()
/// item.add(output)
/// let player = Player(playerItem: item)
/// for await status in item.statusUpdates where status != .unknown { break }
/// if await player.seek(to: MediaTime(value: 3, timescale: 1), toleranceBefore: .zero, toleranceAfter: .zero) {
///     let frame = output.copyPixelBuffer(forItemTime: player.currentTime())
/// }
/// ```
///
/// An item is prepared when a player first takes it: its contents are loaded (a file's
/// tracks, for the items the `Reel` module makes from files) and the video composition is
/// validated; ``status`` then moves from `.unknown` to `.readyToPlay`, or to `.failed` with
/// ``error`` set. Frames are rendered by the render engine that renders files
/// (``FrameRenderer``), so what the item shows is what an export writes.
public final class PlayerItem: Sendable {
    /// `AVPlayerItem.Status`.
    public enum Status: Sendable, Hashable {
        /// Not prepared yet: no player has taken the item, or its contents are loading.
        case unknown
        /// Prepared: the contents are loaded and the video composition is valid.
        case readyToPlay
        /// Preparing failed; ``PlayerItem/error`` says why.
        case failed
    }

    /// The end of the item (`AVPlayerItemDidPlayToEndTime` and
    /// `AVPlayerItemFailedToPlayToEndTime`).
    public enum Event: Sendable {
        /// Playback reached the end of the item, at this time.
        case didPlayToEndTime(MediaTime)
        /// Playback stopped before the end: a frame could not be rendered.
        case failedToPlayToEndTime(ReelError)
    }

    /// What an item plays, once loaded.
    public struct Contents: Sendable {
        /// The composition to play.
        public var composition: Composition
        /// The video composition; nil plays the composition's video tracks with the
        /// built-in compositor (`VideoComposition(propertiesOf:)`).
        public var videoComposition: VideoComposition?
        /// The audio mix (`AVPlayerItem.audioMix`); nil plays every audio track at volume 1.
        /// The item does not apply it itself: ``PlayerItem/Contents/sound`` is mixed already.
        public var audioMix: AudioMix?
        /// Where the frames and metadata of the composition's tracks come from.
        public var sources: any RenderSourceProvider
        /// The mixed sound, when the item has sound.
        public var sound: (any SoundSource)?

        /// Contents of the given composition and sources, with the optional parts left out by default.
        public init(
            composition: Composition, videoComposition: VideoComposition? = nil, audioMix: AudioMix? = nil,
            sources: any RenderSourceProvider, sound: (any SoundSource)? = nil
        ) {
            self.composition = composition
            self.videoComposition = videoComposition
            self.audioMix = audioMix
            self.sources = sources
            self.sound = sound
        }
    }

    private struct State {
        var status: Status = .unknown
        var error: ReelError?
        var contents: Contents?
        var videoComposition: VideoComposition?
        var customVideoCompositor: (any VideoCompositing)?
        var seekingWaits = false
        var renderScale: Double?
        var preparing = false
        var videoOutputs: [PlayerItemVideoOutput] = []
        var metadataOutputs: [PlayerItemMetadataOutput] = []
        var audioOutputs: [PlayerItemAudioOutput] = []
        weak var player: Player?
        var playhead: MediaTime = .zero
    }

    private let load: @Sendable () async throws(ReelError) -> Contents
    private let compositorOverride: (@Sendable () -> any VideoCompositing)?
    private let state = Lock(State())
    private let statusBroadcast = Broadcast<Status>(current: .unknown)
    private let eventBroadcast = Broadcast<Event>()
    let chase = FrameChase()

    /// An item that loads its contents when a player prepares it; a thrown error fails the
    /// item. `customVideoCompositor`, when given, renders instead of the video composition's.
    public init(
        customVideoCompositor: (@Sendable () -> any VideoCompositing)? = nil,
        loading: @escaping @Sendable () async throws(ReelError) -> Contents
    ) {
        self.load = loading
        self.compositorOverride = customVideoCompositor
        chase.setFailureHandler { [weak self] error in
            guard let self, self.status == .readyToPlay else { return }
            self.post(.failedToPlayToEndTime(error))
            self.fail(error)
        }
    }

    /// An item over a composition whose tracks come from `sources` (in-memory sources in
    /// tests, `AssetRenderSources` for files).
    public convenience init(
        composition: Composition, videoComposition: VideoComposition? = nil, audioMix: AudioMix? = nil,
        sources: any RenderSourceProvider, sound: (any SoundSource)? = nil,
        customVideoCompositor: (@Sendable () -> any VideoCompositing)? = nil
    ) {
        let contents = Contents(
            composition: composition, videoComposition: videoComposition, audioMix: audioMix,
            sources: sources, sound: sound)
        self.init(customVideoCompositor: customVideoCompositor) { () throws(ReelError) in contents }
    }

    // MARK: Status

    /// `.unknown` until prepared, then `.readyToPlay` or `.failed`.
    public var status: Status { state.withLock { $0.status } }

    /// Why the item failed; nil unless ``status`` is `.failed`.
    public var error: ReelError? { state.withLock { $0.error } }

    /// The status now, then each change (what AVFoundation's users observe with KVO).
    public var statusUpdates: AsyncStream<Status> { statusBroadcast.subscribe() }

    /// The end of the item, each time playback reaches it or fails before it.
    public var events: AsyncStream<Event> { eventBroadcast.subscribe() }

    /// The composition's duration once ready; `.indefinite` before.
    public var duration: MediaTime {
        state.withLock { s in s.status == .readyToPlay ? (s.contents?.composition.duration ?? .indefinite) : .indefinite }
    }

    /// The loaded contents; nil before the item is ready.
    public var contents: Contents? { state.withLock { $0.contents } }

    /// The video composition frames are rendered with (nil before the item is ready).
    /// Setting one makes a new compositor and renders the frame at the playhead again, as
    /// assigning `AVPlayerItem.videoComposition` does.
    public var videoComposition: VideoComposition? {
        get { state.withLock { $0.videoComposition } }
        set {
            guard let newValue else { return }
            let ready = state.withLock { s -> Contents? in
                guard s.status == .readyToPlay, var contents = s.contents else {
                    s.contents?.videoComposition = newValue
                    return nil
                }
                contents.videoComposition = newValue
                return contents
            }
            if let ready { installOrFail(ready, rerender: true) }
        }
    }

    /// The compositor instance rendering this item's frames, once it is ready
    /// (`AVPlayerItem.customVideoCompositor`).
    public var customVideoCompositor: (any VideoCompositing)? { state.withLock { $0.customVideoCompositor } }

    /// Whether the item's time waits for the frame of a seek to be rendered (on) or moves
    /// to the seek's target at once (off, the default), as in AVFoundation.
    public var seekingWaitsForVideoCompositionRendering: Bool {
        get { state.withLock { $0.seekingWaits } }
        set { state.withLock { $0.seekingWaits = newValue } }
    }

    /// The scale frames are rendered at for a preview (the video composition's
    /// `renderScale` when nil). A new scale hands the compositor a new render context
    /// (`renderContextChanged`) and renders the frame at the playhead again.
    public var renderScale: Double? {
        get { state.withLock { $0.renderScale } }
        set {
            let (scale, playhead, ready) = state.withLock { s -> (Double, MediaTime, Bool) in
                s.renderScale = newValue
                return (newValue ?? s.videoComposition?.renderScale ?? 1, s.playhead, s.status == .readyToPlay)
            }
            chase.invalidate(scale: scale)
            if ready { chase.request(playhead) }
        }
    }

    /// The item's current time: its player's (`AVPlayerItem.currentTime()`), or where it
    /// was left.
    public func currentTime() -> MediaTime {
        let (player, playhead) = state.withLock { ($0.player, $0.playhead) }
        if let player, player.currentItem === self { return player.currentTime() }
        return playhead
    }

    /// Where a player taking this item starts: where the item was left.
    func currentItemTimeForNewPlayer() -> MediaTime { state.withLock { $0.playhead } }

    /// Renders the frame at the playhead again, with the same compositor: after a
    /// compositor's parameters, or what its sources hold, changed. Video outputs then have
    /// a new pixel buffer for that time. (AVFoundation has no such call: its users assign
    /// the video composition again, which is ``videoComposition``'s setter here.)
    public func invalidateVideoComposition() {
        let (playhead, ready) = state.withLock { ($0.playhead, $0.status == .readyToPlay) }
        chase.invalidate()
        if ready { chase.request(playhead) }
    }

    // MARK: Outputs

    /// Adds a video output; frames rendered from now on reach it.
    public func add(_ output: PlayerItemVideoOutput) {
        state.withLock { $0.videoOutputs.append(output) }
        output.attach(to: self)
    }

    /// Removes a video output; frames no longer reach it.
    public func remove(_ output: PlayerItemVideoOutput) {
        state.withLock { $0.videoOutputs.removeAll { $0 === output } }
        output.detach()
    }

    /// Adds a metadata output; it pushes the groups that become current from now on.
    public func add(_ output: PlayerItemMetadataOutput) {
        let (ready, playhead) = state.withLock { s -> (Bool, MediaTime) in
            s.metadataOutputs.append(output)
            return (s.status == .readyToPlay, s.playhead)
        }
        output.attach(to: self)
        if ready { output.update(itemTime: playhead, jumped: true) }
    }

    /// Removes a metadata output; it no longer pushes groups.
    public func remove(_ output: PlayerItemMetadataOutput) {
        state.withLock { $0.metadataOutputs.removeAll { $0 === output } }
        output.detach()
    }

    /// Adds an audio output; it hands out the item's mixed sound in blocks.
    public func add(_ output: PlayerItemAudioOutput) {
        state.withLock { $0.audioOutputs.append(output) }
        output.attach(to: self)
    }

    /// The outputs attached, by kind.
    public var outputs: (video: [PlayerItemVideoOutput], metadata: [PlayerItemMetadataOutput], audio: [PlayerItemAudioOutput]) {
        state.withLock { ($0.videoOutputs, $0.metadataOutputs, $0.audioOutputs) }
    }

    // MARK: For the player

    func attach(to player: Player) {
        state.withLock { $0.player = player }
    }

    func detach(from player: Player) {
        state.withLock { s in if s.player === player { s.player = nil } }
    }

    /// Loads and validates the contents once; later calls return at once.
    func prepare() async {
        let go = state.withLock { s -> Bool in
            guard s.status == .unknown, !s.preparing else { return false }
            s.preparing = true
            return true
        }
        guard go else { return }
        do throws(ReelError) {
            let contents = try await load()
            try install(contents, rerender: false)
        } catch {
            fail(error)
        }
    }

    /// Makes the renderer for `contents` and becomes ready (or, when already ready, renders
    /// the playhead again).
    private func install(_ contents: Contents, rerender: Bool) throws(ReelError) {
        let videoComposition = contents.videoComposition ?? VideoComposition(propertiesOf: contents.composition)
        let engine = RenderEngine(
            composition: contents.composition, videoComposition: videoComposition, sources: contents.sources,
            options: RenderEngine.Options(maximumRequestsInFlight: 2, diagnostics: { _ in }))
        let renderer = try FrameRenderer(engine: engine, compositor: compositorOverride?())
        let scale = state.withLock { s -> Double in
            s.contents = contents
            s.videoComposition = videoComposition
            s.customVideoCompositor = renderer.compositor
            return s.renderScale ?? videoComposition.renderScale
        }
        chase.setRenderer(renderer, scale: scale)
        if rerender {
            chase.request(state.withLock { $0.playhead })
        } else {
            setStatus(.readyToPlay, error: nil)
        }
    }

    private func installOrFail(_ contents: Contents, rerender: Bool) {
        do throws(ReelError) {
            try install(contents, rerender: rerender)
        } catch {
            fail(error)
        }
    }

    func fail(_ error: ReelError) {
        setStatus(.failed, error: error)
    }

    private func setStatus(_ status: Status, error: ReelError?) {
        let (changed, outputs) = state.withLock { s -> (Bool, [PlayerItemMetadataOutput]) in
            guard s.status != status else { return (false, []) }
            s.status = status
            s.error = error
            s.preparing = false
            // Under the lock, so the sequence keeps the order of the changes.
            statusBroadcast.yield(status)
            return (true, s.metadataOutputs)
        }
        guard changed else { return }
        if status == .readyToPlay {
            let t = state.withLock { $0.playhead }
            for o in outputs { o.update(itemTime: t, jumped: true) }
        }
        state.withLock { $0.player }?.itemStatusChanged(self)
    }

    /// The player moved the playhead: the frame there is asked for, and metadata outputs
    /// see the new time.
    func playheadMoved(to time: MediaTime, jumped: Bool, renders: Bool = true) {
        let (ready, outputs, audio, sound) = state.withLock { s in
            s.playhead = time
            return (s.status == .readyToPlay, s.metadataOutputs, s.audioOutputs, s.contents?.sound)
        }
        guard ready else { return }
        if renders { chase.request(frameTime(for: time)) }
        if jumped, let sound { for o in audio { o.seek(to: time, sampleRate: sound.sampleRate) } }
        for o in outputs { o.update(itemTime: time, jumped: jumped) }
    }

    func setPlayhead(_ time: MediaTime) { state.withLock { $0.playhead = time } }

    /// The start of the frame that shows at `time` on the frame grid: the last frame at the
    /// end of the item.
    func frameTime(for time: MediaTime) -> MediaTime {
        let duration = self.duration
        var t = MediaTime.maximum(time, .zero)
        if duration.isNumeric, duration > .zero, t >= duration { t = duration - MediaTime(value: 1, timescale: 1_000_000_000) }
        return frameRange(containing: t)?.start ?? t
    }

    func post(_ event: Event) { eventBroadcast.yield(event) }

    /// The frame grid: the output frame holding `time` when it lies on the composition's
    /// `frameDuration` grid; nil before the item is ready.
    func frameRange(containing time: MediaTime) -> TimeRange? {
        let (contents, video) = state.withLock { ($0.contents, $0.videoComposition) }
        guard let contents, let video else { return nil }
        return PlaybackTime.frameRange(containing: time, step: video.frameDuration, range: contents.composition.timeRange)
    }
}
