import Foundation
import ReelCore
import Testing

@testable import ReelIO

@Suite("Encoder")
struct EncoderTests {
    @Test("encodes frames into packets and drains at the end")
    func encodesAndDrains() throws {
        let encoder = try Encoder(name: "libx264") { (ctx) throws(ReelError) in
            ctx.pointee.width = 64
            ctx.pointee.height = 48
            ctx.pointee.pix_fmt = PixelFormat.yuv420p.avPixelFormat
            ctx.pointee.time_base = .init(num: 1, den: 30)
            try Encoder.setOption(ctx, "preset", "ultrafast")
        }
        let packet = Packet()
        var packets = 0
        var keyframes = 0
        func drain() throws -> FFmpegState {
            while true {
                let state = try encoder.receive(into: packet)
                guard state == .ok else { return state }
                packets += 1
                if packet.isKeyframe { keyframes += 1 }
                packet.unref()
            }
        }
        for i in 0..<10 {
            let frame = try Frame.video(width: 64, height: 48, format: .yuv420p)
            frame.pointer.pointee.pts = Int64(i)
            #expect(try encoder.send(frame) == .ok)
            #expect(try drain() == .again)
        }
        #expect(try encoder.send(nil) == .ok)
        #expect(try drain() == .endOfStream)
        #expect(packets == 10)
        #expect(keyframes >= 1)
    }

    @Test("a frame the encoder answers EAGAIN to is sent again once its packets are taken")
    func eagainIsNotADroppedFrame() throws {
        // rawvideo on one thread gives one packet per frame. Two frames sent with no packet
        // taken fill libavcodec's buffers: it answers the third send with EAGAIN.
        let encoder = try Encoder(name: "rawvideo") { (ctx) throws(ReelError) in
            ctx.pointee.width = 16
            ctx.pointee.height = 16
            ctx.pointee.pix_fmt = PixelFormat.gray8.avPixelFormat
            ctx.pointee.time_base = .init(num: 1, den: 30)
            ctx.pointee.thread_count = 1  // frame threads would queue more frames
        }
        func frame(_ pts: Int64) throws -> Frame {
            let frame = try Frame.video(width: 16, height: 16, format: .gray8)
            frame.pointer.pointee.pts = pts
            return frame
        }
        #expect(try encoder.send(frame(0)) == .ok)
        #expect(try encoder.send(frame(1)) == .ok)
        let packet = Packet()
        var written: [Int64] = []
        try encoder.encode(try frame(2), into: packet, path: "out.mov") { (packet) throws(ReelError) in
            written.append(packet.pts)
            packet.unref()
        }
        try encoder.encode(nil, into: packet, path: "out.mov") { (packet) throws(ReelError) in
            written.append(packet.pts)
            packet.unref()
        }
        #expect(written == [0, 1, 2])
    }

    @Test("unknown encoders and options are clear errors")
    func errors() {
        #expect { try Encoder(name: "no-such-encoder") { _ in } } throws: { ($0 as? ReelError)?.code == .encoderFailed }
        #expect(!Encoder.exists("no-such-encoder"))
        #expect { try Encoder(name: "libx264") { (ctx) throws(ReelError) in try Encoder.setOption(ctx, "no-such-option", "1") } } throws: {
            ($0 as? ReelError)?.code == .invalidArgument
        }
    }
}
