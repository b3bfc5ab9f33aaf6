import Foundation
import ReelCore
import ReelIO
import ReelTestSupport
import Testing

@Suite("AssetWriter errors")
struct AssetWriterErrorTests {
    static func videoInput(preset: String? = "ultrafast") -> AssetWriterInput {
        AssetWriterInput(settings: .video(.init(codec: .h264, width: 64, height: 48, preset: preset)))
    }

    static func frame() -> PixelBuffer { PixelBuffer(width: 64, height: 48, format: .yuv420p) }

    static func code(_ error: any Error) -> ReelError.Code? { (error as? ReelError)?.code }

    /// A writer of `url` with one small video input, writing, its session started at zero.
    static func startedWriter(_ url: URL, fileType: AssetWriter.FileType) throws -> (AssetWriter, AssetWriterInput) {
        let writer = try AssetWriter(outputURL: url, fileType: fileType)
        let video = videoInput()
        try writer.add(video)
        try writer.startWriting()
        writer.startSession(atSourceTime: .zero)
        return (writer, video)
    }

    /// The names in `folder`, hidden ones included.
    static func names(in folder: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
    }

    @Test("a missing output folder is an error naming the path")
    func missingFolder() {
        let url = URL(fileURLWithPath: "/nonexistent-reel-folder/out.mp4")
        #expect { try AssetWriter(outputURL: url, fileType: .mp4) } throws: {
            Self.code($0) == .fileNotFound && ($0 as? ReelError)?.path == url.path
        }
    }

    @Test("an existing output is an error unless overwrite was asked")
    func existingOutput() async throws {
        let folder = try TestFiles.scratchFolder()
        let url = folder.appendingPathComponent("out.mp4")
        try Data("keep me".utf8).write(to: url)
        #expect { try AssetWriter(outputURL: url, fileType: .mp4) } throws: { Self.code($0) == .outputExists }
        #expect(try Data(contentsOf: url) == Data("keep me".utf8))

        let writer = try AssetWriter(outputURL: url, fileType: .mp4, overwrite: true)
        let video = Self.videoInput()
        try writer.add(video)
        try await writer.start()
        writer.startSession(atSourceTime: .zero)
        try await video.append(Self.frame(), withPresentationTime: .zero)
        try await writer.finishWriting()
        #expect(try Data(contentsOf: url) != Data("keep me".utf8))
        #expect(try Self.names(in: folder) == ["out.mp4"])
    }

    @Test("appending after finishing or markAsFinished is an error")
    func appendAfterFinish() async throws {
        let url = try TestFiles.scratchFolder().appendingPathComponent("out.mp4")
        let writer = try AssetWriter(outputURL: url, fileType: .mp4)
        let video = Self.videoInput()
        try writer.add(video)
        try await writer.start()
        writer.startSession(atSourceTime: .zero)
        try await video.append(Self.frame(), withPresentationTime: .zero)
        try await writer.finishWriting()
        await #expect { try await video.append(Self.frame(), withPresentationTime: MediaTime(value: 1, timescale: 30)) } throws: {
            Self.code($0) == .writerState
        }
        await #expect { try await writer.finishWriting() } throws: { Self.code($0) == .writerState }

        let other = try AssetWriter(outputURL: url.deletingLastPathComponent().appendingPathComponent("b.mp4"), fileType: .mp4)
        let input = Self.videoInput()
        try other.add(input)
        try await other.start()
        other.startSession(atSourceTime: .zero)
        input.markAsFinished()
        await #expect { try await input.append(Self.frame(), withPresentationTime: .zero) } throws: { Self.code($0) == .writerState }
        await other.cancel()
    }

    @Test("timestamps going backwards are refused, the writer goes on")
    func backwards() async throws {
        let url = try TestFiles.scratchFolder().appendingPathComponent("out.mp4")
        let writer = try AssetWriter(outputURL: url, fileType: .mp4)
        let video = Self.videoInput()
        try writer.add(video)
        try await writer.start()
        writer.startSession(atSourceTime: .zero)
        try await video.append(Self.frame(), withPresentationTime: MediaTime(value: 2, timescale: 30))
        let back = MediaTime(value: 1, timescale: 30)
        await #expect { try await video.append(Self.frame(), withPresentationTime: back) } throws: {
            Self.code($0) == .invalidArgument && ($0 as? ReelError)?.time == back
        }
        await expectReelError(.invalidArgument) { try await video.append(Self.frame(), withPresentationTime: MediaTime(value: 2, timescale: 30)) }
        try await video.append(Self.frame(), withPresentationTime: MediaTime(value: 3, timescale: 30))
        try await writer.finishWriting()
        #expect(writer.status == .completed)
    }

    @Test("a write that fails to start leaves no file")
    func failedStart() throws {
        let folder = try TestFiles.scratchFolder()
        let url = folder.appendingPathComponent("out.mp4")
        let writer = try AssetWriter(outputURL: url, fileType: .mp4)
        try writer.add(Self.videoInput(preset: "no-such-preset"))
        #expect { try writer.startWriting() } throws: { Self.code($0) == .encoderFailed && ($0 as? ReelError)?.path == url.path }
        #expect(writer.status == .failed)
        #expect(writer.error != nil)
        #expect(try Self.names(in: folder).isEmpty)
    }

    @Test("a cancelled write leaves no file")
    func cancelled() async throws {
        let folder = try TestFiles.scratchFolder()
        let (writer, video) = try Self.startedWriter(folder.appendingPathComponent("out.mov"), fileType: .mov)
        for i in 0..<5 { try await video.append(Self.frame(), withPresentationTime: MediaTime(value: Int64(i), timescale: 30)) }
        await writer.cancel()
        #expect(writer.status == .cancelled)
        #expect(try Self.names(in: folder).isEmpty)
        await #expect { try await writer.finishWriting() } throws: { Self.code($0) == .cancelled }
        await #expect { try await video.append(Self.frame(), withPresentationTime: MediaTime(value: 9, timescale: 30)) } throws: { Self.code($0) == .cancelled }
    }

    @Test(
        "combinations FFmpeg would write corrupt are refused",
        arguments: [
            (AssetWriter.FileType.mpegts, MetadataFormat.camm), (.mkv, .mebx), (.mkv, .gpmd), (.mkv, .klv), (.mp4, .klv), (.mpegts, .gpmd),
        ])
    func refusedCombinations(fileType: AssetWriter.FileType, format: MetadataFormat) throws {
        let url = try TestFiles.scratchFolder().appendingPathComponent("out.\(fileType.rawValue)")
        let writer = try AssetWriter(outputURL: url, fileType: fileType)
        let input = AssetWriterInput(settings: .metadata(format: format))
        #expect(!writer.canAdd(input))
        #expect { try writer.add(input) } throws: { Self.code($0) == .invalidArgument }
    }

    @Test("appending before the session starts is an error")
    func noSession() async throws {
        let url = try TestFiles.scratchFolder().appendingPathComponent("out.mp4")
        let writer = try AssetWriter(outputURL: url, fileType: .mp4)
        let video = Self.videoInput()
        try writer.add(video)
        await #expect { try await video.append(Self.frame(), withPresentationTime: .zero) } throws: { Self.code($0) == .writerState }
        try await writer.start()
        await #expect { try await video.append(Self.frame(), withPresentationTime: .zero) } throws: { Self.code($0) == .writerState }
        await writer.cancel()
    }
}
