import Foundation
import Reel
import ReelCore
import ReelIO

extension RenderPlan {
    /// The session that joins the pieces into the whole render: every piece checked, the
    /// video copied from the pieces (no re-encoding), and the sound mixed and encoded and
    /// the timed metadata tracks written once over the whole timeline, with the first
    /// source's container tags, exactly as a single `reel render` writes them.
    ///
    /// - Parameters:
    ///   - loaded: the plan's composition, opened with ``sourceOverrides``.
    ///   - identity: the plan's ``identity()``.
    ///   - audioCodec: the codec the sound is encoded with.
    ///   - metadataFormat: the format the timed metadata tracks are written in.
    ///   - overwrite: whether the output may replace an existing file.
    /// - Throws: `invalidArgument` naming every missing piece and every bad one (and why)
    ///   when any piece is not complete: nothing is written then.
    public func joinSession(
        loaded: LoadedComposition, identity: String, audioCodec: AudioEncoderSettings.Codec,
        metadataFormat: MetadataOutputFormat, overwrite: Bool
    ) async throws(ReelError) -> AssetExportSession {
        var missing: [Int] = []
        var bad: [String] = []
        var videos: [PieceVideo] = []
        for piece in pieces {
            switch await checkPiece(piece.index, identity: identity) {
            case .missing: missing.append(piece.index)
            case .bad(let why): bad.append("piece \(piece.index) (\(why))")
            case .complete(let video): videos.append(video)
            }
        }
        // Smart-rendered H.264 pieces hold the parameter sets of what each encoded: one
        // sample description holds them all.
        var configuration = Data()
        if missing.isEmpty, bad.isEmpty {
            switch ExportVideoCopy.mergedCodecConfiguration(videos.map(\.codecConfiguration)) {
            case .success(let merged): configuration = merged
            case .failure(let problem): bad.append("piece \(pieces[problem.piece].index) (\(problem.reason))")
            }
        }
        if let error = incompleteError(
            "cannot join: ", missing: missing.map(String.init), missingNoun: "piece", bad: bad,
            advice: "render them again with `reel render --plan ... --chunk K`")
        {
            throw error
        }
        let session = await loaded.makeExportSession(
            settings: try videoSettings(for: loaded), audioCodec: audioCodec, metadataFormat: metadataFormat,
            overwrite: overwrite)
        session.timeRange = timeRange
        session.copyVideo(
            from: ExportVideoCopy.Pieces(
                parts: pieces.map { ExportVideoCopy.Part(url: pieceURL($0.index), trackID: nil, source: nil, offset: $0.timeRange.start) },
                codecConfiguration: configuration, reorderDelay: videos.map(\.reorderDelay).max() ?? 0,
                frameDuration: video.frameDuration))
        return session
    }
}
