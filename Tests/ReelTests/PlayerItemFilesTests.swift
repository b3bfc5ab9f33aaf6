import Foundation
import Testing
import Reel
import ReelTesting
import ReelTestSupport

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

    @Test func aMissingFileFailsTheItem() async throws {
        let item = PlayerItem(asset: Asset(url: URL(fileURLWithPath: "/nonexistent/clip.mp4")))
        let player = Player(playerItem: item, clock: ManualClock())
        for await s in item.statusUpdates where s != .unknown { break }
        #expect(item.status == .failed)
        #expect(item.error != nil)
        _ = player
    }
}
