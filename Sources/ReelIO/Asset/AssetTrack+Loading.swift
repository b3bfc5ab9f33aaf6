import Foundation
import ReelCore

extension AssetTrack: AsynchronousKeyValueLoading {
    /// Loads track properties by name, returning their values as a tuple:
    /// `let (size, transform) = try await track.load(.naturalSize, .preferredTransform)`.
    public func load<each V: Sendable>(_ property: repeat AssetProperty<AssetTrack, each V>) async throws(ReelError) -> (repeat each V) {
        (repeat try (each property).compute(self))
    }

    /// Where the loading of `property` stands (AVAssetTrack.status(of:)). A track reads
    /// its properties when the asset loads its tracks, so each is ``AssetPropertyStatus/loaded(_:)``.
    public func status<V: Sendable>(of property: AssetProperty<AssetTrack, V>) -> AssetPropertyStatus<V> {
        property.presentStatus(of: self)
    }

    /// Where the loading of `key` stands: ``KeyValueStatus/loaded`` for a track property's
    /// key (`AssetProperty/key`), ``KeyValueStatus/failed`` for an unknown one.
    public func statusOfValue(forKey key: String, error: inout ReelError?) -> KeyValueStatus {
        presentValueStatus(forKey: key, keys: Self.propertyKeys, owner: "track", error: &error)
    }

    /// Calls `completionHandler` at once: the track's values are already there.
    public func loadValuesAsynchronously(forKeys keys: [String], completionHandler: (@Sendable () -> Void)? = nil) {
        completionHandler?()
    }

    /// The keys of the track properties (``AssetProperty`` where `Root == AssetTrack`).
    static let propertyKeys: Set<String> = [
        "trackID", "naturalTimeScale", "mediaType", "naturalSize", "preferredTransform", "nominalFrameRate",
        "estimatedDataRate", "minFrameDuration", "timeRange", "formatDescriptions", "segments", "languageCode",
        "extendedLanguageTag", "metadata", "commonMetadata", "availableMetadataFormats", "isEnabled", "isPlayable",
        "isDecodable",
    ]
}

extension MetadataItem: AsynchronousKeyValueLoading {
    /// Loads item properties by name (AVMetadataItem.load(_:)): `try await item.load(.stringValue)`.
    public func load<each V: Sendable>(_ property: repeat AssetProperty<MetadataItem, each V>) async throws(ReelError) -> (repeat each V) {
        (repeat try (each property).compute(self))
    }

    /// Where the loading of `property` stands: an item's values are always loaded.
    public func status<V: Sendable>(of property: AssetProperty<MetadataItem, V>) -> AssetPropertyStatus<V> {
        property.presentStatus(of: self)
    }

    /// Where the loading of `key` stands: ``KeyValueStatus/loaded`` for `value`,
    /// `stringValue`, `numberValue`, `dateValue`, `dataValue`, `identifier`, `keySpace`,
    /// `key`, `dataType`, `time`, `duration`, `extendedLanguageTag`.
    public func statusOfValue(forKey key: String, error: inout ReelError?) -> KeyValueStatus {
        presentValueStatus(forKey: key, keys: Self.propertyKeys, owner: "metadata item", error: &error)
    }

    /// Calls `completionHandler` at once: the item's values are already there.
    public func loadValuesAsynchronously(forKeys keys: [String], completionHandler: (@Sendable () -> Void)? = nil) {
        completionHandler?()
    }

    static let propertyKeys: Set<String> = [
        "value", "stringValue", "numberValue", "dateValue", "dataValue", "identifier", "keySpace", "key", "dataType",
        "time", "duration", "extendedLanguageTag",
    ]
}

extension AssetProperty {
    /// The status of this property of `root`, whose values are all present: loaded with
    /// the value, or failed with the reason it cannot be computed.
    func presentStatus(of root: Root) -> AssetPropertyStatus<Value> {
        do throws(ReelError) {
            return .loaded(try compute(root))
        } catch {
            return .failed(error)
        }
    }
}
