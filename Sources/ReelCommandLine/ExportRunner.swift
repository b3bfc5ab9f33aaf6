import Foundation
import Reel

/// How `reel render` and `reel join` run an export: Ctrl-C (or SIGTERM, which is how
/// schedulers stop a job) cancels it cleanly while the runner is installed, progress is
/// shown on a terminal, and a failure is one line with the matching exit status.
final class ExportRunner: Sendable {
    private let current = Lock<AssetExportSession?>(nil)
    private let interrupts: InterruptHandler

    init() {
        let current = self.current
        interrupts = InterruptHandler { current.withLock { $0 }?.cancelExport() }
    }

    /// Restores the default signal handling.
    func remove() { interrupts.remove() }

    /// Ends the command (exit 130) when a signal arrived before the export started.
    func checkInterrupted() throws {
        if interrupts.wasInterrupted {
            CLIOutput.line("interrupted: nothing was written")
            throw ExitStatus.interrupted
        }
    }

    /// Runs `session` into `url` (shown as `shown`); returns the seconds it took.
    func run(_ session: AssetExportSession, to url: URL, as fileType: AssetWriter.FileType, shown: String, frameCount: Int) async throws -> Double {
        let progress = ProgressReporter(totalFrames: frameCount)
        current.withLock { $0 = session }
        try checkInterrupted()
        progress.watch(session.progressUpdates())
        do {
            try await session.export(to: url, as: fileType)
            await progress.finish()
        } catch {
            await progress.finish(cancelling: true)
            if error.code == .cancelled || interrupts.wasInterrupted {
                CLIOutput.line("interrupted: the render was cancelled and \(shown) was not written")
                throw ExitStatus.interrupted
            }
            var shownError = error
            if shownError.path == url.path { shownError.path = shown }
            CLIOutput.line(shownError)
            throw ExitStatus.failure
        }
        return progress.elapsed
    }

    /// The line `reel render` ends with.
    static func summary(wrote shown: String, frames: Int, seconds: Double) -> String {
        "wrote \(shown): \(frames) frames in \(String(format: "%.1f", seconds)) s (\(String(format: "%.1f", seconds > 0 ? Double(frames) / seconds : 0)) fps)"
    }
}
