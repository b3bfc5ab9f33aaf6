import Testing

@testable import ReelTesting

@Suite struct ChecksumsTests {
    @Test func crc32MatchesTheStandardCheckValue() {
        // The check value every CRC-32 (ISO 3309) implementation publishes for "123456789".
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(CRC32.checksum([UInt8]()) == 0)
    }

    @Test func crc32IsIncremental() {
        var crc = CRC32()
        crc.update(Array("1234".utf8))
        crc.update(Array("56789".utf8))
        #expect(crc.value == 0xCBF4_3926)
    }

    @Test func adler32MatchesKnownValues() {
        #expect(Adler32.checksum(Array("Wikipedia".utf8)) == 0x11E6_0398)
        #expect(Adler32.checksum([UInt8]()) == 1)
    }

    @Test func adler32StaysExactOverLongRuns() {
        // 100 000 bytes of 0xFF forces the periodic modulo; the value is computed the slow way.
        let bytes = [UInt8](repeating: 0xFF, count: 100_000)
        var a: UInt64 = 1, b: UInt64 = 0
        for byte in bytes {
            a = (a + UInt64(byte)) % 65521
            b = (b + a) % 65521
        }
        #expect(Adler32.checksum(bytes) == UInt32(b << 16 | a))
    }
}
