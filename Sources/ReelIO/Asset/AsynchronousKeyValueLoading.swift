import Foundation
import ReelCore

/// Loading values by key, for ports of older code (AVAsynchronousKeyValueLoading).
///
/// ``Asset`` loads its values from the file; ``AssetTrack`` and `MetadataItem` carry
/// every value from the start, so their keys report ``KeyValueStatus/loaded`` at once and
/// an unknown key reports ``KeyValueStatus/failed`` with the reason.
public protocol AsynchronousKeyValueLoading {
    /// Where the loading of `key` stands; on failure `error` is set to the reason.
    func statusOfValue(forKey key: String, error: inout ReelError?) -> KeyValueStatus
    /// Starts loading the values of `keys` and calls `completionHandler` once each is
    /// loaded, has failed or was cancelled.
    func loadValuesAsynchronously(forKeys keys: [String], completionHandler: (@Sendable () -> Void)?)
}

extension Asset: AsynchronousKeyValueLoading {}

/// The key-value status of a value type whose values are all present: loaded for one of
/// `keys`, failed naming the unknown key otherwise.
func presentValueStatus(forKey key: String, keys: Set<String>, owner: String, error: inout ReelError?) -> KeyValueStatus {
    if keys.contains(key) { return .loaded }
    error = ReelError(.invalidArgument, "unknown \(owner) key \"\(key)\"; known keys: \(keys.sorted().joined(separator: ", "))")
    return .failed
}
