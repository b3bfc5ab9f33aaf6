import ReelComposition
import ReelCore

/// Runs one compositor as a black box, with no engine and no media files: build requests
/// from frames and metadata groups at chosen composition times, start them in the order
/// you choose, await how each ended, and check with ``finish()`` that nothing was left
/// over (like swift-nio's `EmbeddedChannel` and GStreamer's `GstHarness`).
///
/// ```swift
/// let harness = CompositorHarness(compositor: MyCompositor(), width: 320, height: 180)
/// let frame = try await harness.render(at: MediaTime(value: 1, timescale: 2), instruction: instruction,
///                                      sourceFrames: [1: SyntheticFrame.counter(15, width: 320, height: 180, format: .bgra)],
///                                      metadata: [2: gpsGroup])
/// try harness.finish()
/// ```
///
/// The harness calls `renderContextChanged` once when it is made and again on each
/// ``changeRenderContext(_:)``. It keeps a request alive only until it has started it: a
/// compositor that drops a request unfinished is seen at once (the request reports itself
/// abandoned), and one that holds it forever is caught by ``timeLimit``.
public final class CompositorHarness: Sendable {
    /// A request made by the harness: its identity, time and instruction.
    public struct Request: Sendable, Hashable, CustomStringConvertible {
        /// The request's number in its harness: 0 for the first made, then counting up.
        public let id: Int
        /// The composition time the request is for.
        public let compositionTime: MediaTime
        /// Describes the instruction (its type and time range), for messages.
        public let instructionDescription: String

        public var description: String {
            "request #\(id) at \(compositionTime.secondsDescription) (\(instructionDescription))"
        }
    }

    /// How a request ended, or that it has not (yet).
    public enum Outcome: Sendable {
        /// Finished with this composed frame.
        case composed(PixelBuffer)
        /// Finished with this error.
        case failed(ReelError)
        /// Finished as cancelled.
        case cancelled
        /// Released by the compositor without being finished.
        case abandoned(ReelError)
        /// Not finished within the harness's ``timeLimit``.
        case unfinished

        /// The frame, for a composed request.
        public var frame: PixelBuffer? {
            if case .composed(let f) = self { return f }
            return nil
        }
    }

    /// The compositor under test.
    public let compositor: any VideoCompositing
    /// How long ``outcome(of:)`` waits before reporting ``Outcome/unfinished``; nil waits forever.
    public let timeLimit: Duration?

    private struct Entry {
        var request: Request
        /// Held from creation until started.
        var unstarted: AsynchronousVideoCompositionRequest?
        var outcome: AsynchronousVideoCompositionRequest.Outcome?
        var extraFinishes = 0
        var waiters: [Int: Once<AsynchronousVideoCompositionRequest.Outcome?>] = [:]
    }

    private struct State {
        var context: VideoCompositionRenderContext
        var contextHistory: [VideoCompositionRenderContext]
        var nextID = 0
        var nextWaiter = 0
        var entries: [Int: Entry] = [:]
        var diagnostics: [RenderDiagnostic] = []
    }

    private let state: Lock<State>

    /// A harness around `compositor`, telling it `renderContext` at once.
    public init(
        compositor: any VideoCompositing, renderContext: VideoCompositionRenderContext,
        timeLimit: Duration? = .seconds(30)
    ) {
        self.compositor = compositor
        self.timeLimit = timeLimit
        self.state = Lock(State(context: renderContext, contextHistory: [renderContext]))
        compositor.renderContextChanged(renderContext)
    }

    /// A harness with a `width` x `height` render context in `pixelFormat`, by default the
    /// first format the compositor asks for (BGRA when it lists none).
    public convenience init(
        compositor: any VideoCompositing, width: Int, height: Int, pixelFormat: PixelFormat? = nil,
        timeLimit: Duration? = .seconds(30)
    ) {
        let format = pixelFormat ?? compositor.requiredPixelBufferAttributesForRenderContext.pixelFormatType.first ?? .bgra
        self.init(
            compositor: compositor, renderContext: VideoCompositionRenderContext(width: width, height: height, pixelFormat: format),
            timeLimit: timeLimit)
    }

    /// The render context requests are made with.
    public var renderContext: VideoCompositionRenderContext { state.withLock { $0.context } }

    /// The source format the compositor asks for: the first of its
    /// `sourcePixelBufferAttributes`, or BGRA when it accepts anything.
    public var preferredSourceFormat: PixelFormat {
        compositor.sourcePixelBufferAttributes?.pixelFormatType.first ?? .bgra
    }

    /// Switches to a new render context and tells the compositor (rule 7); later requests use it.
    public func changeRenderContext(_ newContext: VideoCompositionRenderContext) {
        state.withLock {
            $0.context = newContext
            $0.contextHistory.append(newContext)
        }
        compositor.renderContextChanged(newContext)
    }

    // MARK: Requests

    /// Makes a request (not started yet).
    ///
    /// - Parameters:
    ///   - time: the composition time the request is for.
    ///   - instruction: the instruction in effect at `time`.
    ///   - sourceFrames: frames by video track ID, in the instruction's order; a track left
    ///     out is one with no frame at this time (an empty edit: `sourceFrame` gives nil).
    ///   - metadata: groups by metadata track ID, in the instruction's order; a track left
    ///     out has no group at this time (`sourceTimedMetadata` gives nil).
    ///   - captions: caption groups by caption track ID, in the instruction's order; a track
    ///     left out shows no caption at this time (`sourceCaptionGroup` gives nil). The engine
    ///     delivers only the tracks the instruction lists in `requiredSourceCaptionTrackIDs`.
    public func makeRequest(
        at time: MediaTime, instruction: any VideoCompositionInstructionProtocol,
        sourceFrames: KeyValuePairs<Int32, PixelBuffer> = [:],
        metadata: KeyValuePairs<Int32, TimedMetadataGroup> = [:],
        captions: KeyValuePairs<Int32, CaptionGroup> = [:]
    ) -> Request {
        makeRequest(
            at: time, instruction: instruction, frames: sourceFrames.map { ($0.key, $0.value) },
            sampleData: metadata.map { ($0.key, TimedMetadataSample(group: $0.value)) },
            captionGroups: captions.map { ($0.key, $0.value) })
    }

    /// Makes a request from lists (for code that builds them); see the other overload.
    public func makeRequest(
        at time: MediaTime, instruction: any VideoCompositionInstructionProtocol,
        frames: [(trackID: Int32, frame: PixelBuffer)],
        sampleData: [(trackID: Int32, sample: TimedMetadataSample)],
        captionGroups: [(trackID: Int32, group: CaptionGroup)] = []
    ) -> Request {
        let (id, context) = state.withLock { s -> (Int, VideoCompositionRenderContext) in
            defer { s.nextID += 1 }
            return (s.nextID, s.context)
        }
        let request = Request(id: id, compositionTime: time, instructionDescription: Self.describe(instruction))
        let made = AsynchronousVideoCompositionRequest(
            renderContext: context, compositionTime: time, videoCompositionInstruction: instruction,
            sourceFrames: frames, sourceSampleData: sampleData, sourceCaptionGroups: captionGroups,
            diagnostics: { [state] diagnostic in
                state.withLock { s in
                    s.diagnostics.append(diagnostic)
                    if diagnostic.kind == .requestFinishedTwice { s.entries[id]?.extraFinishes += 1 }
                }
            },
            completion: { [state] outcome in
                let waiters = state.withLock { s -> [Once<AsynchronousVideoCompositionRequest.Outcome?>] in
                    s.entries[id]?.outcome = outcome
                    defer { s.entries[id]?.waiters = [:] }
                    return Array((s.entries[id]?.waiters ?? [:]).values)
                }
                for w in waiters { w.resume(outcome) }
            })
        state.withLock { $0.entries[id] = Entry(request: request, unstarted: made) }
        return request
    }

    /// Hands `request` to the compositor's `startRequest`. The harness keeps no reference
    /// to it afterwards.
    public func start(_ request: Request) {
        let made = state.withLock { s -> AsynchronousVideoCompositionRequest? in
            defer { s.entries[request.id]?.unstarted = nil }
            return s.entries[request.id]?.unstarted
        }
        guard let made else { preconditionFailure("\(request) was already started or is not from this harness") }
        compositor.startRequest(made)
    }

    /// Makes a request and starts it.
    @discardableResult
    public func startRequest(
        at time: MediaTime, instruction: any VideoCompositionInstructionProtocol,
        sourceFrames: KeyValuePairs<Int32, PixelBuffer> = [:],
        metadata: KeyValuePairs<Int32, TimedMetadataGroup> = [:],
        captions: KeyValuePairs<Int32, CaptionGroup> = [:]
    ) -> Request {
        let request = makeRequest(at: time, instruction: instruction, sourceFrames: sourceFrames, metadata: metadata, captions: captions)
        start(request)
        return request
    }

    /// Waits until `request` ends (or ``timeLimit`` passes) and says how.
    public func outcome(of request: Request) async -> Outcome {
        let once = Once<AsynchronousVideoCompositionRequest.Outcome?>()
        let timer = Lock<Task<Void, Never>?>(nil)
        defer { timer.withLock { $0?.cancel() } }
        let result: AsynchronousVideoCompositionRequest.Outcome? = await withCheckedContinuation { continuation in
            once.set(continuation)
            let (done, token) = state.withLock { s -> (AsynchronousVideoCompositionRequest.Outcome??, Int) in
                if let outcome = s.entries[request.id]?.outcome { return (.some(outcome), 0) }
                let token = s.nextWaiter
                s.nextWaiter += 1
                s.entries[request.id]?.waiters[token] = once
                return (nil, token)
            }
            if let done {
                once.resume(done)
                return
            }
            if let limit = timeLimit {
                let task = Task { [state] in
                    try? await Task.sleep(for: limit)
                    guard !Task.isCancelled else { return }
                    state.withLock { _ = $0.entries[request.id]?.waiters.removeValue(forKey: token) }
                    once.resume(nil)
                }
                timer.withLock { $0 = task }
            }
        }
        switch result {
        case .composed(let frame): return .composed(frame)
        case .failed(let error): return .failed(error)
        case .cancelled: return .cancelled
        case .abandoned(let error): return .abandoned(error)
        case nil: return .unfinished
        }
    }

    /// Makes a request, starts it and returns the composed frame.
    ///
    /// - Throws: the request's error; `.compositorFailed` when it was cancelled, dropped
    ///   unfinished or not finished within ``timeLimit``.
    public func render(
        at time: MediaTime, instruction: any VideoCompositionInstructionProtocol,
        sourceFrames: KeyValuePairs<Int32, PixelBuffer> = [:],
        metadata: KeyValuePairs<Int32, TimedMetadataGroup> = [:],
        captions: KeyValuePairs<Int32, CaptionGroup> = [:]
    ) async throws(ReelError) -> PixelBuffer {
        let request = startRequest(at: time, instruction: instruction, sourceFrames: sourceFrames, metadata: metadata, captions: captions)
        return try await frame(of: request)
    }

    /// The composed frame of a started request; throws as ``render(at:instruction:sourceFrames:metadata:captions:)`` does.
    public func frame(of request: Request) async throws(ReelError) -> PixelBuffer {
        switch await outcome(of: request) {
        case .composed(let frame): return frame
        case .failed(let error): throw error
        case .cancelled:
            throw ReelError(.compositorFailed, "\(request) was finished as cancelled", time: request.compositionTime)
        case .abandoned(let error): throw error
        case .unfinished:
            throw ReelError(
                .compositorFailed, "\(request) was not finished within \(timeLimit.map { "\($0)" } ?? "the time limit")",
                time: request.compositionTime)
        }
    }

    /// Calls the compositor's `cancelAllPendingVideoCompositionRequests` and waits for it.
    public func cancelAll() async {
        await compositor.cancelAllPendingVideoCompositionRequests()
    }

    // MARK: Inspection

    /// Every diagnostic the requests reported (such as a second finish), in order.
    public var diagnostics: [RenderDiagnostic] { state.withLock { $0.diagnostics } }

    /// Every render context the compositor was told about, first to last.
    public var renderContextHistory: [VideoCompositionRenderContext] { state.withLock { $0.contextHistory } }

    /// Whether `request` has ended (finished, or released unfinished).
    public func isFinished(_ request: Request) -> Bool {
        state.withLock { $0.entries[request.id]?.outcome != nil }
    }

    /// The requests started and not yet ended, in the order they were made.
    public var pendingRequests: [Request] {
        state.withLock { s in
            s.entries.values.filter { $0.unstarted == nil && $0.outcome == nil }.map(\.request).sorted { $0.id < $1.id }
        }
    }

    /// Checks that every started request was finished exactly once, like `EmbeddedChannel.finish()`.
    ///
    /// - Throws: ``Leftovers`` listing requests still pending, released unfinished, or
    ///   finished more than once.
    public func finish() throws(Leftovers) {
        let leftovers = state.withLock { s -> Leftovers in
            var l = Leftovers()
            for entry in s.entries.values.sorted(by: { $0.request.id < $1.request.id }) {
                if entry.unstarted != nil { continue }
                switch entry.outcome {
                case nil: l.neverFinished.append(entry.request)
                case .abandoned: l.abandoned.append(entry.request)
                default: break
                }
                if entry.extraFinishes > 0 { l.finishedMoreThanOnce.append((entry.request, entry.extraFinishes + 1)) }
            }
            return l
        }
        if !leftovers.isEmpty { throw leftovers }
    }

    /// What ``finish()`` found wrong.
    public struct Leftovers: Error, Sendable, CustomStringConvertible {
        /// Started and still not finished.
        public var neverFinished: [Request] = []
        /// Released by the compositor without being finished.
        public var abandoned: [Request] = []
        /// Finished more than once, with how many finishes.
        public var finishedMoreThanOnce: [(request: Request, finishes: Int)] = []

        /// Whether nothing was found wrong.
        public var isEmpty: Bool { neverFinished.isEmpty && abandoned.isEmpty && finishedMoreThanOnce.isEmpty }

        public var description: String {
            var parts: [String] = []
            for r in neverFinished { parts.append("\(r) was never finished") }
            for r in abandoned { parts.append("\(r) was released without being finished") }
            for (r, n) in finishedMoreThanOnce { parts.append("\(r) was finished \(n) times") }
            return "compositor left requests behind: " + parts.joined(separator: "; ")
        }
    }

    static func describe(_ instruction: any VideoCompositionInstructionProtocol) -> String {
        "\(type(of: instruction)) \(instruction.timeRange)"
    }
}
