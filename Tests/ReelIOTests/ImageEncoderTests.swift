import Foundation
import ReelCore
import ReelIO
import ReelTestSupport
import Testing

@Suite("ImageEncoder")
struct ImageEncoderTests {
    /// A picture of four flat patches, left to right: red, green, blue, grey.
    static let patches: [(r: UInt8, g: UInt8, b: UInt8)] = [(230, 30, 30), (30, 200, 40), (20, 40, 220), (128, 128, 128)]

    static func picture(width: Int, height: Int, format: PixelFormat) -> PixelBuffer {
        let buffer = PixelBuffer(width: width, height: height, format: format)
        var row = [UInt8](repeating: 255, count: width * 4)
        for x in 0..<width {
            let (r, g, b) = patches[x * patches.count / width]
            (row[4 * x], row[4 * x + 1], row[4 * x + 2]) = format == .bgra ? (b, g, r) : (r, g, b)
        }
        buffer.withUnsafeMutableBytes(plane: 0) { bytes in
            for y in 0..<height {
                row.withUnsafeBytes { bytes.baseAddress!.advanced(by: y * buffer.bytesPerRow[0]).copyMemory(from: $0.baseAddress!, byteCount: row.count) }
            }
        }
        return buffer
    }

    /// JPEG is BT.601 YCbCr in full range whatever the picture's size: an HD picture's
    /// colours come back as they went in (decoded by the ffmpeg CLI to RGB).
    @Test(.requires(.ffmpeg), arguments: [(PixelFormat.bgra, 320, 240), (.bgra, 1280, 720), (.rgba, 1280, 720)])
    func aJPEGKeepsThePicturesColours(_ format: PixelFormat, _ width: Int, _ height: Int) throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("patches.jpg")
        try ImageEncoder.write(Self.picture(width: width, height: height, format: format), to: url, as: .jpeg(quality: 95))
        let rgb = try TestTools.output("ffmpeg", ["-v", "error", "-nostdin", "-i", url.path, "-f", "rawvideo", "-pix_fmt", "rgb24", "-"])
        try #require(rgb.count == width * height * 3)
        for (n, patch) in Self.patches.enumerated() {
            let x = (2 * n + 1) * width / (2 * Self.patches.count), y = height / 2
            let at = (y * width + x) * 3
            let got = [rgb[at], rgb[at + 1], rgb[at + 2]].map(Int.init)
            let want = [patch.r, patch.g, patch.b].map(Int.init)
            let off = zip(got, want).map { abs($0 - $1) }.max() ?? 0
            #expect(off <= 4, "patch \(n) of a \(width)x\(height) \(format) picture came back \(got), not \(want)")
        }
    }

    /// A gray picture is a one-component JPEG with its values kept.
    @Test(.requires(.ffmpeg)) func aGrayPictureIsAGrayJPEG() throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let buffer = PixelBuffer(width: 64, height: 48, format: .gray8)
        buffer.withUnsafeMutableBytes(plane: 0) { bytes in
            for y in 0..<48 { for x in 0..<64 { bytes[y * buffer.bytesPerRow[0] + x] = x < 32 ? 40 : 200 } }
        }
        let url = folder.appendingPathComponent("gray.jpg")
        try ImageEncoder.write(buffer, to: url, as: .jpeg(quality: 95))
        let probe = try String(
            decoding: TestTools.output("ffprobe", ["-v", "error", "-show_entries", "stream=pix_fmt", "-of", "csv=p=0", url.path]), as: UTF8.self)
        #expect(probe.trimmingCharacters(in: .whitespacesAndNewlines) == "gray")
        let gray = try TestTools.output("ffmpeg", ["-v", "error", "-nostdin", "-i", url.path, "-f", "rawvideo", "-pix_fmt", "gray", "-"])
        try #require(gray.count == 64 * 48)
        #expect(abs(Int(gray[24 * 64 + 8]) - 40) <= 2 && abs(Int(gray[24 * 64 + 56]) - 200) <= 2)
    }
}
