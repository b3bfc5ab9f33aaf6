import ReelComposition
import ReelTesting
import Testing

@Suite struct PlayerItemVideoOutputTests {
    @Test func nothingIsShownBeforeTheItemIsReady() throws {
        let item = try PlaybackClip.item(compositor: PlaybackCompositor())
        let output = PlayerItemVideoOutput()
        item.add(output)
        #expect(output.hasNewPixelBuffer(forItemTime: .zero) == false)
        #expect(output.copyPixelBuffer(forItemTime: .zero) == nil)
    }

    @Test func aFrameIsNewUntilCopied() async throws {
        let rig = try await PlaybackRig()
        #expect(await rig.player.seek(to: tenths(3)))
        #expect(rig.output.hasNewPixelBuffer(forItemTime: tenths(3)))
        #expect(frameIndex(rig.output.copyPixelBuffer(forItemTime: tenths(3))) == 3)
        #expect(rig.output.hasNewPixelBuffer(forItemTime: tenths(3)) == false)
        // Still copyable: the frame for that time has not changed.
        #expect(frameIndex(rig.output.copyPixelBuffer(forItemTime: MediaTime(value: 35, timescale: 100))) == 3)
    }

    @Test func aFrameNotRenderedYetIsNilAndAskedFor() async throws {
        let rig = try await PlaybackRig()
        var changes = rig.output.mediaDataChanges.makeAsyncIterator()
        #expect(rig.output.copyPixelBuffer(forItemTime: tenths(17)) == nil)
        #expect(await changes.next()?.time == tenths(17))
        #expect(frameIndex(rig.output.copyPixelBuffer(forItemTime: tenths(17))) == 17)
    }

    @Test func playbackRendersEachFrameAsTimeReachesIt() async throws {
        let rig = try await PlaybackRig()
        rig.player.play()
        var shown: [Int] = []
        for n in 1...6 as ClosedRange<Int64> {
            rig.clock.advance(by: tenths(1))
            let frame = await rig.frame(at: tenths(n))
            shown.append(frameIndex(frame?.pixelBuffer) ?? -1)
        }
        #expect(shown == [1, 2, 3, 4, 5, 6])
        #expect(rig.recording.times == (0...6).map { tenths(Int64($0)) })
    }

    @Test func framesCarryTheMetadataTheirRequestCarried() async throws {
        let rig = try await PlaybackRig()
        #expect(await rig.player.seek(to: tenths(12)))
        let frame = try #require(rig.output.copyFrame(forItemTime: tenths(12)))
        #expect(frame.sourceTimedMetadata[2] == rig.recording.requests.all.last?.groups[2])
        #expect(frame.sourceTimedMetadata[2]?.timeRange == TimeRange(start: tenths(10), duration: tenths(5)))
    }
}
