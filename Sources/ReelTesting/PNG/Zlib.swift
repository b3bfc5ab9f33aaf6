import ReelCore

/// zlib streams (RFC 1950) around DEFLATE data (RFC 1951): what a PNG's IDAT chunks hold.
///
/// ``decompress(_:maximumOutputCount:context:)`` inflates stored, fixed-Huffman and
/// dynamic-Huffman blocks and checks the Adler-32 trailer; ``compress(_:method:)`` writes
/// stored or fixed-Huffman blocks (greedy LZ77 over a 32 KiB window). Both are pure Swift.
enum Zlib {
    /// How ``compress(_:method:)`` codes the data.
    enum Method: Sendable {
        /// Stored (uncompressed) blocks of up to 65535 bytes.
        case stored
        /// One fixed-Huffman block with LZ77 matches.
        case fixedHuffman
    }

    /// The tables of RFC 1951 section 3.2.5.
    static let lengthBase: [Int] = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59,
                                    67, 83, 99, 115, 131, 163, 195, 227, 258]
    static let lengthExtra: [Int] = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3,
                                     4, 4, 4, 4, 5, 5, 5, 5, 0]
    static let distanceBase: [Int] = [1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769,
                                      1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577]
    static let distanceExtra: [Int] = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8,
                                       9, 9, 10, 10, 11, 11, 12, 12, 13, 13]
    /// The order in which a dynamic block lists the code-length code lengths.
    static let codeLengthOrder: [Int] = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]

    /// The code lengths of the fixed literal/length code.
    static let fixedLiteralLengths: [UInt8] = (0..<288).map { s -> UInt8 in
        switch s {
        case 0..<144: 8
        case 144..<256: 9
        case 256..<280: 7
        default: 8
        }
    }
    static let fixedDistanceLengths = [UInt8](repeating: 5, count: 30)
}

// MARK: - Decompression

extension Zlib {
    /// Inflates a zlib stream, refusing to produce more than `maximumOutputCount` bytes.
    ///
    /// - Parameter context: names the data in errors (`"frame.png IDAT"`).
    static func decompress(_ data: [UInt8], maximumOutputCount: Int, context: String) throws(ReelError) -> [UInt8] {
        func fail(_ message: String) -> ReelError { ReelError(.corruptData, "\(context): \(message)") }
        guard data.count >= 6 else { throw fail("zlib stream of \(data.count) bytes is too short") }
        let cmf = data[0], flg = data[1]
        guard cmf & 0x0F == 8 else { throw fail("zlib compression method \(cmf & 0x0F) is not deflate (8)") }
        guard cmf >> 4 <= 7 else { throw fail("zlib window size field \(cmf >> 4) is over 7") }
        guard (UInt16(cmf) << 8 | UInt16(flg)) % 31 == 0 else { throw fail("zlib header check bits are wrong") }
        guard flg & 0x20 == 0 else { throw fail("zlib preset dictionary is not supported") }

        var reader = BitReader(bytes: data, start: 2, context: context)
        var out: [UInt8] = []
        out.reserveCapacity(min(maximumOutputCount, 1 << 24))
        var final = false
        while !final {
            final = try reader.bits(1) == 1
            switch try reader.bits(2) {
            case 0: try inflateStored(&reader, into: &out, limit: maximumOutputCount)
            case 1:
                try inflateHuffman(&reader, literal: try Huffman(lengths: fixedLiteralLengths, context: context),
                                   distance: try Huffman(lengths: fixedDistanceLengths, context: context),
                                   into: &out, limit: maximumOutputCount)
            case 2:
                let (literal, distance) = try readDynamicTables(&reader)
                try inflateHuffman(&reader, literal: literal, distance: distance, into: &out, limit: maximumOutputCount)
            default:
                throw fail("deflate block type 3 is reserved (corrupt stream near byte \(reader.bytePosition))")
            }
        }
        reader.alignToByte()
        var stored: UInt32 = 0
        for _ in 0..<4 { stored = stored << 8 | UInt32(try reader.bits(8)) }
        let actual = Adler32.checksum(out)
        guard stored == actual else {
            throw fail("Adler-32 mismatch: stream says \(hex(stored)), data gives \(hex(actual))")
        }
        return out
    }

    private static func hex(_ v: UInt32) -> String { "0x" + String(v, radix: 16) }

    private static func inflateStored(_ reader: inout BitReader, into out: inout [UInt8], limit: Int) throws(ReelError) {
        reader.alignToByte()
        let length = Int(try reader.bits(16))
        let complement = Int(try reader.bits(16))
        guard length == ~complement & 0xFFFF else {
            throw reader.error("stored block length \(length) does not match its complement")
        }
        guard out.count + length <= limit else { throw reader.error("inflates to more than the expected \(limit) bytes") }
        for _ in 0..<length { out.append(UInt8(try reader.bits(8))) }
    }

    private static func readDynamicTables(_ reader: inout BitReader) throws(ReelError) -> (Huffman, Huffman) {
        let literalCount = Int(try reader.bits(5)) + 257
        let distanceCount = Int(try reader.bits(5)) + 1
        let codeLengthCount = Int(try reader.bits(4)) + 4
        guard literalCount <= 286, distanceCount <= 30 else {
            throw reader.error("dynamic block declares \(literalCount) literal and \(distanceCount) distance codes (at most 286 and 30)")
        }
        var codeLengthLengths = [UInt8](repeating: 0, count: 19)
        for i in 0..<codeLengthCount { codeLengthLengths[codeLengthOrder[i]] = UInt8(try reader.bits(3)) }
        let codeLengthCode = try Huffman(lengths: codeLengthLengths, context: reader.context)

        var lengths: [UInt8] = []
        let total = literalCount + distanceCount
        lengths.reserveCapacity(total)
        while lengths.count < total {
            let symbol = try codeLengthCode.decode(&reader)
            let value: UInt8, repeatCount: Int
            switch symbol {
            case 0...15: value = UInt8(symbol); repeatCount = 1
            case 16:
                guard let previous = lengths.last else { throw reader.error("code length 16 (repeat) with nothing to repeat") }
                value = previous; repeatCount = 3 + Int(try reader.bits(2))
            case 17: value = 0; repeatCount = 3 + Int(try reader.bits(3))
            default: value = 0; repeatCount = 11 + Int(try reader.bits(7))
            }
            guard lengths.count + repeatCount <= total else { throw reader.error("code lengths run past the declared \(total) codes") }
            lengths.append(contentsOf: repeatElement(value, count: repeatCount))
        }
        guard lengths[256] != 0 else { throw reader.error("dynamic block has no end-of-block code") }
        let literal = try Huffman(lengths: Array(lengths[0..<literalCount]), context: reader.context)
        let distance = try Huffman(lengths: Array(lengths[literalCount...]), context: reader.context)
        return (literal, distance)
    }

    private static func inflateHuffman(_ reader: inout BitReader, literal: Huffman, distance: Huffman,
                                       into out: inout [UInt8], limit: Int) throws(ReelError) {
        while true {
            let symbol = try literal.decode(&reader)
            if symbol < 256 {
                guard out.count < limit else { throw reader.error("inflates to more than the expected \(limit) bytes") }
                out.append(UInt8(symbol))
                continue
            }
            if symbol == 256 { return }
            let lengthIndex = symbol - 257
            guard lengthIndex < lengthBase.count else { throw reader.error("invalid length symbol \(symbol)") }
            let length = lengthBase[lengthIndex] + Int(try reader.bits(lengthExtra[lengthIndex]))
            let distanceSymbol = try distance.decode(&reader)
            guard distanceSymbol < distanceBase.count else { throw reader.error("invalid distance symbol \(distanceSymbol)") }
            let dist = distanceBase[distanceSymbol] + Int(try reader.bits(distanceExtra[distanceSymbol]))
            guard dist <= out.count else {
                throw reader.error("match distance \(dist) reaches before the start of the data (\(out.count) bytes so far)")
            }
            guard out.count + length <= limit else { throw reader.error("inflates to more than the expected \(limit) bytes") }
            let from = out.count - dist
            for i in 0..<length { out.append(out[from + i]) }
        }
    }
}

/// Reads a byte array as a stream of bits, least significant bit first (RFC 1951 3.1.1).
struct BitReader {
    let bytes: [UInt8]
    let context: String
    private var next: Int
    private var buffer: UInt64 = 0
    private var count = 0

    init(bytes: [UInt8], start: Int, context: String) {
        self.bytes = bytes
        self.next = start
        self.context = context
    }

    /// The byte the reader has reached, for error messages.
    var bytePosition: Int { next - count / 8 }

    func error(_ message: String) -> ReelError {
        ReelError(.corruptData, "\(context): \(message) (near byte \(bytePosition))")
    }

    private mutating func refill() {
        while count <= 56, next < bytes.count {
            buffer |= UInt64(bytes[next]) << UInt64(count)
            next += 1
            count += 8
        }
    }

    /// The next `n` bits without consuming them, zero-padded past the end of the data.
    mutating func peek(_ n: Int) -> UInt32 {
        refill()
        return UInt32(truncatingIfNeeded: buffer & ((1 << UInt64(n)) - 1))
    }

    mutating func consume(_ n: Int) throws(ReelError) {
        guard n <= count else { throw error("data ends in the middle of a code") }
        buffer >>= UInt64(n)
        count -= n
    }

    /// The next `n` (0...32) bits as a number, first bit least significant.
    mutating func bits(_ n: Int) throws(ReelError) -> UInt32 {
        if n == 0 { return 0 }
        let value = peek(n)
        try consume(n)
        return value
    }

    /// Skips to the next byte boundary.
    mutating func alignToByte() {
        let drop = count % 8
        buffer >>= UInt64(drop)
        count -= drop
    }
}

/// A canonical Huffman code, decoded through one table indexed by the next `maxLength` bits.
struct Huffman {
    /// `symbol << 4 | length`; 0 marks a bit pattern no code starts with.
    private var table: [UInt32]
    private var maxLength: Int

    init(lengths: [UInt8], context: String) throws(ReelError) {
        var counts = [Int](repeating: 0, count: 16)
        for l in lengths {
            guard l <= 15 else { throw ReelError(.corruptData, "\(context): Huffman code length \(l) over 15") }
            counts[Int(l)] += 1
        }
        counts[0] = 0
        var left = 1
        for len in 1...15 {
            left = left * 2 - counts[len]
            guard left >= 0 else { throw ReelError(.corruptData, "\(context): over-subscribed Huffman code") }
        }
        maxLength = lengths.map(Int.init).max() ?? 0
        table = [UInt32](repeating: 0, count: 1 << maxLength)
        var nextCode = [Int](repeating: 0, count: 16)
        var code = 0
        for len in 1..<16 {
            code = (code + counts[len - 1]) << 1
            nextCode[len] = code
        }
        for (symbol, l) in lengths.enumerated() where l > 0 {
            let len = Int(l)
            let c = nextCode[len]
            nextCode[len] += 1
            var reversed = 0
            for b in 0..<len where c & (1 << b) != 0 { reversed |= 1 << (len - 1 - b) }
            let entry = UInt32(symbol) << 4 | UInt32(len)
            var i = reversed
            while i < table.count {
                table[i] = entry
                i += 1 << len
            }
        }
    }

    func decode(_ reader: inout BitReader) throws(ReelError) -> Int {
        let entry = table[Int(reader.peek(maxLength))]
        let length = Int(entry & 0xF)
        guard length > 0 else { throw reader.error("bit pattern matches no Huffman code") }
        try reader.consume(length)
        return Int(entry >> 4)
    }
}
