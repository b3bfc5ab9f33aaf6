import Foundation
import ReelCore
import ReelTestSupport
import Testing

@testable import ReelIO

/// The writer's life: the state machine's transitions alone, then the writer raced from
/// many threads and tasks, checked for its invariants.
@Suite("AssetWriter state")
struct AssetWriterStateTests {
    static func code(_ error: any Error) -> ReelError.Code? { (error as? ReelError)?.code }

    static func writingState() throws -> (AssetWriterState, BoundedQueue<WriterCommand>) {
        var state = AssetWriterState(path: "/tmp/out.mp4")
        let index = state.add(AssetWriterInput(settings: .metadata(format: .gpmd)))
        #expect(index == 0)
        try state.beginStart()
        let queue = BoundedQueue<WriterCommand>(capacity: 1)
        guard case .run = state.started(queue: queue) else {
            Issue.record("the start was discarded")
            return (state, queue)
        }
        return (state, queue)
    }

    @Test("only one start gets past beginStart; a later one throws")
    func oneStart() throws {
        var state = AssetWriterState(path: "/tmp/out.mp4")
        do throws(ReelError) {
            try state.beginStart()
            Issue.record("a start without inputs got past beginStart")
        } catch {
            #expect(error.code == .writerState)
        }
        _ = state.add(AssetWriterInput(settings: .metadata(format: .gpmd)))
        try state.beginStart()
        #expect(state.status == .unknown)
        let late = state.add(AssetWriterInput(settings: .metadata(format: .gpmd)))
        #expect(late == nil)
        do throws(ReelError) {
            try state.beginStart()
            Issue.record("a second start got past beginStart")
        } catch {
            #expect(error.code == .writerState)
        }
    }

    @Test("a cancel during the start discards what the start opened")
    func cancelWhileStarting() throws {
        var state = AssetWriterState(path: "/tmp/out.mp4")
        _ = state.add(AssetWriterInput(settings: .metadata(format: .gpmd)))
        try state.beginStart()
        let stopped = state.cancel()
        #expect(stopped == nil)
        #expect(state.status == .cancelled)
        #expect(!state.isIdle)
        guard case .discard = state.started(queue: BoundedQueue(capacity: 1)) else {
            Issue.record("a cancelled start ran")
            return
        }
        #expect(state.isIdle)
        #expect(state.status == .cancelled)
    }

    @Test("a cancel before the commit wins; after it, the finish has won")
    func commitDecides() throws {
        var (state, queue) = try Self.writingState()
        let stopped = state.cancel()
        #expect(stopped === queue)
        let committed = state.commit()
        #expect(!committed)
        let ended = state.threadEnded()
        #expect(ended.outcome?.code == .cancelled)
        #expect(state.status == .cancelled)

        var (failing, _) = try Self.writingState()
        let failed = failing.fail(ReelError(.encoderFailed, "x"))
        #expect(failed != nil)
        let failedCommit = failing.commit()
        #expect(!failedCommit)
        let lateCancel = failing.cancel()
        #expect(lateCancel == nil)
        #expect(failing.status == .failed)
    }

    // MARK: The writer raced

    /// Runs `body(i)` for every `i` in `0..<count` on threads of their own, all let go at
    /// once, and returns their results in order.
    static func onThreads<T: Sendable>(_ count: Int, _ body: @escaping @Sendable (Int) -> T) async -> [T] {
        let gate = Lock(0)
        return await withTaskGroup(of: (Int, T).self) { group in
            for i in 0..<count {
                group.addTask {
                    let value = try? await onDedicatedThread(named: "test.racer") { () -> T in
                        gate.withLock { $0 += 1 }
                        gate.withLock(when: { $0 == count }) { _ in }
                        return body(i)
                    }
                    guard let value else { preconditionFailure("the body does not throw") }
                    return (i, value)
                }
            }
            var results: [(Int, T)] = []
            for await result in group { results.append(result) }
            return results.sorted { $0.0 < $1.0 }.map(\.1)
        }
    }

    @Test("concurrent startWriting calls start one writer; the others throw")
    func concurrentStarts() async throws {
        let folder = try TestFiles.scratchFolder()
        let writer = try AssetWriter(outputURL: folder.appendingPathComponent("out.mp4"), fileType: .mp4)
        try writer.add(AssetWriterErrorTests.videoInput())
        let outcomes = await Self.onThreads(8) { _ -> ReelError.Code? in
            do throws(ReelError) {
                try writer.startWriting()
                return nil
            } catch {
                return error.code
            }
        }
        #expect(outcomes.filter { $0 == nil }.count == 1)
        #expect(outcomes.compactMap { $0 } == Array(repeating: .writerState, count: 7))
        #expect(writer.status == .writing)
        // One writer thread, one partial file.
        #expect(try AssetWriterErrorTests.names(in: folder).count == 1)
        await writer.cancel()
        #expect(try AssetWriterErrorTests.names(in: folder).isEmpty)
    }

    @Test("finishWriting racing cancels: exactly one wins, and the file and status agree", arguments: 0..<12)
    func finishRacesCancel(round: Int) async throws {
        let folder = try TestFiles.scratchFolder()
        let (writer, video) = try AssetWriterErrorTests.startedWriter(folder.appendingPathComponent("out.mp4"), fileType: .mp4)
        for i in 0..<(round % 4) * 3 + 1 {
            try await video.append(AssetWriterErrorTests.frame(), withPresentationTime: MediaTime(value: Int64(i), timescale: 30))
        }
        let finished = Task { () -> ReelError? in
            do throws(ReelError) {
                try await writer.finishWriting()
                return nil
            } catch {
                return error
            }
        }
        // Cancels from threads (blocking) and from tasks (suspending), all at once.
        async let blocking: [Void] = Self.onThreads(2) { _ in writer.cancelWriting() }
        async let suspending: Void = withTaskGroup(of: Void.self) { group in
            for _ in 0..<2 { group.addTask { await writer.cancel() } }
        }
        _ = await (blocking, suspending)
        let statusAfterCancels = writer.status
        let failure = await finished.value
        if let failure {
            #expect(failure.code == .cancelled)
            #expect(statusAfterCancels == .cancelled)
            #expect(writer.status == .cancelled)
            #expect(try AssetWriterErrorTests.names(in: folder).isEmpty)
        } else {
            #expect(statusAfterCancels == .completed)
            #expect(writer.status == .completed)
            #expect(try AssetWriterErrorTests.names(in: folder) == ["out.mp4"])
        }
    }

    @Test("cancels racing appends: every cancel returns with nothing written and the status cancelled")
    func cancelRacesAppends() async throws {
        let folder = try TestFiles.scratchFolder()
        let (writer, video) = try AssetWriterErrorTests.startedWriter(folder.appendingPathComponent("out.mov"), fileType: .mov)
        let appending = Task { () -> ReelError? in
            do throws(ReelError) {
                for i in 0..<10_000 {
                    try await video.append(AssetWriterErrorTests.frame(), withPresentationTime: MediaTime(value: Int64(i), timescale: 30))
                }
                return nil
            } catch {
                return error
            }
        }
        let _: [Void] = await Self.onThreads(4) { _ in writer.cancelWriting() }
        #expect(writer.status == .cancelled)
        #expect(try AssetWriterErrorTests.names(in: folder).isEmpty)
        let appendFailure = await appending.value
        #expect(appendFailure?.code == .cancelled)
    }
}
