import ReelCore
import ReelIO

/// AVFoundation's named export presets: their names, sizes, encodings and containers.
extension ExportPreset {
    /// `AVAssetExportPreset640x480`.
    public static let preset640x480 = ExportPreset.fitting(width: 640, height: 480, codec: .h264)
    /// `AVAssetExportPreset960x540`.
    public static let preset960x540 = ExportPreset.fitting(width: 960, height: 540, codec: .h264)
    /// `AVAssetExportPreset1280x720`.
    public static let preset1280x720 = ExportPreset.fitting(width: 1280, height: 720, codec: .h264)
    /// `AVAssetExportPreset1920x1080`.
    public static let preset1920x1080 = ExportPreset.fitting(width: 1920, height: 1080, codec: .h264)
    /// `AVAssetExportPreset3840x2160`.
    public static let preset3840x2160 = ExportPreset.fitting(width: 3840, height: 2160, codec: .h264)
    /// `AVAssetExportPresetHEVC1920x1080`.
    public static let hevc1920x1080 = ExportPreset.fitting(width: 1920, height: 1080, codec: .hevc)
    /// `AVAssetExportPresetHEVC3840x2160`.
    public static let hevc3840x2160 = ExportPreset.fitting(width: 3840, height: 2160, codec: .hevc)

    /// Every AVFoundation-named preset (`AVAssetExportSession.allExportPresets()`).
    public static let allNamed: [ExportPreset] = [
        .lowQuality, .mediumQuality, .highestQuality, .hevcHighestQuality,
        .preset640x480, .preset960x540, .preset1280x720, .preset1920x1080, .preset3840x2160,
        .hevc1920x1080, .hevc3840x2160, .appleM4A, .passthrough,
    ]

    /// AVFoundation's name for this preset (`AVAssetExportPreset1920x1080`); nil for
    /// Reel's own (`.h264(...)`, `.prores`, ...) and for sizes AVFoundation has no preset for.
    public var name: String? {
        let suffix: String? =
            switch self {
            case .lowQuality: "LowQuality"
            case .mediumQuality: "MediumQuality"
            case .highestQuality: "HighestQuality"
            case .hevcHighestQuality: "HEVCHighestQuality"
            case .appleM4A: "AppleM4A"
            case .passthrough: "Passthrough"
            case .fitting(let w, let h, .h264): "\(w)x\(h)"
            case .fitting(let w, let h, .hevc): "HEVC\(w)x\(h)"
            default: nil
            }
        guard let suffix, Self.allNamed.contains(self) else { return nil }
        return "AVAssetExportPreset" + suffix
    }

    /// The preset AVFoundation calls `name`: `AVAssetExportPreset1920x1080`, with or without
    /// the `AV`, or just `1920x1080`, `HEVC1920x1080`, `HighestQuality` (any case).
    public init?(name: String) {
        let wanted = name.lowercased()
        guard
            let found = Self.allNamed.first(where: { preset in
                guard let full = preset.name?.lowercased() else { return false }
                let bare = full.dropFirst("avassetexportpreset".count)
                return wanted == full || wanted == full.dropFirst(2) || wanted == bare
            })
        else { return nil }
        self = found
    }

    /// Whether the output has a video track (every preset but ``appleM4A``).
    public var includesVideo: Bool { self != .appleM4A }

    /// The containers this preset's output can be written in, the first preferred
    /// (`AVAssetExportSession.supportedFileTypes`): ProRes goes into MOV or Matroska, FFV1
    /// into Matroska or MOV, ``appleM4A`` into an MPEG-4 file (`.m4a`), the rest anywhere.
    public var supportedFileTypes: [AssetWriter.FileType] {
        switch self {
        case .prores: [.mov, .mkv]
        case .lossless: [.mkv, .mov]
        case .appleM4A: [.mp4]
        case .custom(let settings):
            switch settings.codec {
            case .proRes: [.mov, .mkv]
            case .ffv1: [.mkv, .mov]
            case .h264, .hevc: [.mp4, .mov, .mpegts, .mkv]
            }
        default: [.mp4, .mov, .mpegts, .mkv]
        }
    }

    /// The video codec the preset encodes with, when it re-encodes.
    var videoCodec: VideoEncoderSettings.Codec? {
        switch self {
        case .passthrough, .h264, .lowQuality, .mediumQuality, .highestQuality: .h264
        case .hevc, .hevcHighestQuality: .hevc
        case .prores(let profile): .proRes(profile)
        case .lossless: .ffv1
        case .custom(let settings): settings.codec
        case .fitting(_, _, let codec): codec
        case .appleM4A: nil
        }
    }

    /// Codec, CRF and x264/x265 preset of the named presets (see the table on ``ExportPreset``).
    var namedEncoding: (codec: VideoEncoderSettings.Codec, crf: Int, preset: String) {
        switch self {
        case .lowQuality: (.h264, 30, "veryfast")
        case .mediumQuality: (.h264, 26, "fast")
        case .hevcHighestQuality: (.hevc, 22, "medium")
        case .fitting(_, _, .hevc): (.hevc, 24, "medium")
        case .fitting(_, _, let codec): (codec, 20, "medium")
        default: (.h264, 18, "medium")
        }
    }

    /// The largest picture the preset allows, as width x height; nil for no limit.
    var sizeLimit: (width: Int, height: Int)? {
        switch self {
        case .lowQuality: (320, 240)
        case .mediumQuality: (640, 480)
        case .fitting(let w, let h, _): (w, h)
        default: nil
        }
    }

    /// The frame size for a render of `width` x `height`: within ``sizeLimit`` (turned to
    /// the picture's orientation), aspect kept, never enlarged, even.
    func outputSize(width: Int, height: Int) -> (width: Int, height: Int) {
        guard let limit = sizeLimit, width > 0, height > 0 else { return (width, height) }
        let box = (width >= height) == (limit.width >= limit.height) ? limit : (limit.height, limit.width)
        let scale = min(1, Double(box.0) / Double(width), Double(box.1) / Double(height))
        guard scale < 1 else { return (width, height) }
        func even(_ v: Double) -> Int { max(2, Int(v.rounded()) & ~1) }
        return (even(Double(width) * scale), even(Double(height) * scale))
    }
}

// AVFoundation's preset constants with the prefix dropped, so ported code reads as it did.
public let AssetExportPresetLowQuality = ExportPreset.lowQuality
public let AssetExportPresetMediumQuality = ExportPreset.mediumQuality
public let AssetExportPresetHighestQuality = ExportPreset.highestQuality
public let AssetExportPresetHEVCHighestQuality = ExportPreset.hevcHighestQuality
public let AssetExportPreset640x480 = ExportPreset.preset640x480
public let AssetExportPreset960x540 = ExportPreset.preset960x540
public let AssetExportPreset1280x720 = ExportPreset.preset1280x720
public let AssetExportPreset1920x1080 = ExportPreset.preset1920x1080
public let AssetExportPreset3840x2160 = ExportPreset.preset3840x2160
public let AssetExportPresetHEVC1920x1080 = ExportPreset.hevc1920x1080
public let AssetExportPresetHEVC3840x2160 = ExportPreset.hevc3840x2160
public let AssetExportPresetAppleM4A = ExportPreset.appleM4A
public let AssetExportPresetPassthrough = ExportPreset.passthrough

extension ExportPreset {
    /// Why this preset cannot export tracks of `mediaTypes` into `fileType` (any container
    /// when nil), in words; nil when it can. ``appleM4A`` needs an audio track, the others
    /// any track (without video they export the others).
    public func incompatibility(withMediaTypes mediaTypes: Set<MediaType>, fileType: AssetWriter.FileType?) -> String? {
        if let fileType, !supportedFileTypes.contains(fileType) {
            return "the \(self) preset writes \(supportedFileTypes.map(\.rawValue).joined(separator: " or ")), not \(fileType.rawValue)"
        }
        if self == .appleM4A {
            if !mediaTypes.contains(.audio) { return "the \(self) preset exports audio, and there is no audio track" }
        } else if mediaTypes.isEmpty {
            // Without video a video preset exports the other tracks, as in AVFoundation.
            return "there is no track to export"
        }
        if let codec = videoCodec, self != .passthrough, !codec.isAvailable {
            return "the \(self) preset needs an encoder this FFmpeg does not have (\(codec))"
        }
        return nil
    }
}
