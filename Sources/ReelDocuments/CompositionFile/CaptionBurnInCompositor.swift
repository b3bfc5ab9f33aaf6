import Reel
import ReelText

/// The built-in `captions` compositor (burn-in, for players without soft subtitles): the
/// picture the standard compositor makes of the instruction, with the captions of each
/// caption track the instruction asks for (`requiredSourceCaptionTrackIDs`, in that order)
/// drawn over it by a `CaptionRenderer`, each in its region and styles.
///
/// Layers are drawn as the standard compositor draws them, so a video with a display matrix
/// (phone footage) turned upright by its layer transform gets its captions on the upright
/// picture.
public struct CaptionBurnInCompositor: AsyncVideoCompositing {
    public let renderer: CaptionRenderer
    /// The render formats, the first preferred (BGRA and/or yuv420p).
    public let pixelFormats: [PixelFormat]

    public init(renderer: CaptionRenderer, pixelFormats: [PixelFormat] = [.yuv420p, .bgra]) {
        self.renderer = renderer
        let supported = pixelFormats.filter { $0 == .bgra || $0 == .yuv420p }
        self.pixelFormats = supported.isEmpty ? [.yuv420p, .bgra] : supported
    }

    /// A compositor drawing with the standard caption look (DejaVu Sans on a translucent box).
    /// - Throws: when the caption fonts cannot be loaded.
    public init(pixelFormats: [PixelFormat] = [.yuv420p, .bgra]) throws(ReelError) {
        self.init(renderer: try CaptionRenderer(), pixelFormats: pixelFormats)
    }

    public var sourcePixelBufferAttributes: PixelBufferAttributes? { PixelBufferAttributes(pixelFormatType: pixelFormats) }
    public var requiredPixelBufferAttributesForRenderContext: PixelBufferAttributes { PixelBufferAttributes(pixelFormatType: pixelFormats) }

    public func compose(_ request: AsynchronousVideoCompositionRequest) async throws -> PixelBuffer {
        try Task.checkCancellation()
        let picture = StandardVideoCompositor.compose(request)
        let groups = request.sourceCaptionTrackIDs.compactMap { request.sourceCaptionGroup(byTrackID: $0) }
        guard !groups.isEmpty else { return picture }
        var out = picture
        // The standard compositor hands back a source frame that is the whole output as it
        // is; the captions go onto a copy, never into the decoder's frame.
        if request.sourceTrackIDs.contains(where: { request.sourceFrame(byTrackID: $0) === picture }) {
            out = request.renderContext.newPixelBuffer()
            picture.copyPixels(into: out)
        }
        for group in groups { try renderer.render(group, into: out) }
        return out
    }
}
