/// A compositor written as one async function (the form for new code): return the composed
/// frame, or throw. Wrap it in ``AsyncVideoCompositorAdapter`` to use it as a
/// ``VideoCompositing``; the adapter finishes each request exactly once and handles
/// cancellation.
///
/// ```swift
/// struct Dim: AsyncVideoCompositing {
///     func compose(_ request: AsynchronousVideoCompositionRequest) async throws -> PixelBuffer {
///         let out = request.renderContext.newPixelBuffer()
///         ...
///         return out
///     }
/// }
/// videoComposition.customVideoCompositor = { AsyncVideoCompositorAdapter(Dim()) }
/// ```
public protocol AsyncVideoCompositing: Sendable {
    /// The formats source frames may come in; nil (the default) accepts any.
    var sourcePixelBufferAttributes: PixelBufferAttributes? { get }
    /// The formats the compositor renders into; BGRA by default.
    var requiredPixelBufferAttributesForRenderContext: PixelBufferAttributes { get }
    /// Called before the first request and when the size or format changes.
    func renderContextChanged(_ newRenderContext: VideoCompositionRenderContext)
    /// Composes the frame for `request` (do not call its finish methods). Throwing
    /// `CancellationError` when the task is cancelled finishes the request as cancelled.
    func compose(_ request: AsynchronousVideoCompositionRequest) async throws -> PixelBuffer
}

extension AsyncVideoCompositing {
    public var sourcePixelBufferAttributes: PixelBufferAttributes? { nil }
    public var requiredPixelBufferAttributesForRenderContext: PixelBufferAttributes { .bgra }
    public func renderContextChanged(_ newRenderContext: VideoCompositionRenderContext) {}
}

/// Runs an ``AsyncVideoCompositing`` as a ``VideoCompositing``: each request in its own task,
/// finished with the returned frame, the thrown error, or as cancelled.
public final class AsyncVideoCompositorAdapter<Base: AsyncVideoCompositing>: VideoCompositing {
    /// The compositor that composes each frame.
    public let base: Base
    private let running = Lock<(next: UInt64, tasks: [UInt64: Task<Void, Never>])>((0, [:]))

    /// An adapter that runs `base`.
    public init(_ base: Base) { self.base = base }

    public var sourcePixelBufferAttributes: PixelBufferAttributes? { base.sourcePixelBufferAttributes }
    public var requiredPixelBufferAttributesForRenderContext: PixelBufferAttributes { base.requiredPixelBufferAttributesForRenderContext }
    public func renderContextChanged(_ newRenderContext: VideoCompositionRenderContext) { base.renderContextChanged(newRenderContext) }

    public func startRequest(_ request: AsynchronousVideoCompositionRequest) {
        let base = self.base
        running.withLock { state in
            let id = state.next
            state.next += 1
            // Created under the lock so that the task's own removal (which takes the lock)
            // always comes after its insertion.
            state.tasks[id] = Task { [weak self] in
                do {
                    let frame = try await base.compose(request)
                    if Task.isCancelled { request.finishCancelledRequest() } else { request.finish(withComposedVideoFrame: frame) }
                } catch is CancellationError {
                    request.finishCancelledRequest()
                } catch {
                    if Task.isCancelled { request.finishCancelledRequest() } else { request.finish(with: error) }
                }
                _ = self?.running.withLock { $0.tasks.removeValue(forKey: id) }
            }
        }
    }

    public func cancelAllPendingVideoCompositionRequests() async {
        let tasks = running.withLock { state in
            defer { state.tasks.removeAll() }
            return Array(state.tasks.values)
        }
        for task in tasks { task.cancel() }
        for task in tasks { await task.value }
    }
}
