extension Zlib {
    /// A zlib stream holding `data`: deflate method, 32 KiB window, Adler-32 trailer.
    static func compress(_ data: [UInt8], method: Method = .fixedHuffman) -> [UInt8] {
        var writer = BitWriter()
        // CMF 0x78: deflate with a 32 KiB window; FLG 0x01 makes CMF*256+FLG a multiple of 31.
        writer.bytes = [0x78, 0x01]
        switch method {
        case .stored: writeStored(data, to: &writer)
        case .fixedHuffman: writeFixed(data, to: &writer)
        }
        writer.flushToByte()
        let adler = Adler32.checksum(data)
        writer.bytes += [UInt8(adler >> 24), UInt8(adler >> 16 & 0xFF), UInt8(adler >> 8 & 0xFF), UInt8(adler & 0xFF)]
        return writer.bytes
    }

    private static func writeStored(_ data: [UInt8], to writer: inout BitWriter) {
        var start = 0
        repeat {
            let length = min(65535, data.count - start)
            let final = start + length == data.count
            writer.write(final ? 1 : 0, bits: 1)
            writer.write(0, bits: 2)
            writer.flushToByte()
            writer.bytes += [UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8(~length >> 8 & 0xFF)]
            writer.bytes += data[start..<(start + length)]
            start += length
        } while start < data.count
    }

    /// The fixed code of each literal/length symbol, bit-reversed for LSB-first writing, and its length.
    private static let fixedLiteralCodes: [(code: UInt32, length: Int)] = canonicalCodes(fixedLiteralLengths)

    private static func canonicalCodes(_ lengths: [UInt8]) -> [(code: UInt32, length: Int)] {
        var counts = [Int](repeating: 0, count: 16)
        for l in lengths where l > 0 { counts[Int(l)] += 1 }
        var next = [Int](repeating: 0, count: 16)
        var code = 0
        for len in 1..<16 {
            code = (code + counts[len - 1]) << 1
            next[len] = code
        }
        return lengths.map { l in
            let len = Int(l)
            guard len > 0 else { return (0, 0) }
            let c = next[len]
            next[len] += 1
            var reversed: UInt32 = 0
            for b in 0..<len where c & (1 << b) != 0 { reversed |= 1 << UInt32(len - 1 - b) }
            return (reversed, len)
        }
    }

    private static func writeFixed(_ data: [UInt8], to writer: inout BitWriter) {
        writer.write(1, bits: 1)  // final
        writer.write(1, bits: 2)  // fixed Huffman
        func literal(_ symbol: Int) {
            let c = fixedLiteralCodes[symbol]
            writer.write(c.code, bits: c.length)
        }
        func match(length: Int, distance: Int) {
            var li = lengthBase.count - 1
            while lengthBase[li] > length { li -= 1 }
            literal(257 + li)
            writer.write(UInt32(length - lengthBase[li]), bits: lengthExtra[li])
            var di = distanceBase.count - 1
            while distanceBase[di] > distance { di -= 1 }
            // Fixed distance codes are 5 bits, written most significant bit first.
            var reversed: UInt32 = 0
            for b in 0..<5 where di & (1 << b) != 0 { reversed |= 1 << UInt32(4 - b) }
            writer.write(reversed, bits: 5)
            writer.write(UInt32(distance - distanceBase[di]), bits: distanceExtra[di])
        }

        // Greedy LZ77: a hash of the next three bytes finds earlier positions to try.
        let window = 32768, maxLength = 258, maxChain = 32
        let hashBits = 15
        var head = [Int](repeating: -1, count: 1 << hashBits)
        var previous = [Int](repeating: -1, count: window)
        func hash(_ i: Int) -> Int {
            let v = Int(data[i]) << 16 | Int(data[i + 1]) << 8 | Int(data[i + 2])
            return (v &* 2_654_435_761) >> (32 - hashBits) & ((1 << hashBits) - 1)
        }
        func insert(_ i: Int) {
            guard i + 2 < data.count else { return }
            let h = hash(i)
            previous[i % window] = head[h]
            head[h] = i
        }

        var i = 0
        while i < data.count {
            var bestLength = 0, bestDistance = 0
            if i + 2 < data.count {
                var candidate = head[hash(i)]
                var chain = 0
                let limit = min(maxLength, data.count - i)
                while candidate >= 0, i - candidate <= window, chain < maxChain {
                    var l = 0
                    while l < limit, data[candidate + l] == data[i + l] { l += 1 }
                    if l > bestLength {
                        bestLength = l
                        bestDistance = i - candidate
                        if l == limit { break }
                    }
                    let older = previous[candidate % window]
                    guard older < candidate else { break }
                    candidate = older
                    chain += 1
                }
            }
            if bestLength >= 3 {
                match(length: bestLength, distance: bestDistance)
                for k in i..<(i + bestLength) { insert(k) }
                i += bestLength
            } else {
                literal(Int(data[i]))
                insert(i)
                i += 1
            }
        }
        literal(256)
    }
}

/// Writes bits least significant first into bytes (RFC 1951 3.1.1).
struct BitWriter {
    var bytes: [UInt8] = []
    private var buffer: UInt64 = 0
    private var count = 0

    mutating func write(_ value: UInt32, bits n: Int) {
        guard n > 0 else { return }
        buffer |= UInt64(value & UInt32(truncatingIfNeeded: (1 << UInt64(n)) - 1)) << UInt64(count)
        count += n
        while count >= 8 {
            bytes.append(UInt8(truncatingIfNeeded: buffer))
            buffer >>= 8
            count -= 8
        }
    }

    /// Pads with zero bits to a byte boundary.
    mutating func flushToByte() {
        if count > 0 {
            bytes.append(UInt8(truncatingIfNeeded: buffer))
            buffer = 0
            count = 0
        }
    }
}
