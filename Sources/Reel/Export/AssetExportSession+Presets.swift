import ReelCore
import ReelIO

/// AVAssetExportSession's preset API: the named presets, which of them suit an asset, and
/// the containers a session can write.
extension AssetExportSession {
    /// A session exporting the whole of `asset` with the preset AVFoundation code names
    /// (`AssetExportSession(asset: asset, presetName: AssetExportPresetHighestQuality)`).
    /// Async and throwing where AVFoundation's is failable: it loads the asset's tracks.
    public convenience init(asset: Asset, presetName: ExportPreset) async throws(ReelError) {
        try await self.init(asset: asset, preset: presetName)
    }

    /// A session exporting `composition` with a named preset: AVFoundation's
    /// `AVAssetExportSession(asset: composition, presetName:)`, where the composition is an
    /// asset. A Reel composition is a value with no file behind it, not an `Asset`, so the
    /// argument is labelled `composition:`; unlike the asset form this loads nothing and
    /// neither suspends nor throws.
    public convenience init(composition: Composition, presetName: ExportPreset) {
        self.init(composition: composition, preset: presetName)
    }

    /// The preset (AVFoundation's `presetName`).
    public var presetName: ExportPreset { preset }

    /// The containers this session's preset can write (`supportedFileTypes`).
    public var supportedFileTypes: [AssetWriter.FileType] { preset.supportedFileTypes }

    /// Every AVFoundation-named preset (`allExportPresets()`).
    public static func allExportPresets() -> [ExportPreset] { ExportPreset.allNamed }

    /// The named presets that can export `asset` (`exportPresets(compatibleWith:)`); none
    /// when its tracks cannot be loaded.
    public static func exportPresets(compatibleWith asset: Asset) async -> [ExportPreset] {
        guard let kinds = await mediaTypes(of: asset) else { return [] }
        return ExportPreset.allNamed.filter { $0.incompatibility(withMediaTypes: kinds, fileType: nil) == nil }
    }

    /// Whether `preset` can export `asset` into `outputFileType` (any container when nil),
    /// known before anything is written (`compatibility(ofExportPreset:with:outputFileType:)`).
    public static func compatibility(
        ofExportPreset preset: ExportPreset, with asset: Asset,
        outputFileType: AssetWriter.FileType?
    ) async -> Bool {
        guard let kinds = await mediaTypes(of: asset) else { return false }
        return preset.incompatibility(withMediaTypes: kinds, fileType: outputFileType) == nil
    }

    /// ``compatibility(ofExportPreset:with:outputFileType:)`` with a completion handler, as
    /// AVFoundation's `determineCompatibility(ofExportPreset:with:outputFileType:completionHandler:)`.
    public static func determineCompatibility(
        ofExportPreset preset: ExportPreset, with asset: Asset,
        outputFileType: AssetWriter.FileType?,
        completionHandler handler: @escaping @Sendable (Bool) -> Void
    ) {
        Task { handler(await compatibility(ofExportPreset: preset, with: asset, outputFileType: outputFileType)) }
    }

    /// The kinds of the asset's enabled tracks; nil when they cannot be loaded.
    private static func mediaTypes(of asset: Asset) async -> Set<MediaType>? {
        guard let tracks = try? await asset.load(.tracks) else { return nil }
        return Set(tracks.filter(\.isEnabled).map(\.mediaType))
    }
}
