/// What to do over one span of the output timeline (`AVVideoCompositionInstructionProtocol`).
///
/// A video composition's instructions tile its timeline. For each output time the engine
/// finds the instruction whose `timeRange` holds it and hands it to the compositor in the
/// request, so a custom compositor can define its own instruction type carrying its
/// parameters. The standard one is ``VideoCompositionInstruction``.
///
/// AVFoundation calls the protocol `AVVideoCompositionInstructionProtocol` and the class
/// `AVVideoCompositionInstruction`; Reel follows both names.
public protocol VideoCompositionInstructionProtocol: Sendable {
    /// The span this instruction applies to, half-open.
    var timeRange: TimeRange { get }
    /// Whether post-processing (animation layers) may run; kept for compatibility.
    var enablePostProcessing: Bool { get }
    /// False when the output is the same for every time in the range (a still); a hint for
    /// the compositor; the engine still makes one request per output frame.
    var containsTweening: Bool { get }
    /// The composition video tracks whose frames the compositor needs, in the order the
    /// request lists them; nil means every video track.
    var requiredSourceTrackIDs: [Int32]? { get }
    /// When set, the frame of this track is the output as it is and the compositor is not
    /// called (rule 8).
    var passthroughTrackID: Int32? { get }
    /// The composition metadata tracks whose groups the compositor needs. A group is
    /// delivered only for IDs also in the video composition's `sourceSampleDataTrackIDs`.
    var requiredSourceSampleDataTrackIDs: [Int32] { get }
    /// The composition caption tracks (3GPP timed text, subtitles) whose caption group the
    /// compositor needs: the request carries, for each, the captions showing at its time
    /// (`sourceCaptionGroup(byTrackID:)`). Empty by default: no captions reach the compositor.
    var requiredSourceCaptionTrackIDs: [Int32] { get }
}

extension VideoCompositionInstructionProtocol {
    public var enablePostProcessing: Bool { false }
    public var containsTweening: Bool { true }
    public var requiredSourceTrackIDs: [Int32]? { nil }
    public var passthroughTrackID: Int32? { nil }
    public var requiredSourceSampleDataTrackIDs: [Int32] { [] }
    public var requiredSourceCaptionTrackIDs: [Int32] { [] }
}
