import Foundation

/// One `trak` of an MP4/QuickTime file: its id, handler, timescale, sample descriptions
/// and sample table.
public struct MP4Track: Sendable, Hashable {
    /// `tkhd` track id.
    public var trackID: UInt32
    /// `hdlr` handler type (`vide`, `soun`, `meta`, `tmcd`, ...).
    public var handlerType: FourCC
    /// `hdlr` name ("GoPro MET", "Core Media Metadata").
    public var handlerName: String
    /// `mdhd` timescale (units per second).
    public var timescale: UInt32
    /// `mdhd` duration in ``timescale`` units.
    public var duration: UInt64
    /// The `stsd` entries.
    public var sampleEntries: [MP4SampleEntry]
    public var sampleTable: MP4SampleTable
    /// `tref` references by type (`cdsc` = this metadata track describes those tracks).
    public var references: [FourCC: [UInt32]]
    /// The `edts/elst` edit list, in order; empty when the track has none.
    public var edits: [MP4Edit]
    /// The `tkhd` alternate group: tracks sharing a non-zero group are alternatives to
    /// one another (two languages of the same sound); 0 for none.
    public var alternateGroup: Int16

    public init(
        trackID: UInt32, handlerType: FourCC, handlerName: String, timescale: UInt32, duration: UInt64,
        sampleEntries: [MP4SampleEntry], sampleTable: MP4SampleTable, references: [FourCC: [UInt32]],
        edits: [MP4Edit] = [], alternateGroup: Int16 = 0
    ) {
        self.trackID = trackID
        self.handlerType = handlerType
        self.handlerName = handlerName
        self.timescale = timescale
        self.duration = duration
        self.sampleEntries = sampleEntries
        self.sampleTable = sampleTable
        self.references = references
        self.edits = edits
        self.alternateGroup = alternateGroup
    }

    /// The format of the first sample entry (`avc1`, `gpmd`, `mebx`, `camm`, ...).
    public var format: FourCC? { sampleEntries.first?.format }

    /// The timed-metadata format of the first sample entry, when it is one Reel knows.
    public var metadataFormat: MetadataFormat? { sampleEntries.first?.metadataFormat }

    /// Every sample with its file offset, size and time, exactly as the sample table says
    /// (no edit list applied; FFmpeg may report a shorter last duration).
    public func samples() throws(ReelError) -> [MP4Sample] {
        try sampleTable.samples(timescale: timescale)
    }

    /// Parses a `trak` box out of `bytes` (a loaded `moov`, which starts at file offset `base`).
    init(parsing bytes: [UInt8], box trak: MP4Box, base: Int64) throws(ReelError) {
        func children(_ box: MP4Box, _ name: String) throws(ReelError) -> [MP4Box] {
            try MP4Box.parse(bytes, range: local(box.payloadRange), base: base, parent: name)
        }
        func local(_ r: Range<Int64>) -> Range<Int> { Int(r.lowerBound - base)..<Int(r.upperBound - base) }
        func reader(_ box: MP4Box) -> ByteReader { ByteReader(bytes, range: local(box.payloadRange), format: "MP4 '\(box.type)'") }
        func find(_ boxes: [MP4Box], _ type: FourCC) -> MP4Box? { boxes.first { $0.type == type } }

        let trakChildren = try children(trak, "trak")
        guard let tkhd = find(trakChildren, "tkhd") else { throw .corrupt("MP4", "a 'trak' has no 'tkhd'", offset: Int(trak.offset)) }
        var r = reader(tkhd)
        let version = try r.u8("tkhd version")
        try r.skip(3 + (version == 1 ? 16 : 8), "tkhd times")
        trackID = try r.u32be("track id")
        // reserved, duration, 8 reserved bytes, then layer and alternate group.
        try r.skip(4 + (version == 1 ? 8 : 4) + 8 + 2, "tkhd duration and layer")
        alternateGroup = Int16(bitPattern: try r.u16be("alternate group"))
        let name = "track \(trackID)"

        guard let mdia = find(trakChildren, "mdia") else { throw .corrupt("MP4", "\(name) has no 'mdia'", offset: Int(trak.offset)) }
        let mdiaChildren = try children(mdia, "\(name) mdia")
        guard let mdhd = find(mdiaChildren, "mdhd") else { throw .corrupt("MP4", "\(name) has no 'mdhd'", offset: Int(mdia.offset)) }
        r = reader(mdhd)
        let mdhdVersion = try r.u8("mdhd version")
        try r.skip(3 + (mdhdVersion == 1 ? 16 : 8), "mdhd times")
        timescale = try r.u32be("timescale")
        duration = mdhdVersion == 1 ? try r.u64be("duration") : UInt64(try r.u32be("duration"))

        handlerType = "    "
        handlerName = ""
        if let hdlr = find(mdiaChildren, "hdlr") {
            r = reader(hdlr)
            try r.skip(8, "hdlr header")
            handlerType = FourCC(rawValue: try r.u32be("handler type"))
            try r.skip(min(12, r.remaining))
            let rest = Array(try r.bytes(r.remaining))
            // QuickTime writes a Pascal string, MP4 a NUL-terminated one.
            if let count = rest.first, count < 0x20 || Int(count) == rest.count - 1 {
                handlerName = TextDecoding.string(rest.dropFirst().prefix(Int(count)))
            } else {
                handlerName = TextDecoding.string(rest)
            }
            handlerName = handlerName.trimmingCharacters(in: .whitespaces)
        }

        var refs: [FourCC: [UInt32]] = [:]
        if let tref = find(trakChildren, "tref") {
            for ref in try children(tref, "\(name) tref") {
                var rr = reader(ref)
                var ids: [UInt32] = []
                while rr.remaining >= 4 { ids.append(try rr.u32be("track reference")) }
                refs[ref.type, default: []] += ids
            }
        }
        references = refs

        var editList: [MP4Edit] = []
        if let edts = find(trakChildren, "edts"), let elst = find(try children(edts, "\(name) edts"), "elst") {
            editList = try MP4Edit.parseList(reader(elst), track: name, offset: elst.offset)
        }
        edits = editList

        guard let minf = find(mdiaChildren, "minf") else { throw .corrupt("MP4", "\(name) has no 'minf'", offset: Int(mdia.offset)) }
        guard let stbl = find(try children(minf, "\(name) minf"), "stbl") else {
            throw .corrupt("MP4", "\(name) has no 'stbl'", offset: Int(minf.offset))
        }
        let stblChildren = try children(stbl, "\(name) stbl")
        var entries: [MP4SampleEntry] = []
        if let stsd = find(stblChildren, "stsd") {
            r = reader(stsd)
            try r.skip(4, "stsd version")
            let count = try r.u32be("stsd entry count")
            let boxes = try MP4Box.parse(bytes, range: r.offset..<r.end, base: base, parent: "\(name) stsd")
            guard boxes.count >= Int(min(count, UInt32(Int32.max))) else {
                throw .corrupt("MP4", "\(name) stsd says \(count) entries but holds \(boxes.count)", offset: Int(stsd.offset))
            }
            for entry in boxes.prefix(Int(count)) {
                entries.append(try MP4SampleEntry(parsing: bytes, box: entry, base: base, track: name))
            }
        }
        sampleEntries = entries
        sampleTable = try MP4SampleTable(parsing: bytes, boxes: stblChildren, base: base, track: name)
    }
}

/// One sample description (`stsd` entry).
public struct MP4SampleEntry: Sendable, Hashable {
    /// The format (`avc1`, `gpmd`, `mebx`, `camm`, ...).
    public var format: FourCC
    public var dataReferenceIndex: UInt16
    /// The bytes after the 8-byte common header (reserved + data reference index).
    public var body: Data
    /// For `mebx`: the keys its samples' local key ids refer to.
    public var metadataKeys: [QuickTimeMetadataKey]

    public init(format: FourCC, dataReferenceIndex: UInt16 = 1, body: Data = Data(), metadataKeys: [QuickTimeMetadataKey] = []) {
        self.format = format
        self.dataReferenceIndex = dataReferenceIndex
        self.body = body
        self.metadataKeys = metadataKeys
    }

    /// The timed-metadata format ``format`` names (`KLVA` read as `MetadataFormat/klv`),
    /// or nil when it is no format in `MetadataFormat/known`.
    public var metadataFormat: MetadataFormat? { MetadataFormat(knownCode: format.description) }

    init(parsing bytes: [UInt8], box: MP4Box, base: Int64, track: String) throws(ReelError) {
        format = box.type
        var r = ByteReader(
            bytes, range: Int(box.payloadRange.lowerBound - base)..<Int(box.payloadRange.upperBound - base), format: "MP4 '\(box.type)' sample entry")
        try r.skip(6, "reserved bytes")
        dataReferenceIndex = try r.u16be("data reference index")
        body = Data(bytes[r.offset..<r.end])
        metadataKeys = []
        if metadataFormat == .mebx {
            let children = try MP4Box.parse(bytes, range: r.offset..<r.end, base: base, parent: "\(track) mebx")
            if let keys = children.first(where: { $0.type == "keys" }) {
                metadataKeys = try QuickTimeMetadataKey.parseKeys(bytes, box: keys, base: base, track: track)
            }
        }
    }
}
