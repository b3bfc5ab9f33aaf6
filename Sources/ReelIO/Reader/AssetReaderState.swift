import ReelCore

/// The life of one ``AssetReader`` as a plain state machine, kept behind the reader's lock.
/// Each transition decides under the lock and returns what the caller must do once the
/// lock is released, so two callers can never both act on one check.
struct AssetReaderState {
    private(set) var status: AssetReader.Status = .unknown
    private(set) var error: ReelError?
    private(set) var timeRange = TimeRange(start: .zero, duration: .positiveInfinity)
    private(set) var outputs: [AssetReaderTrackOutput] = []
    /// Outputs that read through readers of their own (an audio mix).
    private(set) var compositeOutputs: [any AssetReaderCompositeOutput] = []
    /// `startReading()` is making the read loops: the reader is no longer `.unknown`.
    private var starting = false
    private var running = 0

    /// Whether a read loop is still running.
    var isRunning: Bool { running > 0 || starting }

    /// Whether outputs and the time range may still change.
    var isConfigurable: Bool { status == .unknown && !starting }

    mutating func setTimeRange(_ range: TimeRange) {
        if isConfigurable { timeRange = range }
    }

    /// Adds `output`; false once the reader has started.
    mutating func add(_ output: AssetReaderTrackOutput) -> Bool {
        guard isConfigurable else { return false }
        outputs.append(output)
        return true
    }

    /// Adds a composite output; false once the reader has started.
    mutating func add(composite output: any AssetReaderCompositeOutput) -> Bool {
        guard isConfigurable else { return false }
        compositeOutputs.append(output)
        return true
    }

    /// What `startReading()` does.
    enum StartAction {
        /// Make the read loops of these outputs over this range; only one caller gets it.
        case start([AssetReaderTrackOutput], [any AssetReaderCompositeOutput], TimeRange)
        /// Refuse, saying why.
        case refuse(String)
    }

    mutating func startReading() -> StartAction {
        guard isConfigurable else { return .refuse("startReading() was already called") }
        guard !outputs.isEmpty || !compositeOutputs.isEmpty else { return .refuse("add an output before startReading()") }
        guard timeRange.isValid else { return .refuse("the time range \(timeRange) is not valid") }
        starting = true
        return .start(outputs, compositeOutputs, timeRange)
    }

    /// The read loops could not be made.
    mutating func startFailed(_ failure: ReelError) {
        starting = false
        if status == .unknown {
            status = .failed
            error = failure
        }
    }

    /// `count` read loops are made and about to run. False when ``cancel()`` came while
    /// they were being made: the caller cancels their queues.
    mutating func started(count: Int) -> Bool {
        starting = false
        running = count
        guard status == .unknown else { return false }
        status = .reading
        return true
    }

    /// One read loop ended, with `failure` if it failed.
    mutating func loopFinished(_ failure: ReelError?) {
        running -= 1
        guard status == .reading else { return }
        if let failure {
            status = .failed
            error = failure
        } else if running == 0 {
            status = .completed
        }
    }

    /// Stops reading; returns the outputs the caller cancels.
    mutating func cancel() -> ([AssetReaderTrackOutput], [any AssetReaderCompositeOutput]) {
        if status == .reading || status == .unknown { status = .cancelled }
        return (outputs, compositeOutputs)
    }
}
