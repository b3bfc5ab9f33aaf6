import Foundation
import ReelTestSupport
import Testing

@testable import ReelTesting

@Suite struct PNGTests {
    // PNG files written by FFmpeg 5.1's PNG encoder from its `testsrc2` source, with the
    // FNV-1a hash of the pixels FFmpeg decodes from them (`-f rawvideo`).
    /// 48x32 RGB, `-pred mixed`: Sub, Up and Paeth rows, a fixed-Huffman block.
    static let ffmpegMixedRGB = """
        iVBORw0KGgoAAAANSUhEUgAAADAAAAAgCAIAAADbtmxLAAAACXBIWXMAAAABAAAAAQBPJcTWAAACjElEQVR4nGOsZ/jHgA00/mPCKv73P1ZhBmZm7Ob8Y8Cugek/dvOxiw4gYIFQ8xkc0GUwBKDCOEIIlwZ7HCHEYM+IVXjQhdCogwgBFmSOGMN5ILmlQRlIfuaWBpIey57CZXdEgUS4f/8BkvkbXgLJF+zYDZViOAckTzZpgNT/+QUkE5sewGXn1ykAyTfcIHO8VoPMucOlDZdFD6H2lnYgWdlwoa8P5JSiojCIOIQBFFywAGREQoIbfo9O7JoIcnfdmaamS0BGXU0dRBzCAApOnXoNyMjOzkbTyPgXTDmCyQP1INKhEUQesgOR/xwRSpn2g0hbcKY56AQi7feBSMOPQPfp/fhplV854zQDSNu/+kMg9Y0gti04lx2sPww3x77RFkgetmMEmw9WuR+k0uP1oezskEGXhrA4SJ6BYUmD045IC7fnKOJALlBwYqAeMEiQwXl+hvz1l6wqr0GCBw5MGQ4da9daUKuoxHAYWRzIBQpuDhMDBgmy+A5RO99VrwZdCLFgCj1kYIhp2AdKQ5Io4rskGXYtPwFKQ/wo4hI/QSQkZz1jMIKLAwMMGGzgNARMNIhAusdgm9B8H5SGRIF2IAJJ5dtVBmqVQ8BMB8lWFAJgpkNxkH8jwxWmlE0N8roMDJm3GW77Sk9XCVPdxABEQAaQCxT0fMmw0lN8u7hb+Hac5so08qzlnvu46VsQwyFjhsMb6z6e/9sT2MgHREAGkAsUzH9w6Jb3m4kKdWpbhZH1omR7SFQsbgAma4bX4IKLmIIREmVHT/EwwKKMvIIREmUoDkIGh+wwhMDAFkflffgwdg22OGp7SDmECQZdLht1ECEw6iBCYNRBhMCogwiBUQcRAqMOIgRGHUQIAAAJIeH/pAOfxAAAAABJRU5ErkJggg==
        """
    /// 24x16 gray, one dynamic-Huffman block.
    static let ffmpegGray = """
        iVBORw0KGgoAAAANSUhEUgAAABgAAAAQCAAAAAApT+BJAAAACXBIWXMAAAABAAAAAQBPJcTWAAAAa0lEQVR4nK2PsQnAIBAA7WwFOyGlnQP8ACldJBP9INkok+T+sQgGYpNrhD8537APLtjggBPCh0iOQIQCDf4XCibsfArVJBjmsWBc9J6zaq0idttSqsx1KQi5IOSiLcWcWjxOqE7rDlHfH7wBwJdtRemwYjMAAAAASUVORK5CYII=
        """
    /// 24x16 RGBA, `-pred paeth`.
    static let ffmpegPaethRGBA = """
        iVBORw0KGgoAAAANSUhEUgAAABgAAAAQCAYAAAAMJL+VAAAACXBIWXMAAAABAAAAAQBPJcTWAAABnklEQVR4nGOsZ/j3nwEPqPvLhMJnZv6Hwv/HgKqd6T+qehZ8hlMDwC2Yz+CAVcE+DGFUAXs0HzDYM2K3gFZgGFogxnAeTG9pUAbT/9jEwXT+hpdgWorhHJg+2aQBprn//ALTiU0PoCYY4LcABNpb2hkY/sxhqGy4wKCqxsCQkCAOxG4MCxbsAstP7JrIwPBjOkN+3RkGOSC/rk6Poa6mjqGppQnTB3UMkHS7HypwoB5I/M5hYAIJ2DEw2AITyfbtLxkOOu1i8PQEinl+YWD4mszA1GgHVmALTEX+QHMP1pcwrAfqZYIa5PH6EEN2dsgARrLbcwaGoiILBrHv34BBcwlD3pThEMPE9gwG8W/fGJqaF2HI7xC1Y9ix6tUA+mCXJBAvPwGOAwZ+TPnTwPC3qrwGjgNgTAHxYRR5lW9X8VtADZCdnY1pgeomUNiHMdzmOcrQ1/eUQZYXkky3C+iDk+nRUzzgZPq4CTWZnv/bA0mmdqjmYfVBX98qBrcoaaBF0gzcv/+AxWB5AATyy/LBGW1ikwk8o2HLA1OnTmUAANIbg/xPZs+pAAAAAElFTkSuQmCC
        """

    static func bytes(_ base64: String) -> [UInt8] {
        [UInt8](Data(base64Encoded: base64.trimmingCharacters(in: .whitespacesAndNewlines)) ?? Data())
    }

    @Test func decodesFFmpegRGBWithMixedFilters() throws {
        let image = try PNG.decode(Self.bytes(Self.ffmpegMixedRGB))
        #expect(image.width == 48 && image.height == 32 && image.layout == .rgb)
        #expect(FrameHash.fnv1a64(image.pixels) == 0x980B_CB7B_9AA8_FD1C)
        #expect(image[0, 0] == [127, 0, 254])
        #expect(image[5, 3] == [30, 0, 62])
    }

    @Test func decodesFFmpegGrayWithDynamicHuffman() throws {
        let image = try PNG.decode(Self.bytes(Self.ffmpegGray))
        #expect(image.width == 24 && image.height == 16 && image.layout == .gray)
        #expect(FrameHash.fnv1a64(image.pixels) == 0xCAAF_A357_71ED_6FB9)
        #expect(image[0, 0] == [68])
        #expect(image[5, 3] == [16])
    }

    @Test func decodesFFmpegRGBAWithPaeth() throws {
        let image = try PNG.decode(Self.bytes(Self.ffmpegPaethRGBA))
        #expect(image.width == 24 && image.height == 16 && image.layout == .rgba)
        #expect(FrameHash.fnv1a64(image.pixels) == 0x770F_B762_40A3_2D37)
        #expect(image[5, 3] == [30, 0, 62, 255])
    }

    static func noise(_ layout: RasterImage.Layout, width: Int = 37, height: Int = 23) -> RasterImage {
        var x: UInt32 = 12345
        let pixels = (0..<(width * height * layout.channelCount)).map { i -> UInt8 in
            x = x &* 1_664_525 &+ 1_013_904_223
            // Half smooth ramp, half noise, so every filter has something to do.
            return i % 2 == 0 ? UInt8(truncatingIfNeeded: i / 3) : UInt8(truncatingIfNeeded: x >> 24)
        }
        return RasterImage(width: width, height: height, layout: layout, pixels: pixels)
    }

    @Test(arguments: RasterImage.Layout.allCases)
    func roundTripsEveryLayoutAndFilter(layout: RasterImage.Layout) throws {
        let image = Self.noise(layout)
        let strategies: [PNG.FilterStrategy] = PNG.Filter.allCases.map { .fixed($0) } + [.adaptive]
        for strategy in strategies {
            for compression in PNG.Compression.allCases {
                let file = PNG.encode(image, filter: strategy, compression: compression)
                #expect(try PNG.decode(file) == image, "\(layout) \(strategy) \(compression)")
            }
        }
    }

    /// Cross-check with another decoder: the ffmpeg CLI, as an outside program (ReelTesting
    /// itself never links FFmpeg).
    @Test(.requires(.ffmpeg))
    func writesWhatFFmpegCanRead() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("reel-png-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let image = Self.noise(.rgb, width: 40, height: 30)
        let png = dir.appendingPathComponent("n.png").path, raw = dir.appendingPathComponent("n.rgb").path
        try PNG.write(image, to: png)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        p.arguments = ["-v", "error", "-y", "-i", png, "-f", "rawvideo", "-pix_fmt", "rgb24", raw]
        try p.run()
        p.waitUntilExit()
        #expect(p.terminationStatus == 0)
        #expect(FileManager.default.contents(atPath: raw).map { [UInt8]($0) } == image.pixels)
    }

    @Test func rejectsDamagedFiles() {
        let good = PNG.encode(Self.noise(.rgb))
        var badCRC = good
        badCRC[30] ^= 0x40  // inside IHDR's CRC-covered bytes
        var badSignature = good
        badSignature[1] = 0
        let truncated = Array(good.prefix(good.count - 20))
        var hugeLength = good
        hugeLength[33...36] = [0x7F, 0xFF, 0xFF, 0xF0]  // IDAT length field
        for (name, data) in [("crc", badCRC), ("signature", badSignature), ("truncated", truncated), ("length", hugeLength)] {
            let error = expectReelError(.corruptData) { try PNG.decode(data, name: "x.png") }
            #expect(error != nil, "\(name)")
        }
    }

    @Test func rejectsBadFilterTypeNamingTheRow() throws {
        // A 2x2 gray image whose second row claims filter 5.
        let raw: [UInt8] = [0, 1, 2, 5, 3, 4]
        var file = PNG.signature
        func chunk(_ type: String, _ body: [UInt8]) {
            file += PNG.bigEndian(UInt32(body.count))
            file += Array(type.utf8) + body
            var crc = CRC32()
            crc.update(Array(type.utf8))
            crc.update(body)
            file += PNG.bigEndian(crc.value)
        }
        chunk("IHDR", PNG.bigEndian(2) + PNG.bigEndian(2) + [8, 0, 0, 0, 0])
        chunk("IDAT", Zlib.compress(raw))
        chunk("IEND", [])
        do {
            _ = try PNG.decode(file, name: "bad-filter.png")
            Issue.record("accepted filter type 5")
        } catch {
            #expect(error.code == .corruptData)
            #expect(error.description.contains("row 1"))
            #expect(error.description.contains("bad-filter.png"))
        }
    }

    @Test func refusesUnsupportedFeaturesClearly() {
        var file = PNG.encode(Self.noise(.gray, width: 4, height: 4))
        // IHDR body starts at byte 16: set bit depth 16 and fix the CRC.
        file[24] = 16
        let crc = CRC32.checksum(file[12..<29])
        file.replaceSubrange(29..<33, with: PNG.bigEndian(crc))
        do {
            _ = try PNG.decode(file)
            Issue.record("accepted 16-bit")
        } catch {
            #expect(error.code == .unsupportedFormat)
            #expect(error.message.contains("bit depth 16"))
        }
    }
}
