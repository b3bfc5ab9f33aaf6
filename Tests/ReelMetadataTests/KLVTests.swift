import Foundation
import ReelTestSupport
import Testing

@testable import ReelMetadata

@Suite("KLV framing: keys, BER lengths, BER-OID tags")
struct KLVTests {
    @Test(arguments: [0, 1, 127, 128, 255, 256, 65_535, 1_000_000])
    func berLengthRoundTrips(length: Int) throws {
        let encoded = KLV.berLengthBytes(length)
        #expect(encoded.count == (length < 128 ? 1 : 1 + (length.bitWidth - length.leadingZeroBitCount + 7) / 8))
        var r = ByteReader(encoded + [UInt8](repeating: 0, count: length), format: "test")
        #expect(try KLV.berLength(&r) == length)
    }

    @Test(arguments: [1, 65, 127, 128, 300, 16_383, 16_384, 2_000_000])
    func berOIDRoundTrips(tag: Int) throws {
        var r = ByteReader(KLV.berOIDBytes(tag), format: "test")
        #expect(try KLV.berOID(&r) == tag)
        #expect(r.isAtEnd)
    }

    @Test func badLengthsAndTags() {
        var r = ByteReader([0x89, 1, 2, 3, 4, 5, 6, 7, 8, 9], format: "test")
        expectReelError(.metadataFormat) { try KLV.berLength(&r) }  // 9 length bytes
        var r2 = ByteReader([0x82, 0x10, 0x00, 1, 2], format: "test")
        expectReelError(.corruptData) { try KLV.berLength(&r2) }  // 4096 past the end
        var r3 = ByteReader([0x81, 0x81, 0x81, 0x81, 0x01], format: "test")
        expectReelError(.metadataFormat) { try KLV.berOID(&r3) }  // 5-byte tag
    }

    @Test func splitsPacketsAndIgnoresStuffing() throws {
        let a = MISB0601.encode([.init(tag: 65, value: Data([17]))])
        let b = MISB0601.encode([.init(tag: 3, value: Data("M".utf8))])
        let packets = try KLV.packets(in: a + b + Data([0, 0, 0xFF]))
        #expect(packets.count == 2)
        #expect(packets[1].offset == a.count)
        #expect(packets[1].bytes == b)
        #expect(packets[0].keyHex == "060E2B34020B01010E01030101000000")
        do {
            _ = try KLV.packets(in: Data([1, 2, 3, 4] + [UInt8](repeating: 9, count: 14)))
            Issue.record("expected an error")
        } catch {
            #expect(error.message.contains("SMPTE prefix"))
        }
        expectReelError(.corruptData) { try KLV.packets(in: a.dropLast()) }
    }
}
