import Foundation
import Reel
import ReelCore
import ReelIO

extension PlanFile {
    /// What tasks are stamped with: the SHA-256 of ``encoded()``. A task of another plan
    /// (another composition, source, setting, cut or input) carries another identity.
    public func identity() throws(ReelError) -> String {
        try Digest(sha256: encoded()).hex
    }

    /// The `--source` overrides that pin every source to the file the plan saw.
    public var sourceOverrides: [CompositionFile.SourceOverride] {
        sources.map { CompositionFile.SourceOverride(name: $0.name, path: $0.path) }
    }

    /// Checks that the composition file (the plan's, or `compositionPath` when given) and
    /// every source are as they were when the plan was made.
    ///
    /// - Throws: `invalidArgument` naming the file that differs and what to do.
    public func checkInputs(compositionPath: String? = nil, planPath: String) throws(ReelError) {
        let path = compositionPath ?? composition
        let digest = try Digest(sha256OfFileAt: URL(fileURLWithPath: path)).hex
        guard digest == compositionSHA256 else {
            let which =
                compositionPath.map { URL(fileURLWithPath: $0).standardizedFileURL.path } == composition || compositionPath == nil
                ? "was changed after the plan was made" : "is not the composition the plan was made for (\(composition))"
            throw ReelError(.invalidArgument, "\(path) \(which): make the plan again with `reel plan`", path: planPath)
        }
        for stamp in sources { try stamp.checkUnchanged(planPath: planPath) }
    }

    /// Writes `stamp` to `url` atomically: the task's output is complete.
    func writeStamp(_ stamp: RenderPlan.PieceStamp, to url: URL) throws(ReelError) {
        let data: Data
        do { data = try JSONEncoder().encode(stamp) } catch {
            throw ReelError(.internalError, "could not encode the stamp: \(error)", path: url.path)
        }
        try AtomicFile.write(data, to: url, replacing: true)
    }

    /// Removes the stamp at `url` (before a task runs again), so that an interrupted task
    /// never leaves an older output looking complete.
    func removeStamp(at url: URL) throws(ReelError) {
        guard FileManager.default.fileExists(atPath: url.path) else { return }
        do { try FileManager.default.removeItem(at: url) } catch {
            throw ReelError(.outputFailed, "could not remove the old stamp: \(error.localizedDescription)", path: url.path)
        }
    }

    /// The stamp at `url` when it says `file` is task `index` of the plan whose identity is
    /// `identity`, with the bytes `file` has now; else nil for no stamp, or why not.
    func readStamp(at url: URL, of file: URL, index: Int, identity: String) -> Result<RenderPlan.PieceStamp?, StampProblem> {
        guard let data = try? Data(contentsOf: url), FileManager.default.fileExists(atPath: file.path) else { return .success(nil) }
        guard let stamp = try? JSONDecoder().decode(RenderPlan.PieceStamp.self, from: data) else {
            return .failure(StampProblem("its stamp \(url.lastPathComponent) is unreadable"))
        }
        guard stamp.plan == identity, stamp.piece == index else { return .failure(StampProblem("it was rendered for another plan")) }
        let bytes = (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? NSNumber)?.int64Value
        guard bytes == stamp.bytes else {
            return .failure(StampProblem("\(file.lastPathComponent) is \(bytes ?? 0) bytes, its stamp says \(stamp.bytes)"))
        }
        return .success(stamp)
    }

    /// Task `index`'s state: its `output` stamped (at `stamp`) for the plan whose identity
    /// is `identity` with the size it has now, then `check`ed, which gives the output's
    /// codec configuration or throws why it is bad.
    func taskState(
        _ index: Int, output: URL, stamp: URL, identity: String,
        check: () async throws(ReelError) -> RenderPlan.PieceVideo
    ) async -> RenderPlan.PieceState {
        switch readStamp(at: stamp, of: output, index: index, identity: identity) {
        case .success(nil): return .missing
        case .failure(let problem): return .bad(problem.reason)
        case .success: break
        }
        do throws(ReelError) {
            return .complete(try await check())
        } catch {
            return .bad(error.message)
        }
    }

    /// The error that names every missing and bad task (none: nil), ending with `advice`.
    func incompleteError(_ prefix: String, missing: [String], missingNoun: String, bad: [String], advice: String) -> ReelError? {
        guard !missing.isEmpty || !bad.isEmpty else { return nil }
        var parts: [String] = []
        if !missing.isEmpty { parts.append("missing \(missingNoun)\(missing.count == 1 ? "" : "s") " + missing.joined(separator: ", ")) }
        if !bad.isEmpty { parts.append("bad " + bad.joined(separator: ", ")) }
        return ReelError(.invalidArgument, prefix + parts.joined(separator: "; ") + " (\(advice))", path: workFolder)
    }
}

/// Why a stamped output is not usable.
struct StampProblem: Error {
    var reason: String
    init(_ reason: String) { self.reason = reason }
}

extension RenderPlan.SourceStamp {
    /// Checks that the file is as the plan saw it.
    ///
    /// - Throws: `invalidArgument` naming the source, what changed and what to do.
    func checkUnchanged(planPath: String) throws(ReelError) {
        let now = try RenderPlan.SourceStamp(name: name, url: URL(fileURLWithPath: path))
        guard now.size == size, now.modified == modified else {
            let what = now.size != size ? "its size is \(now.size) bytes, the plan saw \(size)" : "it was modified after the plan was made"
            throw ReelError(
                .invalidArgument, "source \"\(name)\" (\(path)) changed: \(what); make the plan again with `reel plan` and render every piece again",
                path: planPath)
        }
    }
}

extension RenderPlan {
    /// What a piece's stamp says: which plan and piece the video file is, and its size.
    struct PieceStamp: Codable, Hashable {
        var plan: String
        var piece: Int
        var frameCount: Int
        var bytes: Int64
    }

    /// Where a piece is.
    public enum PieceState: Sendable, Equatable {
        /// Rendered, stamped for this plan, and checked: its video track as the join needs it.
        case complete(PieceVideo)
        /// Not rendered (or not finished: no stamp).
        case missing
        /// Present but not usable, and why.
        case bad(String)
    }

    /// What the join needs of a complete piece's video track.
    public struct PieceVideo: Sendable, Equatable {
        /// The track's codec configuration (`avcC`, `hvcC`, ...).
        public var codecConfiguration: Data
        /// Frames between a packet's decode time and its presentation, at most (0 for a
        /// batch job's output, which is not joined).
        public var reorderDelay: Int

        public init(codecConfiguration: Data, reorderDelay: Int) {
            self.codecConfiguration = codecConfiguration
            self.reorderDelay = reorderDelay
        }
    }

    /// Checks piece `index` against the plan whose ``identity()`` is `identity`: stamped for
    /// this plan, and its video track holds exactly the plan's frames, one every frame
    /// duration from zero, starting with a keyframe.
    public func checkPiece(_ index: Int, identity: String) async -> PieceState {
        await taskState(index, output: pieceURL(index), stamp: stampURL(index), identity: identity) { () async throws(ReelError) in
            try await checkVideo(of: index)
        }
    }

    /// Reads every packet of piece `index`'s video track (nothing is decoded) and returns
    /// its codec configuration and reorder delay when the frames are the plan's.
    func checkVideo(of index: Int) async throws(ReelError) -> PieceVideo {
        let piece = pieces[index]
        let reader = try await AssetReader.open(url: pieceURL(index))
        defer { reader.cancelReading() }
        let videoTracks = reader.tracks(withMediaType: .video)
        guard videoTracks.count == 1, let track = videoTracks.first else {
            throw ReelError(.corruptData, "\(piece.file) has \(videoTracks.count) video tracks, expected 1")
        }
        guard track.formatDescription.codecName == video.codec,
            track.formatDescription.dimensions.map({ $0.width == video.width && $0.height == video.height }) ?? false
        else {
            throw ReelError(
                .corruptData,
                "\(piece.file) holds \(track.formatDescription.codecName) video that is not the plan's \(video.width)x\(video.height) \(video.codec)")
        }
        let output = AssetReaderTrackOutput(trackID: track.trackID, settings: .passthrough, bufferCapacity: 64)
        try reader.add(output)
        try reader.startReading()
        var times: [MediaTime] = []
        var firstIsKeyframe = false
        while let sample = try await output.next() {
            guard let buffer = sample.sampleBuffer else { continue }
            if times.isEmpty { firstIsKeyframe = buffer.isSync }
            times.append(buffer.presentationTime)
        }
        guard times.count == piece.frameCount else {
            throw ReelError(.corruptData, "\(piece.file) has \(times.count) frames, expected \(piece.frameCount)")
        }
        guard firstIsKeyframe else { throw ReelError(.corruptData, "\(piece.file) does not start with a keyframe") }
        let delay = ExportVideoCopy.reorderDelay(ofPresentationTimes: times, frameDuration: video.frameDuration)
        times.sort()
        for (k, t) in times.enumerated() where t != video.frameDuration * Int32(clamping: k) {
            throw ReelError(
                .corruptData,
                "\(piece.file): frame \(k) is at \(t.secondsDescription) s, expected \((video.frameDuration * Int32(clamping: k)).secondsDescription) s")
        }
        return PieceVideo(codecConfiguration: track.formatDescription.codecConfiguration, reorderDelay: delay)
    }

    /// Stamps piece `index` as complete for the plan whose ``identity()`` is `identity`
    /// (written atomically, after the video file is in place and checked).
    func stampPiece(_ index: Int, identity: String) throws(ReelError) {
        let bytes = (try? FileManager.default.attributesOfItem(atPath: pieceURL(index).path)[.size] as? NSNumber)?.int64Value ?? -1
        try writeStamp(PieceStamp(plan: identity, piece: index, frameCount: pieces[index].frameCount, bytes: bytes), to: stampURL(index))
    }

    /// Removes piece `index`'s stamp (before rendering it again), so that an interrupted
    /// render never leaves an older piece looking complete.
    func unstampPiece(_ index: Int) throws(ReelError) {
        try removeStamp(at: stampURL(index))
    }
}
