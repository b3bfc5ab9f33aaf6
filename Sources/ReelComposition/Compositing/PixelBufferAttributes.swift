/// Which pixel buffers a compositor accepts or wants to render into (the pixel-format part
/// of CoreVideo's attribute dictionaries), in order of preference.
public struct PixelBufferAttributes: Sendable, Hashable, Codable {
    /// Accepted formats, most preferred first; never empty for a useful compositor.
    public var pixelFormats: [PixelFormat]

    public init(pixelFormats: [PixelFormat]) {
        self.pixelFormats = pixelFormats
    }

    /// Only BGRA.
    public static let bgra = PixelBufferAttributes(pixelFormats: [.bgra])
    /// Only planar 4:2:0 YUV.
    public static let yuv420p = PixelBufferAttributes(pixelFormats: [.yuv420p])

    public func accepts(_ format: PixelFormat) -> Bool { pixelFormats.contains(format) }
}
