import ReelCore

/// Tracks of an asset that are alternatives to one another, of which a player plays one
/// at a time: two languages of the same sound, say (AVAssetTrackGroup).
public struct AssetTrackGroup: Sendable, Hashable, CustomStringConvertible {
    /// The IDs of the tracks in the group, in container order.
    public var trackIDs: [Int32]

    public init(trackIDs: [Int32]) {
        self.trackIDs = trackIDs
    }

    public var description: String { "tracks \(trackIDs.map(String.init).joined(separator: ", "))" }

    /// One group per non-zero alternate group, in the order of the first track of each,
    /// holding the tracks of `trackIDs` (container order) that belong to it.
    static func groups(alternateGroups: [Int32: Int16], trackIDs: [Int32]) -> [AssetTrackGroup] {
        var order: [Int16] = []
        var members: [Int16: [Int32]] = [:]
        for id in trackIDs {
            guard let group = alternateGroups[id] else { continue }
            if members[group] == nil { order.append(group) }
            members[group, default: []].append(id)
        }
        return order.map { AssetTrackGroup(trackIDs: members[$0] ?? []) }
    }
}
