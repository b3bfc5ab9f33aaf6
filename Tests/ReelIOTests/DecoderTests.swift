import Foundation
import ReelCore
import ReelTestSupport
import Testing

@testable import ReelIO

@Suite("Decoder")
struct DecoderTests {
    @Test("decodes every packet, then reports the end as a state", .requires(.ffmpeg))
    func decodesToTheEnd() throws {
        let input = try InputFormatContext(url: try ReadWriteTestMedia.testPatternClip())
        let index = try #require((0..<input.streamCount).first { input.kind(ofStreamAt: $0) == .video })
        let stream = input.stream(index)
        let decoder = try Decoder(parameters: stream.pointee.codecpar, timeBase: stream.pointee.time_base)
        #expect(decoder.name == "h264")
        let packet = Packet()
        let frame = Frame()
        var frames = 0
        var sawAgain = false
        while try input.readPacket(into: packet) {
            defer { packet.unref() }
            guard packet.streamIndex == Int32(index) else { continue }
            #expect(try decoder.send(packet) == .ok)
            while true {
                let state = try decoder.receive(into: frame)
                if state == .again { sawAgain = true; break }
                #expect(state == .ok)
                frames += 1
                frame.unref()
            }
        }
        #expect(try decoder.sendEndOfStream() == .ok)
        var last: FFmpegState = .ok
        while last == .ok {
            last = try decoder.receive(into: frame)
            if last == .ok { frames += 1; frame.unref() }
        }
        #expect(last == .endOfStream)
        #expect(sawAgain)
        #expect(frames == 60)
    }
}
