import ReelCore

extension AssetReaderTrackOutput {
    /// The decoded frames of a `.video` output: `for try await frame in output.frames`.
    public var frames: AssetReaderOutputSamples<VideoFrame> {
        AssetReaderOutputSamples(output: self, name: "frames", settings: "video") { sample in
            if case .videoFrame(let frame) = sample { frame } else { nil }
        }
    }

    /// The decoded sound of an `.audioPCM` output: `for try await block in output.audio`.
    public var audio: AssetReaderOutputSamples<DecodedAudio> {
        AssetReaderOutputSamples(output: self, name: "audio", settings: "audioPCM") { sample in
            if case .audio(let audio) = sample { audio } else { nil }
        }
    }

    /// The samples of a `.passthrough` output, their bytes unchanged:
    /// `for try await buffer in output.sampleBuffers`.
    public var sampleBuffers: AssetReaderOutputSamples<SampleBuffer> {
        AssetReaderOutputSamples(output: self, name: "sampleBuffers", settings: "passthrough") { sample in
            if case .sampleBuffer(let buffer) = sample { buffer } else { nil }
        }
    }
}

/// One kind of sample an ``AssetReaderTrackOutput`` reads, as an async sequence of that type
/// (``AssetReaderTrackOutput/frames``, ``AssetReaderTrackOutput/audio``,
/// ``AssetReaderTrackOutput/sampleBuffers``), so a consumer never unwraps an
/// ``AssetReaderSample``. Iterating it reads the output: it is the same sequence as the
/// output's own, typed. An output whose settings give another kind of sample throws
/// `.invalidArgument` at the first element.
public struct AssetReaderOutputSamples<Element: Sendable>: AsyncSequence, Sendable {
    public typealias Failure = ReelError

    let output: AssetReaderTrackOutput
    /// The property and the settings it needs, for the error.
    let name: String
    let settings: String
    let take: @Sendable (AssetReaderSample) -> Element?

    public struct AsyncIterator: AsyncIteratorProtocol {
        let samples: AssetReaderOutputSamples

        public mutating func next(isolation actor: isolated (any Actor)?) async throws(ReelError) -> Element? {
            guard let sample = try await samples.output.next(isolation: actor) else { return nil }
            guard let element = samples.take(sample) else {
                throw ReelError(
                    .invalidArgument, "\(samples.name) reads an output with .\(samples.settings) settings, not .\(samples.output.settings.name)",
                    trackID: samples.output.trackID)
            }
            return element
        }

        public mutating func next() async throws(ReelError) -> Element? {
            try await next(isolation: nil)
        }
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(samples: self) }
}

extension AssetReaderTrackOutput.Settings {
    /// The case's name, for messages.
    var name: String {
        switch self {
        case .video: "video"
        case .audioPCM: "audioPCM"
        case .passthrough: "passthrough"
        }
    }
}
