import ReelCore
import ReelIO

/// How an ``AssetExportSession`` codes its video (AVAssetExportSession's preset names).
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

    public var description: String {
        switch self {
        case .passthrough: "passthrough"
        case .h264(let crf, let preset): "h264 crf \(crf) \(preset)"
        case .hevc(let crf, let preset): "hevc crf \(crf) \(preset)"
        case .prores(let profile): "prores \(profile)"
        case .lossless: "ffv1"
        case .custom(let settings): "custom \(settings.codec)"
        }
    }

    /// Encoder settings for frames of `width` x `height` lasting `frameDuration`.
    func videoSettings(width: Int, height: Int, frameDuration: MediaTime) -> VideoEncoderSettings {
        let timescale = Self.timescale(for: frameDuration)
        switch self {
        case .passthrough:
            return VideoEncoderSettings(codec: .h264, width: width, height: height, quality: .crf(18), preset: "medium",
                                        frameDuration: frameDuration, timescale: timescale)
        case .h264(let crf, let preset):
            return VideoEncoderSettings(codec: .h264, width: width, height: height, quality: .crf(crf), preset: preset,
                                        frameDuration: frameDuration, timescale: timescale)
        case .hevc(let crf, let preset):
            return VideoEncoderSettings(codec: .hevc, width: width, height: height, quality: .crf(crf), preset: preset,
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
