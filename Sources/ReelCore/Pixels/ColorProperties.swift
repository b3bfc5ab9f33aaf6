/// Colour description carried from source to output, as FFmpeg/CoreVideo name it.
///
/// The tags may be missing (most camera files and every synthetic frame have none): what a
/// frame's Y'CbCr samples mean is then decided by one rule, ``encoding(width:height:)``,
/// which every conversion in Reel follows (libswscale's, the built-in compositor's, text
/// and fills drawn into YUV, the writer's output tags and the test references).
public struct ColorProperties: Sendable, Hashable, Codable {
    public var primaries: String?
    public var transferFunction: String?
    public var matrix: String?
    /// True for full-range (JPEG) YUV, false for limited (video) range.
    public var fullRange: Bool

    public init(primaries: String? = nil, transferFunction: String? = nil, matrix: String? = nil, fullRange: Bool = false) {
        self.primaries = primaries
        self.transferFunction = transferFunction
        self.matrix = matrix
        self.fullRange = fullRange
    }

    /// The matrix and range of a `width` x `height` frame with these properties: the
    /// tagged matrix when it is one Reel knows, else BT.601 below HD (height under 720 or
    /// width under 1280) and BT.709 from HD up, as players and libswscale assume; limited
    /// range unless tagged full (a JPEG pixel format counts as tagged full).
    public func encoding(width: Int, height: Int) -> YCbCrEncoding {
        let tagged = matrix.flatMap(YCbCrMatrix.init(name:))
        return YCbCrEncoding(matrix: tagged ?? .standard(width: width, height: height), fullRange: fullRange)
    }

    /// These properties with `encoding` written into the matrix tag and the range: what a
    /// frame carries once its samples were made in that encoding.
    public func tagged(_ encoding: YCbCrEncoding) -> ColorProperties {
        var out = self
        if matrix.flatMap(YCbCrMatrix.init(name:)) != encoding.matrix { out.matrix = encoding.matrix.name }
        out.fullRange = encoding.fullRange
        return out
    }
}

/// The Y'CbCr matrices Reel converts with: the weights of R and B in luma.
public enum YCbCrMatrix: String, Sendable, Hashable, Codable, CaseIterable {
    /// ITU-R BT.601 (SMPTE 170M, BT.470 BG): standard definition.
    case bt601
    /// ITU-R BT.709: high definition.
    case bt709
    /// ITU-R BT.2020, non-constant luminance: ultra high definition.
    case bt2020

    /// The matrix a tag names: FFmpeg's names (`smpte170m`, `bt470bg`, `bt709`, `bt2020nc`)
    /// or CoreVideo's (`ITU_R_601_4`, `ITU_R_709_2`, `ITU_R_2020`); nil for other matrices
    /// and unknown names.
    public init?(name: String) {
        switch name.lowercased() {
        case "bt601", "smpte170m", "bt470bg", "itu_r_601_4": self = .bt601
        case "bt709", "itu_r_709_2": self = .bt709
        case "bt2020", "bt2020nc", "bt2020_ncl", "itu_r_2020": self = .bt2020
        default: return nil
        }
    }

    /// The matrix of an untagged frame of this size: BT.709 from 1280x720 up, else BT.601.
    public static func standard(width: Int, height: Int) -> YCbCrMatrix {
        height < 720 || width < 1280 ? .bt601 : .bt709
    }

    /// FFmpeg's name for the matrix (`AVColorSpace`), which is also its primaries' and
    /// transfer function's name for BT.601 and BT.709.
    public var name: String {
        switch self {
        case .bt601: "smpte170m"
        case .bt709: "bt709"
        case .bt2020: "bt2020nc"
        }
    }

    /// The weight of red in luma.
    public var kr: Double {
        switch self {
        case .bt601: 0.299
        case .bt709: 0.2126
        case .bt2020: 0.2627
        }
    }

    /// The weight of blue in luma.
    public var kb: Double {
        switch self {
        case .bt601: 0.114
        case .bt709: 0.0722
        case .bt2020: 0.0593
        }
    }

    /// The weight of green in luma.
    public var kg: Double { 1 - kr - kb }
}

/// How 8-bit Y'CbCr samples encode R'G'B': a matrix and a range.
///
/// Limited range puts Y' in 16...235 and Cb, Cr in 16...240 around 128; full range uses
/// 0...255 for all three. RGB values are gamma-encoded, as in every 8-bit video pipeline.
/// These are the exact (unrounded) formulas; hot loops use fixed-point tables built from them.
public struct YCbCrEncoding: Sendable, Hashable, Codable {
    public var matrix: YCbCrMatrix
    public var fullRange: Bool

    public init(matrix: YCbCrMatrix, fullRange: Bool = false) {
        self.matrix = matrix
        self.fullRange = fullRange
    }

    /// The span of luma (219 limited, 255 full) and of chroma (224 limited, 255 full), in code values.
    public var lumaScale: Double { fullRange ? 255 : 219 }
    public var chromaScale: Double { fullRange ? 255 : 224 }
    /// The code value of black: 16 limited, 0 full.
    public var blackLevel: Double { fullRange ? 0 : 16 }

    /// Y', Cb, Cr (unrounded code values) of R, G, B in 0...255.
    public func ycbcr(red: Double, green: Double, blue: Double) -> (y: Double, cb: Double, cr: Double) {
        let kr = matrix.kr, kb = matrix.kb
        let r = red / 255, g = green / 255, b = blue / 255
        let luma = kr * r + matrix.kg * g + kb * b
        return (
            blackLevel + lumaScale * luma,
            128 + chromaScale * (b - luma) / (2 * (1 - kb)),
            128 + chromaScale * (r - luma) / (2 * (1 - kr))
        )
    }

    /// R, G, B (unrounded, unclamped, 0...255 for colours in gamut) of Y', Cb, Cr code values.
    public func rgb(y: Double, cb: Double, cr: Double) -> (red: Double, green: Double, blue: Double) {
        let kr = matrix.kr, kb = matrix.kb
        let luma = normalizedLuma(y: y)
        let pb = (cb - 128) / chromaScale, pr = (cr - 128) / chromaScale
        let r = luma + 2 * (1 - kr) * pr
        let b = luma + 2 * (1 - kb) * pb
        let g = (luma - kr * r - kb * b) / matrix.kg
        return (255 * r, 255 * g, 255 * b)
    }

    /// Luma as a fraction of the range between black (0) and white (1).
    public func normalizedLuma(y: Double) -> Double { (y - blackLevel) / lumaScale }
}

extension PixelBuffer {
    /// The matrix and range of this buffer's Y'CbCr samples (of the YUV it converts to,
    /// for an RGB buffer): ``ColorProperties/encoding(width:height:)`` at its size.
    public var ycbcrEncoding: YCbCrEncoding { colorProperties.encoding(width: width, height: height) }
}
