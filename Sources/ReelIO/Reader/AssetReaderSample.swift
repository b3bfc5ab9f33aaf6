import Foundation
import ReelCore

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
    case videoFrame(VideoFrame)
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

    public var videoFrame: VideoFrame? {
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
