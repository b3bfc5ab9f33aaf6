import ReelComposition
import ReelCore

/// Runs a compositor through the contract of DESIGN.md (rules 1 to 7, and determinism)
/// and throws a ``ContractViolation`` naming the first rule it breaks and the request
/// (composition time, instruction) that showed it, like swift-nio's
/// `ByteToMessageDecoderVerifier` does for decoders.
///
/// ```swift
/// let verifier = CompositorVerifier(instructions: [DashboardInstruction(timeRange: range, gpsTrackID: 2)]) {
///     DashboardCompositor()
/// }
/// let report = try await verifier.verify()
/// ```
///
/// Each check uses a new compositor from `makeCompositor` and a ``CompositorHarness``:
/// - requests one at a time, each must be composed exactly once (rule 4), and the same
///   again, on the same and on a new compositor, must give the same pixels (determinism);
/// - all requests in flight at once, started newest first and finished in any order, must
///   give the pixels they gave alone (rule 5);
/// - a required video track with no frame must still give a frame (rule 3);
/// - for instructions that ask for metadata: swapping each request's group for another
///   must change the output somewhere (rule 1: the compositor uses what it is given), no
///   group (nil) must still give a frame, and a request without a group must not show an
///   earlier request's group (rule 2);
/// - a render-context change (size, and format when the compositor offers two) must be
///   followed, and switching back must give the first pixels again (rule 7);
/// - cancelling with every request in flight must return, leaving none pending (rule 6);
/// - playback: a seek cancels the request in flight and starts the seek's target; the
///   cancel must return, the cancelled request must not be finished again later (a render
///   that ran on after it was cancelled), and the target must give its pixels.
///
/// Source frames are ``SyntheticFrame`` counters (background colour per track, counter =
/// request index) unless `makeSourceFrame` says otherwise; metadata tracks without groups
/// of their own get synthetic GPS groups, a different fix for each request time.
public struct CompositorVerifier: Sendable {
    /// What the verifier checked, when nothing was broken.
    public struct Report: Sendable, CustomStringConvertible {
        /// The rules checked.
        public var checkedRules: [ContractRule]
        /// Rules not checked, and why.
        public var skippedRules: [(rule: ContractRule, reason: String)]
        /// How many requests the compositor composed in all.
        public var requestCount: Int

        public var description: String {
            var s = "checked \(checkedRules.map(\.name).joined(separator: ", ")) "
            s += "over \(requestCount) requests"
            for (rule, reason) in skippedRules { s += "; skipped \(rule): \(reason)" }
            return s
        }
    }

    /// Makes the source frame of video track `trackID` for request number `index` at `time`,
    /// in `format` and size.
    public typealias SourceFrameMaker =
        @Sendable (
            _ trackID: Int32, _ index: Int, _ time: MediaTime,
            _ format: PixelFormat, _ width: Int, _ height: Int
        ) -> PixelBuffer

    /// The instructions to check; each request uses the first whose time range holds its time.
    public var instructions: [any VideoCompositionInstructionProtocol]
    /// Groups by metadata track ID, in composition time.
    public var metadata: [Int32: [TimedMetadataGroup]]
    /// The video tracks of instructions whose `requiredSourceTrackIDs` is nil (every track).
    public var videoTrackIDs: [Int32]
    /// The composition times to request; by default four per instruction, evenly spread.
    public var times: [MediaTime]?
    /// The render context's width in pixels.
    public var renderWidth: Int
    /// The render context's height in pixels.
    public var renderHeight: Int
    /// How long to wait for a request or a cancel before calling it a hang.
    public var timeLimit: Duration
    /// Whether swapping metadata groups must change the output (rule 1); turn off for a
    /// compositor that uses metadata only in ways invisible to the verifier's groups.
    public var metadataMustAffectOutput: Bool
    /// Makes the source frames; by default ``counterFrame``.
    public var makeSourceFrame: SourceFrameMaker
    /// Makes a new compositor, once for each check.
    public var makeCompositor: @Sendable () -> any VideoCompositing

    /// A verifier of the compositors `makeCompositor` makes, over `instructions`.
    public init(
        instructions: [any VideoCompositionInstructionProtocol], metadata: [Int32: [TimedMetadataGroup]] = [:],
        videoTrackIDs: [Int32] = [1], times: [MediaTime]? = nil, renderWidth: Int = 64, renderHeight: Int = 36,
        timeLimit: Duration = .seconds(10), metadataMustAffectOutput: Bool = true,
        makeSourceFrame: @escaping SourceFrameMaker = CompositorVerifier.counterFrame,
        makeCompositor: @escaping @Sendable () -> any VideoCompositing
    ) {
        self.instructions = instructions
        self.metadata = metadata
        self.videoTrackIDs = videoTrackIDs
        self.times = times
        self.renderWidth = renderWidth
        self.renderHeight = renderHeight
        self.timeLimit = timeLimit
        self.metadataMustAffectOutput = metadataMustAffectOutput
        self.makeSourceFrame = makeSourceFrame
        self.makeCompositor = makeCompositor
    }

    /// The default source frame: a counter showing `index` over a colour for the track.
    public static let counterFrame: SourceFrameMaker = { trackID, index, _, format, width, height in
        let hue = Double(Int(trackID.magnitude) % 6) / 6
        let background = Color(red: 0.3 + 0.5 * hue, green: 0.8 - 0.5 * hue, blue: 0.5)
        let layout = CounterLayout.standard(width: width, height: height)
        return SyntheticFrame.make(
            .solid(background), width: width, height: height, format: format,
            counter: index % (layout.maximumValue + 1))
    }

    // MARK: Plan

    /// One request to make: time, instruction, sources.
    struct Point {
        var index: Int
        var time: MediaTime
        var instruction: any VideoCompositionInstructionProtocol
        var videoTracks: [Int32]
        var metadataTracks: [Int32]
        var describe: String { CompositorHarness.describe(instruction) }
    }

    func plan() throws(ContractViolation) -> (points: [Point], metadata: [Int32: [TimedMetadataGroup]]) {
        guard !instructions.isEmpty else {
            throw ContractViolation(rule: .renderContext, message: "the verifier was given no instructions")
        }
        var requested: [MediaTime] = times ?? []
        if times == nil {
            for instruction in instructions where instruction.timeRange.isValid && instruction.timeRange.duration > .zero {
                for k in 0..<4 {
                    requested.append(instruction.timeRange.start + instruction.timeRange.duration.multiplied(byRatio: Int32(k), 4))
                }
            }
        }
        var points: [Point] = []
        for time in requested.sorted() {
            guard let instruction = instructions.first(where: { $0.timeRange.containsTime(time) }) else { continue }
            points.append(
                Point(
                    index: points.count, time: time, instruction: instruction,
                    videoTracks: instruction.requiredSourceTrackIDs ?? videoTrackIDs,
                    metadataTracks: instruction.requiredSourceSampleDataTrackIDs))
        }
        guard !points.isEmpty else {
            throw ContractViolation(rule: .renderContext, message: "no requested time falls inside an instruction's time range")
        }
        // Synthetic GPS for metadata tracks the caller gave no groups for: one group per
        // request time, each a different fix, tiling [first time, last instruction end).
        var groups = metadata
        let end = instructions.map(\.timeRange.end).max() ?? points[points.count - 1].time
        for id in Set(points.flatMap(\.metadataTracks)) where groups[id] == nil {
            var samples: [GPSSample] = []
            for p in points where samples.last.map({ $0.time < p.time }) ?? true {
                let i = Double(samples.count)
                samples.append(
                    GPSSample(
                        time: p.time,
                        fix: GPSFix(
                            latitude: 46.5 + 0.01 * i, longitude: 6.6 - 0.02 * i,
                            altitude: 400 + 10 * i, speed2D: 2 + 3 * i, course: 30 * i)))
            }
            let last = samples[samples.count - 1].time
            groups[id] = (try? SyntheticMetadata.gpsGroups(samples, lastDuration: end > last ? end - last : nil)) ?? []
        }
        return (points, groups)
    }

    // MARK: Running

    /// Runs every check. Returns what was checked; throws the first violation.
    public func verify() async throws(ContractViolation) -> Report {
        let (points, groups) = try plan()
        var run = Run(verifier: self, points: points, groups: groups)
        try await run.all()
        return Report(checkedRules: run.checked, skippedRules: run.skipped, requestCount: run.requestCount)
    }
}
