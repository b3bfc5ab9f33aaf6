import Foundation
import ReelComposition
import ReelCore
import ReelIO

extension PlayerItem {
    /// An item playing a file (`AVPlayerItem(asset:)`): every track of it, from where its
    /// earliest track starts (``Composition/init(asset:)``), through `videoComposition` when
    /// given (else the built-in compositor over its video). The file is opened and its
    /// tracks loaded when a player prepares the item; a file that cannot be read fails it.
    /// Its sound is mixed by the export's mixer (``AssetSoundSource``, 48 kHz stereo).
    public convenience init(asset: Asset, videoComposition: VideoComposition? = nil, audioMix: AudioMix? = nil) {
        self.init { () throws(ReelError) -> Contents in
            let composition = try await Composition(asset: asset)
            let sources = AssetRenderSources()
            return Contents(
                composition: composition, videoComposition: videoComposition, audioMix: audioMix, sources: sources,
                sound: AssetSoundSource(composition: composition, audioMix: audioMix, sources: sources))
        }
    }

    /// An item playing a composition of files (`AVPlayerItem(asset: composition)`): each
    /// source identifier is a file path, or a name given a URL in `files`
    /// (``AssetRenderSources``).
    public convenience init(
        composition: Composition, videoComposition: VideoComposition? = nil, audioMix: AudioMix? = nil,
        files: [String: URL] = [:]
    ) {
        let sources = AssetRenderSources(files: files)
        self.init(
            composition: composition, videoComposition: videoComposition, audioMix: audioMix, sources: sources,
            sound: AssetSoundSource(composition: composition, audioMix: audioMix, sources: sources))
    }
}
