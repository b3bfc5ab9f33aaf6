import Foundation

/// An HEVC sample description's decoder configuration (`hvcC`, ISO/IEC 14496-15 8.3.3):
/// what smart render reads from a source to match x265 to it.
///
/// x265 numbers its parameter sets 0 and has no option to number them otherwise, and most
/// sources use 0 too, so the parameter sets of the copied and the encoded stretches cannot
/// sit side by side in one sample description as H.264's do. A smart render's HEVC track
/// is `hev1` instead: each stretch carries its own parameter sets in its first sample, and
/// the sample description says its arrays are not complete (docs/smart-render.md).
struct HEVCConfiguration: Sendable, Hashable {
    /// The 22 bytes before the arrays: profile, tier, level, chroma format, bit depths,
    /// the NAL length size.
    var header: [UInt8]
    /// The parameter-set arrays (and SEI arrays) in order: NAL unit type, and its units.
    var arrays: [(type: UInt8, units: [Data])]

    /// Equal when the header and the parameter sets are: SEI arrays (x265 writes its
    /// options string in one) say nothing about how the samples decode.
    static func == (a: HEVCConfiguration, b: HEVCConfiguration) -> Bool {
        a.header == b.header && a.parameterSetSample == b.parameterSetSample
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(header)
        hasher.combine(parameterSetSample)
    }

    /// Parses `hvcC` bytes; nil when they are not one (Annex B extradata, empty, short).
    init?(_ data: Data) {
        let b = [UInt8](data)
        guard b.count >= 23, b[0] == 1 else { return nil }
        header = Array(b[0..<22])
        var i = 23
        var arrays: [(type: UInt8, units: [Data])] = []
        for _ in 0..<Int(b[22]) {
            guard i + 3 <= b.count else { return nil }
            let type = b[i] & 0x3F
            let count = Int(b[i + 1]) << 8 | Int(b[i + 2])
            i += 3
            var units: [Data] = []
            for _ in 0..<count {
                guard i + 2 <= b.count else { return nil }
                let n = Int(b[i]) << 8 | Int(b[i + 1])
                i += 2
                guard n > 0, i + n <= b.count else { return nil }
                units.append(Data(b[i..<(i + n)]))
                i += n
            }
            arrays.append((type, units))
        }
        self.arrays = arrays
    }

    /// The `hvcC` bytes, every array marked incomplete (`array_completeness` 0): more
    /// parameter sets come in the samples.
    var data: Data {
        var out = header
        out.append(UInt8(arrays.count))
        for array in arrays {
            out += [array.type & 0x3F, UInt8(array.units.count >> 8), UInt8(array.units.count & 0xFF)]
            for unit in array.units { out += [UInt8(unit.count >> 8), UInt8(unit.count & 0xFF)] + unit }
        }
        return Data(out)
    }

    /// `general_profile_idc`: 1 Main, 2 Main 10, 3 Main Still Picture, 4 range extensions.
    var profile: Int { Int(header[1] & 0x1F) }
    /// Whether the Main profile's compatibility flag is set (a Main 10 stream may say it
    /// also decodes as Main).
    var isMainCompatible: Bool { profile == 1 || header[2] & 0x40 != 0 }
    /// Whether the stream is Main 10, or says it also decodes as Main 10.
    var isMain10Compatible: Bool { profile == 2 || header[2] & 0x20 != 0 }
    var isHighTier: Bool { header[1] & 0x20 != 0 }
    /// `general_level_idc`: 30 times the level (120 is 4, 123 is 4.1).
    var level: Int { Int(header[12]) }
    /// 0 monochrome, 1 4:2:0, 2 4:2:2, 3 4:4:4.
    var chromaFormat: Int { Int(header[16] & 3) }
    var lumaBitDepth: Int { Int(header[17] & 7) + 8 }
    var chromaBitDepth: Int { Int(header[18] & 7) + 8 }
    /// Bytes in each NAL unit's length prefix (1, 2 or 4).
    var lengthSize: Int { Int(header[21] & 3) + 1 }

    /// The level as x265's `level-idc` takes it (`4.1`).
    var x265Level: String { level % 30 == 0 ? "\(level / 30)" : "\(level / 30).\(level % 30 / 3)" }

    /// The video, sequence and picture parameter sets, in that order, each with a 4-byte
    /// length: what a stretch's first sample carries in front of its picture.
    var parameterSetSample: Data {
        var out = Data()
        for type in [HEVCNAL.videoParameterSet, HEVCNAL.sequenceParameterSet, HEVCNAL.pictureParameterSet] {
            for array in arrays where array.type == type {
                for unit in array.units {
                    let n = unit.count
                    out += [UInt8(n >> 24 & 0xFF), UInt8(n >> 16 & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF)]
                    out += unit
                }
            }
        }
        return out
    }

    /// The IDs of the picture parameter sets (`pps_pic_parameter_set_id`).
    var pictureParameterSetIDs: [Int] {
        arrays.filter { $0.type == HEVCNAL.pictureParameterSet }.flatMap(\.units).compactMap { nal in
            var r = ExpGolombReader(rbsp: nal, skipping: 2)
            return r.unsignedValue()
        }
    }
}

/// HEVC NAL unit types and what smart render asks of a sample's NAL units (ITU-T H.265
/// 7.4.2.2, table 7-1).
enum HEVCNAL {
    static let videoParameterSet: UInt8 = 32
    static let sequenceParameterSet: UInt8 = 33
    static let pictureParameterSet: UInt8 = 34
    static let cleanRandomAccess: UInt8 = 21
    static let brokenLinkWithLeadingPictures: UInt8 = 16

    /// `sample` (NAL units with 4-byte lengths) with its clean random access (CRA) slices
    /// marked as broken link access (BLA_W_LP) slices, as H.265 says a splicer may (8.1.3,
    /// and the note to table 7-1): the two have the same slice header, but a BLA picture
    /// always starts a new coded video sequence, its RASL pictures (left out) are not
    /// expected, and the pictures before it are still output (after a CRA picture that
    /// follows an end of sequence, a decoder drops the pictures not yet output). Every other
    /// byte is kept.
    static func markingCleanRandomAccessAsBrokenLink(_ sample: Data) -> Data {
        var b = [UInt8](sample)
        var i = 0
        while i + 4 < b.count {
            let n = Int(b[i]) << 24 | Int(b[i + 1]) << 16 | Int(b[i + 2]) << 8 | Int(b[i + 3])
            i += 4
            guard n >= 2, i + n <= b.count else { break }
            if b[i] >> 1 & 0x3F == cleanRandomAccess { b[i] = brokenLinkWithLeadingPictures << 1 | b[i] & 0x81 }
            i += n
        }
        return Data(b)
    }

    /// What a sample's pictures are, from its NAL unit headers.
    struct Picture: Equatable {
        /// An intra random access point: IDR, CRA or BLA (types 16 to 21).
        var isRandomAccessPoint = false
        /// A random access skipped leading picture (RASL, types 8 and 9): it refers to
        /// pictures before the random access point it follows.
        var isSkippedLeading = false
    }

    /// The kind of picture a sample (NAL units with `lengthSize`-byte lengths) holds.
    static func picture(in sample: Data, lengthSize: Int) -> Picture {
        var picture = Picture()
        forEachUnit(in: sample, lengthSize: lengthSize) { type in
            if (16...21).contains(type) { picture.isRandomAccessPoint = true }
            if type == 8 || type == 9 { picture.isSkippedLeading = true }
        }
        return picture
    }

    /// Calls `body` with each NAL unit's type until the lengths stop adding up.
    private static func forEachUnit(in sample: Data, lengthSize: Int, _ body: (UInt8) -> Void) {
        sample.withUnsafeBytes { raw in
            let b = raw.bindMemory(to: UInt8.self)
            var i = 0
            while i + lengthSize < b.count {
                var n = 0
                for k in 0..<lengthSize { n = n << 8 | Int(b[i + k]) }
                i += lengthSize
                guard n >= 2, i + n <= b.count else { return }
                body(b[i] >> 1 & 0x3F)
                i += n
            }
        }
    }

    /// What is wrong with a sample whose structure does not hold: NAL lengths that do not
    /// add up to its size, a NAL unit with its forbidden bit set, a temporal ID of zero or a
    /// type H.265 reserves, a slice whose header names a picture parameter set not among
    /// `pictureParameterSetIDs`, no slice at all. Nil for a sample that parses; damage
    /// inside a slice's coded data is not seen without decoding it.
    static func damage(in sample: Data, lengthSize: Int, pictureParameterSetIDs: Set<Int>) -> String? {
        var slices = 0
        let problem = LengthPrefixedNALUnits.firstProblem(in: sample, lengthSize: lengthSize, minimumLength: 2) { at, unit in
            let first = unit[unit.startIndex], second = unit[unit.startIndex + 1]
            guard first & 0x80 == 0 else { return "the NAL unit at byte \(at) has its forbidden bit set" }
            guard second & 7 != 0 else { return "the NAL unit at byte \(at) has a temporal ID of zero" }
            let type = first >> 1 & 0x3F
            guard !(10...15).contains(type), !(22...31).contains(type) else {
                return "the NAL unit at byte \(at) is of type \(type), which H.265 reserves"
            }
            guard type <= 21 else { return nil }
            // first_slice_segment_in_pic_flag, no_output_of_prior_pics_flag for a random
            // access point, slice_pic_parameter_set_id.
            var r = ExpGolombReader(rbsp: Data(unit.prefix(24)), skipping: 2)
            guard r.flag() != nil, type < 16 || r.flag() != nil, let pps = r.unsignedValue(), pictureParameterSetIDs.contains(pps) else {
                return "the slice at byte \(at) refers to a picture parameter set the sample description does not hold"
            }
            slices += 1
            return nil
        }
        return problem ?? (slices == 0 ? "it holds no slice of a picture" : nil)
    }
}
