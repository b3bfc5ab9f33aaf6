import Foundation
import Reel
import ReelTestSupport
import ReelTesting
import Testing

@Suite struct PlayerItemFilesTests {
    let counter = TestFiles.fixture("counter-320x240.mp4")

    @Test func anAssetItemShowsTheFramesTheImageGeneratorGives() async throws {
        let reference = try await TestFrames.decodeAll(counter)
        let item = PlayerItem(asset: Asset(url: counter))
        let output = PlayerItemVideoOutput()
        item.add(output)
        let player = Player(playerItem: item, clock: ManualClock())
        for await s in item.statusUpdates where s != .unknown { break }
        #expect(item.status == .readyToPlay)
        for k in [17, 3, 42] {
            let t = MediaTime(value: Int64(k * 512 + 300), timescale: 15360)
            #expect(await player.seek(to: t, toleranceBefore: .zero, toleranceAfter: .zero))
            let frame = try #require(output.copyPixelBuffer(forItemTime: t))
            #expect(frame.hasSamePixels(as: reference[k].pixelBuffer), "frame \(k)")
        }
    }

    @Test func anAssetItemHasItsSoundMixedInBlocksTimedToTheItem() async throws {
        let item = PlayerItem(asset: Asset(url: counter))
        let audio = PlayerItemAudioOutput(blockFrameCount: 4800)
        item.add(audio)
        let player = Player(playerItem: item, clock: SoundClock(sampleRate: 48000))
        for await s in item.statusUpdates where s != .unknown { break }
        let first = try #require(try await audio.nextBlock())
        #expect(first.sampleRate == 48000 && first.channelCount == 2)
        #expect(first.timeRange == TimeRange(start: .zero, duration: MediaTime(value: 1, timescale: 10)))
        #expect(first.samples.contains { abs($0) > 0.05 }, "the fixture's tone")
        let second = try #require(try await audio.nextBlock())
        #expect(second.timeRange.start == MediaTime(value: 1, timescale: 10))
        // A seek back starts a new mix there: the same samples as the first time.
        #expect(await player.seek(to: .zero, toleranceBefore: .zero, toleranceAfter: .zero))
        let again = try #require(try await audio.nextBlock())
        #expect(again.timeRange.start == .zero)
        #expect(again.samples == first.samples)
    }

    @Test func aSeekIntoTheMiddleOfASegmentPlaysTheSoundOfThatTime() async throws {
        // The whole mix from the start, read on without a seek: the reference.
        let whole = try #require(AssetSoundSource(composition: try await Composition(asset: Asset(url: counter)), audioMix: nil, sources: AssetRenderSources()))
        let continuous = try await whole.samples(from: .zero, frameCount: 96000)
        let item = PlayerItem(asset: Asset(url: counter))
        let audio = PlayerItemAudioOutput(blockFrameCount: 4800)
        item.add(audio)
        let player = Player(playerItem: item, clock: SoundClock(sampleRate: 48000))
        for await s in item.statusUpdates where s != .unknown { break }
        for frame in [62400, 30000, 75123] {
            let t = MediaTime(value: Int64(frame), timescale: 48000)
            #expect(await player.seek(to: t, toleranceBefore: .zero, toleranceAfter: .zero))
            let block = try #require(try await audio.nextBlock())
            #expect(block.timeRange.start == t)
            let expected = continuous[(frame * 2)..<(frame * 2 + block.samples.count)]
            let worst = zip(block.samples, expected).map { abs($0 - $1) }.max() ?? 1
            // A decoder restarted before the seek differs from the continuous one by ~1e-5;
            // one sample of misplacement of the fixture's 440 Hz tone by ~7e-3.
            #expect(worst < 1e-3, "after a seek to sample \(frame): off by \(worst)")
        }
    }

    @Test func aMissingFileFailsTheItem() async throws {
        let item = PlayerItem(asset: Asset(url: URL(fileURLWithPath: "/nonexistent/clip.mp4")))
        let player = Player(playerItem: item, clock: ManualClock())
        for await s in item.statusUpdates where s != .unknown { break }
        #expect(item.status == .failed)
        #expect(item.error != nil)
        _ = player
    }
}
