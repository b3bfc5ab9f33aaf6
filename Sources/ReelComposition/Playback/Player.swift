/// Plays a ``PlayerItem`` (`AVPlayer`): rate, play and pause, seeks, time observers, on an
/// injectable clock.
///
/// ```swift
/// let player = Player(playerItem: item)            // RealTimeClock; tests pass a ManualClock
/// player.play()
/// for await time in player.addPeriodicTimeObserver(forInterval: MediaTime(value: 1, timescale: 2)) { print(time) }
/// let landed = await player.seek(to: target, toleranceBefore: .zero, toleranceAfter: .zero)   // frame-exact
/// ```
///
/// Semantics follow AVFoundation's documentation:
/// - ``timeControlStatus`` is `.paused` at rate 0, `.waitingToPlayAtSpecifiedRate` while the
///   item is not ready (or a seek's frame is awaited with
///   ``PlayerItem/seekingWaitsForVideoCompositionRendering``), `.playing` otherwise.
/// - A seek lands within its tolerances (zero and zero is the exact time; the default is the
///   start of the frame holding the time) and returns `false` when a later seek replaced it.
///   Seeks coalesce: the render in flight is cancelled (the compositor's
///   `cancelAllPendingVideoCompositionRequests`) and only the newest target is rendered.
/// - A periodic observer fires at each multiple of its interval while time moves, and when
///   time jumps, starts or stops; a boundary observer fires when playback crosses one of
///   its times, not when a seek lands on it.
/// - At the end of the item playback pauses (AVFoundation's `actionAtItemEnd` `.pause`) and
///   the item posts ``PlayerItem/Event/didPlayToEndTime(_:)``.
///
/// Observers' callbacks and sequences are fed on the thread that moves the clock, after
/// the player's lock is released: keep callbacks short.
public final class Player: Sendable {
    /// `AVPlayer.TimeControlStatus`.
    public enum TimeControlStatus: Sendable, Hashable {
        /// The rate is 0: time stands still.
        case paused
        /// The rate is above 0 but time waits: for the item to be ready, or for a seek's frame.
        case waitingToPlayAtSpecifiedRate
        /// The rate is above 0 and time moves.
        case playing
    }

    /// Names a callback observer, for ``removeTimeObserver(_:)``.
    public struct TimeObserverToken: Sendable, Hashable {
        let id: Int
    }

    private enum Sink: Sendable {
        case callback(@Sendable (MediaTime) -> Void)
        case stream(AsyncStream<MediaTime>.Continuation)

        func send(_ time: MediaTime) {
            switch self {
            case .callback(let f): f(time)
            case .stream(let c): c.yield(time)
            }
        }
    }

    private struct Periodic {
        var interval: MediaTime
        var sink: Sink
    }

    private struct Boundary {
        var times: [MediaTime]
        var sink: Sink
    }

    private struct State {
        var item: PlayerItem?
        var rate: Double = 0
        var defaultRate: Double = 1
        /// Item time at `anchorClock`; time moves from there at `rate` once `moving`.
        var anchorItem: MediaTime = .zero
        var anchorClock: MediaTime = .zero
        var moving = false
        var status: TimeControlStatus = .paused
        var seekSequence = 0
        var seeks: [Int: @Sendable (Bool) -> Void] = [:]
        /// The time shown while a seek waits for its frame (seekingWaitsForVideoCompositionRendering).
        var heldTime: MediaTime?
        var periodic: [Int: Periodic] = [:]
        var boundary: [Int: Boundary] = [:]
        var nextObserverID = 0
        /// The item time when observers were last brought up to date.
        var lastTime: MediaTime = .zero
        var timer: PlayerClockTimer?
        var timerGeneration = 0
    }

    /// What to do once the lock is released.
    private struct Actions {
        var fire: [(Sink, MediaTime)] = []
        var resumeSeeks: [(@Sendable (Bool) -> Void, Bool)] = []
        var status: TimeControlStatus?
        var playhead: (MediaTime, jumped: Bool)?
        var playheadRenders = true
        var ended: (PlayerItem, MediaTime)?
        var schedule = false
        var cancelTimer: PlayerClockTimer?
    }

    /// The clock that moves the player's time.
    public let clock: any PlayerClock
    private let state = Lock(State())
    private let statusBroadcast = Broadcast<TimeControlStatus>(current: .paused)

    /// A player of `item` on `clock` (wall time by default).
    public init(playerItem item: PlayerItem? = nil, clock: any PlayerClock = RealTimeClock()) {
        self.clock = clock
        if let item { replaceCurrentItem(with: item) }
    }

    deinit {
        let (timer, seeks, item, streams) = state.withLock { s in
            (s.timer, Array(s.seeks.values), s.item, s.periodic.values.map(\.sink) + s.boundary.values.map(\.sink))
        }
        timer?.cancel()
        for seek in seeks { seek(false) }
        item?.detach(from: self)
        for case .stream(let c) in streams { c.finish() }
        statusBroadcast.finish()
    }

    // MARK: Item

    /// The item being played.
    public var currentItem: PlayerItem? { state.withLock { $0.item } }

    /// Plays `item` instead, from its own current time (zero for a new item), and prepares
    /// it. Pending seeks finish `false`.
    public func replaceCurrentItem(with item: PlayerItem?) {
        // Read before taking the lock: an item already playing here asks this player.
        let start = item.map { $0.currentItemTimeForNewPlayer() } ?? .zero
        let (old, oldTime, seeks) = state.withLock { s -> (PlayerItem?, MediaTime, [@Sendable (Bool) -> Void]) in
            let old = s.item
            let oldTime = time(s)
            s.item = item
            s.seekSequence += 1
            let seeks = Array(s.seeks.values)
            s.seeks.removeAll()
            s.heldTime = nil
            s.anchorItem = start.isNumeric ? start : .zero
            s.anchorClock = clock.now
            s.lastTime = s.anchorItem
            return (old, oldTime, seeks)
        }
        for seek in seeks { seek(false) }
        if let old, old !== item {
            // The old item keeps the time it was left at.
            old.setPlayhead(oldTime)
            old.detach(from: self)
        }
        guard let item else {
            update { s, a in a.status = Self.status(s) }
            return
        }
        item.attach(to: self)
        item.setPlayhead(state.withLock { $0.anchorItem })
        update { s, a in self.startOrStop(&s, &a, jumped: true) }
        Task { await item.prepare() }
    }

    /// The item became ready or failed.
    func itemStatusChanged(_ item: PlayerItem) {
        update { s, a in
            guard s.item === item else { return }
            self.startOrStop(&s, &a, jumped: true)
        }
    }

    // MARK: Rate

    /// The playback rate: 0 is paused, 1 is normal speed. Setting a rate above 0 plays at it;
    /// a negative rate (playing backwards) is not supported and pauses.
    public var rate: Float {
        get { Float(state.withLock { $0.rate }) }
        set { setRate(Double(newValue)) }
    }

    /// The rate ``play()`` uses (1 by default).
    public var defaultRate: Float {
        get { Float(state.withLock { $0.defaultRate }) }
        set { state.withLock { $0.defaultRate = Double(max(0, newValue)) } }
    }

    /// Plays at ``defaultRate``.
    public func play() { setRate(state.withLock { $0.defaultRate }) }

    /// Sets the rate to 0.
    public func pause() { setRate(0) }

    /// Whether time moves now, stands still, or waits to move at the rate set.
    public var timeControlStatus: TimeControlStatus { state.withLock { $0.status } }

    /// The time-control status now, then each change.
    public var timeControlStatusUpdates: AsyncStream<TimeControlStatus> { statusBroadcast.subscribe() }

    private func setRate(_ newRate: Double) {
        let rate = newRate.isFinite ? max(0, newRate) : 0
        update { s, a in
            guard s.rate != rate else { return }
            // Freeze the time where it is, then move on at the new rate.
            let now = self.time(s)
            s.anchorItem = now
            s.anchorClock = self.clock.now
            s.rate = rate
            self.startOrStop(&s, &a, jumped: false)
        }
    }

    // MARK: Time

    /// The current time of the current item.
    public func currentTime() -> MediaTime { state.withLock { time($0) } }

    private func time(_ s: State) -> MediaTime {
        if let held = s.heldTime { return held }
        guard s.moving else { return s.anchorItem }
        let t = s.anchorItem + PlaybackTime.scale(clock.now - s.anchorClock, by: s.rate)
        let end = s.item?.duration ?? .indefinite
        return end.isNumeric ? MediaTime.minimum(t, end) : t
    }

    // MARK: Seeking

    /// Seeks to about `time`: the start of the frame holding it (`seek(to:)`'s infinite
    /// tolerances). Returns false when a later seek replaced it.
    @discardableResult
    public func seek(to time: MediaTime) async -> Bool {
        await seek(to: time, toleranceBefore: .positiveInfinity, toleranceAfter: .positiveInfinity)
    }

    /// Seeks to a time within `[time - toleranceBefore, time + toleranceAfter]`: zero and zero
    /// is `time` exactly (frame-exact); otherwise the nearest frame start within the range,
    /// else `time`. Returns true once the frame there is rendered, false when a later seek
    /// (or a new item) replaced this one or the frame failed.
    @discardableResult
    public func seek(to time: MediaTime, toleranceBefore: MediaTime, toleranceAfter: MediaTime) async -> Bool {
        await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            startSeek(to: time, toleranceBefore: toleranceBefore, toleranceAfter: toleranceAfter) { continuation.resume(returning: $0) }
        }
    }

    /// The callback form, for ported code: `completionHandler` gets what the async form
    /// returns, on the thread that finishes the seek. The seek starts before this returns,
    /// so seeks made one after the other keep their order.
    public func seek(
        to time: MediaTime, toleranceBefore: MediaTime = .positiveInfinity, toleranceAfter: MediaTime = .positiveInfinity,
        completionHandler: @escaping @Sendable (Bool) -> Void
    ) {
        startSeek(to: time, toleranceBefore: toleranceBefore, toleranceAfter: toleranceAfter, completionHandler)
    }

    private func startSeek(
        to target: MediaTime, toleranceBefore: MediaTime, toleranceAfter: MediaTime,
        _ completion: @escaping @Sendable (Bool) -> Void
    ) {
        enum Start { case none, go(PlayerItem, MediaTime, Int) }
        var start = Start.none
        update { s, a in
            s.seekSequence += 1
            let sequence = s.seekSequence
            for (_, old) in s.seeks { a.resumeSeeks.append((old, false)) }
            s.seeks.removeAll()
            guard let item = s.item, item.status == .readyToPlay, target.isValid else {
                a.resumeSeeks.append((completion, false))
                return
            }
            let landing = Self.landing(for: target, before: toleranceBefore, after: toleranceAfter, item: item)
            let previous = self.time(s)
            s.heldTime = item.seekingWaitsForVideoCompositionRendering ? (s.heldTime ?? previous) : nil
            s.anchorItem = landing
            s.anchorClock = self.clock.now
            s.lastTime = landing
            s.seeks[sequence] = completion
            a.playhead = (landing, true)
            a.playheadRenders = false
            // Time jumped: periodic observers hear of it (with the time shown).
            for p in s.periodic.values { a.fire.append((p.sink, self.time(s))) }
            a.status = Self.status(s)
            a.schedule = true
            start = .go(item, landing, sequence)
        }
        guard case .go(let item, let landing, let sequence) = start else { return }
        // The render in flight is cancelled (and with it the compositor's pending requests,
        // before the next request starts); the seek's frame is the newest target.
        item.chase.cancelInFlight()
        let ticket = item.chase.enqueueTicket(item.frameTime(for: landing), isSeek: true)
        Task {
            let result = await item.chase.wait(ticket)
            var ok = false
            if case .success = result { ok = true }
            if case .failure(let error) = result { item.fail(error) }
            self.finishSeek(sequence, ok: ok)
        }
    }

    private func finishSeek(_ sequence: Int, ok: Bool) {
        update { s, a in
            let current = s.seekSequence == sequence
            if let c = s.seeks.removeValue(forKey: sequence) { a.resumeSeeks.append((c, ok && current)) }
            guard current else { return }
            if s.heldTime != nil {
                // The frame is there: time moves on from the landing time now.
                s.heldTime = nil
                s.anchorClock = self.clock.now
                for p in s.periodic.values { a.fire.append((p.sink, s.anchorItem)) }
            }
            a.status = Self.status(s)
            a.schedule = true
        }
    }

    /// Where a seek to `target` lands within its tolerances.
    static func landing(for target: MediaTime, before: MediaTime, after: MediaTime, item: PlayerItem) -> MediaTime {
        let duration = item.duration
        var t = target
        if t < .zero { t = .zero }
        if duration.isNumeric, t > duration { t = duration }
        guard before > .zero || after > .zero, let frame = item.frameRange(containing: t) else { return t }
        let earlier = t - frame.start, later = frame.end - t
        let canEarlier = earlier <= before, canLater = after >= later && frame.end < duration
        switch (canEarlier, canLater) {
        // The frame holding the time first: it is the one that shows.
        case (true, _): return frame.start
        case (false, true): return frame.end
        case (false, false): return t
        }
    }

    // MARK: Observers

    /// The current time at each multiple of `interval` while time moves, and whenever time
    /// jumps, starts or stops. Ends when the player goes away; stop iterating to remove it.
    public func addPeriodicTimeObserver(forInterval interval: MediaTime) -> AsyncStream<MediaTime> {
        let (stream, continuation) = AsyncStream.makeStream(of: MediaTime.self)
        let token = addObserver(periodic: interval, sink: .stream(continuation))
        continuation.onTermination = { [weak self] _ in self?.removeTimeObserver(token) }
        return stream
    }

    /// The callback form (`addPeriodicTimeObserver(forInterval:queue:using:)`).
    public func addPeriodicTimeObserver(forInterval interval: MediaTime, using block: @escaping @Sendable (MediaTime) -> Void) -> TimeObserverToken {
        addObserver(periodic: interval, sink: .callback(block))
    }

    /// Each of `times` that playback crosses (not one a seek lands on), once per crossing.
    public func addBoundaryTimeObserver(forTimes times: [MediaTime]) -> AsyncStream<MediaTime> {
        let (stream, continuation) = AsyncStream.makeStream(of: MediaTime.self)
        let token = addObserver(boundary: times, sink: .stream(continuation))
        continuation.onTermination = { [weak self] _ in self?.removeTimeObserver(token) }
        return stream
    }

    /// The callback form (`addBoundaryTimeObserver(forTimes:queue:using:)`); the block gets
    /// the boundary time crossed.
    public func addBoundaryTimeObserver(forTimes times: [MediaTime], using block: @escaping @Sendable (MediaTime) -> Void) -> TimeObserverToken {
        addObserver(boundary: times, sink: .callback(block))
    }

    /// Stops a callback observer.
    public func removeTimeObserver(_ token: TimeObserverToken) {
        let sink = state.withLock { s -> Sink? in
            s.periodic.removeValue(forKey: token.id)?.sink ?? s.boundary.removeValue(forKey: token.id)?.sink
        }
        if case .stream(let c) = sink { c.finish() }
    }

    private func addObserver(periodic interval: MediaTime? = nil, boundary times: [MediaTime]? = nil, sink: Sink) -> TimeObserverToken {
        let id = state.withLock { s in
            defer { s.nextObserverID += 1 }
            if let interval, interval.isNumeric, interval > .zero {
                s.periodic[s.nextObserverID] = Periodic(interval: interval, sink: sink)
            } else if let times {
                s.boundary[s.nextObserverID] = Boundary(times: times.filter(\.isNumeric).sorted(), sink: sink)
            }
            return s.nextObserverID
        }
        schedule()
        return TimeObserverToken(id: id)
    }

    // MARK: The state machine

    private static func status(_ s: State) -> TimeControlStatus {
        guard s.rate > 0 else { return .paused }
        guard let item = s.item, item.status == .readyToPlay, s.heldTime == nil else { return .waitingToPlayAtSpecifiedRate }
        return .playing
    }

    /// Starts or stops time after a change of rate, item or status.
    private func startOrStop(_ s: inout State, _ a: inout Actions, jumped: Bool) {
        let wasMoving = s.moving
        let shouldMove = s.rate > 0 && s.item?.status == .readyToPlay
        if shouldMove != wasMoving {
            s.anchorItem = time(s)
            s.anchorClock = clock.now
            s.moving = shouldMove
            s.lastTime = s.anchorItem
            if let item = s.item, shouldMove, item.duration.isNumeric, s.anchorItem >= item.duration {
                // Playing at the end: it ends again at once.
                s.moving = false
                s.rate = 0
                a.ended = (item, item.duration)
            }
            // Starting or stopping: periodic observers hear of it.
            for p in s.periodic.values { a.fire.append((p.sink, s.anchorItem)) }
            a.playhead = (s.anchorItem, jumped)
        } else if jumped {
            a.playhead = (time(s), true)
        }
        a.status = Self.status(s)
        a.schedule = true
    }

    /// Runs `body` under the lock, then does what it asked for.
    private func update(_ body: (inout State, inout Actions) -> Void) {
        var actions = Actions()
        let item = state.withLock { s -> PlayerItem? in
            body(&s, &actions)
            if let newStatus = actions.status, newStatus != s.status {
                s.status = newStatus
                // Under the lock, so the sequence keeps the order of the changes (the
                // broadcast's lock is taken inside this one, never the other way round).
                statusBroadcast.yield(newStatus)
            }
            return s.item
        }
        perform(actions, item: item)
    }

    private func perform(_ a: Actions, item: PlayerItem?) {
        a.cancelTimer?.cancel()
        if let (time, jumped) = a.playhead { item?.playheadMoved(to: time, jumped: jumped, renders: a.playheadRenders) }
        for (completion, ok) in a.resumeSeeks { completion(ok) }
        for (sink, time) in a.fire { sink.send(time) }
        if let (endedItem, time) = a.ended { endedItem.post(.didPlayToEndTime(time)) }
        if a.schedule { schedule() }
    }

    /// Sets the one timer for the next thing due while time moves: a periodic fire, a
    /// boundary, the next frame, the end.
    private func schedule() {
        let (old, plan) = state.withLock { s -> (PlayerClockTimer?, (MediaTime, Int)?) in
            let old = s.timer
            s.timer = nil
            s.timerGeneration += 1
            guard s.moving, s.heldTime == nil, s.rate > 0, let item = s.item else { return (old, nil) }
            let now = time(s)
            var next = item.duration.isNumeric ? item.duration : MediaTime.positiveInfinity
            for p in s.periodic.values { next = MediaTime.minimum(next, PlaybackTime.nextMultiple(of: p.interval, after: now)) }
            for b in s.boundary.values { if let t = b.times.first(where: { $0 > now }) { next = MediaTime.minimum(next, t) } }
            if let frame = item.frameRange(containing: now) { next = MediaTime.minimum(next, frame.end) }
            guard next.isNumeric else { return (old, nil) }
            let deadline = s.anchorClock + PlaybackTime.unscale(next - s.anchorItem, by: s.rate)
            return (old, (deadline, s.timerGeneration))
        }
        old?.cancel()
        guard let (deadline, generation) = plan else { return }
        let timer = clock.schedule(at: deadline) { [weak self] in self?.tick(generation) }
        let keep = state.withLock { s -> Bool in
            guard s.timerGeneration == generation else { return false }
            s.timer = timer
            return true
        }
        if !keep { timer.cancel() }
    }

    /// The clock reached a deadline: bring observers, the frame and the end up to date.
    private func tick(_ generation: Int) {
        update { s, a in
            guard s.timerGeneration == generation, s.moving, let item = s.item else { return }
            s.timer = nil
            var now = time(s)
            let duration = item.duration
            let atEnd = duration.isNumeric && now >= duration
            if atEnd { now = duration }
            let previous = s.lastTime
            var fired = Set<Int>()
            for (id, p) in s.periodic where PlaybackTime.nextMultiple(of: p.interval, after: previous) <= now {
                a.fire.append((p.sink, now))
                fired.insert(id)
            }
            for b in s.boundary.values {
                for t in b.times where previous < t && t <= now { a.fire.append((b.sink, t)) }
            }
            s.lastTime = now
            a.playhead = (now, false)
            if atEnd {
                s.anchorItem = duration
                s.anchorClock = clock.now
                s.moving = false
                s.rate = 0
                // Stopping: periodic observers hear of it (once).
                for (id, p) in s.periodic where !fired.contains(id) { a.fire.append((p.sink, duration)) }
                a.ended = (item, duration)
                a.status = Self.status(s)
            }
            a.schedule = true
        }
    }
}
