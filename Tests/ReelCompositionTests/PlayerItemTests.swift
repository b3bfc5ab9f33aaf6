import ReelComposition
import ReelTesting
import Testing

@Suite struct PlayerItemTests {
    @Test func anItemIsUnknownUntilAPlayerTakesIt() throws {
        let item = try PlaybackClip.item(compositor: PlaybackCompositor())
        #expect(item.status == .unknown)
        #expect(item.error == nil)
        #expect(item.duration.isIndefinite)
        #expect(item.customVideoCompositor == nil)
    }

    @Test func statusMovesFromUnknownToReadyToPlay() async throws {
        let item = try PlaybackClip.item(compositor: PlaybackCompositor())
        var statuses = item.statusUpdates.makeAsyncIterator()
        #expect(await statuses.next() == .unknown)
        let player = Player(playerItem: item, clock: ManualClock())
        #expect(await statuses.next() == .readyToPlay)
        #expect(item.error == nil)
        #expect(item.duration == tenths(30))
        _ = player
    }

    @Test func anInvalidVideoCompositionFailsTheItem() async throws {
        let clip = try PlaybackClip.source()
        let composition = try PlaybackClip.composition(clip)
        var video = PlaybackClip.videoComposition(composition, compositor: PlaybackCompositor()).mutableCopy()
        var instruction = MutableVideoCompositionInstruction()
        instruction.timeRange = TimeRange(start: .zero, duration: tenths(10))  // leaves a gap to 3 s
        video.instructions = [instruction]
        let item = PlayerItem(composition: composition, videoComposition: VideoComposition(video), sources: clip)
        let player = Player(playerItem: item, clock: ManualClock())
        for await s in item.statusUpdates where s != .unknown { break }
        #expect(item.status == .failed)
        #expect(item.error?.code == .invalidComposition)
        #expect(await player.seek(to: tenths(5)) == false)
    }

    @Test func aLoaderErrorFailsTheItem() async throws {
        let item = PlayerItem { () throws(ReelError) -> PlayerItem.Contents in
            throw ReelError(.fileNotFound, "no such clip")
        }
        let player = Player(playerItem: item, clock: ManualClock())
        for await s in item.statusUpdates where s != .unknown { break }
        #expect(item.status == .failed)
        #expect(item.error?.code == .fileNotFound)
        _ = player
    }

    @Test func theCustomCompositorIsTheInstanceThatRenders() async throws {
        let rig = try await PlaybackRig()
        #expect(rig.item.customVideoCompositor as? PlaybackCompositor === rig.recording)
        #expect(rig.recording.times == [.zero])
    }

    @Test func anItemWithoutAVideoCompositionPlaysItsVideoTrack() async throws {
        let clip = try PlaybackClip.source()
        let item = PlayerItem(composition: try PlaybackClip.composition(clip), sources: clip)
        let output = PlayerItemVideoOutput()
        item.add(output)
        let player = Player(playerItem: item, clock: ManualClock())
        for await s in item.statusUpdates where s != .unknown { break }
        #expect(await player.seek(to: tenths(7), toleranceBefore: .zero, toleranceAfter: .zero))
        let frame = try #require(output.copyPixelBuffer(forItemTime: tenths(7)))
        #expect(readCounter(from: frame) == 7)
        #expect(item.videoComposition?.frameDuration == tenths(1))
    }

    @Test func invalidatingTheVideoCompositionRendersThePlayheadAgain() async throws {
        let rig = try await PlaybackRig()
        #expect(await rig.player.seek(to: tenths(8)))
        _ = rig.output.copyPixelBuffer(forItemTime: tenths(8))
        #expect(rig.output.hasNewPixelBuffer(forItemTime: tenths(8)) == false)
        var changes = rig.output.mediaDataChanges.makeAsyncIterator()
        rig.item.invalidateVideoComposition()
        let again = await changes.next()
        #expect(again?.time == tenths(8))
        #expect(rig.recording.times == [.zero, tenths(8), tenths(8)])
        #expect(rig.output.hasNewPixelBuffer(forItemTime: tenths(8)))
        // The same compositor instance: no new render context.
        #expect(rig.recording.contexts.all.count == 1)
    }

    @Test func aNewRenderScaleChangesTheRenderContextAndRendersAgain() async throws {
        let rig = try await PlaybackRig()
        #expect(await rig.player.seek(to: tenths(4)))
        var changes = rig.output.mediaDataChanges.makeAsyncIterator()
        rig.item.renderScale = 0.5
        let frame = try #require(await changes.next())
        #expect(frame.pixelBuffer.width == 32 && frame.pixelBuffer.height == 18)
        let contexts = rig.recording.contexts.all
        #expect(contexts.map(\.width) == [64, 32])
        #expect(contexts.map(\.height) == [36, 18])
        #expect(rig.recording.requests.all.last?.width == 32)
    }

    @Test func assigningAVideoCompositionMakesANewCompositor() async throws {
        let rig = try await PlaybackRig()
        #expect(await rig.player.seek(to: tenths(4)))
        let other = PlaybackCompositor()
        var changes = rig.output.mediaDataChanges.makeAsyncIterator()
        let composition = try #require(rig.item.contents?.composition)
        rig.item.videoComposition = PlaybackClip.videoComposition(composition, compositor: other)
        #expect(await changes.next()?.time == tenths(4))
        #expect(other.times == [tenths(4)])
        #expect(rig.item.customVideoCompositor as? PlaybackCompositor === other)
    }

    @Test func endEventsAreASequence() async throws {
        let rig = try await PlaybackRig()
        var events = rig.item.events.makeAsyncIterator()
        #expect(await rig.player.seek(to: tenths(28)))
        rig.player.play()
        rig.clock.advance(by: tenths(5))
        guard case .didPlayToEndTime = await events.next() else {
            Issue.record("expected the end")
            return
        }
        // Playing again at the end ends again at once.
        rig.player.play()
        guard case .didPlayToEndTime = await events.next() else {
            Issue.record("expected the end again")
            return
        }
        #expect(rig.player.rate == 0)
    }
}
