import ReelCaptions
import ReelCore

/// Appends `Caption`s to a caption track (AVAssetWriterInputCaptionAdaptor): each caption
/// becomes one sample timed by its time range, in the input's format (3GPP timed text in
/// MP4/MOV, SubRip or WebVTT in Matroska). A caption's placement is written where the
/// format holds it: an `{\anN}` tag in a SubRip cue, cue settings (`line`, `align`) beside
/// a WebVTT cue; 3GPP timed text tracks Reel writes place every caption at the bottom.
///
/// A caption track shows one caption at a time: captions come in time order and one may
/// not start before the one before it ends (run `CaptionConversionValidator` first to
/// find overlaps). Between captions the track shows nothing; the MP4 muxer writes the
/// empty samples 3GPP timed text needs for the gaps.
public final class AssetWriterInputCaptionAdaptor: Sendable {
    public let assetWriterInput: AssetWriterInput
    private let format: CaptionFormat
    private let lastEnd = Lock(MediaTime.invalid)

    /// An adaptor over an input made with `.captions(format)` settings.
    public init(assetWriterInput input: AssetWriterInput) throws(ReelError) {
        guard case .captions(let format) = input.settings else {
            throw ReelError(.invalidArgument, "a caption adaptor needs an input with .captions settings")
        }
        self.assetWriterInput = input
        self.format = format
    }

    /// Appends one caption, suspending while the writer's queue is full.
    /// - Throws: `.invalidArgument` for a caption without a positive numeric duration or
    ///   that starts before the previous one ends; what the input's `append` throws.
    public func append(_ caption: Caption) async throws(ReelError) {
        let range = caption.timeRange
        guard range.isValid, range.start.isNumeric, range.duration.isNumeric, range.duration > .zero else {
            throw ReelError(.invalidArgument, "caption \"\(caption.text.prefix(32))\" has no positive duration", time: range.start)
        }
        try lastEnd.withLock { (end) throws(ReelError) in
            if end.isValid, range.start < end {
                throw ReelError(
                    .invalidArgument,
                    "caption \"\(caption.text.prefix(32))\" starts before the previous one ends (\(end.secondsDescription)): a caption track shows one caption at a time",
                    time: range.start)
            }
            end = range.end
        }
        let data = try CaptionSample.data(for: caption, format: format)
        var sample = SampleBuffer(
            data: data, presentationTime: range.start, duration: range.duration,
            format: format == .movText ? "tx3g" : format.rawValue, decodeTime: range.start, isSync: true)
        sample.cueSettings = CaptionSample.cueSettings(for: caption, format: format)
        try await assetWriterInput.append(sample)
    }
}
