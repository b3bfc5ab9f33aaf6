import Foundation
import ReelTestSupport
import Testing

@testable import ReelMetadata

@Suite("FourCC and the bounded byte reader")
struct BinaryTests {
    @Test func fourCC() {
        let f: FourCC = "GPS5"
        #expect(f.rawValue == 0x4750_5335)
        #expect(f.description == "GPS5")
        #expect(FourCC("ab").description == "ab  ")
        #expect(FourCC(rawValue: 0x0000_0003).description == "\\x00\\x00\\x00\\x03")
        #expect(FourCC(bytes: [0x6D, 0x65, 0x62, 0x78]) == "mebx")
        #expect(!FourCC(rawValue: 3).isPrintable)
    }

    @Test func readerNeverReadsPastItsRange() throws {
        var r = ByteReader([1, 2, 3, 4, 5, 6], range: 1..<5, format: "test")
        #expect(try r.u16be() == 0x0203)
        #expect(try r.u8() == 4)
        #expect(r.remaining == 1)
        do {
            _ = try r.u32be("a field")
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .corruptData)
            #expect(error.message == "test: a field at offset 4 needs 4 bytes but only 1 remain")
        }
        var le = ByteReader([0x01, 0x02, 0x03, 0x04, 0, 0, 0, 0x80], format: "test")
        #expect(try le.u32le() == 0x0403_0201)
        #expect(try le.u32le() == 0x8000_0000)
        expectReelError(.corruptData) { try le.skip(-1) }
        var w = ByteWriter()
        w.u16le(0x0102)
        w.u32be(0x0304_0506)
        #expect(w.bytes == [2, 1, 3, 4, 5, 6])
    }
}
