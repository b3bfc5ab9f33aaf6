/// Where a compositor renders (`AVVideoCompositionRenderContext`): the output size and
/// format, the transform from composition coordinates to pixels, and the pool that makes
/// output frames.
public final class VideoCompositionRenderContext: Sendable {
    /// The size of the output frames in pixels (`renderSize * renderScale`).
    public let size: Size
    /// Composition coordinates to output pixels (a scale by `renderScale`).
    public let renderTransform: Transform2D
    /// The scale from composition coordinates to output pixels; 1 by default.
    public let renderScale: Double
    /// The shape of one pixel; 1:1 for square pixels.
    public let pixelAspectRatio: PixelAspectRatio
    /// Widths of the edges that are processed for effects; zero by default.
    public let edgeWidths: EdgeWidths
    /// Whether to favour quality over speed (better resampling).
    public let highQualityRendering: Bool
    /// The video composition being rendered, when there is one. A compositor factory given
    /// as a closure (``VideoComposition/customVideoCompositor``) is not kept in it: such a
    /// closure often holds the compositor, which holds this context, and the two would never
    /// be freed. One given as a type (``VideoComposition/customVideoCompositorClass``) is kept.
    public let videoComposition: VideoComposition?
    /// The format of the frames from ``newPixelBuffer()``.
    public let pixelFormat: PixelFormat
    /// The pool ``newPixelBuffer()`` takes from.
    public let pixelBufferPool: PixelBufferPool

    /// A context of `width` x `height` pixels in `pixelFormat`.
    public init(
        width: Int, height: Int, pixelFormat: PixelFormat, renderScale: Double = 1,
        pixelAspectRatio: PixelAspectRatio = .square, edgeWidths: EdgeWidths = .zero,
        highQualityRendering: Bool = true, videoComposition: VideoComposition? = nil,
        poolCapacity: Int = 16
    ) {
        precondition(width > 0 && height > 0, "a render context needs a positive size")
        self.size = Size(width: width, height: height)
        self.renderScale = renderScale
        self.renderTransform = Transform2D(scaleX: renderScale, y: renderScale)
        self.pixelAspectRatio = pixelAspectRatio
        self.edgeWidths = edgeWidths
        self.highQualityRendering = highQualityRendering
        self.videoComposition = videoComposition.map { v in
            guard v.customVideoCompositorClass == nil else { return v }
            var kept = v
            kept.customVideoCompositor = nil
            return kept
        }
        self.pixelFormat = pixelFormat
        self.pixelBufferPool = PixelBufferPool(width: width, height: height, format: pixelFormat, maximumIdleCount: poolCapacity)
    }

    /// The width of the output frames in pixels.
    public var width: Int { pixelBufferPool.width }
    /// The height of the output frames in pixels.
    public var height: Int { pixelBufferPool.height }

    /// A frame to render into, from the pool: its pixels are stale, write them all.
    public func newPixelBuffer() -> PixelBuffer {
        let buffer = pixelBufferPool.makeBuffer()
        if let v = videoComposition { buffer.colorProperties = v.colorProperties }
        return buffer
    }

    /// The shape of a pixel: horizontal over vertical spacing.
    public struct PixelAspectRatio: Sendable, Hashable, Codable {
        /// The horizontal spacing, the ratio's numerator.
        public var horizontalSpacing: Int
        /// The vertical spacing, the ratio's denominator.
        public var verticalSpacing: Int
        /// A ratio of `horizontalSpacing` over `verticalSpacing`.
        public init(horizontalSpacing: Int, verticalSpacing: Int) {
            self.horizontalSpacing = horizontalSpacing
            self.verticalSpacing = verticalSpacing
        }
        /// Square pixels, 1:1.
        public static let square = PixelAspectRatio(horizontalSpacing: 1, verticalSpacing: 1)
    }

    /// Edge widths in pixels (`AVVideoCompositionRenderContext.edgeWidths`).
    public struct EdgeWidths: Sendable, Hashable, Codable {
        /// The width of each edge, in pixels.
        public var left: Double, top: Double, right: Double, bottom: Double
        /// Edge widths of the given sizes, in pixels.
        public init(left: Double, top: Double, right: Double, bottom: Double) {
            self.left = left; self.top = top; self.right = right; self.bottom = bottom
        }
        /// No edges: every width is 0.
        public static let zero = EdgeWidths(left: 0, top: 0, right: 0, bottom: 0)
    }
}
