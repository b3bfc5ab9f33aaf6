import Foundation
import ReelTestSupport
import Testing

@testable import ReelTesting

@Suite struct ZlibTests {
    /// 3000 letters from a fixed linear congruential generator: compressible but not trivially.
    static let skewedText: [UInt8] = {
        var x: UInt32 = 1
        let alphabet = Array("eeeeeeetttaaoinshrdlu  ".utf8)
        return (0..<3000).map { _ in
            x = (x &* 1_103_515_245 &+ 12345) & 0x7FFF_FFFF
            return alphabet[Int((x >> 16) % UInt32(alphabet.count))]
        }
    }()

    /// `skewedText` compressed by Python's `zlib.compress(data, 9)`: one dynamic-Huffman block.
    static let dynamicStream = """
        eNotlgGuJCEIRK/C1Ugk0cRgonj/eWXP7O7/O92KUFUURvUVx8c9K6xiz7DhHhXdl1vUMo91IlZFmJ9dO4K3NuOMlcFX3q/NI29RFbfVqWtxrveoYbXZuFu0qr4tCK0NzRVntpjJ115RbXJ69bNHxrBsrXvazl7m5ew29rXDz+TwHNpGcr3Piox9ec7fE6vzm2BB6rE4L61bjH6ibqxoSv4az60HORo1W/RBlhnN7WQPrxocOWMl0MTN2z22Eh/EHFRDJmaXuijCjgogjvU250pCk1y0wVG82nfEDb8qgeWrnH+DN9YAlQwzFu+AxFPflXuJCE5fAmTYJFU/5BMkalUGmiStZHKwEGBIGOzvGduHTz9ze7hyBy0dw2fGHH3O/sEe+9VhNfaEi6FMxeGpj34xySGlM0KYOO+ifF4RkQQWaYhgxj5ZM1PHbPHT2dXsySS+rMVDzFqDnBda4KQhwAAuEYm2TBvCk5zPLJ09KYTDxVcgG1P4BDhCahsvDH2iL4hau91mLfaSRBHMZRXrQIUzs1XvL626JBE+a7daK8YkEplR/Ckfkn5JQ1UT8Vuh2dbTzoGd3OkvZNzDr51ZggtZXdGrhhCmbVQ7eVsfo4c4GdTie16Ku4KTY/iM1ffbxMfi9ROpt3fARIzR7iS8AzEHw4M9CLe/AHV7L28uAR2+NlZI9S5ue41ltuaAyUc/scU3mu8lddI0D0S4Bw27S3RW0gbt9fUQhlpFlLGu8qsxD9WM8zKFztslej4NDieA3vsW8vACntsFBwCaJF42cylgKp/R9i2tImvYu9IMImAjgI+nN/JSINYdaWgYQdhZLolB5JaiR1NtEgrnNoxG4fskQhPKwIWIbeNp6fKPMqQJGI4+IJczjUrvQGzNViZP5ASHtdZlewn9fp7pIYvhHYujz+C6FufetE+5+3K46lyPxKFGi3FXAZ1IRebOUxM8RPN+21ZBk95VW9mEKHU8aZMvLTnb4q1DeM1FfletLLQN7b7GwSIpyedOKHMICCApe+1LNl6ix58tsO0KavJLm0sQbEEtgCngTuG8z3ntNddN1DEVXA1BSeh2SAFAQ3ScqNSTJilLYEWr9QUgPvtzr4n+Oi1Y7/inKPL1rX5WpJ5DShHnYk9DQ85V/aaDy22SlHwaDwWLbplT//tU0UM4U0R6IvDcbzWM5nndKby7lGlTFZ73lT1O84MWm+9rVNkXMaj1AatAMdV8KhVlnEtgbyO6nHaKuNce7GW8QcnGE5VU+1xMg6CrAfF/15k4zIv01Ugt5l+bMwnQmMx3URcLVdtpx+/a6Jk+gs2GBeVSoqZJ8WpxhbhLpi610+8o0l43ipmXOzrgmMscxpRAUq2/3Z5zAqI6TzaiaVuyNzKR66iAKSD2194yekzr1QU9R9OVrfTS4lC4X/NaPcNSzmiNMdkbP3AsNZBUIQ/dhdVzZcDxEWfzo8bSyAQ0itqW9JNGPIb4WeG10fuZ8w02tKYbBU/xw0W3UAGK3AxAhPF8k6pliLXn0Rz/rhcAlPcKmy0YEJrG7BKSbWlffTeYZ2fUQV91ydRMOlCroivOAZ0/bbgGt5itOaIJhMXKZVD7c+WP2UmpunQwTGij5TgznaHhZZdnLgrj9bpcq7VnGHCt/+Lf3RrtL+C+P9YSlQ0uMox1HHrQ70kYrmC6Y71RhCEyaKQZGGYnHILCmxyYXUepnk2TwSpz11c3C+0bSs+dhFPjUsdTxrwuIs/kjrntvrotd2Yd9Lom2BnKvge3NG5MNJ+G9OYe9dTXOdrIw8R6PNlJVQnXhyDUg5Fqxk8c4g5v0pCcy97k5d5Bi3LhG2flVsE8QWG6ZZ4ACV0op4bGM5f9Ro4kpcbv6A2s92ZYiSPpJY14XE+4FYbuUJvJT3fjPW3JVuFCUNRo6JYuRGi715ThteFq0PHGZ8rBASGTicbv2031NWllS3Ib2WOAgIc43dcnk29Eqt/S57sIoZpjb8ihrHeJ+j7MKeGCFmt8Y5ROOKYLIQOCWaN24jqYc9uq6boI/QC4cJIK
        """

    static func bytes(base64 text: String) -> [UInt8] {
        [UInt8](Data(base64Encoded: text.trimmingCharacters(in: .whitespacesAndNewlines)) ?? Data())
    }

    @Test func generatorMatchesTheOneTheStreamWasMadeFrom() {
        #expect(FrameHash.fnv1a64(Self.skewedText) == 0x37DC_8B44_F537_A432)
    }

    @Test func inflatesADynamicHuffmanStreamFromZlib() throws {
        let stream = Self.bytes(base64: Self.dynamicStream)
        #expect((stream[2] >> 1) & 3 == 2, "the first block should be dynamic Huffman")
        let out = try Zlib.decompress(stream, maximumOutputCount: 10_000, context: "test")
        #expect(out == Self.skewedText)
    }

    @Test(arguments: PNG.Compression.allCases)
    func roundTrips(method: PNG.Compression) throws {
        let inputs: [[UInt8]] = [
            [], [42], Self.skewedText, [UInt8](repeating: 7, count: 70_000),
            (0..<140_000).map { UInt8(truncatingIfNeeded: $0 * 31 / 7) },
        ]
        for input in inputs {
            let compressed = Zlib.compress(input, method: method)
            #expect(try Zlib.decompress(compressed, maximumOutputCount: input.count, context: "test") == input)
        }
    }

    @Test func eachMethodWritesTheBlocksItNames() {
        // The first block's type is bits 1-2 of the byte after the two-byte zlib header.
        let blockType = { (stream: [UInt8]) in (stream[2] >> 1) & 3 }
        #expect(blockType(Zlib.compress(Self.skewedText, method: .stored)) == 0)
        #expect(blockType(Zlib.compress(Self.skewedText, method: .fixedHuffman)) == 1)
        #expect(blockType(Zlib.compress(Self.skewedText, method: .standard)) == 2)
        let compressed = Zlib.compress([UInt8](repeating: 7, count: 70_000), method: .fixedHuffman)
        #expect(compressed.count < 1000)
        #expect(Zlib.compress(Self.skewedText).count < Self.skewedText.count * 4 / 5)
        #expect(Zlib.compress(Self.skewedText, method: .stored).count > Self.skewedText.count)
    }

    @Test func refusesAPresetDictionary() {
        // CMF 0x78, FLG with FDICT set (0xBB: 0x78BB is a multiple of 31), then a dictionary id.
        expectReelError(.corruptData) { try Zlib.decompress([0x78, 0xBB, 0, 0, 0, 1, 3, 0], maximumOutputCount: 100, context: "test") }
    }

    @Test func refusesOutputBeyondTheLimit() {
        let compressed = Zlib.compress([UInt8](repeating: 1, count: 5000))
        expectReelError(.corruptData) { try Zlib.decompress(compressed, maximumOutputCount: 4999, context: "test") }
    }

    @Test func detectsDamage() {
        let good = Zlib.compress(Self.skewedText)
        var badChecksum = good
        badChecksum[badChecksum.count - 1] ^= 1
        var badHeader = good
        badHeader[1] ^= 1
        let truncated = Array(good.prefix(good.count / 2))
        var reservedBlock = good
        reservedBlock[2] = 0b111  // final, block type 3
        for (name, data) in [("checksum", badChecksum), ("header", badHeader), ("truncated", truncated), ("block type", reservedBlock)] {
            do {
                _ = try Zlib.decompress(data, maximumOutputCount: 10_000, context: "damaged")
                Issue.record("damaged \(name) was accepted")
            } catch {
                #expect(error.code == .corruptData)
                #expect(error.message.hasPrefix("damaged"))
            }
        }
    }

    @Test func survivesRandomCorruptionWithoutCrashing() {
        let good = Zlib.compress(Self.skewedText)
        var x: UInt32 = 99
        for _ in 0..<300 {
            var data = good
            for _ in 0..<3 {
                x = x &* 1_664_525 &+ 1_013_904_223
                data[Int(x >> 8) % data.count] ^= UInt8(truncatingIfNeeded: x >> 24) | 1
            }
            // Either an error or some output within the limit: never a crash or a hang.
            if let out = try? Zlib.decompress(data, maximumOutputCount: 4000, context: "fuzz") {
                #expect(out.count <= 4000)
            }
        }
    }
}
