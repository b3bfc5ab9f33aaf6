import Foundation
import Reel
import ReelCore
import ReelIO

extension RenderPlan {
    /// The scheduler's array index, from the first of these variables that is set:
    /// Slurm's `SLURM_ARRAY_TASK_ID`, Kubernetes' `JOB_COMPLETION_INDEX`, AWS Batch's
    /// `AWS_BATCH_JOB_ARRAY_INDEX`.
    public static let indexVariables = ["SLURM_ARRAY_TASK_ID", "JOB_COMPLETION_INDEX", "AWS_BATCH_JOB_ARRAY_INDEX"]

    /// The piece index the environment names (see ``indexVariables``), nil when none is set.
    ///
    /// - Throws: `invalidArgument` when the variable set is not a whole number.
    public static func pieceIndex(in environment: [String: String]) throws(ReelError) -> Int? {
        for name in indexVariables {
            guard let text = environment[name] else { continue }
            guard let index = Int(text.trimmingCharacters(in: .whitespaces)) else {
                throw ReelError(.invalidArgument, "\(name)=\(text): expected a whole number")
            }
            return index
        }
        return nil
    }

    /// The settings every piece is encoded with: the composition file's output settings.
    public func videoSettings(for loaded: LoadedComposition) throws(ReelError) -> VideoEncoderSettings {
        try (loaded.file.output ?? CompositionFile.Output())
            .videoSettings(width: video.width, height: video.height, frameDuration: video.frameDuration, piece: true)
    }

    /// The session that renders piece `index` of `loaded` (opened from this plan) into
    /// ``pieceURL(_:)``: video only (the join writes the sound and the metadata tracks
    /// once, over the whole timeline), written beside the piece and moved into place when
    /// complete. Removes the piece's old stamp first. Run it, then ``finishPiece(_:identity:)``.
    public func pieceSession(_ index: Int, loaded: LoadedComposition) async throws(ReelError) -> AssetExportSession {
        let piece = try piece(index)
        try unstampPiece(index)
        // The join writes the container tags: the source's are not read here.
        let session = await loaded.makeExportSession(
            settings: try videoSettings(for: loaded), audioCodec: .aac, metadataFormat: .auto,
            overwrite: true, containerTags: false)
        session.includesAudio = false
        session.metadataTrackIDs = []
        session.shouldOptimizeForNetworkUse = false
        session.timeRange = piece.timeRange
        // Smart-rendered as its piece of the whole render's smart render: the join merges
        // the pieces' parameter sets.
        session.smartRendering = try (loaded.file.output ?? CompositionFile.Output()).smartRendering()
        session.smartRenderAsPiece(of: timeRange)
        return session
    }

    /// Checks the piece just rendered and stamps it complete.
    public func finishPiece(_ index: Int, identity: String) async throws(ReelError) {
        do {
            _ = try await checkVideo(of: index)
        } catch {
            var e = error
            e.path = pieceURL(index).path
            throw e
        }
        try stampPiece(index, identity: identity)
    }
}
