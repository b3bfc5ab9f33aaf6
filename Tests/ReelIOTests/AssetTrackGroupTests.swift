import ReelCore
import Testing

@testable import ReelIO

@Suite("AssetTrackGroup")
struct AssetTrackGroupTests {
    @Test("one group per non-zero alternate group, in the order of their first track")
    func groups() {
        let groups = AssetTrackGroup.groups(alternateGroups: [2: 3, 3: 1, 4: 3, 6: 1], trackIDs: [1, 2, 3, 4, 5, 6])
        #expect(groups == [AssetTrackGroup(trackIDs: [2, 4]), AssetTrackGroup(trackIDs: [3, 6])])
        #expect(AssetTrackGroup.groups(alternateGroups: [:], trackIDs: [1, 2]).isEmpty)
        #expect(AssetTrackGroup.groups(alternateGroups: [9: 1], trackIDs: [1]).isEmpty, "a group of tracks not in the asset")
    }
}
