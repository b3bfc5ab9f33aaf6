import ReelComposition
import ReelCore

/// A compositor the test drives by hand: it keeps every request it is given, and the test
/// finishes them in whatever order it likes (GStreamer's harness with a manual clock, for
/// compositors). For testing what sits around a compositor: the render engine, a
/// compositor that delegates to another, ordering and cancellation logic.
///
/// ```swift
/// let manual = ManualCompositor()
/// // ... something starts requests at 0, 1/30 and 2/30 ...
/// await manual.waitForRequests(count: 3)
/// manual.finish(at: MediaTime(value: 2, timescale: 30), with: frameC)   // last first
/// manual.finishAll { request in SyntheticFrame.counter(0, width: 64, height: 36, format: .bgra) }
/// ```
///
/// `cancelAllPendingVideoCompositionRequests` finishes every held request as cancelled,
/// unless ``holdsCancelledRequests`` is set.
public final class ManualCompositor: VideoCompositing {
    public let sourcePixelBufferAttributes: PixelBufferAttributes?
    public let requiredPixelBufferAttributesForRenderContext: PixelBufferAttributes

    private struct State {
        var pending: [AsynchronousVideoCompositionRequest] = []
        var startedTimes: [MediaTime] = []
        var contexts: [VideoCompositionRenderContext] = []
        var waiters: [(count: Int, once: Once<Void>)] = []
        var holdsCancelledRequests = false
    }

    private let state = Lock(State())

    /// A compositor that reports these pixel-buffer attributes: any source format when
    /// `sourcePixelBufferAttributes` is nil, BGRA render contexts by default.
    public init(
        sourcePixelBufferAttributes: PixelBufferAttributes? = nil,
        requiredPixelBufferAttributesForRenderContext: PixelBufferAttributes = .bgra
    ) {
        self.sourcePixelBufferAttributes = sourcePixelBufferAttributes
        self.requiredPixelBufferAttributesForRenderContext = requiredPixelBufferAttributesForRenderContext
    }

    public func renderContextChanged(_ newRenderContext: VideoCompositionRenderContext) {
        state.withLock { $0.contexts.append(newRenderContext) }
    }

    public func startRequest(_ request: AsynchronousVideoCompositionRequest) {
        let ready = state.withLock { s -> [Once<Void>] in
            s.pending.append(request)
            s.startedTimes.append(request.compositionTime)
            let (done, waiting) = (s.waiters.filter { $0.count <= s.startedTimes.count }, s.waiters.filter { $0.count > s.startedTimes.count })
            s.waiters = waiting
            return done.map(\.once)
        }
        for once in ready { once.resume(()) }
    }

    public func cancelAllPendingVideoCompositionRequests() async {
        let pending = state.withLock { s -> [AsynchronousVideoCompositionRequest] in
            if s.holdsCancelledRequests { return [] }
            defer { s.pending.removeAll() }
            return s.pending
        }
        for request in pending { request.finishCancelledRequest() }
    }

    /// When true, a cancel leaves the held requests for the test to finish: a compositor
    /// slow to honour cancellation, which keeps a render in flight for as long as the test
    /// likes. False (finish them as cancelled at once) by default.
    public var holdsCancelledRequests: Bool {
        get { state.withLock { $0.holdsCancelledRequests } }
        set { state.withLock { $0.holdsCancelledRequests = newValue } }
    }

    /// The requests started and not yet finished by the test, oldest first.
    public var pendingRequests: [AsynchronousVideoCompositionRequest] { state.withLock { $0.pending } }

    /// The composition time of every request started so far, in start order.
    public var startedTimes: [MediaTime] { state.withLock { $0.startedTimes } }

    /// Every render context the compositor was told about, first to last.
    public var renderContexts: [VideoCompositionRenderContext] { state.withLock { $0.contexts } }

    /// Returns once `count` requests in all have been started.
    public func waitForRequests(count: Int) async {
        let once = Once<Void>()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            once.set(continuation)
            let already = state.withLock { s -> Bool in
                if s.startedTimes.count >= count { return true }
                s.waiters.append((count, once))
                return false
            }
            if already { once.resume(()) }
        }
    }

    /// Takes the pending request for `time` out of the pending list, if there is one.
    public func take(at time: MediaTime) -> AsynchronousVideoCompositionRequest? {
        state.withLock { s in
            guard let i = s.pending.firstIndex(where: { $0.compositionTime == time }) else { return nil }
            return s.pending.remove(at: i)
        }
    }

    /// Finishes the pending request for `time` with `frame`; false when there is none.
    @discardableResult
    public func finish(at time: MediaTime, with frame: PixelBuffer?) -> Bool {
        guard let request = take(at: time) else { return false }
        request.finish(withComposedVideoFrame: frame)
        return true
    }

    /// Finishes the pending request for `time` with `error`; false when there is none.
    @discardableResult
    public func fail(at time: MediaTime, with error: any Error) -> Bool {
        guard let request = take(at: time) else { return false }
        request.finish(with: error)
        return true
    }

    /// Finishes every pending request, newest first when `reversed`, with the frame `make` gives.
    public func finishAll(reversed: Bool = false, _ make: (AsynchronousVideoCompositionRequest) -> PixelBuffer?) {
        let pending = state.withLock { s in
            defer { s.pending.removeAll() }
            return s.pending
        }
        for request in reversed ? pending.reversed() : pending { request.finish(withComposedVideoFrame: make(request)) }
    }
}
