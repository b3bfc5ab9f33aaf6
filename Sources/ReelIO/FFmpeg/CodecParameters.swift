internal import CFFmpeg
import ReelCore
import ReelMetadata

/// Owns a copy of a stream's `AVCodecParameters` (`avcodec_parameters_alloc` +
/// `avcodec_parameters_copy`; `deinit` calls `avcodec_parameters_free`), so the
/// description of a track outlives the file it came from.
final class CodecParameters: @unchecked Sendable {
    // @unchecked: the parameters are copied in at init and never written again; every
    // later use only reads them.
    let pointer: UnsafeMutablePointer<AVCodecParameters>
    /// The time base of the stream they came from.
    let timeBase: AVRational
    /// That stream's average frame rate (0/1 when unknown or not video).
    let frameRate: AVRational

    init(
        copying source: UnsafePointer<AVCodecParameters>, timeBase: AVRational,
        frameRate: AVRational = AVRational(num: 0, den: 1)
    ) throws(FFmpegError) {
        guard let p = avcodec_parameters_alloc() else {
            throw ffFailure(reel_averror(ENOMEM), "avcodec_parameters_alloc")
        }
        let code = avcodec_parameters_copy(p, source)
        if code < 0 {
            var owned: UnsafeMutablePointer<AVCodecParameters>? = p
            avcodec_parameters_free(&owned)
            throw ffFailure(code, "avcodec_parameters_copy")
        }
        self.pointer = p
        self.timeBase = timeBase
        self.frameRate = frameRate
    }

    deinit {
        var owned: UnsafeMutablePointer<AVCodecParameters>? = pointer
        avcodec_parameters_free(&owned)
    }
}

/// What a track's samples are: codec, sizes, time base. Hand it to an
/// ``AssetWriterInput`` to copy a reader's packets into a new file unchanged
/// (`CMFormatDescription`'s role as a source format hint).
public struct FormatDescription: Sendable, CustomStringConvertible {
    let parameters: CodecParameters
    /// For a QuickTime `mebx` track, the keys its samples' local key ids refer to, read
    /// from the sample entry (`stsd/mebx/keys`), which FFmpeg does not expose; empty
    /// otherwise.
    public internal(set) var metadataKeys: [QuickTimeMetadataKey] = []

    /// The kind of track these samples make, as ``AssetTrack/mediaType`` names it
    /// (`.video`, `.audio`, `.metadata`, `.subtitle`, `.text`, `.timecode`, ...).
    public var mediaType: MediaType { AssetProbe.classify(parameters.pointer.pointee, tag: codecTag) }
    /// Whether the samples are captions in a caption codec (3GPP timed text, CEA-608,
    /// SubRip, WebVTT, ASS: what FFmpeg calls subtitles), which a QuickTime chapter list's
    /// text samples are not.
    public var isCaptionFormat: Bool { parameters.pointer.pointee.codec_type == AVMEDIA_TYPE_SUBTITLE }
    /// FFmpeg's codec name (`h264`, `aac`, `bin_data`, `klv`, `none`).
    public var codecName: String { String(cString: avcodec_get_name(parameters.pointer.pointee.codec_id)) }
    /// The sample entry four-character code (`avc1`, `gpmd`, `mebx`), when the file has one.
    public var codecTag: String? { fourCCString(parameters.pointer.pointee.codec_tag) }
    /// The stream's time base as a timescale (its denominator) when it is `1/N`.
    public var timescale: Int32 { parameters.timeBase.num == 1 ? parameters.timeBase.den : 0 }

    public var description: String { "\(mediaType) \(codecName)" + (codecTag.map { " (\($0))" } ?? "") }
}

/// A codec tag as four characters (`gpmd`), or nil for 0 or unprintable tags.
func fourCCString(_ tag: UInt32) -> String? {
    guard tag != 0 else { return nil }
    let bytes = (0..<4).map { UInt8((tag >> (8 * UInt32($0))) & 0xFF) }
    guard bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else { return nil }
    return String(decoding: bytes, as: UTF8.self)
}

/// A four-character code as FFmpeg's little-endian tag (`MKTAG`).
func fourCCTag(_ code: String) -> UInt32? {
    let bytes = Array(code.utf8)
    guard bytes.count == 4 else { return nil }
    return UInt32(bytes[0]) | UInt32(bytes[1]) << 8 | UInt32(bytes[2]) << 16 | UInt32(bytes[3]) << 24
}
