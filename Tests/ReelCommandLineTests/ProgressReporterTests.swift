import Foundation
import Testing

@testable import ReelCommandLine

@Suite("ProgressReporter")
struct ProgressReporterTests {
    @Test("finish returns only once the watcher has shown every update")
    func finishWaitsForTheWatcher() async {
        let reporter = ProgressReporter(totalFrames: 10, isTerminal: false)
        let (updates, continuation) = AsyncStream.makeStream(of: Double.self)
        reporter.watch(updates)
        continuation.yield(0.5)
        continuation.yield(1)
        continuation.finish()
        await reporter.finish()
        #expect(reporter.shownFrames == 10)
    }

    @Test("finish(cancelling:) stops a watcher whose updates never end")
    func finishCancels() async {
        let reporter = ProgressReporter(totalFrames: 10, isTerminal: false)
        let (updates, continuation) = AsyncStream.makeStream(of: Double.self)
        reporter.watch(updates)
        await reporter.finish(cancelling: true)
        continuation.yield(1)
        #expect(reporter.shownFrames == -1)
    }

    @Test("nothing is shown before the first frame")
    func nothingBeforeTheFirstFrame() async {
        let reporter = ProgressReporter(totalFrames: 10, isTerminal: false)
        reporter.update(0)
        #expect(reporter.shownFrames == -1)
        reporter.update(0.5)
        #expect(reporter.shownFrames == 5)
    }

    @Test("the plain line for logs")
    func line() {
        let reporter = ProgressReporter(totalFrames: 100, isTerminal: false)
        #expect(reporter.line(frames: 50, elapsed: 5) == "reel: rendered 50/100 frames (50%), 10.0 fps, ETA 0:05\n")
        #expect(ProgressReporter.clock(3725) == "1:02:05")
    }
}
