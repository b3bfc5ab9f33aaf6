import Foundation
import Reel
import ReelCore
import ReelIO

extension LoadedComposition {
    /// The export session that renders the composition file as `reel render` does: its
    /// video composition, audio mix, metadata tracks in `metadataFormat`, chapters, and the first
    /// source's container tags (creation date, location, make, model; not read when
    /// `containerTags` is false, for outputs that carry none). The caller sets the time
    /// range and runs it.
    public func makeExportSession(
        settings: VideoEncoderSettings, audioCodec: AudioEncoderSettings.Codec,
        metadataFormat: MetadataOutputFormat, overwrite: Bool, containerTags: Bool = true
    ) async -> AssetExportSession {
        let session = AssetExportSession(
            composition: composition, preset: .custom(settings),
            sources: AssetRenderSources(videoOptions: .export, files: sourceURLs))
        session.videoComposition = videoComposition
        session.audioMix = audioMix
        session.includesAudio = audioMix != nil
        session.audioCodec = audioCodec
        session.audioSampleRate = file.output?.audioSampleRate
        session.audioChannelCount = file.output?.audioChannels
        session.overwrite = overwrite
        session.metadataTrackIDs = file.output?.metadataTrackIDs ?? composition.tracks(withMediaType: .metadata).map(\.trackID)
        session.metadataFormat = metadataFormat
        session.metadataLeaveOut = "output.metadataTrackIDs: [] in the composition file"
        session.chapters = (file.output?.chapters ?? []).map(\.group)
        if containerTags, let first = file.sources.first, let url = sourceURLs[first.name] {
            if let (common, all) = try? await Asset(url: url).load(.commonMetadata, .metadata) { session.metadata = common + all }
        }
        return session
    }
}
