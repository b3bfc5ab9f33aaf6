import Foundation
import ReelCore
import ReelTestSupport
import Testing

@testable import ReelIO

@Suite("A decoded frame moved into a pixel buffer")
struct FrameMoveTests {
    /// Decodes every frame of the test pattern clip (B-frames, so the decoder keeps
    /// reference pictures while it hands frames out), passing each to `take`.
    private func decodeAll(_ take: (Frame) throws -> Void) throws {
        let input = try InputFormatContext(url: try ReadWriteTestMedia.testPatternClip())
        let index = try #require((0..<input.streamCount).first { input.kind(ofStreamAt: $0) == .video })
        let stream = input.stream(index)
        let decoder = try Decoder(parameters: stream.pointee.codecpar, timeBase: stream.pointee.time_base)
        let packet = Packet()
        let frame = Frame()
        func drain() throws {
            while try decoder.receive(into: frame) == .ok {
                try take(frame)
                frame.unref()
            }
        }
        while try input.readPacket(into: packet) {
            defer { packet.unref() }
            guard packet.streamIndex == Int32(index) else { continue }
            _ = try decoder.send(packet)
            try drain()
        }
        _ = try decoder.sendEndOfStream()
        try drain()
    }

    @Test(
        "shows the decoder's own planes, with the pixels and colour a copy would have, and keeps them after the decoder is gone",
        .requires(.ffmpeg))
    func movesWithoutACopy() throws {
        var moved: [PixelBuffer] = []
        var copies: [PixelBuffer] = []
        let scaler = Scaler()
        try decodeAll { frame in
            let copy = PixelBuffer(width: Int(frame.width), height: Int(frame.height), format: .yuv420p)
            try scaler.convert(frame, into: copy)
            let planes = frame.withPlanes { data, _ in (0..<3).map { UnsafeRawPointer(data[$0]) } }
            let buffer = try #require(frame.movedIntoPixelBuffer(as: .yuv420p))
            let shown = buffer.withUnsafePlanePointers { $0.map { UnsafeRawPointer($0) } }
            #expect(shown == planes, "the buffer shows the decoded planes themselves")
            #expect(frame.pointer.pointee.buf.0 == nil, "the frame's references moved into the buffer")
            #expect(buffer.colorProperties == copy.colorProperties)
            moved.append(buffer)
            copies.append(copy)
        }
        #expect(moved.count == 60)
        // The decoder is freed by now, and it decoded every later picture while the earlier
        // ones were held: each still shows its own pixels.
        for (buffer, copy) in zip(moved, copies) { #expect(buffer.hasSamePixels(as: copy)) }
    }

    @Test("is refused, with the frame untouched, when the frame is not already in the asked format", .requires(.ffmpeg))
    func refusesAnotherFormat() throws {
        var checked = 0
        try decodeAll { frame in
            guard checked == 0 else { return }
            checked += 1
            #expect(frame.movedIntoPixelBuffer(as: .bgra) == nil)
            #expect(frame.movedIntoPixelBuffer(as: .nv12) == nil)
            #expect(frame.pointer.pointee.buf.0 != nil)
        }
        #expect(checked == 1)
    }
}
