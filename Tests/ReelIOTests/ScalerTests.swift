import Foundation
import ReelCore
import Testing

@testable import ReelIO

@Suite("Scaler")
struct ScalerTests {
    /// A flat BGRA buffer of one colour.
    static func flatBGRA(width: Int = 64, height: Int = 48, b: UInt8, g: UInt8, r: UInt8) -> PixelBuffer {
        let buffer = PixelBuffer(width: width, height: height, format: .bgra)
        buffer.withUnsafeMutableBytes(plane: 0) { raw in
            for y in 0..<height {
                for x in 0..<width {
                    let o = y * buffer.bytesPerRow[0] + x * 4
                    raw[o] = b; raw[o + 1] = g; raw[o + 2] = r; raw[o + 3] = 255
                }
            }
        }
        return buffer
    }

    /// A buffer with a different value in every byte of every plane.
    static func pattern(_ format: PixelFormat, width: Int = 64, height: Int = 48) -> PixelBuffer {
        let buffer = PixelBuffer(width: width, height: height, format: format)
        for p in 0..<format.planeCount {
            buffer.withUnsafeMutableBytes(plane: p) { raw in
                for i in 0..<raw.count { raw[i] = UInt8(truncatingIfNeeded: i * 7 + p * 31) }
            }
        }
        return buffer
    }

    @Test("BGRA -> yuv420p -> BGRA keeps a flat colour", arguments: [Int32(1), 0])
    func roundTrip(threads: Int32) throws {
        let source = Self.flatBGRA(b: 0xCC, g: 0x66, r: 0x33)
        let frame = try Frame.video(width: 64, height: 48, format: .yuv420p)
        let scaler = Scaler(threads: threads)
        try scaler.convert(source, into: frame)
        let back = PixelBuffer(width: 64, height: 48, format: .bgra)
        try scaler.convert(frame, into: back)
        let pixel = back.withUnsafeBytes(plane: 0) { raw in (0..<4).map { Int(raw[20 * back.bytesPerRow[0] + 30 * 4 + $0]) } }
        #expect(abs(pixel[0] - 0xCC) <= 3 && abs(pixel[1] - 0x66) <= 3 && abs(pixel[2] - 0x33) <= 3 && pixel[3] == 255, "\(pixel)")
    }

    @Test("same format and size is an exact plane copy", arguments: [PixelFormat.yuv420p, .nv12, .gray8, .bgra, .rgba])
    func exactCopy(format: PixelFormat) throws {
        let source = Self.pattern(format)
        let frame = try Frame.video(width: 64, height: 48, format: format)
        let scaler = Scaler()
        try scaler.convert(source, into: frame)
        let back = PixelBuffer(width: 64, height: 48, format: format)
        try scaler.convert(frame, into: back)
        #expect(back.hasSamePixels(as: source))
    }

    @Test("slice threads give the same pixels as one thread", arguments: [PixelFormat.bgra, .rgba, .nv12, .gray8])
    func threadsAgree(format: PixelFormat) throws {
        let frame = try Frame.video(width: 320, height: 240, format: .yuv420p)
        try Scaler().convert(Self.pattern(.yuv420p, width: 320, height: 240), into: frame)
        let one = PixelBuffer(width: 160, height: 120, format: format)
        let many = PixelBuffer(width: 160, height: 120, format: format)
        try Scaler(threads: 1).convert(frame, into: one)
        try Scaler(threads: 0).convert(frame, into: many)
        #expect(one.hasSamePixels(as: many))
    }

    @Test("scaling keeps a flat frame flat")
    func scaling() throws {
        let frame = try Frame.video(width: 64, height: 48, format: .bgra)
        let scaler = Scaler()
        try scaler.convert(Self.flatBGRA(b: 10, g: 200, r: 90), into: frame)
        let small = PixelBuffer(width: 17, height: 9, format: .bgra)
        try scaler.convert(frame, into: small)
        let bytes = small.packedBytes()
        #expect(bytes.count == 17 * 9 * 4)
        #expect(stride(from: 0, to: bytes.count, by: 4).allSatisfy { bytes[$0] == 10 && bytes[$0 + 1] == 200 && bytes[$0 + 2] == 90 })
    }

    /// A flat yuv420p frame with no colour tags.
    static func flatYUV(width: Int, height: Int, y: UInt8, u: UInt8, v: UInt8) throws -> Frame {
        let frame = try Frame.video(width: width, height: height, format: .yuv420p)
        let buffer = PixelBuffer(width: width, height: height, format: .yuv420p)
        for (plane, value) in [y, u, v].enumerated() {
            buffer.withUnsafeMutableBytes(plane: plane) { _ = $0.initializeMemory(as: UInt8.self, repeating: value) }
        }
        try Scaler().convert(buffer, into: frame)
        return frame
    }

    @Test("every new context gets the colour details, even at a freed context's address", arguments: [Int32(1), 0])
    func colourDetailsOnEveryContext(threads: Int32) throws {
        // Limited-range Y 81, U 90, V 240: green is about 24 with BT.709 (20 after a 1080p
        // downscale) and 0 with BT.601, which a context keeps when it is not told.
        let scaler = Scaler(threads: threads)
        for (width, height) in [(1280, 720), (1920, 1080), (1280, 720), (1920, 1080)] {
            let frame = try Self.flatYUV(width: width, height: height, y: 81, u: 90, v: 240)
            let out = PixelBuffer(width: 64, height: 36, format: .bgra)
            try scaler.convert(frame, into: out)
            let pixel = out.withUnsafeBytes(plane: 0) { raw in (0..<3).map { Int(raw[10 * out.bytesPerRow[0] + 10 * 4 + $0]) } }
            #expect(abs(pixel[1] - 24) <= 6 && pixel[2] >= 250, "\(width)x\(height): BGR \(pixel)")
        }
    }
}
