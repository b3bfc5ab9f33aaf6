import Foundation

/// An H.264 sample description's decoder configuration (`avcC`, ISO/IEC 14496-15): what
/// smart render reads from a source to match its encoder to it, and writes back with the
/// parameter sets of the re-encoded stretches added beside the source's.
struct AVCConfiguration: Sendable, Hashable {
    var profile: UInt8
    var compatibility: UInt8
    var level: UInt8
    /// Bytes in each NAL unit's length prefix (1, 2 or 4).
    var lengthSize: Int
    var sequenceParameterSets: [Data]
    var pictureParameterSets: [Data]
    /// What follows the picture parameter sets (the High profiles' chroma format, bit
    /// depths and SPS extensions), kept as it is.
    var trailer: Data

    /// Parses `avcC` bytes; nil when they are not one (Annex B extradata, empty, short).
    init?(_ data: Data) {
        let b = [UInt8](data)
        guard b.count >= 7, b[0] == 1 else { return nil }
        profile = b[1]
        compatibility = b[2]
        level = b[3]
        lengthSize = Int(b[4] & 3) + 1
        var i = 6
        func sets(count: Int) -> [Data]? {
            var out: [Data] = []
            for _ in 0..<count {
                guard i + 2 <= b.count else { return nil }
                let n = Int(b[i]) << 8 | Int(b[i + 1])
                i += 2
                guard n > 0, i + n <= b.count else { return nil }
                out.append(Data(b[i..<(i + n)]))
                i += n
            }
            return out
        }
        guard let sps = sets(count: Int(b[5] & 0x1F)), i < b.count else { return nil }
        let ppsCount = Int(b[i])
        i += 1
        guard let pps = sets(count: ppsCount) else { return nil }
        sequenceParameterSets = sps
        pictureParameterSets = pps
        trailer = Data(b[i...])
    }

    /// The `avcC` bytes.
    var data: Data {
        var out: [UInt8] = [
            1, profile, compatibility, level, 0xFC | UInt8(lengthSize - 1),
            0xE0 | UInt8(sequenceParameterSets.count),
        ]
        for s in sequenceParameterSets { out += [UInt8(s.count >> 8), UInt8(s.count & 0xFF)] + s }
        out.append(UInt8(pictureParameterSets.count))
        for p in pictureParameterSets { out += [UInt8(p.count >> 8), UInt8(p.count & 0xFF)] + p }
        return Data(out) + trailer
    }

    /// The IDs of the sequence parameter sets (`seq_parameter_set_id`).
    var sequenceParameterSetIDs: [Int] {
        sequenceParameterSets.compactMap { nal in
            var r = ExpGolombReader(rbsp: nal, skipping: 4)  // NAL header, profile, constraints, level
            return r.unsignedValue()
        }
    }

    /// The IDs of the picture parameter sets (`pic_parameter_set_id`).
    var pictureParameterSetIDs: [Int] {
        pictureParameterSets.compactMap { nal in
            var r = ExpGolombReader(rbsp: nal, skipping: 1)
            return r.unsignedValue()
        }
    }

    /// The first sequence parameter set's chroma format (`chroma_format_idc`: 1 is 4:2:0)
    /// and luma bit depth; 4:2:0 and 8 bits for the profiles that do not code them.
    var sampling: (chromaFormat: Int, bitDepth: Int)? {
        guard let sps = sequenceParameterSets.first else { return nil }
        var r = ExpGolombReader(rbsp: sps, skipping: 1)
        guard let profile = r.bits(8), r.bits(16) != nil, r.unsignedValue() != nil else { return nil }
        guard [100, 110, 122, 244, 44, 83, 86, 118, 128, 138, 139, 134, 135].contains(profile) else { return (1, 8) }
        guard let chroma = r.unsignedValue() else { return nil }
        if chroma == 3 { guard r.flag() != nil else { return nil } }
        guard let luma = r.unsignedValue(), r.unsignedValue() != nil else { return nil }
        return (chroma, luma + 8)
    }

    /// The x264 profile name for ``profile``, or nil for one x264 cannot match: x264 codes
    /// 4:2:0 in 8 bits (Baseline, Main, High) or 10 (High 10).
    var x264Profile: String? {
        guard let sampling, sampling.chromaFormat == 1 else { return nil }
        switch (profile, sampling.bitDepth) {
        case (66, 8): return "baseline"
        case (77, 8): return "main"
        case (100, 8): return "high"
        case (110, 10): return "high10"
        default: return nil
        }
    }

    /// The level as x264 spells it (`4.0`, `3.1`).
    var x264Level: String { "\(level / 10).\(level % 10)" }

    /// This configuration with `other`'s parameter sets added after its own (those it
    /// already holds byte for byte are not repeated).
    func adding(parameterSetsOf other: AVCConfiguration) -> AVCConfiguration {
        var c = self
        for s in other.sequenceParameterSets where !c.sequenceParameterSets.contains(s) { c.sequenceParameterSets.append(s) }
        for p in other.pictureParameterSets where !c.pictureParameterSets.contains(p) { c.pictureParameterSets.append(p) }
        return c
    }

    /// What is wrong with a sample (length-prefixed NAL units of `lengthSize` bytes) whose
    /// structure does not hold: NAL lengths that do not add up to the sample's size, a NAL
    /// unit with its forbidden bit set or of type 0, a slice whose header names a slice type
    /// H.264 does not have or a picture parameter set not among `pictureParameterSetIDs`, no
    /// slice at all. Nil for a sample that parses. Damage inside a slice's coded data is not
    /// seen without decoding it; a cut-short or overwritten sample almost always breaks one
    /// of these.
    static func damage(in sample: Data, lengthSize: Int, pictureParameterSetIDs: Set<Int>) -> String? {
        var slices = 0
        let problem = LengthPrefixedNALUnits.firstProblem(in: sample, lengthSize: lengthSize, minimumLength: 1) { at, unit in
            let header = unit[unit.startIndex]
            guard header & 0x80 == 0 else { return "the NAL unit at byte \(at) has its forbidden bit set" }
            let type = header & 0x1F
            guard type != 0 else { return "the NAL unit at byte \(at) is of type 0" }
            guard type == 1 || type == 5 else { return nil }
            // first_mb_in_slice, slice_type, pic_parameter_set_id: the first bytes suffice.
            var r = ExpGolombReader(rbsp: Data(unit.prefix(24)), skipping: 1)
            guard r.unsignedValue() != nil, let sliceType = r.unsignedValue(), sliceType <= 9 else {
                return "the slice at byte \(at) has no slice type H.264 defines"
            }
            guard let pps = r.unsignedValue(), pictureParameterSetIDs.contains(pps) else {
                return "the slice at byte \(at) refers to a picture parameter set the sample description does not hold"
            }
            slices += 1
            return nil
        }
        return problem ?? (slices == 0 ? "it holds no slice of a picture" : nil)
    }

    /// Whether a sample (length-prefixed NAL units of `lengthSize` bytes) holds an IDR
    /// picture's slice (NAL type 5).
    static func isIDR(_ sample: Data, lengthSize: Int) -> Bool {
        sample.withUnsafeBytes { raw -> Bool in
            let b = raw.bindMemory(to: UInt8.self)
            var i = 0
            while i + lengthSize < b.count {
                var n = 0
                for k in 0..<lengthSize { n = n << 8 | Int(b[i + k]) }
                i += lengthSize
                guard n > 0, i + n <= b.count else { return false }
                if b[i] & 0x1F == 5 { return true }
                i += n
            }
            return false
        }
    }
}

/// The NAL units of a smart render's sample, each after a big-endian length of
/// `lengthSize` bytes (ISO/IEC 14496-15), checked one by one.
enum LengthPrefixedNALUnits {
    /// The first thing wrong with `sample`'s structure: an empty sample, lengths that do not
    /// add up to its size or a unit shorter than `minimumLength`, or what `unit` says of a
    /// unit (given the byte its length starts at and its bytes); nil when nothing is.
    static func firstProblem(
        in sample: Data, lengthSize: Int, minimumLength: Int, _ unit: (Int, Slice<UnsafeBufferPointer<UInt8>>) -> String?
    ) -> String? {
        sample.withUnsafeBytes { raw -> String? in
            let b = raw.bindMemory(to: UInt8.self)
            guard !b.isEmpty else { return "it is empty" }
            var i = 0
            while i < b.count {
                guard i + lengthSize < b.count else { return "its last \(b.count - i) bytes are no NAL unit" }
                var n = 0
                for k in 0..<lengthSize { n = n << 8 | Int(b[i + k]) }
                let at = i
                i += lengthSize
                guard n > 0 else { return "the NAL unit at byte \(at) has length 0" }
                guard n >= minimumLength else { return "the NAL unit at byte \(at) is shorter than its header" }
                guard i + n <= b.count else { return "the NAL unit at byte \(at) runs \(i + n - b.count) bytes past the packet's end" }
                if let problem = unit(at, b[i..<(i + n)]) { return problem }
                i += n
            }
            return nil
        }
    }
}

/// Reads unsigned Exp-Golomb values from a NAL unit's payload, emulation-prevention bytes
/// (`00 00 03`) removed.
struct ExpGolombReader {
    private var bytes: [UInt8] = []
    private var bit = 0

    init(rbsp nal: Data, skipping headerBytes: Int) {
        var zeros = 0
        for (i, byte) in nal.enumerated() where i >= headerBytes {
            if zeros >= 2, byte == 3 { zeros = 0; continue }
            zeros = byte == 0 ? zeros + 1 : 0
            bytes.append(byte)
        }
    }

    private mutating func readBit() -> Int? {
        guard bit < bytes.count * 8 else { return nil }
        let v = Int(bytes[bit / 8] >> (7 - UInt8(bit % 8))) & 1
        bit += 1
        return v
    }

    /// The next bit, as 0 or 1.
    mutating func flag() -> Int? { readBit() }

    /// The next `count` bits (at most 32), most significant first.
    mutating func bits(_ count: Int) -> Int? {
        var v = 0
        for _ in 0..<count {
            guard let b = readBit() else { return nil }
            v = v << 1 | b
        }
        return v
    }

    mutating func unsignedValue() -> Int? {
        var zeros = 0
        while true {
            guard let b = readBit() else { return nil }
            if b == 1 { break }
            zeros += 1
            if zeros > 31 { return nil }
        }
        var v = 1
        for _ in 0..<zeros {
            guard let b = readBit() else { return nil }
            v = v << 1 | b
        }
        return v - 1
    }
}
