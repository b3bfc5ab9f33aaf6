import ReelComposition
import ReelTesting
import Testing

/// AVPlayer's documented behaviours, each on a manual clock: no test sleeps.
@Suite struct PlayerTests {
    // MARK: Rate and status

    @Test func aNewPlayerIsPausedAtZero() async throws {
        let rig = try await PlaybackRig()
        #expect(rig.player.rate == 0)
        #expect(rig.player.timeControlStatus == .paused)
        #expect(rig.player.currentTime() == .zero)
        #expect(rig.player.currentItem === rig.item)
    }

    @Test func playingBeforeTheItemIsReadyWaitsThenPlays() async throws {
        let rig = try await PlaybackRig(ready: false)
        var statuses = rig.player.timeControlStatusUpdates.makeAsyncIterator()
        rig.player.play()
        // Either the item is still loading (waiting first) or already ready (playing at once).
        var seen: [Player.TimeControlStatus] = []
        while let s = await statuses.next() {
            seen.append(s)
            if s == .playing { break }
        }
        #expect(seen.first == .paused)
        #expect(seen.last == .playing)
        #expect(seen.allSatisfy { $0 != .paused } == false)
        try await rig.waitUntilReady()
        #expect(rig.player.timeControlStatus == .playing)
    }

    @Test func waitingToPlayWhileTheItemLoads() async throws {
        let gate = AsyncStream<Void>.makeStream()
        let clip = try PlaybackClip.source()
        let composition = try PlaybackClip.composition(clip)
        let video = PlaybackClip.videoComposition(composition, compositor: PlaybackCompositor())
        let item = PlayerItem { () throws(ReelError) in
            for await _ in gate.stream { break }
            return PlayerItem.Contents(composition: composition, videoComposition: video, sources: clip)
        }
        let player = Player(playerItem: item, clock: ManualClock())
        player.play()
        #expect(item.status == .unknown)
        #expect(player.timeControlStatus == .waitingToPlayAtSpecifiedRate)
        #expect(player.rate == 1)
        gate.continuation.yield()
        for await s in player.timeControlStatusUpdates where s == .playing { break }
        #expect(item.status == .readyToPlay)
    }

    @Test func playMovesTimeWithTheClockExactly() async throws {
        let rig = try await PlaybackRig()
        rig.player.play()
        #expect(rig.player.rate == 1)
        #expect(rig.player.timeControlStatus == .playing)
        rig.clock.advance(by: tenths(7))
        #expect(rig.player.currentTime() == tenths(7))
        rig.clock.advance(by: MediaTime(value: 1, timescale: 3))
        #expect(rig.player.currentTime() == tenths(7) + MediaTime(value: 1, timescale: 3))
    }

    @Test func pauseStopsTime() async throws {
        let rig = try await PlaybackRig()
        rig.player.play()
        rig.clock.advance(by: tenths(4))
        rig.player.pause()
        #expect(rig.player.rate == 0)
        #expect(rig.player.timeControlStatus == .paused)
        rig.clock.advance(by: tenths(10))
        #expect(rig.player.currentTime() == tenths(4))
    }

    @Test(arguments: [(2.0, Int64(20)), (0.5, Int64(5)), (1.5, Int64(15))])
    func rateScalesTheClock(rate: Double, tenthsAfterOneSecond: Int64) async throws {
        let rig = try await PlaybackRig()
        rig.player.rate = Float(rate)
        #expect(rig.player.timeControlStatus == .playing)
        rig.clock.advance(by: tenths(10))
        #expect(rig.player.currentTime() == tenths(tenthsAfterOneSecond))
    }

    @Test func aRateChangeKeepsTheTimeReached() async throws {
        let rig = try await PlaybackRig()
        rig.player.play()
        rig.clock.advance(by: tenths(5))
        rig.player.rate = 2
        rig.clock.advance(by: tenths(5))
        #expect(rig.player.currentTime() == tenths(15))
    }

    @Test func aNegativeRatePauses() async throws {
        let rig = try await PlaybackRig()
        rig.player.play()
        rig.player.rate = -1
        #expect(rig.player.rate == 0)
        #expect(rig.player.timeControlStatus == .paused)
    }

    @Test func playUsesTheDefaultRate() async throws {
        let rig = try await PlaybackRig()
        rig.player.defaultRate = 2
        rig.player.play()
        #expect(rig.player.rate == 2)
        rig.clock.advance(by: tenths(3))
        #expect(rig.player.currentTime() == tenths(6))
    }

    @Test func timeControlStatusIsASequence() async throws {
        let rig = try await PlaybackRig()
        var updates = rig.player.timeControlStatusUpdates.makeAsyncIterator()
        rig.player.play()
        rig.player.pause()
        #expect(await updates.next() == .paused)
        #expect(await updates.next() == .playing)
        #expect(await updates.next() == .paused)
    }

    // MARK: Seeking

    @Test func aZeroToleranceSeekLandsExactly() async throws {
        let rig = try await PlaybackRig()
        let target = MediaTime(value: 55, timescale: 100)
        #expect(await rig.player.seek(to: target, toleranceBefore: .zero, toleranceAfter: .zero))
        #expect(rig.player.currentTime() == target)
        // The frame shown is the one holding the time, rendered for its own start.
        let frame = try #require(rig.output.copyFrame(forItemTime: target))
        #expect(frame.time == tenths(5))
        #expect(frameIndex(frame.pixelBuffer) == 5)
    }

    @Test func aDefaultSeekLandsOnTheStartOfTheFrameHoldingTheTime() async throws {
        let rig = try await PlaybackRig()
        #expect(await rig.player.seek(to: MediaTime(value: 57, timescale: 100)))
        #expect(rig.player.currentTime() == tenths(5))
    }

    @Test func aSeekWithOnlyAfterToleranceLandsOnTheNextFrame() async throws {
        let rig = try await PlaybackRig()
        #expect(await rig.player.seek(to: MediaTime(value: 52, timescale: 100), toleranceBefore: .zero, toleranceAfter: .positiveInfinity))
        #expect(rig.player.currentTime() == tenths(6))
        #expect(frameIndex(rig.output.copyPixelBuffer(forItemTime: tenths(6))) == 6)
    }

    @Test func aSeekWithOnlyBeforeToleranceLandsOnTheFrameStart() async throws {
        let rig = try await PlaybackRig()
        #expect(await rig.player.seek(to: MediaTime(value: 58, timescale: 100), toleranceBefore: .positiveInfinity, toleranceAfter: .zero))
        #expect(rig.player.currentTime() == tenths(5))
    }

    @Test func aSmallToleranceThatReachesNoFrameStartLandsExactly() async throws {
        let rig = try await PlaybackRig()
        let target = MediaTime(value: 55, timescale: 100)
        #expect(await rig.player.seek(to: target, toleranceBefore: MediaTime(value: 1, timescale: 100), toleranceAfter: MediaTime(value: 1, timescale: 100)))
        #expect(rig.player.currentTime() == target)
    }

    @Test func seeksOutsideTheItemAreClamped() async throws {
        let rig = try await PlaybackRig()
        #expect(await rig.player.seek(to: tenths(99), toleranceBefore: .zero, toleranceAfter: .zero))
        #expect(rig.player.currentTime() == tenths(30))
        // The last frame shows at the end.
        #expect(frameIndex(rig.output.copyPixelBuffer(forItemTime: tenths(30))) == 29)
        #expect(await rig.player.seek(to: tenths(-5), toleranceBefore: .zero, toleranceAfter: .zero))
        #expect(rig.player.currentTime() == .zero)
    }

    @Test func aSupersededSeekReturnsFalse() async throws {
        let manual = ManualCompositor()
        let rig = try await PlaybackRig(compositor: manual)
        let results = Recorder<(Int, Bool)>()
        let (done, finished) = AsyncStream<Void>.makeStream()
        rig.player.seek(to: tenths(5), toleranceBefore: .zero, toleranceAfter: .zero) { results.append((1, $0)) }
        await manual.waitForRequests(count: 2)
        rig.player.seek(to: tenths(7), toleranceBefore: .zero, toleranceAfter: .zero) {
            results.append((2, $0)); finished.yield()
        }
        #expect(results.all.map(\.0) == [1])
        await manual.waitForRequests(count: 3)
        manual.finishAll { _ in SyntheticFrame.counter(7, width: 64, height: 36, format: .bgra) }
        for await _ in done { break }
        #expect(results.all.map(\.0) == [1, 2])
        #expect(results.all.map(\.1) == [false, true])
        #expect(rig.player.currentTime() == tenths(7))
    }

    @Test func aSupersededAsyncSeekReturnsFalseAtOnce() async throws {
        let manual = ManualCompositor()
        let rig = try await PlaybackRig(compositor: manual)
        async let first = rig.player.seek(to: tenths(5), toleranceBefore: .zero, toleranceAfter: .zero)
        await manual.waitForRequests(count: 2)
        async let second = rig.player.seek(to: tenths(8), toleranceBefore: .zero, toleranceAfter: .zero)
        // The first returns false before the second's frame exists.
        #expect(await first == false)
        await manual.waitForRequests(count: 3)
        manual.finishAll { SyntheticFrame.counter(Int(($0.compositionTime.seconds * 10).rounded()), width: 64, height: 36, format: .bgra) }
        #expect(await second == true)
    }

    @Test func aSeekBeforeTheItemIsReadyReturnsFalse() async throws {
        let player = Player(clock: ManualClock())
        #expect(await player.seek(to: tenths(5)) == false)
    }

    @Test func aSeekCancelsTheCompositorsPendingRequests() async throws {
        let manual = ManualCompositor()
        let rig = try await PlaybackRig(compositor: manual)
        rig.player.seek(to: tenths(5), toleranceBefore: .zero, toleranceAfter: .zero) { _ in }
        await manual.waitForRequests(count: 2)
        let held = try #require(manual.pendingRequests.first)
        async let second = rig.player.seek(to: tenths(9), toleranceBefore: .zero, toleranceAfter: .zero)
        await manual.waitForRequests(count: 3)
        // ManualCompositor finishes what it holds as cancelled when asked to cancel.
        #expect(held.isFinished)
        #expect(manual.startedTimes == [.zero, tenths(5), tenths(9)])
        manual.finishAll { _ in SyntheticFrame.counter(9, width: 64, height: 36, format: .bgra) }
        #expect(await second)
    }

    @Test func seeksCoalesceToTheNewestTarget() async throws {
        let manual = ManualCompositor()
        let rig = try await PlaybackRig(compositor: manual)
        let results = Recorder<(MediaTime, Bool)>()
        let (done, signal) = AsyncStream<Void>.makeStream()
        for n in [3, 10, 15, 20] as [Int64] {
            rig.player.seek(to: tenths(n), toleranceBefore: .zero, toleranceAfter: .zero) {
                results.append((tenths(n), $0)); signal.yield()
            }
            if n == 3 {
                await manual.waitForRequests(count: 2)
                // The render of 0.3 stays in flight until the test finishes it, however
                // quickly the seeks after it arrive.
                manual.holdsCancelledRequests = true
            }
        }
        // While the first renders, three more seeks: only the newest is rendered next.
        manual.finishAll { _ in nil }
        await manual.waitForRequests(count: 3)
        manual.finishAll { _ in SyntheticFrame.counter(20, width: 64, height: 36, format: .bgra) }
        var iterator = done.makeAsyncIterator()
        for _ in 0..<4 { await iterator.next() }
        #expect(manual.startedTimes == [.zero, tenths(3), tenths(20)])
        #expect(results.all.map(\.0) == [tenths(3), tenths(10), tenths(15), tenths(20)])
        #expect(results.all.map(\.1) == [false, false, false, true])
    }

    @Test func steppingBackIsServedFromTheCache() async throws {
        let rig = try await PlaybackRig()
        #expect(await rig.player.seek(to: tenths(5)))
        #expect(await rig.player.seek(to: tenths(6)))
        #expect(await rig.player.seek(to: tenths(5)))
        #expect(rig.recording.times == [.zero, tenths(5), tenths(6)])
    }

    @Test func seekingWhilePlayingPlaysOnFromTheLandingTime() async throws {
        let rig = try await PlaybackRig()
        rig.player.play()
        rig.clock.advance(by: tenths(3))
        #expect(await rig.player.seek(to: tenths(20), toleranceBefore: .zero, toleranceAfter: .zero))
        #expect(rig.player.timeControlStatus == .playing)
        rig.clock.advance(by: tenths(2))
        #expect(rig.player.currentTime() == tenths(22))
    }

    @Test func timeJumpsAtOnceWhenSeekingDoesNotWaitForRendering() async throws {
        let manual = ManualCompositor()
        let rig = try await PlaybackRig(compositor: manual)
        #expect(rig.item.seekingWaitsForVideoCompositionRendering == false)
        async let landed = rig.player.seek(to: tenths(12), toleranceBefore: .zero, toleranceAfter: .zero)
        await manual.waitForRequests(count: 2)
        #expect(rig.player.currentTime() == tenths(12))
        manual.finishAll { _ in SyntheticFrame.counter(12, width: 64, height: 36, format: .bgra) }
        #expect(await landed)
    }

    @Test func timeFollowsTheRenderedFrameWhenSeekingWaitsForRendering() async throws {
        let manual = ManualCompositor()
        let rig = try await PlaybackRig(compositor: manual)
        rig.item.seekingWaitsForVideoCompositionRendering = true
        rig.player.play()
        async let landed = rig.player.seek(to: tenths(12), toleranceBefore: .zero, toleranceAfter: .zero)
        await manual.waitForRequests(count: 2)
        let before = rig.player.currentTime()
        #expect(before == .zero)
        #expect(rig.player.timeControlStatus == .waitingToPlayAtSpecifiedRate)
        rig.clock.advance(by: tenths(5))
        #expect(rig.player.currentTime() == .zero)
        manual.finishAll { _ in SyntheticFrame.counter(12, width: 64, height: 36, format: .bgra) }
        #expect(await landed)
        #expect(rig.player.currentTime() == tenths(12))
        #expect(rig.player.timeControlStatus == .playing)
        manual.finishAll { _ in SyntheticFrame.counter(0, width: 64, height: 36, format: .bgra) }
    }

    // MARK: Periodic observers

    @Test func aPeriodicObserverFiresAtEachIntervalWhilePlaying() async throws {
        let rig = try await PlaybackRig()
        let times = Recorder<MediaTime>()
        _ = rig.player.addPeriodicTimeObserver(forInterval: tenths(5)) { times.append($0) }
        rig.player.play()
        rig.clock.advance(by: tenths(16))
        // The start, then 0.5, 1.0, 1.5.
        #expect(times.all == [.zero, tenths(5), tenths(10), tenths(15)])
    }

    @Test func aPeriodicObserverIsSilentWhileTimeStandsStill() async throws {
        let rig = try await PlaybackRig()
        let times = Recorder<MediaTime>()
        _ = rig.player.addPeriodicTimeObserver(forInterval: tenths(5)) { times.append($0) }
        rig.clock.advance(by: tenths(30))
        #expect(times.all.isEmpty)
        rig.player.play()
        rig.clock.advance(by: tenths(2))
        rig.player.pause()
        let count = times.all.count
        rig.clock.advance(by: tenths(20))
        #expect(times.all.count == count)
    }

    @Test func aPeriodicObserverFiresWhenPlaybackStops() async throws {
        let rig = try await PlaybackRig()
        let times = Recorder<MediaTime>()
        _ = rig.player.addPeriodicTimeObserver(forInterval: tenths(5)) { times.append($0) }
        rig.player.play()
        rig.clock.advance(by: tenths(7))
        rig.player.pause()
        #expect(times.all == [.zero, tenths(5), tenths(7)])
    }

    @Test func aPeriodicObserverFiresWhenTimeJumps() async throws {
        let rig = try await PlaybackRig()
        let times = Recorder<MediaTime>()
        _ = rig.player.addPeriodicTimeObserver(forInterval: tenths(5)) { times.append($0) }
        #expect(await rig.player.seek(to: tenths(22), toleranceBefore: .zero, toleranceAfter: .zero))
        #expect(times.all == [tenths(22)])
    }

    @Test func aPeriodicObserverCountsItemTimeAtOtherRates() async throws {
        let rig = try await PlaybackRig()
        let times = Recorder<MediaTime>()
        _ = rig.player.addPeriodicTimeObserver(forInterval: tenths(5)) { times.append($0) }
        rig.player.rate = 2
        rig.clock.advance(by: tenths(10))
        #expect(times.all == [.zero, tenths(5), tenths(10), tenths(15), tenths(20)])
    }

    @Test func aRemovedObserverIsNotCalled() async throws {
        let rig = try await PlaybackRig()
        let times = Recorder<MediaTime>()
        let token = rig.player.addPeriodicTimeObserver(forInterval: tenths(5)) { times.append($0) }
        rig.player.removeTimeObserver(token)
        rig.player.play()
        rig.clock.advance(by: tenths(20))
        #expect(times.all.isEmpty)
    }

    @Test func aPeriodicObserverIsAnAsyncSequence() async throws {
        let rig = try await PlaybackRig()
        var times = rig.player.addPeriodicTimeObserver(forInterval: tenths(5)).makeAsyncIterator()
        rig.player.play()
        rig.clock.advance(by: tenths(11))
        #expect(await times.next() == .zero)
        #expect(await times.next() == tenths(5))
        #expect(await times.next() == tenths(10))
    }

    // MARK: Boundary observers

    @Test func aBoundaryObserverFiresOncePerCrossing() async throws {
        let rig = try await PlaybackRig()
        let times = Recorder<MediaTime>()
        _ = rig.player.addBoundaryTimeObserver(forTimes: [tenths(5), tenths(12)]) { times.append($0) }
        rig.player.play()
        rig.clock.advance(by: tenths(20))
        #expect(times.all == [tenths(5), tenths(12)])
        // Back before the first boundary and across it again: once more.
        #expect(await rig.player.seek(to: tenths(3), toleranceBefore: .zero, toleranceAfter: .zero))
        rig.clock.advance(by: tenths(3))
        #expect(times.all == [tenths(5), tenths(12), tenths(5)])
    }

    @Test func aSeekLandingOnABoundaryDoesNotFireIt() async throws {
        let rig = try await PlaybackRig()
        let times = Recorder<MediaTime>()
        _ = rig.player.addBoundaryTimeObserver(forTimes: [tenths(5)]) { times.append($0) }
        #expect(await rig.player.seek(to: tenths(5), toleranceBefore: .zero, toleranceAfter: .zero))
        rig.player.play()
        rig.clock.advance(by: tenths(3))
        #expect(times.all.isEmpty)
    }

    @Test func aBoundaryIsNotCrossedWhilePaused() async throws {
        let rig = try await PlaybackRig()
        let times = Recorder<MediaTime>()
        _ = rig.player.addBoundaryTimeObserver(forTimes: [tenths(5)]) { times.append($0) }
        rig.clock.advance(by: tenths(10))
        #expect(times.all.isEmpty)
    }

    @Test func aBoundaryObserverIsAnAsyncSequence() async throws {
        let rig = try await PlaybackRig()
        var times = rig.player.addBoundaryTimeObserver(forTimes: [tenths(2), tenths(4)]).makeAsyncIterator()
        rig.player.play()
        rig.clock.advance(by: tenths(5))
        #expect(await times.next() == tenths(2))
        #expect(await times.next() == tenths(4))
    }

    // MARK: End of the item

    @Test func playbackPausesAtTheEndAndPostsDidPlayToEnd() async throws {
        let rig = try await PlaybackRig()
        var events = rig.item.events.makeAsyncIterator()
        rig.player.play()
        rig.clock.advance(by: tenths(45))
        #expect(rig.player.currentTime() == tenths(30))
        #expect(rig.player.rate == 0)
        #expect(rig.player.timeControlStatus == .paused)
        guard case .didPlayToEndTime(let time) = await events.next() else {
            Issue.record("expected didPlayToEndTime")
            return
        }
        #expect(time == tenths(30))
    }

    @Test func aFrameThatFailsPostsFailedToPlayToEnd() async throws {
        let compositor = PlaybackCompositor()
        compositor.failAt.withLock { $0 = tenths(2) }
        let rig = try await PlaybackRig(compositor: compositor)
        var events = rig.item.events.makeAsyncIterator()
        var statuses = rig.item.statusUpdates.makeAsyncIterator()
        rig.player.play()
        rig.clock.advance(by: tenths(1))
        _ = await rig.frame(at: tenths(1))
        rig.clock.advance(by: tenths(1))
        guard case .failedToPlayToEndTime(let error) = await events.next() else {
            Issue.record("expected failedToPlayToEndTime")
            return
        }
        #expect(error.code == .compositorFailed)
        while let s = await statuses.next(), s != .failed {}
        #expect(rig.item.error?.code == .compositorFailed)
        #expect(rig.player.timeControlStatus == .waitingToPlayAtSpecifiedRate)
    }

    // MARK: Items

    @Test func replacingTheItemPlaysTheNewOneFromItsStart() async throws {
        let rig = try await PlaybackRig()
        #expect(await rig.player.seek(to: tenths(20)))
        let other = try PlaybackClip.item(compositor: PlaybackCompositor())
        rig.player.replaceCurrentItem(with: other)
        #expect(rig.player.currentItem === other)
        #expect(rig.player.currentTime() == .zero)
        for await s in other.statusUpdates where s != .unknown { break }
        #expect(other.status == .readyToPlay)
        #expect(rig.item.currentTime() == tenths(20))
    }

    @Test func replacingTheItemEndsItsPendingSeeks() async throws {
        let manual = ManualCompositor()
        let rig = try await PlaybackRig(compositor: manual)
        async let landed = rig.player.seek(to: tenths(5), toleranceBefore: .zero, toleranceAfter: .zero)
        await manual.waitForRequests(count: 2)
        rig.player.replaceCurrentItem(with: nil)
        #expect(await landed == false)
        #expect(rig.player.currentItem == nil)
        manual.finishAll { _ in SyntheticFrame.counter(5, width: 64, height: 36, format: .bgra) }
    }
}

/// The clip's sources, its video track noting the times asked for as a seek's frame.
private struct SeekNotingSources: RenderSourceProvider {
    let clip: InMemorySource
    let seeks: Recorder<MediaTime>

    func videoFrameSource(for reference: SourceTrackReference) -> (any VideoFrameSource)? {
        clip.videoFrameSource(for: reference).map { SeekNotingSource(base: $0, seeks: seeks) }
    }

    func timedMetadataSource(for reference: SourceTrackReference) -> (any TimedMetadataSource)? {
        clip.timedMetadataSource(for: reference)
    }
}

private struct SeekNotingSource: VideoFrameSource {
    let base: any VideoFrameSource
    let seeks: Recorder<MediaTime>

    func frame(at sourceTime: MediaTime) async throws(ReelError) -> VideoFrame? {
        try await base.frame(at: sourceTime)
    }

    func seekFrame(at sourceTime: MediaTime, acceptedFormats: [PixelFormat]?) async throws(ReelError) -> VideoFrame? {
        seeks.append(sourceTime)
        return try await base.frame(at: sourceTime, acceptedFormats: acceptedFormats)
    }
}

@Suite struct PlayerSeekFrameTests {
    @Test("a seek's frame is asked of the sources as a seek's; the first frame and the frames played are not")
    func aSeeksFrameIsAskedForAsASeeks() async throws {
        let clip = try PlaybackClip.source()
        let composition = try PlaybackClip.composition(clip)
        let seeks = Recorder<MediaTime>()
        let item = PlayerItem(
            composition: composition, videoComposition: PlaybackClip.videoComposition(composition, compositor: PlaybackCompositor()),
            sources: SeekNotingSources(clip: clip, seeks: seeks))
        let output = PlayerItemVideoOutput()
        item.add(output)
        let clock = ManualClock()
        let player = Player(playerItem: item, clock: clock)
        try await item.waitUntilReady()
        #expect(await output.renderedFrame(at: .zero)?.time == .zero)
        #expect(seeks.all.isEmpty, "the item's first frame: \(seeks.all)")
        #expect(await player.seek(to: tenths(12), toleranceBefore: .zero, toleranceAfter: .zero))
        #expect(seeks.all == [tenths(12)])
        player.play()
        clock.advance(by: tenths(3))
        #expect(await output.renderedFrame(at: tenths(15))?.time == tenths(15))
        #expect(seeks.all == [tenths(12)], "frames played after the seek: \(seeks.all)")
        #expect(await player.seek(to: tenths(4), toleranceBefore: .zero, toleranceAfter: .zero))
        #expect(seeks.all == [tenths(12), tenths(4)])
    }
}
