import Foundation
import Reel
import ReelTestSupport
import ReelTesting
import ReelText
import Testing

@testable import ReelComposition

/// One colour rule end to end: libswscale (the reader), the built-in conversions, fills and
/// text drawn into YUV, the writer's tags, and FFmpeg decoding what was written.
@Suite("ColorProperties end to end")
struct ColorPropertiesPipelineTests {
    static let ffmpeg: String? = TestTools.which("ffmpeg")?.path

    /// Runs ffmpeg and returns its standard output.
    static func runFFmpeg(_ arguments: [String]) throws -> Data {
        try TestTools.output("ffmpeg", ["-v", "error", "-nostdin"] + arguments)
    }

    /// One frame of a video read by the reader (libswscale) in `format`.
    static func firstFrame(_ url: URL, as format: PixelFormat) async throws -> PixelBuffer {
        let reader = try await AssetReader.open(url: url)
        let output = AssetReaderTrackOutput(trackID: 1, settings: .video(pixelFormat: format), bufferCapacity: 2)
        try reader.add(output)
        try reader.startReading()
        for try await sample in output {
            if let frame = sample.videoFrame { return frame.pixelBuffer }
        }
        throw ReelError(.decoderFailed, "no frame", path: url.path)
    }

    struct Clip: Sendable, CustomTestStringConvertible {
        var width: Int, height: Int, fullRange: Bool
        var testDescription: String { "\(width)x\(height) \(fullRange ? "full" : "limited") range, untagged matrix" }
    }

    static let clips = [
        Clip(width: 720, height: 480, fullRange: false), Clip(width: 1280, height: 720, fullRange: false),
        Clip(width: 720, height: 480, fullRange: true),
    ]

    @Test(
        "the reader's libswscale and PixelConversion give the same colours", .requires(.ffmpeg),
        arguments: clips)
    func readerAndPixelConversionAgree(_ clip: Clip) async throws {
        let url = try TestFiles.scratchFolder().appendingPathComponent("clip.mkv")
        // Lossless yuv420p with no matrix tag (and a range tag only for full range).
        _ = try Self.runFFmpeg([
            "-f", "lavfi", "-i", "testsrc2=size=\(clip.width)x\(clip.height):rate=1", "-frames:v", "1",
            "-vf", "scale=out_range=\(clip.fullRange ? "pc" : "tv"),format=yuv420p", "-c:v", "ffv1",
            "-color_range", clip.fullRange ? "pc" : "tv", "-y", url.path,
        ])
        let yuv = try await Self.firstFrame(url, as: .yuv420p)
        #expect(yuv.colorProperties.fullRange == clip.fullRange)
        let bySwscale = try await Self.firstFrame(url, as: .bgra)
        let byConversion = PixelBuffer(width: clip.width, height: clip.height, format: .bgra)
        PixelConversion.convert(yuv, into: byConversion)
        // libswscale's SIMD YUV->RGB path rounds its coefficients (green may land 3 off the
        // exact value, which PixelConversion gives); a different matrix or range would put
        // most pixels 10 or more apart.
        var worst = 0, over2 = 0, count = 0
        for y in stride(from: 0, to: clip.height, by: 3) {
            for x in stride(from: 0, to: clip.width, by: 3) {
                let a: RGBA = bySwscale.rgba(x: x, y: y), b: RGBA = byConversion.rgba(x: x, y: y)
                let dr = abs(Int(a.r) - Int(b.r)), dg = abs(Int(a.g) - Int(b.g)), db = abs(Int(a.b) - Int(b.b))
                let d = max(dr, dg, db)
                worst = max(worst, d)
                if d > 2 { over2 += 1 }
                count += 1
            }
        }
        #expect(worst <= 3 && over2 * 100 <= count, "libswscale and PixelConversion differ by up to \(worst), \(over2) of \(count) pixels by more than 2")
    }

    /// The dashboard's accent colour and a fill behind it.
    static let accent = Color(red: 1, green: 0.6, blue: 0.1)
    static let background = Color(red: 0.1, green: 0.3, blue: 0.7)

    @Test(
        "colours filled into YUV decode with ffmpeg to the asked RGB", .requires(.ffmpeg),
        arguments: clips)
    func drawnColoursSurviveTheWriter(_ clip: Clip) async throws {
        let frame = PixelBuffer(width: clip.width, height: clip.height, format: .yuv420p)
        frame.colorProperties.fullRange = clip.fullRange
        PixelFill.fill(frame, with: Self.background)
        try Canvas(frame).fill(x: 0, y: 0, width: clip.width / 2, height: clip.height, color: Self.accent)

        let url = try TestFiles.scratchFolder().appendingPathComponent("drawn.mp4")
        var settings = VideoEncoderSettings(codec: .h264, width: clip.width, height: clip.height, preset: "ultrafast")
        settings.encoderOptions["x264-params"] = "qp=0"
        let writer = try AssetWriter(outputURL: url, fileType: .mp4)
        let input = AssetWriterInput(settings: .video(settings))
        try writer.add(input)
        try await writer.start()
        writer.startSession(atSourceTime: .zero)
        try await input.append(frame, withPresentationTime: .zero)
        input.markAsFinished()
        try await writer.finishWriting()

        let rgb = [UInt8](try Self.runFFmpeg(["-i", url.path, "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "rgb24", "-"]))
        #expect(rgb.count == clip.width * clip.height * 3)
        func at(_ x: Int, _ y: Int) -> [Int] { (0..<3).map { Int(rgb[(y * clip.width + x) * 3 + $0]) } }
        func expected(_ c: Color) -> [Int] { [c.red, c.green, c.blue].map { Int(($0 * 255).rounded()) } }
        for (point, colour) in [((clip.width / 4, clip.height / 2), Self.accent), ((3 * clip.width / 4, clip.height / 2), Self.background)] {
            let got = at(point.0, point.1), want = expected(colour)
            #expect(zip(got, want).allSatisfy { abs($0 - $1) <= 2 }, "\(clip): at \(point) ffmpeg shows \(got), asked \(want)")
        }
    }
}
