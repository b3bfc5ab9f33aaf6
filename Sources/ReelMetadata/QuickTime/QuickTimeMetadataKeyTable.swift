/// The keys of a `mebx` track being written: each distinct namespace, key and data type
/// gets a local id (1, 2, ...) the first time an item needs it.
///
/// Start it from a source track's keys to copy that track's samples unchanged: those keep
/// their local ids, and new keys take the ids after the highest.
public struct QuickTimeMetadataKeyTable: Sendable, Hashable {
    /// The keys, in the order they were added.
    public private(set) var keys: [QuickTimeMetadataKey]

    public init(keys: [QuickTimeMetadataKey] = []) {
        self.keys = keys
    }

    /// The local id of a key, added to the table when new.
    public mutating func localID(namespace: FourCC = "mdta", key: String, dataType: QuickTimeDataType) -> UInt32 {
        if let found = keys.first(where: { $0.namespace == namespace && $0.key == key && $0.dataType == dataType }) {
            return found.localID
        }
        let id = (keys.map(\.localID).max() ?? 0) + 1
        keys.append(QuickTimeMetadataKey(localID: id, namespace: namespace, key: key, dataType: dataType))
        return id
    }

    /// Whether a sample item's local id names one of the keys.
    public func contains(localID: UInt32) -> Bool {
        keys.contains { $0.localID == localID }
    }
}
