import Foundation
import Testing

@testable import ReelPreview

@Suite("RenderAhead: frames rendered ahead of a playing page")
struct RenderAheadTests {
    static func ready(_ ahead: inout RenderAhead, through last: Int, generation: Int = 1) {
        while let next = ahead.nextToRender(frameCount: 100), next <= last {
            ahead.store(next, header: "h\(next)", jpeg: Data([UInt8(next)]), generation: generation)
        }
    }

    @Test("two requests forward start it; it renders up to `lead` frames past the last one asked for")
    func startsWhenPlaying() {
        var ahead = RenderAhead()
        #expect(ahead.take(10, generation: 1) == nil)
        #expect(ahead.nextToRender(frameCount: 100) == nil)
        #expect(ahead.take(11, generation: 1) == nil)
        #expect(ahead.nextToRender(frameCount: 100) == nil)
        #expect(ahead.take(13, generation: 1) == nil)
        #expect(ahead.isPlaying)
        #expect(ahead.nextToRender(frameCount: 100) == 14)
        Self.ready(&ahead, through: 99)
        #expect(ahead.nextToRender(frameCount: 100) == nil)
        // The page skipped 14: 15 is handed out, 14 dropped, and the frame `lead` past 13
        // (13 + lead + 1) comes next.
        #expect(ahead.take(15, generation: 1)?.header == "h15")
        #expect(ahead.nextToRender(frameCount: 100) == 14 + RenderAhead.lead)
        #expect(ahead.take(14, generation: 1) == nil)
        #expect(!ahead.isPlaying)
        #expect(ahead.nextToRender(frameCount: 100) == nil)
    }

    @Test("a seek, a failed render or a new state of the document drops what was rendered ahead")
    func dropsOnChange() {
        var ahead = RenderAhead()
        for i in [0, 1, 2] { _ = ahead.take(i, generation: 1) }
        Self.ready(&ahead, through: 6)
        // The document changed: frame 3 of the old state is not shown.
        #expect(ahead.take(3, generation: 2) == nil)
        #expect(ahead.nextToRender(frameCount: 100) == 4)
        Self.ready(&ahead, through: 7, generation: 2)
        #expect(ahead.take(4, generation: 2)?.jpeg == Data([4]))
        // A seek far ahead.
        #expect(ahead.take(50, generation: 2) == nil)
        #expect(ahead.nextToRender(frameCount: 100) == nil)
        for i in [51, 52] { _ = ahead.take(i, generation: 2) }
        #expect(ahead.nextToRender(frameCount: 100) == 53)
        ahead.reset()
        #expect(ahead.nextToRender(frameCount: 100) == nil)
    }

    @Test("nothing past the last frame")
    func stopsAtTheEnd() {
        var ahead = RenderAhead()
        for i in [96, 97, 98] { _ = ahead.take(i, generation: 1) }
        #expect(ahead.nextToRender(frameCount: 100) == 99)
        Self.ready(&ahead, through: 200)
        #expect(ahead.nextToRender(frameCount: 100) == nil)
    }
}
