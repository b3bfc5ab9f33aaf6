import Foundation
import ReelCore
import ReelIO
import ReelTestSupport
import Testing

/// `AssetReader.withReader` and `AssetWriter.withWriter`: whatever the body does, no reader
/// reads on and no writer writes on after the call, and nothing is left at the output path
/// unless the file was finished.
@Suite("AssetReader.withReader and AssetWriter.withWriter")
struct ScopedReaderWriterTests {

    static func videoTrackID(_ reader: AssetReader) throws(ReelError) -> Int32 {
        guard let track = reader.tracks(withMediaType: .video).first else { throw ReelError(.invalidArgument, "no video track", path: reader.url.path) }
        return track.trackID
    }

    /// Starts a one-frame-deep video output and reads `frames` frames: the loop is left
    /// waiting for room, with the rest of the file unread.
    static func readSome(_ reader: AssetReader, frames: Int) async throws(ReelError) -> Int {
        let output = AssetReaderTrackOutput(trackID: try videoTrackID(reader), settings: .video(pixelFormat: .gray8), bufferCapacity: 1)
        try reader.add(output)
        try reader.startReading()
        var read = 0
        while read < frames, try await output.next()?.videoFrame != nil { read += 1 }
        return read
    }

    /// A writer's video input at 160x120, H.264.
    static func videoInput() -> AssetWriterInput {
        AssetWriterInput(settings: .video(.init(codec: .h264, width: 160, height: 120, preset: "ultrafast")))
    }

    /// Adds a video input, starts `writer` and appends `frames` frames at 30 fps.
    static func writeSome(_ writer: AssetWriter, frames: Int) async throws(ReelError) {
        let video = videoInput()
        try writer.add(video)
        try await writer.start()
        writer.startSession(atSourceTime: .zero)
        for i in 0..<frames {
            try await video.append(AssetWriterTests.flatFrame(i), withPresentationTime: MediaTime(value: Int64(i), timescale: 30))
        }
    }

    static func contents(of folder: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
    }

    // MARK: withReader

    @Test("withReader returns the body's value; the reader is stopped, its loop ended and its demuxer back in the file's pool")
    func readerReturns() async throws {
        let (folder, url) = try TestFiles.copyOfFixture("counter-gps.mp4")
        defer { try? FileManager.default.removeItem(at: folder) }
        let (frames, reader) = try await AssetReader.withReader(url: url) { reader throws(ReelError) in
            let frames = try await Self.readSome(reader, frames: 3)
            return (frames, reader)
        }
        #expect(frames == 3)
        #expect(reader.status == .cancelled)
        #expect(!reader.hasRunningLoops)
        // The loop gave its demuxer back before withReader returned: the next reader of the
        // file takes it instead of opening the file again.
        let opened = reader.fileOpenCount
        let next = try await AssetReader.open(url: url)
        #expect(next.fileOpenCount == opened)
    }

    @Test("a throwing body: withReader throws its error unchanged, and the reader is stopped with its loop ended")
    func readerBodyThrows() async throws {
        let (folder, url) = try TestFiles.copyOfFixture("counter-gps.mp4")
        defer { try? FileManager.default.removeItem(at: folder) }
        let escaped = Lock<AssetReader?>(nil)
        let error = await expectReelError(.invalidArgument) {
            try await AssetReader.withReader(url: url) { reader throws(ReelError) -> Int in
                escaped.withLock { $0 = reader }
                _ = try await Self.readSome(reader, frames: 2)
                throw ReelError(.invalidArgument, "the body gave up", path: "/body")
            }
        }
        #expect(error?.message == "the body gave up")
        #expect(error?.path == "/body")
        let reader = try #require(escaped.withLock { $0 })
        #expect(reader.status == .cancelled)
        #expect(!reader.hasRunningLoops)
    }

    @Test("withReader(asset:) with a body that never starts reading gives the probed demuxer back as it returns")
    func readerNeverStarted() async throws {
        let (folder, url) = try TestFiles.copyOfFixture("counter-gps.mp4")
        defer { try? FileManager.default.removeItem(at: folder) }
        let reader = try await AssetReader.withReader(asset: Asset(url: url)) { reader throws(ReelError) in reader }
        #expect(reader.status == .cancelled)
        // The reader is still held, yet its demuxer is in the pool.
        let opened = reader.fileOpenCount
        let next = try await AssetReader.open(url: url)
        #expect(next.fileOpenCount == opened)
        withExtendedLifetime(reader) {}
        await expectReelError(.fileNotFound) {
            try await AssetReader.withReader(url: folder.appendingPathComponent("missing.mp4")) { _ throws(ReelError) in
                Issue.record("the body ran without a file")
            }
        }
    }

    // MARK: withWriter

    @Test("withWriter finishes what the body wrote: the file is in place, alone, and reads back")
    func writerFinishes() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("out.mp4")
        let (value, writer) = try await AssetWriter.withWriter(outputURL: url, fileType: .mp4) { writer throws(ReelError) in
            try await Self.writeSome(writer, frames: 5)
            return ("written", writer)
        }
        #expect(value == "written")
        #expect(writer.status == .completed)
        #expect(try Self.contents(of: folder) == ["out.mp4"])
        let frames = try await AssetReader.withReader(url: url) { reader throws(ReelError) in
            let output = AssetReaderTrackOutput(trackID: try Self.videoTrackID(reader), settings: .video(pixelFormat: .gray8))
            try reader.add(output)
            try reader.startReading()
            var frames = 0
            while try await output.next() != nil { frames += 1 }
            return frames
        }
        #expect(frames == 5)
    }

    @Test("a throwing body: withWriter throws its error unchanged and leaves nothing in the folder, not even the partial file")
    func writerBodyThrows() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("out.mp4")
        let escaped = Lock<AssetWriter?>(nil)
        let error = await expectReelError(.decoderFailed) {
            try await AssetWriter.withWriter(outputURL: url, fileType: .mp4) { writer throws(ReelError) -> Int in
                escaped.withLock { $0 = writer }
                try await Self.writeSome(writer, frames: 3)
                throw ReelError(.decoderFailed, "the source gave out", path: "/source.mp4")
            }
        }
        #expect(error?.message == "the source gave out")
        #expect(error?.path == "/source.mp4")
        #expect(try Self.contents(of: folder) == [])
        #expect(try #require(escaped.withLock { $0 }).status == .cancelled)
    }

    @Test("a file already at the output path: refused without overwrite, kept as it was when the body throws with it, replaced when the body succeeds")
    func writerKeepsExistingFile() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("out.mp4")
        let before = Data("a file that was here first".utf8)
        try before.write(to: url)

        await expectReelError(.outputExists) {
            try await AssetWriter.withWriter(outputURL: url, fileType: .mp4) { _ throws(ReelError) in
                Issue.record("the body ran although the file exists")
            }
        }
        #expect(try Data(contentsOf: url) == before)

        await expectReelError(.decoderFailed) {
            try await AssetWriter.withWriter(outputURL: url, fileType: .mp4, overwrite: true) { writer throws(ReelError) in
                try await Self.writeSome(writer, frames: 3)
                throw ReelError(.decoderFailed, "the source gave out")
            }
        }
        #expect(try Data(contentsOf: url) == before)
        #expect(try Self.contents(of: folder) == ["out.mp4"])

        // The same write, finished: the file is replaced (so the one above was kept by the
        // writer, not because nothing could replace it).
        try await AssetWriter.withWriter(outputURL: url, fileType: .mp4, overwrite: true) { writer throws(ReelError) in
            try await Self.writeSome(writer, frames: 3)
        }
        #expect(try Data(contentsOf: url) != before)
        #expect(try await AssetReader.open(url: url).tracks(withMediaType: .video).count == 1)
    }

    /// The body sees the cancel but returns normally: withWriter must not finish the file.
    @Test("a task cancelled while the body writes: withWriter throws .cancelled and writes nothing, though the body returned")
    func writerTaskCancelled() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("out.mp4")
        let (ready, signal) = AsyncStream<Void>.makeStream()
        let escaped = Lock<AssetWriter?>(nil)
        let returned = Lock(false)
        let task = Task {
            try await AssetWriter.withWriter(outputURL: url, fileType: .mp4) { writer throws(ReelError) in
                escaped.withLock { $0 = writer }
                try await Self.writeSome(writer, frames: 3)
                signal.yield()
                try? await Task.sleep(for: .seconds(600))
                returned.withLock { $0 = true }
            }
        }
        for await _ in ready { break }
        task.cancel()
        await expectReelError(.cancelled) { try await task.value }
        #expect(returned.withLock { $0 })
        #expect(try Self.contents(of: folder) == [])
        #expect(try #require(escaped.withLock { $0 }).status == .cancelled)
    }

    @Test("a body that never starts the writer: its value is returned, nothing is written, and the writer cannot start later")
    func writerNeverStarted() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("out.mp4")
        let writer = try await AssetWriter.withWriter(outputURL: url, fileType: .mp4) { writer throws(ReelError) in
            try writer.add(Self.videoInput())
            return writer
        }
        #expect(writer.status == .cancelled)
        await expectReelError(.cancelled) { try await writer.start() }
        #expect(try Self.contents(of: folder) == [])
    }
}
