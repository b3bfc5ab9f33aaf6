import ReelComposition
import ReelTesting
import Testing

@Suite struct PlayerItemMetadataOutputTests {
    /// Plays frame by frame (each frame rendered before the next tick) and collects deliveries.
    static func play(
        _ rig: PlaybackRig, frames: Int64, deliveries: inout AsyncStream<PlayerItemMetadataOutput.Delivery>.Iterator,
        expecting count: Int
    ) async -> [PlayerItemMetadataOutput.Delivery] {
        rig.player.play()
        for n in 1...frames {
            rig.clock.advance(by: tenths(1))
            _ = await rig.frame(at: tenths(n))
        }
        var out: [PlayerItemMetadataOutput.Delivery] = []
        while out.count < count, let d = await deliveries.next() { out.append(d) }
        return out
    }

    @Test func groupsArePushedAsTheyBecomeCurrentExactlyAsTheCompositorGetsThem() async throws {
        let rig = try await PlaybackRig()
        let output = PlayerItemMetadataOutput()
        var deliveries = output.deliveries.makeAsyncIterator()
        rig.item.add(output)
        let got = await Self.play(rig, frames: 16, deliveries: &deliveries, expecting: 4)
        #expect(got.map(\.trackID) == [2, 2, 2, 2])
        let pushed = got.flatMap(\.groups)
        // The distinct groups the compositor received, in order.
        var received: [TimedMetadataGroup] = []
        for r in rig.recording.requests.all { if let g = r.groups[2], received.last != g { received.append(g) } }
        #expect(pushed == received)
        #expect(pushed.map(\.timeRange.start) == [.zero, tenths(5), tenths(10), tenths(15)])
    }

    @Test func theAdvanceIntervalPushesGroupsEarly() async throws {
        let rig = try await PlaybackRig()
        let output = PlayerItemMetadataOutput()
        output.advanceIntervalForDelegateInvocation = tenths(2)
        var deliveries = output.deliveries.makeAsyncIterator()
        rig.item.add(output)
        let got = await Self.play(rig, frames: 3, deliveries: &deliveries, expecting: 2)
        // The group starting at 0.5 arrives when the playhead is at 0.3.
        #expect(got.map { $0.groups.first?.timeRange.start } == [.zero, tenths(5)])
        #expect(got.last?.itemTime == tenths(5))
    }

    @Test func aSeekDeliversTheCurrentGroupAgain() async throws {
        let rig = try await PlaybackRig()
        let output = PlayerItemMetadataOutput()
        var deliveries = output.deliveries.makeAsyncIterator()
        rig.item.add(output)
        #expect(await deliveries.next()?.groups.first?.timeRange.start == .zero)
        #expect(await rig.player.seek(to: tenths(2)))
        #expect(await deliveries.next()?.groups.first?.timeRange.start == .zero)
        #expect(await rig.player.seek(to: tenths(27)))
        #expect(await deliveries.next()?.groups.first?.timeRange.start == tenths(25))
    }

    @Test func identifiersFilterTheItems() async throws {
        let rig = try await PlaybackRig()
        let output = PlayerItemMetadataOutput(identifiers: [.quickTimeMetadataLocationISO6709])
        var deliveries = output.deliveries.makeAsyncIterator()
        rig.item.add(output)
        let first = await deliveries.next()
        #expect(first?.groups.first?.items.isEmpty == true)
    }
}
