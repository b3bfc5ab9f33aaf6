/// The memory layout of a frame's pixels.
///
/// The names follow FFmpeg's `AVPixelFormat` names; the YUV formats are 8-bit, in the
/// matrix and range of ``ColorProperties/encoding(width:height:)``.
public enum PixelFormat: String, Sendable, Hashable, Codable, CaseIterable {
    /// Packed B, G, R, A bytes (CoreVideo's `32BGRA`). Straight (not premultiplied) alpha.
    case bgra
    /// Packed R, G, B, A bytes.
    case rgba
    /// Planar Y, then U and V at half width and half height.
    case yuv420p
    /// Planar Y, then interleaved UV at half width and half height.
    case nv12
    /// One 8-bit luma plane.
    case gray8

    /// How many planes a buffer of this format has.
    public var planeCount: Int {
        switch self {
        case .bgra, .rgba, .gray8: 1
        case .nv12: 2
        case .yuv420p: 3
        }
    }

    /// Bytes per pixel element in `plane` (2 for nv12's interleaved UV plane).
    public func bytesPerPixel(plane: Int) -> Int {
        switch self {
        case .bgra, .rgba: 4
        case .gray8, .yuv420p: 1
        case .nv12: plane == 0 ? 1 : 2
        }
    }

    /// The width and height in pixels of `plane` for a frame of `width` x `height`.
    public func planeSize(plane: Int, width: Int, height: Int) -> (width: Int, height: Int) {
        guard plane > 0 else { return (width, height) }
        return ((width + 1) / 2, (height + 1) / 2)
    }

    /// Whether the format has an alpha channel.
    public var hasAlpha: Bool { self == .bgra || self == .rgba }

    /// Whether the format is YUV (or luma only).
    public var isYUV: Bool { self == .yuv420p || self == .nv12 || self == .gray8 }
}
