import Foundation
import ReelCore
import ReelTestSupport
import Testing

@testable import ReelIO

@Suite("WriterTracks")
struct WriterTracksTests {

    /// Frames whose picture changes sharply every 5 frames, so x265's scene-cut detection
    /// would add keyframes if it were left on.
    static func frame(_ index: Int) -> PixelBuffer {
        let buffer = PixelBuffer(width: 128, height: 96, format: .yuv420p)
        let luma = UInt8(index / 5 % 2 == 0 ? 30 : 220)
        for plane in 0..<3 {
            buffer.withUnsafeMutableBytes(plane: plane) { bytes in
                let row = plane == 0 ? 128 : 64
                for i in 0..<bytes.count {
                    bytes[i] = plane == 0 ? (i % row < row / 2 ? luma : 255 - luma) : UInt8(truncatingIfNeeded: 128 + index * 7 * plane)
                }
            }
        }
        return buffer
    }

    @Test("a frame appended is handed to the writer's thread, and let go once encoded")
    func framesAreLetGoOnceEncoded() async throws {
        let url = try TestFiles.scratchFolder().appendingPathComponent("handed.mp4")
        let writer = try AssetWriter(outputURL: url, fileType: .mp4)
        let input = AssetWriterInput(settings: .video(VideoEncoderSettings(codec: .h264, width: 128, height: 96, preset: "ultrafast")))
        try writer.add(input)
        try await writer.start()
        writer.startSession(atSourceTime: .zero)
        let queue = try writer.state.withLock { (s) throws(ReelError) in try s.accepting().0 }
        for i in 0..<3 {
            weak var appended: PixelBuffer?
            do {
                let buffer = Self.frame(i)
                appended = buffer
                try await input.append(buffer, withPresentationTime: MediaTime(value: Int64(i), timescale: 30))
            }
            // Taken: nothing waits in the queue. Once the thread waits for more, it has
            // encoded the frame, and the encoder keeps a copy of its own.
            #expect(queue.count == 0)
            while queue.waiterCount < 1 { await Task.yield() }
            #expect(appended == nil, "frame \(i)")
        }
        try await writer.finishWriting()
    }

    @Test(
        "HEVC with a fixed GOP: IDR keyframes exactly every N frames, closed GOPs",
        .requires(.hevcEncoder, .ffprobe))
    func hevcFixedGOP() async throws {
        let gop = 6
        var settings = VideoEncoderSettings(
            codec: .hevc, width: 128, height: 96, quality: .crf(28), preset: "veryfast",
            frameDuration: MediaTime(value: 1, timescale: 30), timescale: 30, keyframeInterval: gop)
        settings.encoderOptions["x265-params"] = "keyint=\(gop):min-keyint=\(gop):scenecut=0:open-gop=0"
        let url = try TestFiles.scratchFolder().appendingPathComponent("gop.mp4")
        let writer = try AssetWriter(outputURL: url, fileType: .mp4)
        let input = AssetWriterInput(settings: .video(settings))
        try writer.add(input)
        try await writer.start()
        writer.startSession(atSourceTime: .zero)
        let count = 30
        for i in 0..<count {
            try await input.append(Self.frame(i), withPresentationTime: MediaTime(value: Int64(i), timescale: 30))
        }
        try await writer.finishWriting()

        // Keyframe packets (libavcodec's libx265 flags IDR pictures only), in presentation order.
        let probe = try #require(TestTools.which("ffprobe")?.path)
        let csv = try TestTools.outputString(
            probe,
            [
                "-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts,flags",
                "-of", "csv=p=0", url.path,
            ])
        let packets = csv.split(separator: "\n").compactMap { line -> (pts: Int, key: Bool)? in
            let fields = line.split(separator: ",")
            guard fields.count >= 2, let pts = Int(fields[0]) else { return nil }
            return (pts, fields[1].contains("K"))
        }.sorted { $0.pts < $1.pts }
        #expect(packets.count == count)
        let keyframes = packets.enumerated().filter { $0.element.key }.map(\.offset)
        #expect(keyframes == Array(stride(from: 0, to: count, by: gop)))

        // Closed GOPs: every keyframe is an IDR picture (NAL types 19, 20), none a CRA (21),
        // whose leading pictures would reach back into the previous piece after a cut.
        let ffmpeg = try #require(TestTools.which("ffmpeg")?.path)
        let trace = try Self.traceHeaders(ffmpeg, url)
        let pictures = trace.filter { $0 < 32 }
        #expect(pictures.count == count)
        #expect(pictures.filter { $0 == 19 || $0 == 20 }.count == count / gop)
        #expect(!pictures.contains(21), "CRA pictures: open GOPs")
    }

    /// Writes `frames` (timed from zero) with `settings` into `name` and returns each
    /// decoded frame's MD5 (ffmpeg's framemd5).
    static func decodedHashes(_ frames: Range<Int>, settings: VideoEncoderSettings, name: String, in folder: URL) async throws -> [String] {
        let url = folder.appendingPathComponent(name)
        let writer = try AssetWriter(outputURL: url, fileType: .mp4)
        let input = AssetWriterInput(settings: .video(settings))
        try writer.add(input)
        try await writer.start()
        writer.startSession(atSourceTime: .zero)
        for (k, i) in frames.enumerated() {
            try await input.append(Self.frame(i * 3), withPresentationTime: MediaTime(value: Int64(k), timescale: 30))
        }
        try await writer.finishWriting()
        let ffmpeg = try #require(TestTools.which("ffmpeg")?.path)
        let md5 = try TestTools.outputString(ffmpeg, ["-v", "error", "-i", url.path, "-f", "framemd5", "-"])
        return md5.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap {
            $0.split(separator: ",").last.map { String($0).trimmingCharacters(in: .whitespaces) }
        }
    }

    @Test(
        "Groups coded independently: a keyframe-aligned range alone codes to the pictures it has within the whole",
        .requires(.ffmpeg), arguments: [VideoEncoderSettings.Quality.crf(30), .bitRate(200_000)])
    func groupsCodedIndependently(quality: VideoEncoderSettings.Quality) async throws {
        let gop = 10
        var settings = VideoEncoderSettings(
            codec: .h264, width: 128, height: 96, quality: quality, preset: "veryfast",
            frameDuration: MediaTime(value: 1, timescale: 30), timescale: 30, keyframeInterval: gop)
        settings.encoderOptions["x264-params"] = "keyint=\(gop):min-keyint=\(gop):scenecut=0"
        settings.codesGroupsIndependently = true
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let whole = try await Self.decodedHashes(0..<40, settings: settings, name: "whole.mp4", in: folder)
        let part = try await Self.decodedHashes(20..<30, settings: settings, name: "part.mp4", in: folder)
        #expect(whole.count == 40 && part.count == 10)
        #expect(Array(whole[20..<30]) == part)
    }

    /// The NAL unit types of an HEVC file's packets, in decode order (ffmpeg's
    /// `trace_headers` bitstream filter, which logs each header it parses).
    static func traceHeaders(_ ffmpeg: String, _ url: URL) throws -> [Int] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ffmpeg)
        process.arguments = ["-hide_banner", "-i", url.path, "-c", "copy", "-bsf:v", "trace_headers", "-f", "null", "-"]
        let err = Pipe()
        process.standardError = err
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let log = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return log.split(separator: "\n").filter { $0.contains("nal_unit_type") }.compactMap { line in
            line.split(separator: "=").last.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        }
    }

    @Test("x264-params: on a processor with AVX-512, x264 codes with its AVX2 code unless the caller chose")
    func x264Parameters() {
        #expect(VideoTrackWriter.x264Parameters(nil, processorHasAVX512: true) == "asm=AVX2")
        #expect(VideoTrackWriter.x264Parameters("keyint=60:scenecut=0", processorHasAVX512: true) == "keyint=60:scenecut=0:asm=AVX2")
        #expect(VideoTrackWriter.x264Parameters("keyint=60:asm=SSE2", processorHasAVX512: true) == "keyint=60:asm=SSE2")
        #expect(VideoTrackWriter.x264Parameters("keyint=60", processorHasAVX512: false) == "keyint=60")
        #expect(VideoTrackWriter.x264Parameters(nil, processorHasAVX512: false) == nil)
    }

    @Test("x265-params: the writer's log level joins the caller's parameters instead of replacing them")
    func x265Parameters() {
        #expect(VideoTrackWriter.x265Parameters(nil) == "log-level=error")
        #expect(VideoTrackWriter.x265Parameters("keyint=6:open-gop=0") == "log-level=error:keyint=6:open-gop=0")
        #expect(VideoTrackWriter.x265Parameters("") == "log-level=error")
        // The caller's own log level comes last, so it wins.
        #expect(VideoTrackWriter.x265Parameters("log-level=info") == "log-level=error:log-level=info")
    }

    struct TagCase: Sendable, CustomTestStringConvertible {
        var width: Int, height: Int, matrix: String?, space: String, primaries: String, transfer: String
        var testDescription: String { "\(width)x\(height) \(matrix ?? "untagged") -> \(space)" }
    }

    static let tagCases = [
        TagCase(width: 720, height: 480, matrix: nil, space: "smpte170m", primaries: "smpte170m", transfer: "smpte170m"),
        TagCase(width: 960, height: 720, matrix: nil, space: "smpte170m", primaries: "smpte170m", transfer: "smpte170m"),
        TagCase(width: 1280, height: 720, matrix: nil, space: "bt709", primaries: "bt709", transfer: "bt709"),
        TagCase(width: 720, height: 480, matrix: "bt709", space: "bt709", primaries: "bt709", transfer: "bt709"),
    ]

    @Test(
        "the output is tagged with the encoding its frames are drawn in: SD smpte170m, HD bt709, or the caller's",
        .requires(.ffprobe), arguments: tagCases)
    func colourTags(_ c: TagCase) async throws {
        var settings = VideoEncoderSettings(codec: .h264, width: c.width, height: c.height, preset: "ultrafast")
        settings.colorProperties = ColorProperties(matrix: c.matrix)
        let url = try TestFiles.scratchFolder().appendingPathComponent("tags.mp4")
        let writer = try AssetWriter(outputURL: url, fileType: .mp4)
        let input = AssetWriterInput(settings: .video(settings))
        try writer.add(input)
        try await writer.start()
        writer.startSession(atSourceTime: .zero)
        let frame = PixelBuffer(width: c.width, height: c.height, format: .yuv420p)
        frame.colorProperties = settings.colorProperties ?? ColorProperties()
        try await input.append(frame, withPresentationTime: .zero)
        input.markAsFinished()
        try await writer.finishWriting()
        let out = try TestTools.outputString(
            try #require(TestTools.which("ffprobe")?.path),
            [
                "-v", "error", "-select_streams", "v:0", "-show_entries",
                "stream=color_space,color_primaries,color_transfer,color_range", "-of", "default=nw=1", url.path,
            ])
        let tags = Dictionary(
            uniqueKeysWithValues: out.split(separator: "\n").compactMap { line -> (String, String)? in
                let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
                return parts.count == 2 ? (parts[0], parts[1]) : nil
            })
        #expect(
            tags["color_space"] == c.space && tags["color_primaries"] == c.primaries && tags["color_transfer"] == c.transfer
                && tags["color_range"] == "tv", "\(tags)")
    }
}
