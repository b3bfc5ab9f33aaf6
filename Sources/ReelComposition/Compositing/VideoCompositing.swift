/// A custom compositor (`AVVideoCompositing`): gets one request per output frame and
/// finishes it with a composed frame.
///
/// The contract (DESIGN.md rules 4 to 8):
/// - Attributes are read once per render. Sources arrive in a format listed in
///   `sourcePixelBufferAttributes` (converted by the engine when needed); the render
///   context's pixel format is the first of `requiredPixelBufferAttributesForRenderContext`
///   (or the engine's preferred format when listed).
/// - `renderContextChanged(_:)` is called before the first request and whenever the render
///   size or format changes.
/// - `startRequest(_:)` may be called again before earlier requests finish; finish each
///   request exactly once, from any thread, in any order: output stays in time order.
/// - `cancelAllPendingVideoCompositionRequests()` returns once every pending request is
///   finished or cancelled.
///
/// New code can implement the simpler ``AsyncVideoCompositing`` instead.
public protocol VideoCompositing: Sendable {
    /// The formats source frames may come in; nil accepts whatever the source has.
    var sourcePixelBufferAttributes: PixelBufferAttributes? { get }
    /// The formats the compositor can render into.
    var requiredPixelBufferAttributesForRenderContext: PixelBufferAttributes { get }
    /// The size, scale, format or pool for new frames changed; called before the first request.
    func renderContextChanged(_ newRenderContext: VideoCompositionRenderContext)
    /// Starts composing one frame. Return quickly; finish the request later, possibly on
    /// another task.
    func startRequest(_ request: AsynchronousVideoCompositionRequest)
    /// Finishes (or cancels) every request started and not yet finished, and returns when
    /// they all are. Optional, as in AVFoundation: the default does nothing, so requests
    /// already started finish in their own time and the engine no longer waits for them.
    func cancelAllPendingVideoCompositionRequests() async
}

extension VideoCompositing {
    public func renderContextChanged(_ newRenderContext: VideoCompositionRenderContext) {}
    public func cancelAllPendingVideoCompositionRequests() async {}
}

/// A compositor the engine can make by itself, named by its type the way AVFoundation code
/// names a compositor class (`videoComposition.customVideoCompositorClass = Dim.self`).
///
/// AVFoundation makes the class with NSObject's `init()`; here the type says it has one by
/// conforming to this protocol. The engine makes one instance per render.
public protocol InitializableVideoCompositing: VideoCompositing {
    /// Makes a compositor with its default settings.
    init()
}
