/// The built-in compositor, used when a video composition sets no custom one: draws a
/// ``VideoCompositionInstruction``'s background colour (skipped where an opaque
/// bottom layer covers the whole frame; a single layer that is exactly the output frame is
/// returned as it is), then each layer from the
/// bottom (the last layer instruction) to the top (the first), with its transform (bilinear
/// resampling, after 2x2 box prefiltering when shrinking below half size), crop rectangle
/// and opacity at the request's time, blending with straight alpha.
///
/// For another instruction type it stacks the request's source frames with no transform,
/// the first on top, over black. Renders BGRA or planar YUV 4:2:0 (the first of
/// `pixelFormats` unless the engine prefers the other); source frames in another format are
/// converted first. Requests run concurrently, each in its own task.
public final class StandardVideoCompositor: VideoCompositing {
    private let adapter: AsyncVideoCompositorAdapter<Core>

    /// A compositor rendering in one of `pixelFormats` (BGRA and/or yuv420p), the first preferred.
    public init(pixelFormats: [PixelFormat] = [.yuv420p, .bgra]) {
        let supported = pixelFormats.filter { $0 == .bgra || $0 == .yuv420p }
        adapter = AsyncVideoCompositorAdapter(Core(formats: supported.isEmpty ? [.yuv420p, .bgra] : supported))
    }

    /// The render formats: sources come in the render format when the source can provide it,
    /// else in the other one, and are converted here.
    public var sourcePixelBufferAttributes: PixelBufferAttributes? { adapter.requiredPixelBufferAttributesForRenderContext }
    public var requiredPixelBufferAttributesForRenderContext: PixelBufferAttributes { adapter.requiredPixelBufferAttributesForRenderContext }
    public func renderContextChanged(_ newRenderContext: VideoCompositionRenderContext) { adapter.renderContextChanged(newRenderContext) }
    public func startRequest(_ request: AsynchronousVideoCompositionRequest) { adapter.startRequest(request) }
    public func cancelAllPendingVideoCompositionRequests() async { await adapter.cancelAllPendingVideoCompositionRequests() }

    /// Composes one frame for `request` synchronously and returns it (what each request's
    /// task runs; also handy to render a single frame).
    public static func compose(_ request: AsynchronousVideoCompositionRequest) -> PixelBuffer {
        Core.render(request, pools: nil)
    }

    struct Core: AsyncVideoCompositing {
        let formats: [PixelFormat]
        /// Pools for source frames converted to the render format, by size and format.
        let pools = ConversionPools()

        var requiredPixelBufferAttributesForRenderContext: PixelBufferAttributes { PixelBufferAttributes(pixelFormatType: formats) }

        func compose(_ request: AsynchronousVideoCompositionRequest) async throws -> PixelBuffer {
            try Task.checkCancellation()
            return Core.render(request, pools: pools)
        }

        static func render(_ request: AsynchronousVideoCompositionRequest, pools: ConversionPools?) -> PixelBuffer {
            let context = request.renderContext
            let time = request.compositionTime
            let standard = request.videoCompositionInstruction as? VideoCompositionInstruction
            let background = standard?.backgroundColor ?? .black
            let instructions = standard?.layerInstructions ?? request.sourceTrackIDs.map { VideoCompositionLayerInstruction(trackID: $0) }
            // The layers that draw anything, bottom first, with their values at this time.
            let layers = instructions.reversed().compactMap { layer -> Layer? in
                guard let frame = request.sourceFrame(byTrackID: layer.trackID) else { return nil }
                let opacity = layer.opacity(at: time)
                guard opacity > 0 else { return nil }
                return Layer(
                    frame: converted(frame, to: context.pixelFormat, pools: pools), opacity: opacity,
                    transform: layer.transform(at: time).concatenating(context.renderTransform),
                    crop: layer.cropRectangle(at: time))
            }
            // One layer that is exactly the output frame: the source frame is the output, as it is.
            if layers.count == 1, let only = layers.first, only.frame.width == context.width, only.frame.height == context.height,
                only.transform.isIdentity, covers(context, only)
            {
                return only.frame
            }
            let output = context.newPixelBuffer()
            // The background shows only where the bottom layer leaves gaps.
            if let bottom = layers.first, covers(context, bottom) {} else { PixelFill.fill(output, with: background) }
            for layer in layers {
                let (source, transform, crop) = BoxDownscale.prefilter(layer.frame, transform: layer.transform, crop: layer.crop, pools: pools)
                LayerCompositing.draw(
                    source, onto: output, transform: transform, crop: crop, opacity: layer.opacity,
                    destinationOpaque: background.alpha >= 1)
            }
            return output
        }

        /// A layer that draws at this time: its frame in the render format and its values.
        struct Layer {
            var frame: PixelBuffer
            var opacity: Double
            var transform: Transform2D
            var crop: Rect
        }

        /// Whether drawing `layer` replaces every pixel of a frame of `context`: a format
        /// without alpha (YUV), full opacity, no crop, moved by whole chroma pixels and
        /// covering the frame. Then no background fill is needed.
        static func covers(_ context: VideoCompositionRenderContext, _ layer: Layer) -> Bool {
            let t = layer.transform, frame = layer.frame
            guard !context.pixelFormat.hasAlpha, frame.format == context.pixelFormat, layer.opacity >= 1, layer.crop.isInfinite,
                t.a == 1, t.b == 0, t.c == 0, t.d == 1,
                t.tx == (t.tx / 2).rounded() * 2, t.ty == (t.ty / 2).rounded() * 2,
                t.tx <= 0, t.ty <= 0
            else { return false }
            return t.tx + Double(frame.width) >= Double(context.width) && t.ty + Double(frame.height) >= Double(context.height)
        }

        static func converted(_ frame: PixelBuffer, to format: PixelFormat, pools: ConversionPools?) -> PixelBuffer {
            guard frame.format != format else { return frame }
            let key = "\(frame.width)x\(frame.height) \(format)"
            let pool = pools?.pool(key) { PixelBufferPool(width: frame.width, height: frame.height, format: format, maximumIdleCount: 8) }
            let out = pool?.makeBuffer() ?? PixelBuffer(width: frame.width, height: frame.height, format: format)
            PixelConversion.convert(frame, into: out)
            return out
        }
    }
}

/// Pools by name, shared by a compositor's concurrent requests.
final class ConversionPools: Sendable {
    private let table = Lock<[String: PixelBufferPool]>([:])

    func pool(_ key: String, make: () -> PixelBufferPool) -> PixelBufferPool {
        table.withLock { t in
            if let p = t[key] { return p }
            let p = make()
            t[key] = p
            return p
        }
    }
}
