import ReelTesting
import Testing

@Suite struct FrameHashTests {
    @Test func fnv1aMatchesPublishedVectors() {
        // Test vectors from the FNV reference (draft-eastlake-fnv): "", "a", "foobar".
        #expect(FrameHash.fnv1a64([UInt8]()) == 0xcbf2_9ce4_8422_2325)
        #expect(FrameHash.fnv1a64(Array("a".utf8)) == 0xaf63_dc4c_8601_ec8c)
        #expect(FrameHash.fnv1a64(Array("foobar".utf8)) == 0x8594_4171_f739_67e8)
    }

    @Test func hashIgnoresRowPadding() {
        // 3 pixels of gray8 is 3 visible bytes in a 64-byte row: only the 3 count.
        let frame = SyntheticFrame.solid(.white, width: 3, height: 2, format: .gray8)
        #expect(FrameHash.hash(frame) == FrameHash.fnv1a64([UInt8](repeating: 235, count: 6)))
    }

    @Test func lineHasTimesAndSixteenHexDigits() {
        let frame = SyntheticFrame.solid(.black, width: 2, height: 2, format: .gray8)
        let line = FrameHash.line(
            presentationTime: MediaTime(value: 1001, timescale: 30000),
            duration: MediaTime(value: 1001, timescale: 30000), frame: frame)
        let parts = line.split(separator: " ")
        #expect(parts.count == 3)
        #expect(parts[0] == "1001/30000" && parts[1] == "1001/30000")
        #expect(parts[2].count == 16)
        #expect(FrameHash.hex(0xAB) == "00000000000000ab")
    }

    @Test func differentPixelsHashDifferently() {
        let a = SyntheticFrame.counter(1, width: 64, height: 36, format: .yuv420p)
        let b = SyntheticFrame.counter(2, width: 64, height: 36, format: .yuv420p)
        #expect(FrameHash.hash(a) != FrameHash.hash(b))
        #expect(FrameHash.hash(a) == FrameHash.hash(SyntheticFrame.counter(1, width: 64, height: 36, format: .yuv420p)))
    }
}
