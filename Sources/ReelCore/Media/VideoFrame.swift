import Foundation

/// A decoded picture and the time it shows (the pixel side of a CMSampleBuffer): what a
/// reader's video output yields, what a `VideoFrameSource` gives the render engine, and
/// what tests and in-memory sources hand in.
public struct VideoFrame: Sendable {
    /// The pixels (for a reader's output, in the format and size it asked for, from its pool).
    public var pixelBuffer: PixelBuffer
    /// When the frame is shown, exactly (for a file, in the stream's time base).
    public var presentationTime: MediaTime
    /// How long it is shown; invalid when the file does not say.
    public var duration: MediaTime
    /// The CEA-608/708 closed-caption data the picture carries (ATSC A/53 `cc_data`
    /// triplets from H.264/HEVC SEI or MPEG-2 user data, as FFmpeg's decoder exports
    /// them); nil when it carries none. `CEA608Stream` reads them.
    public var closedCaptions: Data?

    public init(pixelBuffer: PixelBuffer, presentationTime: MediaTime, duration: MediaTime, closedCaptions: Data? = nil) {
        self.pixelBuffer = pixelBuffer
        self.presentationTime = presentationTime
        self.duration = duration
        self.closedCaptions = closedCaptions
    }

    /// A frame showing over `timeRange`.
    public init(pixelBuffer: PixelBuffer, timeRange: TimeRange, closedCaptions: Data? = nil) {
        self.init(pixelBuffer: pixelBuffer, presentationTime: timeRange.start, duration: timeRange.duration, closedCaptions: closedCaptions)
    }

    /// `[presentationTime, presentationTime + duration)`; setting it sets both.
    public var timeRange: TimeRange {
        get { TimeRange(start: presentationTime, duration: duration) }
        set {
            presentationTime = newValue.start
            duration = newValue.duration
        }
    }
}
