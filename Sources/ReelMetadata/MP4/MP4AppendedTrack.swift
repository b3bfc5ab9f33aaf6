import Foundation

/// A timed-metadata track to add to a finished MP4 or QuickTime file
/// (``MP4TrackAppender``): its sample description and where its samples' bytes are in a
/// separate sample-data file.
public struct MP4AppendedTrack: Sendable, Hashable {
    /// One sample: its bytes in the sample-data file and its time in the track's timescale.
    public struct Sample: Sendable, Hashable {
        /// Offset of the sample's bytes in the sample-data file.
        public var offset: Int64
        public var size: Int
        /// When the sample starts on the movie's timeline, in ``MP4AppendedTrack/timescale`` units.
        public var time: Int64
        /// How long it lasts; the next sample's start wins when it comes earlier or later.
        public var duration: Int64

        public init(offset: Int64, size: Int, time: Int64, duration: Int64) {
            self.offset = offset
            self.size = size
            self.time = time
            self.duration = duration
        }
    }

    /// The sample description: `mebx` (with its ``MP4SampleEntry/metadataKeys``), `camm`,
    /// or any other format whose ``MP4SampleEntry/body`` is written as it is.
    public var sampleEntry: MP4SampleEntry
    /// The `hdlr` name ("Core Media Metadata" for `mebx`).
    public var handlerName: String
    /// Units per second of the sample times.
    public var timescale: UInt32
    /// The samples in time order.
    public var samples: [Sample]
    /// The track this one describes (`tref`/`cdsc`); nil: the file's first video track.
    public var describedTrackID: UInt32?

    public init(sampleEntry: MP4SampleEntry, handlerName: String, timescale: UInt32, samples: [Sample], describedTrackID: UInt32? = nil) {
        self.sampleEntry = sampleEntry
        self.handlerName = handlerName
        self.timescale = timescale
        self.samples = samples
        self.describedTrackID = describedTrackID
    }

    /// The handler name Apple's writers give `mebx` tracks.
    public static let coreMediaMetadataHandlerName = "Core Media Metadata"

    /// Throws unless the samples lie inside a sample-data file of `dataSize` bytes and
    /// their times never go back.
    func validate(dataSize: Int64, index: Int) throws(ReelError) {
        let name = "new track \(index + 1) ('\(sampleEntry.format)')"
        guard timescale > 0, timescale <= UInt32(Int32.max) else {
            throw ReelError(.invalidArgument, "MP4: \(name) has timescale \(timescale)")
        }
        var previous = Int64.min
        for (i, sample) in samples.enumerated() {
            guard sample.offset >= 0, sample.size >= 0, sample.size <= Int(UInt32.max), sample.offset <= dataSize - Int64(sample.size) else {
                throw ReelError(
                    .invalidArgument, "MP4: \(name) sample \(i) (\(sample.size) bytes at \(sample.offset)) lies outside the \(dataSize)-byte sample data")
            }
            guard sample.time >= 0, sample.time >= previous, sample.duration >= 0 else {
                throw ReelError(
                    .invalidArgument, "MP4: \(name) sample \(i) at \(sample.time) (duration \(sample.duration)) starts before 0 or before the sample before it")
            }
            previous = sample.time
        }
    }

    /// The `stts` deltas: from each sample's start to the next one's, the last sample's duration.
    var deltas: [Int64] {
        samples.indices.map { i in i + 1 < samples.count ? samples[i + 1].time - samples[i].time : samples[i].duration }
    }

    /// The media duration (the sum of the deltas) in the track's timescale.
    var mediaDuration: Int64 { deltas.reduce(0, +) }

    /// The `trak` box, in QuickTime's or MP4's dialect.
    func trak(trackID: UInt32, describes: UInt32?, movieTimescale: UInt32, quickTime: Bool) throws(ReelError) -> MP4BoxNode {
        func movieUnits(_ value: Int64) -> UInt64 {
            UInt64((Double(value) * Double(movieTimescale) / Double(timescale)).rounded())
        }
        let start = samples.first?.time ?? 0
        let media = UInt64(mediaDuration)
        let startInMovie = movieUnits(start)
        let mediaInMovie = movieUnits(mediaDuration)
        let trackDuration = startInMovie + mediaInMovie

        var w = ByteWriter()
        // tkhd: times 0, id, reserved, duration, reserved, layer, group, volume, reserved, matrix, size 0 x 0.
        let wideTrack = trackDuration > UInt64(UInt32.max)
        if wideTrack { w.u64be(0); w.u64be(0) } else { w.u32be(0); w.u32be(0) }
        w.u32be(trackID)
        w.u32be(0)
        if wideTrack { w.u64be(trackDuration) } else { w.u32be(UInt32(trackDuration)) }
        w.u64be(0)
        w.u16be(0); w.u16be(0); w.u16be(0); w.u16be(0)
        for v: UInt32 in [0x0001_0000, 0, 0, 0, 0x0001_0000, 0, 0, 0, 0x4000_0000] { w.u32be(v) }
        w.u32be(0); w.u32be(0)
        var trak: [MP4BoxNode] = [.full("tkhd", version: wideTrack ? 1 : 0, flags: 0x3, w.bytes)]

        if start > 0 {
            // An empty edit until the first sample, then the whole media at normal rate.
            let wideEdit = max(startInMovie, mediaInMovie) > UInt64(UInt32.max)
            w = ByteWriter()
            w.u32be(2)
            if wideEdit { w.u64be(startInMovie); w.u64be(UInt64(bitPattern: -1)) } else { w.u32be(UInt32(startInMovie)); w.u32be(UInt32.max) }
            w.u32be(0x0001_0000)
            if wideEdit { w.u64be(mediaInMovie); w.u64be(0) } else { w.u32be(UInt32(mediaInMovie)); w.u32be(0) }
            w.u32be(0x0001_0000)
            trak.append(.container("edts", [.full("elst", version: wideEdit ? 1 : 0, w.bytes)]))
        }
        if let describes {
            w = ByteWriter()
            w.u32be(describes)
            trak.append(.container("tref", [.leaf("cdsc", w.bytes)]))
        }

        // mdhd: times 0, timescale, duration, language 'und', quality 0.
        let wideMedia = media > UInt64(UInt32.max)
        w = ByteWriter()
        if wideMedia { w.u64be(0); w.u64be(0) } else { w.u32be(0); w.u32be(0) }
        w.u32be(timescale)
        if wideMedia { w.u64be(media) } else { w.u32be(UInt32(media)) }
        w.u16be(0x55C4)
        w.u16be(0)
        let mdhd = MP4BoxNode.full("mdhd", version: wideMedia ? 1 : 0, w.bytes)

        let header: MP4BoxNode
        var minf: [MP4BoxNode] = []
        if quickTime {
            // Base media information: graphics mode copy, opcolor grey, balance 0.
            header = .container("gmhd", [.full("gmin", [0x00, 0x40, 0x80, 0x00, 0x80, 0x00, 0x80, 0x00, 0, 0, 0, 0])])
            minf = [
                header, Self.handler(component: "dhlr", type: "alis", name: "Core Media Data Handler", quickTime: true),
                .container("dinf", [.full("dref", [0, 0, 0, 1] + MP4BoxNode.header("alis", payloadSize: 4) + [0, 0, 0, 1])]),
            ]
        } else {
            header = .full("nmhd", [])
            minf = [header, .container("dinf", [.full("dref", [0, 0, 0, 1] + MP4BoxNode.header("url ", payloadSize: 4) + [0, 0, 0, 1])])]
        }
        minf.append(.container("stbl", sampleTable()))
        trak.append(
            .container(
                "mdia",
                [
                    mdhd, Self.handler(component: quickTime ? "mhlr" : "\0\0\0\0", type: "meta", name: handlerName, quickTime: quickTime),
                    .container("minf", minf),
                ]))
        return .container("trak", trak)
    }

    /// An `hdlr`: QuickTime's component type and Pascal-string name, or MP4's zero and
    /// NUL-terminated name.
    private static func handler(component: FourCC, type: FourCC, name: String, quickTime: Bool) -> MP4BoxNode {
        var w = ByteWriter()
        w.append(contentsOf: component.bytes)
        w.append(contentsOf: type.bytes)
        w.u32be(0); w.u32be(0); w.u32be(0)
        let text = Array(name.utf8.prefix(255))
        if quickTime { w.u8(UInt8(text.count)); w.append(contentsOf: text) } else { w.append(contentsOf: text); w.u8(0) }
        return .full("hdlr", w.bytes)
    }

    /// `stsd`, `stts`, `stsc`, `stsz`, `co64`: one chunk per run of samples that lie
    /// back to back in the sample data.
    private func sampleTable() -> [MP4BoxNode] {
        var w = ByteWriter()
        w.u32be(1)
        w.append(contentsOf: sampleEntry.encoded())
        let stsd = MP4BoxNode.full("stsd", w.bytes)

        var runs: [(count: UInt32, delta: UInt32)] = []
        for delta in deltas.map({ UInt32(clamping: $0) }) {
            if let last = runs.last, last.delta == delta { runs[runs.count - 1].count += 1 } else { runs.append((1, delta)) }
        }
        w = ByteWriter()
        w.u32be(UInt32(runs.count))
        for run in runs { w.u32be(run.count); w.u32be(run.delta) }
        let stts = MP4BoxNode.full("stts", w.bytes)

        var chunks: [(offset: UInt64, samples: UInt32)] = []
        var end = Int64(-1)
        for sample in samples {
            if sample.offset == end, !chunks.isEmpty { chunks[chunks.count - 1].samples += 1 } else { chunks.append((UInt64(sample.offset), 1)) }
            end = sample.offset + Int64(sample.size)
        }
        w = ByteWriter()
        var entries: [(first: UInt32, count: UInt32)] = []
        for (i, chunk) in chunks.enumerated() where entries.last?.count != chunk.samples {
            entries.append((UInt32(i + 1), chunk.samples))
        }
        w.u32be(UInt32(entries.count))
        for entry in entries { w.u32be(entry.first); w.u32be(entry.count); w.u32be(1) }
        let stsc = MP4BoxNode.full("stsc", w.bytes)

        w = ByteWriter()
        w.u32be(0)
        w.u32be(UInt32(samples.count))
        for sample in samples { w.u32be(UInt32(sample.size)) }
        let stsz = MP4BoxNode.full("stsz", w.bytes)

        return [stsd, stts, stsc, stsz, .appendedChunkOffsets(chunks.map(\.offset))]
    }
}

extension MP4SampleEntry {
    /// The sample entry box: the common header, then for `mebx` a `keys` box made from
    /// ``metadataKeys`` (when there are any), else ``body`` as it is.
    public func encoded() -> [UInt8] {
        var payload: [UInt8] = [0, 0, 0, 0, 0, 0, UInt8(dataReferenceIndex >> 8), UInt8(dataReferenceIndex & 0xFF)]
        if metadataFormat == .mebx, !metadataKeys.isEmpty {
            var keys: [UInt8] = []
            for key in metadataKeys {
                var keyd = ByteWriter()
                keyd.append(contentsOf: key.namespace.bytes)
                keyd.append(contentsOf: key.key.utf8)
                var entry = MP4BoxNode.header("keyd", payloadSize: keyd.bytes.count) + keyd.bytes
                if let type = key.dataType {
                    var dtyp = ByteWriter()
                    switch type {
                    case .wellKnown(let code): dtyp.u32be(0); dtyp.u32be(code)
                    case .reverseDNS(let name): dtyp.u32be(1); dtyp.append(contentsOf: name.utf8)
                    }
                    entry += MP4BoxNode.header("dtyp", payloadSize: dtyp.bytes.count) + dtyp.bytes
                }
                keys += MP4BoxNode.header(FourCC(rawValue: key.localID), payloadSize: entry.count) + entry
            }
            payload += MP4BoxNode.header("keys", payloadSize: keys.count) + keys
        } else {
            payload += body
        }
        return MP4BoxNode.header(format, payloadSize: payload.count) + payload
    }
}
