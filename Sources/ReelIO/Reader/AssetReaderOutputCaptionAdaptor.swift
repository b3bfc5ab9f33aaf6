import Foundation
import ReelCore
import ReelCaptions

/// Turns the raw samples of a caption track output into ``Caption``s and
/// ``CaptionGroup``s (AVAssetReaderOutputCaptionAdaptor).
///
/// The output must use `.passthrough` settings. Each sample is decoded by its format
/// through ``CaptionSample``: 3GPP timed text (`tx3g`, mov_text) from MP4/MOV, and SubRip,
/// WebVTT and ASS text from Matroska. A sample is one caption timed by the sample's time
/// range; an empty sample (a gap) gives none. A sample that does not decode is skipped and
/// a ``CaptionWarning`` naming its time is added to ``warnings``.
public final class AssetReaderOutputCaptionAdaptor: AsyncSequence, Sendable {
    public typealias Element = Caption
    public typealias Failure = ReelError

    public let assetReaderTrackOutput: AssetReaderTrackOutput
    private let warningsStore = Lock([CaptionWarning]())

    public init(assetReaderTrackOutput output: AssetReaderTrackOutput) throws(ReelError) {
        guard case .passthrough = output.settings else {
            throw ReelError(.invalidArgument, "a caption adaptor needs an output with .passthrough settings", trackID: output.trackID)
        }
        self.assetReaderTrackOutput = output
    }

    /// The samples skipped so far because they did not decode, in track order.
    public var warnings: [CaptionWarning] { warningsStore.withLock { $0 } }

    /// The caption of one sample; nil for a gap or a sample that does not decode.
    private func caption(of sample: SampleBuffer) -> Caption? {
        do {
            let spans = try CaptionSample.spans(sample.data, format: sample.format)
            guard spans.contains(where: { !$0.text.isEmpty }) else { return nil }
            let duration = sample.duration.isNumeric ? sample.duration : .zero
            return Caption(spans: spans, timeRange: TimeRange(start: sample.presentationTime, duration: duration))
        } catch {
            let warning = CaptionWarning(.movText, "track \(assetReaderTrackOutput.trackID): could not decode the \(sample.format) sample: \(error.message)",
                                         time: sample.presentationTime)
            warningsStore.withLock { $0.append(warning) }
            return nil
        }
    }

    /// The next caption, blocking the calling thread; nil at the end of the track.
    @available(*, noasync, message: "blocks the thread: iterate the adaptor with for try await instead")
    public func nextCaption() throws(ReelError) -> Caption? {
        while let sample = try assetReaderTrackOutput.nextSample() {
            if let buffer = sample.sampleBuffer, let caption = caption(of: buffer) { return caption }
        }
        return nil
    }

    /// The next caption, suspending until it is read; nil at the end of the track.
    public func next(isolation actor: isolated (any Actor)? = #isolation) async throws(ReelError) -> Caption? {
        while let sample = try await assetReaderTrackOutput.next(isolation: actor) {
            if let buffer = sample.sampleBuffer, let caption = caption(of: buffer) { return caption }
        }
        return nil
    }

    /// Every remaining caption, cut into the groups of captions showing together
    /// (``CaptionGroup/groups(for:)``).
    public func captionGroups(isolation actor: isolated (any Actor)? = #isolation) async throws(ReelError) -> [CaptionGroup] {
        var captions: [Caption] = []
        while let caption = try await next(isolation: actor) { captions.append(caption) }
        return CaptionGroup.groups(for: captions)
    }

    public struct AsyncIterator: AsyncIteratorProtocol {
        let adaptor: AssetReaderOutputCaptionAdaptor

        public mutating func next(isolation actor: isolated (any Actor)?) async throws(ReelError) -> Caption? {
            try await adaptor.next(isolation: actor)
        }

        public mutating func next() async throws(ReelError) -> Caption? {
            try await adaptor.next(isolation: nil)
        }
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(adaptor: self) }
}
