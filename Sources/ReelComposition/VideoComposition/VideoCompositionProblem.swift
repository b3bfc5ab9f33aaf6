/// One thing wrong with a video composition for a given composition, found by
/// ``VideoComposition/validate(for:timeRange:)``: what, where (instruction index, field,
/// track, time) and why, in words.
///
/// `description` is one sentence naming the field and the times, for example
/// `instructions[2].timeRange starts at 4 s but instructions[1] ends at 3.5 s (a gap of 0.5 s)`.
public struct VideoCompositionProblem: Sendable, Hashable, CustomStringConvertible {
    /// What is wrong, as one of a fixed set of kinds.
    public enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
        /// The render size is zero, negative, not finite or too large.
        case badRenderSize
        /// The render scale is zero, negative or not finite.
        case badRenderScale
        /// The frame duration is not a positive finite time.
        case badFrameDuration
        /// There are no instructions for a composition that has a duration.
        case noInstructions
        /// An instruction's time range is invalid, infinite or negative.
        case invalidTimeRange
        /// An instruction's time range is empty.
        case emptyTimeRange
        /// An instruction starts after the previous one ends.
        case gap
        /// An instruction starts before the previous one ends.
        case overlap
        /// The instructions begin after the checked range begins, or end before it ends.
        case notCovered
        /// A track ID names no track of the composition.
        case unknownTrack
        /// A track ID names a track of the wrong kind for where it is used (an audio track as
        /// a video layer; a video track as sample data).
        case wrongTrackType
        /// A metadata track is in one of the two sample-data lists but not the other, so it
        /// would never reach the compositor.
        case sampleDataTrackInOneListOnly
        /// A layer instruction's ramps are invalid or overlap.
        case invalidRamp
    }

    /// What is wrong.
    public var kind: Kind
    /// The index of the instruction at fault, when one is.
    public var instructionIndex: Int?
    /// The field at fault, as a path: `instructions[2].timeRange`, `renderSize`.
    public var field: String
    /// The track concerned, if any.
    public var trackID: Int32?
    /// The time concerned, if any.
    public var time: MediaTime?
    /// The whole problem in one sentence, starting with the field.
    public var message: String

    /// A problem of `kind` in `field`, described by `message`.
    public init(
        kind: Kind, instructionIndex: Int? = nil, field: String, trackID: Int32? = nil,
        time: MediaTime? = nil, message: String
    ) {
        self.kind = kind
        self.instructionIndex = instructionIndex
        self.field = field
        self.trackID = trackID
        self.time = time
        self.message = message
    }

    public var description: String { message }
}
