import Foundation
import ReelCore

/// A media file whose properties load asynchronously (AVURLAsset).
///
/// The URL is a file, or any URL FFmpeg's protocols read (`http`, `https`, ...: see
/// ``Options/networkTimeout``). Creating an asset does no I/O. Loading a property opens and probes the file once, on
/// the asset's own I/O thread (never on Swift's cooperative pool), and caches the result:
///
/// ```swift
/// let asset = Asset(url: URL(fileURLWithPath: "clip.mp4"))
/// let (duration, tracks) = try await asset.load(.duration, .tracks)
/// ```
///
/// Concurrent loads of one property share one piece of work. A task that stops waiting
/// (it was cancelled) gets `ReelError/Code/cancelled`, while the work goes on and
/// still fills the cache for later loads.
public final class Asset: Sendable, CustomStringConvertible {
    /// How an asset reads its file (AVURLAsset's initialisation options).
    public struct Options: Sendable, Hashable {
        /// Read every packet of the file (no decoding) when first loading, so that track
        /// time ranges, the asset's duration, each track's shortest frame duration and data
        /// rate come from the samples themselves rather than from the container's header
        /// (AVURLAssetPreferPreciseDurationAndTimingKey). Slower on long files.
        public var preferPreciseDurationAndTiming: Bool
        /// For a URL that is not a file (`http`, `https`, ...): the longest a connection or
        /// a read may wait before it fails (FFmpeg's `rw_timeout`), so a server that stops
        /// answering gives an error rather than a hang. 30 seconds unless given.
        public var networkTimeout: Duration

        public init(preferPreciseDurationAndTiming: Bool = false) {
            self.init(preferPreciseDurationAndTiming: preferPreciseDurationAndTiming, networkTimeout: .seconds(30))
        }

        public init(preferPreciseDurationAndTiming: Bool = false, networkTimeout: Duration) {
            self.preferPreciseDurationAndTiming = preferPreciseDurationAndTiming
            self.networkTimeout = networkTimeout
        }
    }

    /// The file or remote URL.
    public let url: URL
    /// The options the asset was created with.
    public let options: Options
    let source: AssetSource
    private let state = Lock(AssetLoadingState())

    /// An asset for the file at `url`. Nothing is read until a property is loaded.
    public init(url: URL, options: Options = Options()) {
        self.url = url
        self.options = options
        self.source = AssetSource(url: url, options: options)
    }

    public var description: String { "Asset(\(NetworkInput.location(url)))" }

    // MARK: Loading

    /// Loads properties and returns their values as a tuple, in order:
    /// `let (duration, tracks) = try await asset.load(.duration, .tracks)`.
    ///
    /// Throws the first failure, naming the file and the reason.
    public func load<each V: Sendable>(_ property: repeat AssetProperty<Asset, each V>) async throws(ReelError) -> (repeat each V) {
        (repeat try await load(each property))
    }

    /// Loads one property.
    public func load<V: Sendable>(_ property: AssetProperty<Asset, V>) async throws(ReelError) -> V {
        let value = try await loadErased(key: property.key) { asset throws(ReelError) in try property.compute(asset) }.get()
        guard let typed = value as? V else {
            throw ReelError(.internalError, "property \(property.key) holds a \(type(of: value)), not a \(V.self)", path: NetworkInput.location(url))
        }
        return typed
    }

    /// Where the loading of `property` stands.
    public func status<V: Sendable>(of property: AssetProperty<Asset, V>) -> AssetPropertyStatus<V> {
        switch state.withLock({ $0.entries[property.key] }) {
        case nil, .cancelled?: return .notYetLoaded
        case .loading?: return .loading
        case .failed(let error)?: return .failed(error)
        case .loaded(let value)?:
            guard let typed = value as? V else {
                return .failed(ReelError(.internalError, "property \(property.key) holds a \(type(of: value))", path: NetworkInput.location(url)))
            }
            return .loaded(typed)
        }
    }

    /// Abandons every load in progress: their waiters throw `ReelError/Code/cancelled`
    /// and their keys report ``KeyValueStatus/cancelled``. A later load starts again
    /// (the probe of the file, once done, stays cached).
    public func cancelLoading() {
        let resumed = state.withLock { $0.cancelAll() }
        for (key, continuation) in resumed {
            continuation.resume(returning: .failure(AssetLoadingState.cancelledError(key)))
        }
    }

    /// The one path every load takes: register as a waiter; the first waiter of a key
    /// starts its work on the I/O queue; the work's completion resumes every waiter.
    func loadErased(key: String, compute: @escaping @Sendable (Asset) throws(ReelError) -> any Sendable) async
        -> Result<any Sendable, ReelError>
    {
        let id = state.withLock { $0.makeWaiterID() }
        defer { state.withLock { $0.forget(id) } }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: AssetLoadingState.Continuation) in
                let action = state.withLock { $0.register(key: key, waiter: id, continuation: continuation) }
                switch action {
                case .resume(let result): continuation.resume(returning: result)
                case .wait: break
                case .startWork(let generation): startWork(key: key, generation: generation, compute: compute)
                }
            }
        } onCancel: {
            let continuation = state.withLock { $0.cancelWaiter(id) }
            continuation?.resume(returning: .failure(AssetLoadingState.cancelledError(key)))
        }
    }

    private func startWork(key: String, generation: UInt64, compute: @escaping @Sendable (Asset) throws(ReelError) -> any Sendable) {
        source.queue.async { [self] in
            guard state.withLock({ $0.isCurrent(key: key, generation: generation) }) else { return }
            let result = Result { () throws(ReelError) in try compute(self) }
            let waiters = state.withLock { $0.finish(key: key, generation: generation, result: result) }
            for waiter in waiters { waiter.resume(returning: result) }
        }
    }

    // MARK: Key-based loading, for ports of older code

    /// Starts loading the properties named by `keys` (`AssetProperty/key`: `duration`,
    /// `tracks`, `metadata`, ...) and calls `completionHandler` once each is loaded, has
    /// failed or was cancelled (AVAsynchronousKeyValueLoading). Read the outcome with
    /// ``statusOfValue(forKey:error:)``.
    public func loadValuesAsynchronously(forKeys keys: [String], completionHandler: (@Sendable () -> Void)? = nil) {
        for key in keys where AnyAssetProperty.all[key] == nil {
            state.withLock {
                $0.fail(key: key, error: ReelError(.invalidArgument, "unknown asset key \"\(key)\"", path: NetworkInput.location(url)))
            }
        }
        let known = keys.compactMap { AnyAssetProperty.all[$0] }
        Task {
            await withTaskGroup(of: Void.self) { group in
                for property in known {
                    group.addTask { _ = await self.loadErased(key: property.key, compute: property.compute) }
                }
            }
            completionHandler?()
        }
    }

    /// Where the loading of `key` stands; on failure `error` is set to the reason.
    public func statusOfValue(forKey key: String, error: inout ReelError?) -> KeyValueStatus {
        switch state.withLock({ $0.entries[key] }) {
        case nil: return .unknown
        case .loading?: return .loading
        case .loaded?: return .loaded
        case .cancelled?: return .cancelled
        case .failed(let failure)?:
            error = failure
            return .failed
        }
    }

    // MARK: Test support

    /// How many times the file has been opened.
    package var openCount: Int { source.openCount }
    /// How many pictures every reader of the file (not only this asset's) has decoded.
    package var decodedPictureCount: Int { source.file.decodedPictureCount }
    /// How many tasks await `property`.
    package func waiterCount<V>(of property: AssetProperty<Asset, V>) -> Int {
        state.withLock { $0.waiterCount(key: property.key) }
    }
    /// Holds the I/O queue: work queued meanwhile waits for ``resumeIO()``.
    package func suspendIO() { source.queue.suspend() }
    package func resumeIO() { source.queue.resume() }
}
