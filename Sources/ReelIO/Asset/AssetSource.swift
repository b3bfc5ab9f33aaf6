import Dispatch
import Foundation
import ReelCore
import ReelMetadata

/// The file behind an ``Asset``: its URL and options, the thread its blocking FFmpeg
/// work runs on, and the one cached probe of it.
///
/// Tracks keep a reference to their source (not to the asset), so a track can read
/// packets of its file without keeping the asset's cache alive, and no reference cycle
/// forms between the asset's cache and the tracks it holds.
final class AssetSource: Sendable {
    let url: URL
    let options: Asset.Options
    /// A serial queue: FFmpeg calls never run on Swift's cooperative pool, and the probe
    /// runs at most once because only this queue runs it.
    let queue: DispatchQueue
    private let state = Lock(State())

    private struct State {
        var snapshot: Result<AssetSnapshot, ReelError>?
        var trackReferences: [Int32: [String: [Int32]]]?
        var openCount = 0
    }

    init(url: URL, options: Asset.Options) {
        self.url = url
        self.options = options
        self.queue = DispatchQueue(label: "reel.asset.io")
    }

    /// How many times the file has been opened (`avformat_open_input`).
    var openCount: Int { state.withLock { $0.openCount } }

    /// Runs `body` on the I/O queue and returns its result to the awaiting task.
    func perform<T: Sendable>(_ body: @escaping @Sendable (AssetSource) throws(ReelError) -> T) async throws(ReelError) -> T {
        let result: Result<T, ReelError> = await withCheckedContinuation { continuation in
            queue.async {
                continuation.resume(returning: Result { () throws(ReelError) in try body(self) })
            }
        }
        return try result.get()
    }

    /// Opens the file (counted). Call on the I/O queue.
    func open() throws(ReelError) -> InputFormatContext {
        state.withLock { $0.openCount += 1 }
        return try InputFormatContext(url: url)
    }

    /// The probe of the file, read on first use and cached, failures included. Call on
    /// the I/O queue.
    func snapshot() throws(ReelError) -> AssetSnapshot {
        dispatchPrecondition(condition: .onQueue(queue))
        if let cached = state.withLock({ $0.snapshot }) { return try cached.get() }
        let result = Result { () throws(ReelError) in try AssetProbe.read(self) }
        state.withLock { $0.snapshot = result }
        return try result.get()
    }

    /// The MP4/MOV track references (`tref`: `cdsc`, `tmcd`, `chap`, ...) by track ID
    /// and type, which FFmpeg does not expose; read from the `moov` on first use and
    /// cached. Empty for other containers or when the boxes cannot be read. Call on the
    /// I/O queue.
    func trackReferences() -> [Int32: [String: [Int32]]] {
        dispatchPrecondition(condition: .onQueue(queue))
        if let cached = state.withLock({ $0.trackReferences }) { return cached }
        var references: [Int32: [String: [Int32]]] = [:]
        if let snapshot = try? snapshot(), ContainerFamily(formatName: snapshot.format.name) == .quickTime,
           let tracks = try? MP4File(contentsOf: url).tracks() {
            for track in tracks {
                guard let id = Int32(exactly: track.trackID) else { continue }
                for (type, ids) in track.references {
                    references[id, default: [:]][type.description] = ids.compactMap { Int32(exactly: $0) }
                }
            }
        }
        state.withLock { $0.trackReferences = references }
        return references
    }
}
