import Foundation

/// A track's sample table (`stbl`): timing (`stts`, `ctts`), sizes (`stsz`/`stz2`),
/// chunks (`stsc`) and chunk offsets (`stco`/`co64`).
public struct MP4SampleTable: Sendable, Hashable {
    /// `stts`: `count` samples of `delta` each.
    public struct TimeToSample: Sendable, Hashable {
        public var count: UInt32
        public var delta: UInt32
    }

    /// `ctts`: `count` samples with composition offset `offset`.
    public struct CompositionOffset: Sendable, Hashable {
        public var count: UInt32
        public var offset: Int32
    }

    /// `stsc`: from chunk `firstChunk` (1-based) on, `samplesPerChunk` samples per chunk.
    public struct ChunkRun: Sendable, Hashable {
        public var firstChunk: UInt32
        public var samplesPerChunk: UInt32
        public var descriptionIndex: UInt32
    }

    /// The most samples ``samples(timescale:)`` lays out (16 million).
    public static let maximumSampleCount = 16 << 20

    public var timeToSample: [TimeToSample] = []
    public var compositionOffsets: [CompositionOffset] = []
    public var sampleToChunk: [ChunkRun] = []
    /// The size of every sample when all are the same, else 0.
    public var constantSampleSize: UInt32 = 0
    public var sampleCount: UInt32 = 0
    /// Per-sample sizes when ``constantSampleSize`` is 0.
    public var sampleSizes: [UInt32] = []
    public var chunkOffsets: [UInt64] = []

    public init() {}

    init(parsing bytes: [UInt8], boxes: [MP4Box], base: Int64, track: String) throws(ReelError) {
        func reader(_ box: MP4Box) throws(ReelError) -> ByteReader {
            var r = ByteReader(
                bytes, range: Int(box.payloadRange.lowerBound - base)..<Int(box.payloadRange.upperBound - base), format: "MP4 \(track) '\(box.type)'")
            try r.skip(4, "version and flags")
            return r
        }
        /// The entry count, checked against the bytes really there.
        func count(_ r: inout ByteReader, entrySize: Int, _ box: MP4Box) throws(ReelError) -> Int {
            let n = Int(try r.u32be("entry count"))
            guard n <= r.remaining / entrySize else {
                throw .corrupt("MP4", "\(track) '\(box.type)' says \(n) entries but has room for \(r.remaining / entrySize)", offset: Int(box.offset))
            }
            return n
        }
        for box in boxes {
            switch box.type {
            case "stts":
                var r = try reader(box)
                let n = try count(&r, entrySize: 8, box)
                for _ in 0..<n { timeToSample.append(TimeToSample(count: try r.u32be(), delta: try r.u32be())) }
            case "ctts":
                var r = try reader(box)
                let n = try count(&r, entrySize: 8, box)
                for _ in 0..<n { compositionOffsets.append(CompositionOffset(count: try r.u32be(), offset: Int32(bitPattern: try r.u32be()))) }
            case "stsc":
                var r = try reader(box)
                let n = try count(&r, entrySize: 12, box)
                for _ in 0..<n { sampleToChunk.append(ChunkRun(firstChunk: try r.u32be(), samplesPerChunk: try r.u32be(), descriptionIndex: try r.u32be())) }
            case "stsz":
                var r = try reader(box)
                constantSampleSize = try r.u32be("sample size")
                sampleCount = try r.u32be("sample count")
                if constantSampleSize == 0 {
                    guard Int(sampleCount) <= r.remaining / 4 else {
                        throw .corrupt("MP4", "\(track) 'stsz' says \(sampleCount) samples but has room for \(r.remaining / 4)", offset: Int(box.offset))
                    }
                    sampleSizes = []
                    sampleSizes.reserveCapacity(Int(sampleCount))
                    for _ in 0..<Int(sampleCount) { sampleSizes.append(try r.u32be()) }
                }
            case "stz2":
                var r = try reader(box)
                try r.skip(3, "reserved")
                let fieldSize = Int(try r.u8("field size"))
                sampleCount = try r.u32be("sample count")
                guard [4, 8, 16].contains(fieldSize) else {
                    throw .corrupt("MP4", "\(track) 'stz2' field size \(fieldSize) is not 4, 8 or 16", offset: Int(box.offset))
                }
                guard Int(sampleCount) <= r.remaining * 8 / fieldSize else {
                    throw .corrupt(
                        "MP4", "\(track) 'stz2' says \(sampleCount) samples but has room for \(r.remaining * 8 / fieldSize)", offset: Int(box.offset))
                }
                constantSampleSize = 0
                sampleSizes = []
                var i = 0
                while i < Int(sampleCount) {
                    switch fieldSize {
                    case 4:
                        let b = try r.u8()
                        sampleSizes.append(UInt32(b >> 4))
                        if i + 1 < Int(sampleCount) { sampleSizes.append(UInt32(b & 0x0F)) }
                        i += 2
                    case 8: sampleSizes.append(UInt32(try r.u8())); i += 1
                    default: sampleSizes.append(UInt32(try r.u16be())); i += 1
                    }
                }
            case "stco":
                var r = try reader(box)
                let n = try count(&r, entrySize: 4, box)
                for _ in 0..<n { chunkOffsets.append(UInt64(try r.u32be())) }
            case "co64":
                var r = try reader(box)
                let n = try count(&r, entrySize: 8, box)
                for _ in 0..<n { chunkOffsets.append(try r.u64be()) }
            default:
                continue
            }
        }
    }

    /// The size of sample `index`.
    public func size(ofSample index: Int) -> UInt32 {
        constantSampleSize != 0 ? constantSampleSize : (index < sampleSizes.count ? sampleSizes[index] : 0)
    }

    /// Every sample laid out: file offset, size, decode time, duration, composition offset.
    ///
    /// - Throws: `.corruptData` when the chunk map does not place every sample, or when
    ///   there are more than ``maximumSampleCount`` samples; `.unsupportedFormat` when
    ///   `timescale` is 0 or above `Int32.max`.
    public func samples(timescale: UInt32) throws(ReelError) -> [MP4Sample] {
        guard timescale > 0, timescale <= UInt32(Int32.max) else {
            throw ReelError(.unsupportedFormat, "MP4: track timescale \(timescale) is not usable")
        }
        let count = Int(sampleCount)
        guard count <= Self.maximumSampleCount else {
            throw ReelError(.corruptData, "MP4: \(count) samples in one track, more than \(Self.maximumSampleCount)")
        }
        var out: [MP4Sample] = []
        out.reserveCapacity(count)
        guard count > 0 else { return out }

        // Offsets from the chunk map.
        var offsets: [Int64] = []
        var descriptions: [UInt32] = []
        offsets.reserveCapacity(count)
        descriptions.reserveCapacity(count)
        for (runIndex, run) in sampleToChunk.enumerated() {
            guard run.firstChunk >= 1, runIndex == 0 || run.firstChunk > sampleToChunk[runIndex - 1].firstChunk else {
                throw ReelError(.corruptData, "MP4: 'stsc' entry \(runIndex) starts at chunk \(run.firstChunk), not after the entry before it")
            }
            let firstChunk = Int(run.firstChunk) - 1
            let endChunk = runIndex + 1 < sampleToChunk.count ? min(Int(sampleToChunk[runIndex + 1].firstChunk) - 1, chunkOffsets.count) : chunkOffsets.count
            var chunk = firstChunk
            while chunk < endChunk, offsets.count < count {
                guard chunkOffsets[chunk] <= UInt64(Int64.max) else {
                    throw ReelError(.corruptData, "MP4: chunk \(chunk + 1) offset \(chunkOffsets[chunk]) is past any file")
                }
                var offset = Int64(chunkOffsets[chunk])
                var k: UInt32 = 0
                while k < run.samplesPerChunk, offsets.count < count {
                    offsets.append(offset)
                    descriptions.append(run.descriptionIndex)
                    let (next, overflow) = offset.addingReportingOverflow(Int64(size(ofSample: offsets.count - 1)))
                    guard !overflow else { throw ReelError(.corruptData, "MP4: sample \(offsets.count - 1) ends past any file") }
                    offset = next
                    k += 1
                }
                chunk += 1
            }
        }
        guard offsets.count == count else {
            throw ReelError(.corruptData, "MP4: the chunk tables place \(offsets.count) of \(count) samples")
        }

        // Times from stts and ctts; samples past the tables get a zero duration.
        var ttsIndex = 0, ttsUsed: UInt32 = 0
        var cttsIndex = 0, cttsUsed: UInt32 = 0
        var decodeTime: Int64 = 0
        for i in 0..<count {
            while ttsIndex < timeToSample.count, ttsUsed >= timeToSample[ttsIndex].count { ttsIndex += 1; ttsUsed = 0 }
            let delta = ttsIndex < timeToSample.count ? Int64(timeToSample[ttsIndex].delta) : 0
            ttsUsed += 1
            while cttsIndex < compositionOffsets.count, cttsUsed >= compositionOffsets[cttsIndex].count { cttsIndex += 1; cttsUsed = 0 }
            let cto = cttsIndex < compositionOffsets.count ? Int64(compositionOffsets[cttsIndex].offset) : 0
            cttsUsed += 1
            out.append(
                MP4Sample(
                    index: i, offset: offsets[i], size: Int(size(ofSample: i)), decodeTime: decodeTime, duration: delta,
                    compositionOffset: cto, descriptionIndex: descriptions[i], timescale: Int32(timescale)))
            decodeTime &+= delta
        }
        return out
    }
}

/// One sample of a track: where its bytes are and when it plays.
public struct MP4Sample: Sendable, Hashable {
    public var index: Int
    /// File offset of the sample's bytes.
    public var offset: Int64
    public var size: Int
    /// Decode time in the track's timescale.
    public var decodeTime: Int64
    /// Duration in the track's timescale.
    public var duration: Int64
    /// Presentation minus decode time, from `ctts`.
    public var compositionOffset: Int64
    /// 1-based index of the sample entry that describes it.
    public var descriptionIndex: UInt32
    public var timescale: Int32

    public init(
        index: Int, offset: Int64, size: Int, decodeTime: Int64, duration: Int64, compositionOffset: Int64 = 0,
        descriptionIndex: UInt32 = 1, timescale: Int32
    ) {
        self.index = index
        self.offset = offset
        self.size = size
        self.decodeTime = decodeTime
        self.duration = duration
        self.compositionOffset = compositionOffset
        self.descriptionIndex = descriptionIndex
        self.timescale = timescale
    }

    /// Presentation time (no edit list applied).
    public var presentationTime: MediaTime { MediaTime(value: decodeTime &+ compositionOffset, timescale: timescale) }
    public var durationTime: MediaTime { MediaTime(value: duration, timescale: timescale) }
    public var timeRange: TimeRange { TimeRange(start: presentationTime, duration: durationTime) }
}
