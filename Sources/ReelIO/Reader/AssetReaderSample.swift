import Foundation
import ReelCore

/// One decoded video frame, with its exact timing in the track's time base.
public struct DecodedVideoFrame: Sendable {
    /// The pixels, in the format and size the output asked for (from the output's pool).
    public var pixelBuffer: PixelBuffer
    /// When the frame is shown, exactly (the stream's time base).
    public var presentationTime: MediaTime
    /// How long it is shown; invalid when the file does not say.
    public var duration: MediaTime
    /// The CEA-608/708 closed-caption data the picture carries (ATSC A/53 `cc_data`
    /// triplets from H.264/HEVC SEI or MPEG-2 user data, as FFmpeg's decoder exports
    /// them); nil when it carries none. ``CEA608Stream`` reads them.
    public var closedCaptions: Data?

    public init(pixelBuffer: PixelBuffer, presentationTime: MediaTime, duration: MediaTime, closedCaptions: Data? = nil) {
        self.pixelBuffer = pixelBuffer
        self.presentationTime = presentationTime
        self.duration = duration
        self.closedCaptions = closedCaptions
    }

    /// `[presentationTime, presentationTime + duration)`.
    public var timeRange: TimeRange { TimeRange(start: presentationTime, duration: duration) }
}

/// Decoded audio: interleaved 32-bit float PCM (`L R L R ...`).
public struct DecodedAudio: Sendable, Hashable {
    /// `frameCount * channelCount` samples, interleaved.
    public var samples: [Float]
    public var channelCount: Int
    public var sampleRate: Int
    /// When the first sample plays, exactly (the stream's time base).
    public var presentationTime: MediaTime

    public init(samples: [Float], channelCount: Int, sampleRate: Int, presentationTime: MediaTime) {
        self.samples = samples
        self.channelCount = channelCount
        self.sampleRate = sampleRate
        self.presentationTime = presentationTime
    }

    /// Samples per channel.
    public var frameCount: Int { channelCount > 0 ? samples.count / channelCount : 0 }

    /// `frameCount / sampleRate`, exact.
    public var duration: MediaTime { MediaTime(value: Int64(frameCount), timescale: Int32(clamping: sampleRate)) }
}

/// What an ``AssetReaderTrackOutput`` produces: a decoded frame, decoded audio, or a
/// sample's raw bytes (metadata, passthrough).
public enum AssetReaderSample: Sendable {
    case videoFrame(DecodedVideoFrame)
    case audio(DecodedAudio)
    case sampleBuffer(SampleBuffer)

    /// When the sample is presented.
    public var presentationTime: MediaTime {
        switch self {
        case .videoFrame(let f): f.presentationTime
        case .audio(let a): a.presentationTime
        case .sampleBuffer(let s): s.presentationTime
        }
    }

    public var videoFrame: DecodedVideoFrame? {
        if case .videoFrame(let f) = self { return f }
        return nil
    }

    public var audio: DecodedAudio? {
        if case .audio(let a) = self { return a }
        return nil
    }

    public var sampleBuffer: SampleBuffer? {
        if case .sampleBuffer(let s) = self { return s }
        return nil
    }
}
