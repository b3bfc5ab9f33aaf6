/// Which pixel buffers a compositor accepts or wants to render into: the pixel-format part
/// of CoreVideo's attribute dictionaries, as a typed value.
///
/// AVFoundation code writes `[kCVPixelBufferPixelFormatTypeKey as String: [kCVPixelFormatType_32BGRA]]`;
/// in Reel that is `PixelBufferAttributes(pixelFormatType: [.bgra])`: the key keeps
/// CoreVideo's name without its prefix, and the value is typed instead of a dictionary entry.
public struct PixelBufferAttributes: Sendable, Hashable, Codable {
    /// Accepted formats, most preferred first (`kCVPixelBufferPixelFormatTypeKey`); never
    /// empty for a useful compositor.
    public var pixelFormatType: [PixelFormat]

    /// Attributes accepting the given formats, most preferred first.
    public init(pixelFormatType: [PixelFormat]) {
        self.pixelFormatType = pixelFormatType
    }

    /// Only BGRA.
    public static let bgra = PixelBufferAttributes(pixelFormatType: [.bgra])
    /// Only planar 4:2:0 YUV.
    public static let yuv420p = PixelBufferAttributes(pixelFormatType: [.yuv420p])

    /// Whether `format` is one of the accepted formats.
    public func accepts(_ format: PixelFormat) -> Bool { pixelFormatType.contains(format) }

    // Encoded under the former name, so saved attributes keep decoding.
    private enum CodingKeys: String, CodingKey { case pixelFormatType = "pixelFormats" }
}

extension PixelBufferAttributes {
    /// Attributes accepting the given formats: the former name of ``init(pixelFormatType:)``.
    @available(*, deprecated, renamed: "init(pixelFormatType:)")
    public init(pixelFormats: [PixelFormat]) { self.init(pixelFormatType: pixelFormats) }

    /// The accepted formats: the former name of ``pixelFormatType``.
    @available(*, deprecated, renamed: "pixelFormatType")
    public var pixelFormats: [PixelFormat] {
        get { pixelFormatType }
        set { pixelFormatType = newValue }
    }
}
