import ReelCore
import ReelIO

/// How an ``AssetExportSession`` codes its video (AVAssetExportSession's preset names).
///
/// AVFoundation's named presets are here under their names without the prefix
/// (`AVAssetExportPreset1920x1080` is ``preset1920x1080``, also spelled
/// `AssetExportPreset1920x1080`); each maps to encoder settings and a size:
///
/// | preset | video | size |
/// |---|---|---|
/// | `lowQuality` | H.264, CRF 30, `veryfast` | within 320x240 |
/// | `mediumQuality` | H.264, CRF 26, `fast` | within 640x480 |
/// | `highestQuality` | H.264, CRF 18, `medium` | the render size |
/// | `hevcHighestQuality` | HEVC, CRF 22, `medium` | the render size |
/// | `preset640x480` ... `preset3840x2160` | H.264, CRF 20, `medium` | within the size |
/// | `hevc1920x1080`, `hevc3840x2160` | HEVC, CRF 24, `medium` | within the size |
/// | `appleM4A` | no video: the audio as AAC | |
/// | `passthrough` | the samples as they are (see below) | the source's |
///
/// "Within" keeps the aspect ratio and never enlarges: a 4096x2160 render exported with
/// ``preset1920x1080`` is 1920x1012, a 1280x720 one stays 1280x720, and a portrait picture
/// fits the size turned (1080x1920). Sizes are rounded to even numbers.
public enum ExportPreset: Sendable, Hashable, CustomStringConvertible {
    /// Video and audio samples copied as they are when nothing is composited and the cuts
    /// allow; frames are re-encoded as H.264 (CRF 18, `medium`) otherwise.
    case passthrough
    /// H.264 through libx264 at constant quality `crf` with x264 `preset`.
    case h264(crf: Int = 23, preset: String = "medium")
    /// HEVC through libx265.
    case hevc(crf: Int = 28, preset: String = "medium")
    /// Apple ProRes through prores_ks (MOV or Matroska).
    case prores(VideoEncoderSettings.ProResProfile = .hq)
    /// FFV1, lossless (Matroska or MOV).
    case lossless
    /// These encoder settings; the export fills in the size, frame duration and timescale.
    case custom(VideoEncoderSettings)
    /// `AVAssetExportPresetLowQuality`: small H.264 for slow networks.
    case lowQuality
    /// `AVAssetExportPresetMediumQuality`: H.264 within 640x480.
    case mediumQuality
    /// `AVAssetExportPresetHighestQuality`: H.264 at the render size.
    case highestQuality
    /// `AVAssetExportPresetHEVCHighestQuality`: HEVC at the render size.
    case hevcHighestQuality
    /// H.264 or HEVC fitting within `width` x `height` (the `AVAssetExportPresetWxH` family).
    case fitting(width: Int, height: Int, codec: VideoEncoderSettings.Codec)
    /// `AVAssetExportPresetAppleM4A`: the audio alone, as AAC, in an MPEG-4 audio file.
    case appleM4A

    public var description: String {
        switch self {
        case .passthrough: "passthrough"
        case .h264(let crf, let preset): "h264 crf \(crf) \(preset)"
        case .hevc(let crf, let preset): "hevc crf \(crf) \(preset)"
        case .prores(let profile): "prores \(profile)"
        case .lossless: "ffv1"
        case .custom(let settings): "custom \(settings.codec)"
        case .lowQuality, .mediumQuality, .highestQuality, .hevcHighestQuality, .fitting, .appleM4A: name ?? "preset"
        }
    }

    /// Encoder settings for frames of `width` x `height` lasting `frameDuration`.
    func videoSettings(width: Int, height: Int, frameDuration: MediaTime) -> VideoEncoderSettings {
        let timescale = Self.timescale(for: frameDuration)
        switch self {
        case .passthrough:
            return VideoEncoderSettings(
                codec: .h264, width: width, height: height, quality: .crf(18), preset: "medium",
                frameDuration: frameDuration, timescale: timescale)
        case .h264(let crf, let preset):
            return VideoEncoderSettings(
                codec: .h264, width: width, height: height, quality: .crf(crf), preset: preset,
                frameDuration: frameDuration, timescale: timescale)
        case .hevc(let crf, let preset):
            return VideoEncoderSettings(
                codec: .hevc, width: width, height: height, quality: .crf(crf), preset: preset,
                frameDuration: frameDuration, timescale: timescale)
        case .prores(let profile):
            return VideoEncoderSettings(codec: .proRes(profile), width: width, height: height, frameDuration: frameDuration, timescale: timescale)
        case .lossless:
            return VideoEncoderSettings(codec: .ffv1, width: width, height: height, frameDuration: frameDuration, timescale: timescale)
        case .custom(var settings):
            settings.width = width
            settings.height = height
            settings.frameDuration = frameDuration
            settings.timescale = timescale
            return settings
        case .lowQuality, .mediumQuality, .highestQuality, .hevcHighestQuality, .fitting, .appleM4A:
            let (codec, crf, preset) = namedEncoding
            return VideoEncoderSettings(
                codec: codec, width: width, height: height, quality: .crf(crf), preset: preset,
                frameDuration: frameDuration, timescale: timescale)
        }
    }

    /// A timescale that holds the frame times exactly: the frame duration's own when it is
    /// fine enough, else 90 kHz.
    static func timescale(for frameDuration: MediaTime) -> Int32 {
        guard frameDuration.isNumeric, frameDuration.timescale > 0 else { return 90000 }
        if frameDuration.timescale >= 600 { return frameDuration.timescale }
        // 1/30 -> 15360 like FFmpeg's muxers; keep a multiple of the frame rate.
        let scale = Int64(frameDuration.timescale)
        var t = scale
        while t < 15360 { t *= 2 }
        return Int32(clamping: t)
    }
}
