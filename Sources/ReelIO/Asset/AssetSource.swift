import Dispatch
import Foundation
import ReelCore
import ReelMetadata

/// The file behind an ``Asset``: its URL and options, the thread its blocking FFmpeg
/// work runs on, and the one cached probe of it. Its demuxers and MP4 boxes are the
/// process's ``MediaFile``'s, shared with every other reader of the file.
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
        var movieBoxes: MovieBoxes?
        var file: MediaFile?
        var openCount = 0
    }

    init(url: URL, options: Asset.Options) {
        self.url = url
        self.options = options
        self.queue = DispatchQueue(label: "reel.asset.io")
    }

    /// The file as the process shares it (its demuxers and boxes), looked up on first use
    /// and kept: an asset keeps describing the file it probed.
    var file: MediaFile {
        state.withLock { state in
            if let file = state.file { return file }
            let file = MediaFile.shared(url)
            state.file = file
            return file
        }
    }

    /// How many demuxers this asset used (each opened, or taken open from the file's pool).
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

    /// A demuxer at the start of the file (counted), to give back with ``giveBack(_:)``.
    /// Call on the I/O queue.
    func open() throws(ReelError) -> InputFormatContext {
        state.withLock { $0.openCount += 1 }
        return try file.takeDemuxer(networkTimeout: options.networkTimeout)
    }

    /// Hands a demuxer from ``open()`` back to the file's pool.
    func giveBack(_ demuxer: InputFormatContext) { file.giveBack(demuxer) }

    /// The probe of the file, read on first use and cached, failures included. Call on
    /// the I/O queue.
    func snapshot() throws(ReelError) -> AssetSnapshot {
        dispatchPrecondition(condition: .onQueue(queue))
        if let cached = state.withLock({ $0.snapshot }) { return try cached.get() }
        let result = Result { () throws(ReelError) in try AssetProbe.read(self) }
        state.withLock { $0.snapshot = result }
        return try result.get()
    }

    /// What the MP4/MOV `moov` holds that FFmpeg does not expose (track references,
    /// alternate groups, edit lists, metadata in its own key spaces), read on first use and cached. Empty for other containers or
    /// when the boxes cannot be read. Call on the
    /// I/O queue.
    func movieBoxes() -> MovieBoxes {
        dispatchPrecondition(condition: .onQueue(queue))
        if let cached = state.withLock({ $0.movieBoxes }) { return cached }
        var boxes = MovieBoxes()
        if let snapshot = try? snapshot(), ContainerFamily(formatName: snapshot.format.name) == .quickTime,
            let parsed = file.boxes(networkTimeout: options.networkTimeout)
        {
            let movieTimescale: UInt32? = parsed.movieTimescale == 0 ? nil : parsed.movieTimescale
            for track in parsed.tracks {
                guard let id = Int32(exactly: track.trackID) else { continue }
                for (type, ids) in track.references {
                    boxes.references[id, default: [:]][type.description] = ids.compactMap { Int32(exactly: $0) }
                }
                if track.alternateGroup != 0 { boxes.alternateGroups[id] = track.alternateGroup }
                if let movieTimescale, case let mappings = track.timeMappings(movieTimescale: movieTimescale), !mappings.isEmpty {
                    boxes.segments[id] = mappings
                }
            }
            // A box FFmpeg would read that this reader refuses leaves FFmpeg's tags in place.
            boxes.metadata = parsed.metadata
        }
        state.withLock { $0.movieBoxes = boxes }
        return boxes
    }

    /// The container's metadata: the items read from its own boxes (MP4/MOV), FFmpeg's
    /// tags for the rest, and cover pictures. Call on the I/O queue.
    func metadata() throws(ReelError) -> [MetadataItem] {
        let snapshot = try snapshot()
        return ContainerMetadata.merged(tags: snapshot.metadata, boxes: movieBoxes().metadata, pictures: snapshot.pictures)
    }

    /// The chapters, their titles tagged with the chapter track's language (the track a
    /// `chap` reference names) where there is one. Call on the I/O queue.
    func chapters() throws(ReelError) -> [TimedMetadataGroup] {
        let snapshot = try snapshot()
        let chapterTracks = Set(movieBoxes().references.values.flatMap { $0["chap"] ?? [] })
        guard let language = snapshot.tracks.first(where: { chapterTracks.contains($0.trackID) })?.extendedLanguageTag
        else { return snapshot.chapters }
        return snapshot.chapters.map { group in
            var group = group
            for i in group.items.indices where group.items[i].identifier == .commonIdentifierTitle && group.items[i].extendedLanguageTag == nil {
                group.items[i].extendedLanguageTag = language
            }
            return group
        }
    }

    /// The track references (`tref`: `cdsc`, `tmcd`, `chap`, ...) by track ID and type.
    func trackReferences() -> [Int32: [String: [Int32]]] { movieBoxes().references }
}

/// The parts of an MP4/MOV `moov` an asset reads itself.
struct MovieBoxes: Sendable {
    /// Track references by track ID, then by type (`cdsc`, `chap`, ...).
    var references: [Int32: [String: [Int32]]] = [:]
    /// The non-zero `tkhd` alternate groups by track ID.
    var alternateGroups: [Int32: Int16] = [:]
    /// The segments of each track with an edit list (`edts/elst`), by track ID.
    var segments: [Int32: [TimeMapping]] = [:]
    /// The movie's items from `moov/udta` and `moov/meta`, each in its own key space.
    var metadata: [MetadataItem] = []
}
