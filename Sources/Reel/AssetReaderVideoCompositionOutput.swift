import Foundation
import ReelComposition
import ReelCore
import ReelIO

/// The composed frames of a composition whose sources are files
/// (AVAssetReaderVideoCompositionOutput): the render engine over
/// ``AssetRenderSources``, as an `AsyncSequence` of `RenderedFrame`s in time order.
///
/// ```swift
/// let output = AssetReaderVideoCompositionOutput(composition: c, videoComposition: v)
/// output.timeRange = TimeRange(start: .zero, duration: MediaTime(value: 5, timescale: 1))
/// for try await frame in output { use(frame.pixelBuffer, frame.time) }
/// ```
///
/// Each iteration is a render of its own; decoding runs ahead on reader threads, a bounded
/// number of frames at a time, so memory stays flat however long the composition is.
public struct AssetReaderVideoCompositionOutput: AsyncSequence, Sendable {
    public typealias Element = RenderedFrame
    public typealias Failure = ReelError

    public let composition: Composition
    public let videoComposition: VideoComposition
    /// Where the sources' frames and metadata come from.
    public let sources: AssetRenderSources
    /// How the engine runs; its `timeRange` limits the frames (all of them when nil).
    public var options: RenderEngine.Options
    /// A compositor to use instead of the video composition's.
    public var compositor: (any VideoCompositing)?

    /// The part of the composition to read; all of it when nil.
    public var timeRange: TimeRange? {
        get { options.timeRange }
        set { options.timeRange = newValue }
    }

    /// Frames of `composition` composed by `videoComposition` (its properties when nil),
    /// with sources read from files.
    public init(
        composition: Composition, videoComposition: VideoComposition? = nil,
        sources: AssetRenderSources = AssetRenderSources(), options: RenderEngine.Options = RenderEngine.Options()
    ) {
        self.composition = composition
        self.videoComposition = videoComposition ?? VideoComposition(propertiesOf: composition)
        self.sources = sources
        self.options = options
    }

    /// The engine this output runs.
    public var engine: RenderEngine {
        RenderEngine(composition: composition, videoComposition: videoComposition, sources: sources, options: options)
    }

    public struct AsyncIterator: AsyncIteratorProtocol {
        var frames: RenderedFrames.AsyncIterator?
        var failure: ReelError?

        public mutating func next(isolation actor: isolated (any Actor)?) async throws(ReelError) -> RenderedFrame? {
            if let failure {
                self.failure = nil
                frames = nil
                throw failure
            }
            guard var iterator = frames else { return nil }
            defer { frames = iterator }
            return try await iterator.next(isolation: actor)
        }

        public mutating func next() async throws(ReelError) -> RenderedFrame? {
            try await next(isolation: nil)
        }
    }

    /// Validation problems surface from the first `next()`.
    public func makeAsyncIterator() -> AsyncIterator {
        do throws(ReelError) {
            return AsyncIterator(frames: try engine.frames(compositor: compositor).makeAsyncIterator(), failure: nil)
        } catch {
            return AsyncIterator(frames: nil, failure: error)
        }
    }
}
