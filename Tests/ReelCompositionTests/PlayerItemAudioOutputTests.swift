import ReelComposition
import ReelTesting
import Testing

@Suite struct PlayerItemAudioOutputTests {
    /// One channel at 100 Hz whose sample n is n.
    static let sound = InMemorySoundSource(sampleRate: 100, channelCount: 1, interleaved: (0..<300).map(Float.init))

    @Test func blocksAreTimedToTheItemAndFollowSeeks() async throws {
        let rig = try await PlaybackRig(sound: Self.sound)
        let audio = PlayerItemAudioOutput(blockFrameCount: 10)
        rig.item.add(audio)
        let first = try #require(try await audio.nextBlock())
        #expect(first.timeRange == TimeRange(start: .zero, duration: tenths(1)))
        #expect(first.samples == (0..<10).map(Float.init))
        #expect(try await audio.nextBlock()?.samples.first == 10)
        #expect(await rig.player.seek(to: tenths(20)))
        let after = try #require(try await audio.nextBlock())
        #expect(after.timeRange.start == tenths(20))
        #expect(after.samples.first == 200)
    }

    @Test func theLastBlockStopsAtTheEnd() async throws {
        let rig = try await PlaybackRig(sound: Self.sound)
        let audio = PlayerItemAudioOutput(blockFrameCount: 40)
        rig.item.add(audio)
        #expect(await rig.player.seek(to: MediaTime(value: 28, timescale: 10), toleranceBefore: .zero, toleranceAfter: .zero))
        let last = try #require(try await audio.nextBlock())
        #expect(last.frameCount == 20)
        #expect(try await audio.nextBlock() == nil)
    }

    @Test func thePlayerFollowsTheSoundClock() async throws {
        let clock = SoundClock(sampleRate: 100)
        let item = try PlaybackClip.item(compositor: PlaybackCompositor(), sound: Self.sound)
        let audio = PlayerItemAudioOutput(blockFrameCount: 25)
        item.add(audio)
        let player = Player(playerItem: item, clock: clock)
        for await s in item.statusUpdates where s != .unknown { break }
        let boundaries = Recorder<MediaTime>()
        _ = player.addBoundaryTimeObserver(forTimes: [tenths(5)]) { boundaries.append($0) }
        player.play()
        // No sound played: the picture waits.
        #expect(player.currentTime() == .zero)
        while let block = try await audio.nextBlock(), block.timeRange.start < tenths(5) {
            clock.played(frameCount: block.frameCount)
        }
        #expect(player.currentTime() == tenths(5))
        #expect(boundaries.all == [tenths(5)])
        #expect(clock.playedFrameCount == 50)
    }
}
