import ReelCore

/// The life of one ``AssetWriter`` as a plain state machine, kept behind the writer's
/// lock. Each transition decides under the lock and returns what the caller must do once
/// the lock is released (start the thread, end or cancel the queue, move the file into
/// place, resume waiters), so two callers can never both act on one check.
///
/// ```
/// configuring --startWriting--> starting --> writing --finishWriting--> finishing
///                                   |           |                          | trailer written
///                                   v           v                          v
///                                 failed     failed, cancelled          moving --> completed | failed
/// ```
/// A cancel wins over a finish until the writer thread has written the trailer and
/// commits to moving the file into place; from then on the finish has won.
struct AssetWriterState {
    typealias Finisher = CheckedContinuation<ReelError?, Never>
    typealias Waiter = CheckedContinuation<Void, Never>

    private enum Phase {
        case configuring
        /// `startWriting()` is opening the encoders and the file.
        case starting
        case writing(BoundedQueue<WriterCommand>)
        /// `finishWriting()` ended the queue; the thread drains it and writes the trailer.
        case finishing(BoundedQueue<WriterCommand>)
        /// The thread is moving the finished file into place: a cancel comes too late.
        case moving
        case completed
        case failed(ReelError)
        case cancelled
    }

    /// The output path, named by the errors.
    let path: String
    private var phase = Phase.configuring
    private(set) var inputs: [AssetWriterInput] = []
    private(set) var sessionStart: MediaTime = .invalid
    private(set) var optimizeForNetworkUse = true
    private(set) var movieTimescale: Int32?
    private(set) var metadata: [MetadataItem] = []
    private(set) var chapters: [TimedMetadataGroup] = []
    /// Whether `startWriting()` is at work, even after a cancel came.
    private var starting = false
    private var threadRunning = false
    /// The `finishWriting()` call waiting for the thread's outcome.
    private var finisher: Finisher?
    /// Cancels waiting for the thread (and a start) to end.
    private var idleWaiters: [Waiter] = []

    init(path: String) { self.path = path }

    var status: AssetWriter.Status {
        switch phase {
        case .configuring, .starting: .unknown
        case .writing, .finishing, .moving: .writing
        case .completed: .completed
        case .failed: .failed
        case .cancelled: .cancelled
        }
    }

    var error: ReelError? {
        if case .failed(let error) = phase { return error }
        return nil
    }

    /// No start is at work and no writer thread runs.
    var isIdle: Bool { !starting && !threadRunning }

    var cancelledError: ReelError { ReelError(.cancelled, "the writer was cancelled", path: path) }

    // MARK: Configuring

    private var isConfigurable: Bool {
        if case .configuring = phase { return true }
        return false
    }

    /// Adds `input`; its index, or nil once the writer has started.
    mutating func add(_ input: AssetWriterInput) -> Int? {
        guard isConfigurable else { return nil }
        inputs.append(input)
        return inputs.count - 1
    }

    mutating func setMetadata(_ items: [MetadataItem]) {
        if isConfigurable { metadata = items }
    }

    mutating func setChapters(_ groups: [TimedMetadataGroup]) {
        if isConfigurable { chapters = groups }
    }

    mutating func setOptimizeForNetworkUse(_ on: Bool) {
        if isConfigurable { optimizeForNetworkUse = on }
    }

    mutating func setMovieTimescale(_ timescale: Int32?) {
        if isConfigurable { movieTimescale = timescale.flatMap { $0 > 0 ? $0 : nil } }
    }

    mutating func startSession(at time: MediaTime) {
        if !sessionStart.isValid { sessionStart = time }
    }

    // MARK: Starting

    /// Moves to `.starting`; only one caller gets past this.
    mutating func beginStart() throws(ReelError) {
        switch phase {
        case .configuring: break
        case .cancelled: throw cancelledError
        default: throw ReelError(.writerState, "startWriting() was already called", path: path)
        }
        guard !inputs.isEmpty else { throw ReelError(.writerState, "add an input before startWriting()", path: path) }
        phase = .starting
        starting = true
    }

    /// The encoders or the file could not be opened; hands back the waiters to resume.
    mutating func startFailed(_ failure: ReelError) -> [Waiter] {
        starting = false
        if case .starting = phase { phase = .failed(failure) }
        return takeIdleWaiters()
    }

    /// What `startWriting()` does once the file is open.
    enum StartedAction {
        /// Start the writer thread on `queue`.
        case run
        /// A cancel came meanwhile: remove the file, resume these waiters, throw.
        case discard([Waiter])
    }

    mutating func started(queue: BoundedQueue<WriterCommand>) -> StartedAction {
        starting = false
        guard case .starting = phase else { return .discard(takeIdleWaiters()) }
        phase = .writing(queue)
        threadRunning = true
        return .run
    }

    // MARK: Appending

    /// Why an append is refused now, or nil while writing.
    private var appendRefusal: ReelError? {
        switch phase {
        case .writing: nil
        case .configuring, .starting: ReelError(.writerState, "call startWriting() before appending", path: path)
        case .finishing, .moving, .completed: ReelError(.writerState, "cannot append after finishWriting()", path: path)
        case .failed(let error): error
        case .cancelled: cancelledError
        }
    }

    /// The queue to append to and the session start; throws unless the writer is writing
    /// and its session started.
    func accepting() throws(ReelError) -> (BoundedQueue<WriterCommand>, MediaTime) {
        if let appendRefusal { throw appendRefusal }
        guard case .writing(let queue) = phase, sessionStart.isNumeric else {
            throw ReelError(.writerState, "call startSession(atSourceTime:) before appending", path: path)
        }
        return (queue, sessionStart)
    }

    /// Why an append that the queue refused failed: the writer's own reason when it has
    /// one, else `error`.
    func explain(_ error: ReelError) -> ReelError { appendRefusal ?? error }

    var hasRoom: Bool {
        if case .writing(let queue) = phase { return queue.hasRoom }
        return false
    }

    // MARK: Finishing

    /// Records the `finishWriting()` call waiting for the outcome; returns the queue the
    /// caller ends, or throws why the writer cannot finish.
    mutating func finish(_ waiter: Finisher) throws(ReelError) -> BoundedQueue<WriterCommand> {
        switch phase {
        case .writing(let queue):
            phase = .finishing(queue)
            finisher = waiter
            return queue
        case .configuring, .starting: throw ReelError(.writerState, "finishWriting() before startWriting()", path: path)
        case .finishing, .moving, .completed: throw ReelError(.writerState, "finishWriting() was already called", path: path)
        case .failed(let error): throw error
        case .cancelled: throw cancelledError
        }
    }

    /// The thread wrote the trailer: true when it is to move the file into place (the
    /// finish has won), false when a cancel or a failure came first.
    mutating func commit() -> Bool {
        guard case .finishing = phase else { return false }
        phase = .moving
        return true
    }

    /// The file was moved into place, or not (`failure`).
    mutating func moved(_ failure: ReelError?) {
        guard case .moving = phase else { return }
        phase = failure.map { .failed($0) } ?? .completed
    }

    // MARK: Failing and cancelling

    /// The writer failed with `failure`; returns the queue the caller cancels.
    mutating func fail(_ failure: ReelError) -> BoundedQueue<WriterCommand>? {
        switch phase {
        case .writing(let queue), .finishing(let queue):
            phase = .failed(failure)
            return queue
        case .moving:
            phase = .failed(failure)
            return nil
        default:
            return nil
        }
    }

    /// Cancels unless the writer has already ended or the finish has won; returns the
    /// queue the caller cancels.
    mutating func cancel() -> BoundedQueue<WriterCommand>? {
        switch phase {
        case .configuring, .starting:
            phase = .cancelled
            return nil
        case .writing(let queue), .finishing(let queue):
            phase = .cancelled
            return queue
        case .moving, .completed, .failed, .cancelled:
            return nil
        }
    }

    /// Keeps `waiter` until the writer is idle; false when it is already.
    mutating func parkUntilIdle(_ waiter: Waiter) -> Bool {
        guard !isIdle else { return false }
        idleWaiters.append(waiter)
        return true
    }

    /// What the writer thread does as it ends: resume the finisher with the outcome, then
    /// the waiters.
    struct Ended {
        let finisher: Finisher?
        let outcome: ReelError?
        let waiters: [Waiter]
    }

    /// The writer thread has ended (its file removed or moved into place).
    mutating func threadEnded() -> Ended {
        threadRunning = false
        let outcome: ReelError?
        switch phase {
        case .completed: outcome = nil
        case .failed(let error): outcome = error
        case .cancelled: outcome = cancelledError
        case .configuring, .starting, .writing, .finishing, .moving:
            let error = ReelError(.internalError, "the writer thread ended while the writer was \(status)", path: path)
            phase = .failed(error)
            outcome = error
        }
        defer { finisher = nil }
        return Ended(finisher: finisher, outcome: outcome, waiters: takeIdleWaiters())
    }

    private mutating func takeIdleWaiters() -> [Waiter] {
        guard isIdle else { return [] }
        defer { idleWaiters.removeAll() }
        return idleWaiters
    }
}
