import ReelCore

/// The rules of the compositor contract (DESIGN.md, "The contract users rely on") that
/// ``CompositorVerifier`` checks, plus determinism.
public enum ContractRule: Int, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Rule 1: metadata reaches the compositor for the tracks both lists name, and a
    /// compositor that asks for metadata uses what it is given.
    case metadataDelivery = 1
    /// Rule 2: `sourceTimedMetadata(byTrackID:)` is the group holding the time, or nil;
    /// nil must be handled, and no earlier group carries forward.
    case metadataAtTime = 2
    /// Rule 3: `sourceFrame(byTrackID:)` is nil for a track with no frame at the time.
    case missingSourceFrame = 3
    /// Rule 4: every request is finished exactly once, with a frame.
    case finishExactlyOnce = 4
    /// Rule 5: requests are in flight concurrently and may be started and finished in any order.
    case concurrentRequests = 5
    /// Rule 6: `cancelAllPendingVideoCompositionRequests` returns only when every pending
    /// request is finished or cancelled.
    case cancellation = 6
    /// Rule 7: pixel-buffer attributes list formats; `renderContextChanged` comes before the
    /// first request and on every change; frames come in the current context's size and format.
    case renderContext = 7
    /// Rule 8: a passthrough instruction bypasses the compositor.
    case passthrough = 8
    /// The same request gives the same pixels, every time (DESIGN.md, render engine:
    /// deterministic).
    case determinism = 100
    /// During playback a seek cancels the request in flight
    /// (`cancelAllPendingVideoCompositionRequests`) and asks for the seek's target: the
    /// cancel must return without blocking, the cancelled request must not be finished again
    /// afterwards, and the target must compose as it does alone.
    case playback = 101

    /// `rule 4 (every request is finished exactly once, with a frame)`.
    public var description: String {
        return "\(name) (\(title))"
    }

    /// `rule 4`, `determinism` or `playback`.
    public var name: String {
        switch self {
        case .determinism: "determinism"
        case .playback: "playback"
        default: "rule \(rawValue)"
        }
    }

    /// What the rule asks, in a line: `every request is finished exactly once, with a frame`.
    public var title: String {
        switch self {
        case .metadataDelivery: "metadata reaches the compositor and is used"
        case .metadataAtTime: "sourceTimedMetadata is the group holding the time or nil, nothing carries forward"
        case .missingSourceFrame: "sourceFrame is nil for a track with no frame at that time"
        case .finishExactlyOnce: "every request is finished exactly once, with a frame"
        case .concurrentRequests: "requests are in flight concurrently and finish in any order"
        case .cancellation: "cancelAllPendingVideoCompositionRequests returns only when every pending request is finished or cancelled"
        case .renderContext: "render context changes are followed; frames match the current context"
        case .passthrough: "a passthrough instruction bypasses the compositor"
        case .determinism: "the same request gives the same pixels"
        case .playback: "a seek's cancel returns, the cancelled request is not finished again, the seek's target composes"
        }
    }
}

/// A broken contract rule, found by ``CompositorVerifier``: which rule, which request
/// (composition time and instruction), and what happened.
public struct ContractViolation: Error, Sendable, CustomStringConvertible {
    /// The rule broken.
    public var rule: ContractRule
    /// The composition time of the request concerned, when one is.
    public var compositionTime: MediaTime?
    /// The instruction of that request: its type and time range.
    public var instruction: String?
    /// What the verifier did and saw.
    public var message: String

    /// A violation of `rule`, by the request at `compositionTime` with `instruction` when one is concerned.
    public init(rule: ContractRule, compositionTime: MediaTime? = nil, instruction: String? = nil, message: String) {
        self.rule = rule
        self.compositionTime = compositionTime
        self.instruction = instruction
        self.message = message
    }

    /// For example `rule 4 (every request is finished exactly once, with a frame) broken by
    /// the request at 0.5 s (instruction DimInstruction [0/1, 2/1)): finished 2 times`.
    public var description: String {
        var s = "\(rule) broken"
        if let compositionTime {
            s += " by the request at \(compositionTime.secondsDescription)"
            if let instruction { s += " (instruction \(instruction))" }
        }
        return s + ": " + message
    }
}
