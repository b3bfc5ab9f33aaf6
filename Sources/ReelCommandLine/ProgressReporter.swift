import Foundation

/// Shows how a render is going: on a terminal a bar redrawn in place (frames, fps, ETA);
/// otherwise a plain line every few seconds, for logs.
final class ProgressReporter: @unchecked Sendable {
    // @unchecked: `lastPrint` and `lastFrames` are touched by one task at a time: the
    // watcher while it runs, then the caller of `finish`, which waits for the watcher to end
    // first. `watcher` is touched only by the caller of `watch` and `finish`.
    let totalFrames: Int
    let isTerminal: Bool
    private let started = Date()
    private var lastPrint = Date.distantPast
    private var lastFrames = -1
    private var watcher: Task<Void, Never>?

    init(totalFrames: Int, isTerminal: Bool = CLIOutput.standardErrorIsTerminal) {
        self.totalFrames = max(totalFrames, 1)
        self.isTerminal = isTerminal
    }

    /// Reports `progress` (0...1 of the range).
    func update(_ progress: Double) {
        let frames = min(Int((progress * Double(totalFrames)).rounded()), totalFrames)
        let now = Date()
        let interval = isTerminal ? 0.2 : 2.0
        // Nothing is shown before the first frame: a render refused while it is planned
        // prints its one error line alone.
        guard frames > 0, frames != lastFrames, now.timeIntervalSince(lastPrint) >= interval || frames == totalFrames else { return }
        lastPrint = now
        lastFrames = frames
        write(line(frames: frames, elapsed: now.timeIntervalSince(started)))
    }

    /// Shows `updates` (0...1 of the range) as they come, on a task of its own, until they
    /// end or ``finish(cancelling:)``.
    func watch(_ updates: AsyncStream<Double>) {
        watcher = Task { [self] in
            for await progress in updates { update(progress) }
        }
    }

    /// The frames the display last showed; -1 before the first.
    var shownFrames: Int { lastFrames }

    /// Ends the display: waits until the watcher has shown its last update (`cancelling`
    /// stops it first, for a render that failed), then ends the bar with a newline on a
    /// terminal.
    func finish(cancelling: Bool = false) async {
        if cancelling { watcher?.cancel() }
        await watcher?.value
        watcher = nil
        if isTerminal, lastFrames >= 0 { CLIOutput.error("\n") }
    }

    /// Seconds since the render started.
    var elapsed: TimeInterval { Date().timeIntervalSince(started) }

    func line(frames: Int, elapsed: TimeInterval) -> String {
        let fps = elapsed > 0 ? Double(frames) / elapsed : 0
        let remaining = fps > 0 ? Double(totalFrames - frames) / fps : 0
        let eta = fps > 0 ? Self.clock(remaining) : "--:--"
        let percent = Int((Double(frames) / Double(totalFrames) * 100).rounded(.down))
        if isTerminal {
            let width = 30
            let filled = min(width, frames * width / totalFrames)
            let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
            return "\r[\(bar)] \(frames)/\(totalFrames) frames \(String(format: "%.1f", fps)) fps ETA \(eta) "
        }
        return "reel: rendered \(frames)/\(totalFrames) frames (\(percent)%), \(String(format: "%.1f", fps)) fps, ETA \(eta)\n"
    }

    private func write(_ text: String) {
        CLIOutput.error(text)
    }

    /// `m:ss`, or `h:mm:ss` past an hour.
    static func clock(_ seconds: Double) -> String {
        let s = Int(seconds.rounded())
        return s >= 3600 ? String(format: "%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60) : String(format: "%d:%02d", s / 60, s % 60)
    }
}
