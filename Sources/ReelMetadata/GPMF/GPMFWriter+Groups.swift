import Foundation

extension GPMFWriter {
    /// One GPMF payload holding every item of `groups`, for a sample spanning `timeRange`:
    /// what a cut or a re-encode of a decoded `gpmd` track writes so that nothing is lost.
    ///
    /// Each `gpmf/KEY` item is one sample of stream KEY; the items of one key (with the
    /// same data type and unit) become one `STRM`, in time order, with:
    /// - the item's `dataType` as the KLV type, or as a `TYPE` for complex data
    ///   (`"JlllSSSSBB"`);
    /// - the item's `unit` as `UNIT` (one per element when comma-separated);
    /// - a `SCAL` per element, the smallest divisor that gives every value back exactly
    ///   from an integer of the type; where none fits the type, the element is written as a
    ///   double (`d`) instead, so the value survives and the type changes.
    ///   Float types keep float precision.
    ///
    /// GPSU, GPSF, GPSP and GPSA join the stream of the GPS data they describe. When a
    /// GPS stream is among the items but GPSU is not (a payload cut after its first
    /// sample), a GPSU is made from the first fix's time, so the fixes keep their UTC.
    /// When no GPS stream is among the items, the groups' fixes (`GPSFix/init(_:)`) are
    /// written as ``Options/format``, with an STMP at the first fix's time; `.gps5` becomes
    /// `.gps5AndGPS9` when every fix has a UTC time, so each keeps its own. Device ids, names and stream names
    /// are not part of the items: the payload has one `DEVC` named by `options`.
    ///
    /// Decoding the result with ``GPMF/groups(payload:timeRange:)`` over `timeRange`
    /// gives the same fixes and the same `gpmf/KEY` items (values within float precision
    /// for float types).
    ///
    /// - Throws: `.invalidArgument` naming the item when a key is not a FourCC, a value
    ///   does not match its data type, or a stream does not fit a GPMF KLV; `.metadataFormat`
    ///   for a data type that is not a GPMF type or TYPE string.
    public static func payload(
        groups: [TimedMetadataGroup], timeRange: TimeRange,
        options: Options = Options()
    ) throws(ReelError) -> Data {
        try GPMF.checkTimeRange(timeRange)
        var streams = try GPMFItemStream.collect(groups)
        let fixes = groups.compactMap { g in GPSFix(g).map { (time: GPSFix.time(in: g), fix: $0) } }
        var nodes: [[GPMFNode]] = []
        let context = streams.filter { GPMF.unscaledKeys.contains($0.key) }
        streams.removeAll { GPMF.unscaledKeys.contains($0.key) }
        let gpsIndex = streams.indices.filter { streams[$0].gpsRank != nil }.min { streams[$0].gpsRank! < streams[$1].gpsRank! }
        for (i, stream) in streams.enumerated() {
            var strm = try stream.nodes()
            if i == gpsIndex {
                // Context values keep their units: those without one, or with another,
                // go before the stream's UNIT; those with the stream's unit after it.
                var before: [GPMFNode] = [], extra: [GPMFNode] = []
                for c in context.sorted(by: { ($0.unit == nil ? 0 : 1) < ($1.unit == nil ? 0 : 1) }) {
                    if c.unit != nil && c.unit == stream.unit {
                        extra += try c.nodes().filter { !GPMF.modifierKeys.contains($0.key) }
                    } else {
                        before += try c.nodes().filter { $0.key == "UNIT" || !GPMF.modifierKeys.contains($0.key) }
                    }
                }
                if let first = fixes.first {
                    if !context.contains(where: { $0.key == "GPSU" }), let time = first.fix.time {
                        let start = time.addingTimeInterval(-(first.time - timeRange.start).seconds)
                        extra.append(
                            GPMFNode(
                                key: "GPSU", type: .utcDate, structSize: 16, repeatCount: 1,
                                payload: Data(GPMF.gpsuString(from: start).utf8)))
                    }
                    if !context.contains(where: { $0.key == "GPSF" }), let fix = first.fix.fix, (0...65535).contains(fix) {
                        extra.append(.integers("GPSF", .uint32, [[Int64(fix)]]))
                    }
                    if !context.contains(where: { $0.key == "GPSP" }), let dop = first.fix.dop, (0...655.35).contains(dop) {
                        extra.append(.integers("GPSP", .uint16, [[Int64((dop * 100).rounded())]]))
                    }
                }
                strm.insert(contentsOf: extra, at: strm.firstIndex { !GPMF.modifierKeys.contains($0.key) } ?? strm.endIndex)
                strm.insert(contentsOf: before, at: 0)
            }
            // STMP: the stream's first sample time, so a reader places the samples where they were.
            if let first = stream.items.first?.time, first.isNumeric, !(first < .zero) {
                let micros = first.convertScale(1_000_000, method: .roundTowardZero).value
                strm.insert(.integers("STMP", .uint64, [[micros]]), at: 0)
            }
            nodes.append(strm)
        }
        var gps: [GPMFNode] = []
        if gpsIndex == nil {
            for c in context { nodes.append(try c.nodes()) }
            if !fixes.isEmpty {
                var options = options
                // GPS9 keeps each fix's own UTC where GPS5 keeps only the first's; GPS5
                // beside it for readers that know only GPS5 (exiftool before 12.63).
                if options.format == .gps5, fixes.allSatisfy({ $0.fix.time != nil }) { options.format = .gps5AndGPS9 }
                gps = try gpsStreams(fixes: fixes.enumerated().map { ($0.offset, $0.element.fix) }, options: options)
                // STMP: the first fix's time, so the fixes start where they were.
                if let first = fixes.first?.time, first.isNumeric, !(first < .zero) {
                    let stamp = GPMFNode.integers("STMP", .uint64, [[first.convertScale(1_000_000, method: .roundTowardZero).value]])
                    gps = gps.map { strm in
                        var strm = strm
                        strm.children.insert(stamp, at: 0)
                        return strm
                    }
                }
            }
        }
        return try device(nodes.map { .nested("STRM", $0) } + gps, options: options).encoded()
    }
}

/// The `gpmf/KEY` items of one stream, and how to write them back as GPMF.
struct GPMFItemStream {
    var key: FourCC
    var dataType: String?
    var unit: String?
    var items: [MetadataItem]

    /// The streams of `groups`' `gpmf/` items, in order of first appearance, each in time order.
    static func collect(_ groups: [TimedMetadataGroup]) throws(ReelError) -> [GPMFItemStream] {
        var out: [GPMFItemStream] = []
        var index: [String: [Int]] = [:]
        for group in groups {
            for item in group.items where item.keySpace == .gpmf {
                let key = item.key
                guard key.utf8.count == 4, key.utf8.allSatisfy({ (0x20...0x7E).contains($0) }) else {
                    throw ReelError(.invalidArgument, "GPMF writer: item key \"\(key)\" is not a FourCC", time: item.time)
                }
                let fourCC = FourCC(key)
                guard !GPMF.modifierKeys.contains(fourCC), fourCC != "DEVC", fourCC != "STRM" else { continue }
                // Streams of one key, type and unit (TMPC in both ACCL and GYRO) are told
                // apart by time: each stream's samples come one after another.
                let id = "\(key)\u{0}\(item.dataType ?? "")\u{0}\(item.unit ?? "")"
                if let i = index[id, default: []].first(where: { out[$0].items.last.map { $0.time < item.time } ?? true }) {
                    out[i].items.append(item)
                } else {
                    index[id, default: []].append(out.count)
                    out.append(GPMFItemStream(key: fourCC, dataType: item.dataType, unit: item.unit, items: [item]))
                }
            }
        }
        for i in out.indices where out[i].items.allSatisfy({ $0.time.isNumeric }) {
            out[i].items = out[i].items.enumerated().sorted { a, b in
                a.element.time < b.element.time || (a.element.time == b.element.time && a.offset < b.offset)
            }.map(\.element)
        }
        return out
    }

    var units: [String] {
        guard let unit else { return [] }
        return unit.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
    }

    /// The rank of this stream among GPS streams (``GPMFGPSStream``), or nil when it is not one.
    var gpsRank: Int? {
        let samples = items.map { item -> [GPMFValue] in
            if case .numbers(let n) = item.value { return n.map { .real($0) } }
            return item.numberValue.map { [.real($0)] } ?? []
        }
        return GPMFGPSStream(GPMFSeries(key: key, type: .complex, units: units, samples: samples))?.rank
    }

    /// One value slot of a sample: a number, or a string of `count` characters.
    struct Slot {
        var type: GPMFType
        var count: Int = 1
    }

    /// The slots of one structure and whether the type came from a TYPE string.
    func slots() throws(ReelError) -> (slots: [Slot], complex: Bool) {
        let text = dataType ?? "d"
        if text.count == 1, let c = text.unicodeScalars.first, c.value < 0x80, let t = GPMFType(rawValue: UInt8(c.value)),
            t != .nested, t != .complex
        {
            return ([Slot(type: t)], false)
        }
        var slots: [Slot] = []
        for field in try GPMFStructLayout(parsing: text).fields {
            if field.type == .char {
                slots.append(Slot(type: .char, count: field.count))
            } else {
                slots += Array(repeating: Slot(type: field.type), count: field.count)
            }
        }
        return (slots, true)
    }

    /// The values of one item as text or numbers, one per value of the decoded sample.
    enum Part {
        case number(Double)
        case text(String)
        case bytes(Data)
    }

    /// - Parameter splits: whether a string value is several values joined by commas
    ///   (complex and FourCC data), not one string.
    func parts(_ item: MetadataItem, splits: Bool) -> [Part] {
        switch item.value {
        case .numbers(let n): return n.map { .number($0) }
        case .integer(let i): return [.number(Double(i))]
        case .double(let d): return [.number(d)]
        case .data(let d): return [.bytes(d)]
        case .date(let d): return [.text(GPMF.gpsuString(from: d))]
        case .string(let s):
            guard splits else { return [.text(s)] }
            return s.split(separator: ",", omittingEmptySubsequences: false).map { part in
                Double(part).map { .number($0) } ?? .text(String(part))
            }
        }
    }

    /// The KLVs of this stream's `STRM`: UNIT, SCAL, TYPE, then the data.
    func nodes() throws(ReelError) -> [GPMFNode] {
        var (slots, complex) = try slots()
        let splits = complex || slots[0].type == .fourCC
        let samples = items.map { parts($0, splits: splits) }
        func fail(_ message: String, _ i: Int) -> ReelError {
            ReelError(.invalidArgument, "GPMF writer: \(key) sample \(i): \(message)", time: items[i].time)
        }
        // A simple type's structure holds as many values as the samples do.
        if !complex, slots[0].type != .char, slots[0].type != .utcDate {
            // Samples of one size are one structure each; otherwise (a key repeated within
            // its stream) any common divisor keeps the values, as readers flatten them.
            let width = samples.map(\.count).reduce(0) { a, b in
                var (x, y) = (a, b)
                while y != 0 { (x, y) = (y, x % y) }
                return x
            }
            slots = Array(repeating: slots[0], count: max(1, width))
        }
        let width = slots.count
        for (i, s) in samples.enumerated() where s.count % width != 0 && !(slots[0].type == .char && width == 1) {
            throw fail("\(s.count) values do not make whole structures of \(width)", i)
        }
        // One divisor per slot; slots whose integers cannot hold the values become doubles.
        // One divisor per slot; slots whose integers cannot hold the values become doubles.
        // A simple type takes one divisor for all elements when one fits (as ACCL's SCAL),
        // and one type for all elements.
        func column(_ k: Int?) -> [Double] {
            samples.flatMap { s in
                stride(from: k ?? 0, to: s.count, by: k == nil ? 1 : width).compactMap { if case .number(let x) = s[$0] { x } else { nil } }
            }
        }
        var scale: [Int64?] = slots.enumerated().map { k, slot in
            slot.type.isInteger ? GPMFScale.divisor(for: column(k), fitting: slot.type) : 1
        }
        if !complex, slots[0].type.isInteger {
            if let d = GPMFScale.divisor(for: column(nil), fitting: slots[0].type) {
                scale = scale.map { _ in d }
            } else if scale.contains(where: { $0 == nil }) {
                scale = scale.map { _ in nil }
            }
        }
        for k in slots.indices where scale[k] == nil { slots[k].type = .double }
        let divisors = scale.map { $0 ?? 1 }
        var out: [GPMFNode] = []
        let units = units
        if units.count > 1 { out.append(.strings("UNIT", units)) } else if let u = units.first, !u.isEmpty { out.append(.string("UNIT", u)) }
        if divisors.contains(where: { $0 != 1 }) {
            out.append(.integers("SCAL", .int32, Set(divisors).count == 1 ? [[divisors[0]]] : divisors.map { [$0] }))
        }
        let layout = GPMFStructLayout(fields: slots.map { GPMFStructLayout.Field(type: $0.type, count: $0.count) })
        let type: GPMFType = complex ? .complex : slots[0].type
        if complex { out.append(.string("TYPE", layout.description)) }

        var encoded: [[UInt8]] = []
        var structures: [Int] = []
        for (i, s) in samples.enumerated() {
            var w = ByteWriter()
            if type == .char {
                guard s.count == 1, case .text(let text) = s[0] else { throw fail("a 'c' sample must be one string", i) }
                w.bytes = TextDecoding.latin1(text) ?? Array(text.utf8)
                encoded.append(w.bytes)
                structures.append(1)
                continue
            }
            for (j, part) in s.enumerated() {
                try GPMFScale.append(part, as: slots[j % width], scale: divisors[j % width], to: &w) { fail($0, i) }
            }
            encoded.append(w.bytes)
            structures.append(s.count / width)
        }
        if type == .char {
            // One string per structure, NUL-padded to the longest (at least 2, so that one
            // character per structure is not read as one string).
            let texts = encoded
            if texts.count == 1 {
                out.append(GPMFNode(key: key, type: .char, structSize: 1, repeatCount: texts[0].count, payload: Data(texts[0])))
            } else {
                let size = max(2, texts.map(\.count).max() ?? 0)
                guard size <= 255 else { throw fail("a string longer than 255 bytes", 0) }
                let payload = texts.flatMap { $0 + [UInt8](repeating: 0, count: size - $0.count) }
                out.append(GPMFNode(key: key, type: .char, structSize: size, repeatCount: texts.count, payload: Data(payload)))
            }
            return out
        }
        let size = layout.size
        guard size <= 255 else { throw fail("a structure of \(size) bytes; GPMF allows 255", 0) }
        if structures.allSatisfy({ $0 == 1 }) {
            out.append(GPMFNode(key: key, type: type, structSize: size, repeatCount: encoded.count, payload: Data(encoded.flatMap { $0 })))
        } else {
            // Samples of several structures: one KLV each, as cameras write FACE or SCEN.
            for (i, bytes) in encoded.enumerated() {
                out.append(GPMFNode(key: key, type: type, structSize: size, repeatCount: structures[i], payload: Data(bytes)))
            }
        }
        return out
    }
}

/// Choosing SCAL divisors and storing scaled values.
enum GPMFScale {
    /// The smallest divisor (up to 2^31 - 1) for which every value is an integer of `type`
    /// divided by it, exactly as a reader computes it; nil when there is none.
    static func divisor(for values: [Double], fitting type: GPMFType) -> Int64? {
        guard values.allSatisfy(\.isFinite) else { return nil }
        // The decimal scales cameras mostly use (GPS x 1e7, altitude x 1000, ...).
        var p: Int64 = 1
        while p <= 1_000_000_000 {
            if holds(values, p, type) { return p }
            p *= 10
        }
        // Others (ACCL's 418): the least common multiple of the values' denominators.
        var d: Int64 = 1
        for v in values where v != v.rounded() {
            guard let q = denominator(v) else { return nil }
            d = lcm(d, q)
            guard d <= Int64(Int32.max) else { return nil }
        }
        return holds(values, d, type) ? d : nil
    }

    /// Whether `x * d`, rounded, fits `type` and reads back as exactly `x`.
    static func holds(_ values: [Double], _ d: Int64, _ type: GPMFType) -> Bool {
        guard let range = type.integerRange else { return false }
        return values.allSatisfy { x in
            let n = (x * Double(d)).rounded()
            return n >= range.lowerBound && n <= range.upperBound && n / Double(d) == x
        }
    }

    /// The denominator of the first continued-fraction convergent that divides to exactly
    /// `x`, if it is at most 2^31 - 1.
    static func denominator(_ x: Double) -> Int64? {
        var (h0, h1) = (1.0, x.rounded(.down))
        var (k0, k1): (Int64, Int64) = (0, 1)
        var rest = x - h1
        while h1 / Double(k1) != x {
            guard rest > 0 else { break }
            let r = 1 / rest
            let a = r.rounded(.down)
            guard a.isFinite, a < 4e9 else { return nil }
            rest = r - a
            let (m, o1) = Int64(a).multipliedReportingOverflow(by: k1)
            let (k, o2) = m.addingReportingOverflow(k0)
            guard !o1, !o2, k <= Int64(Int32.max) else { return nil }
            (h0, h1) = (h1, a * h1 + h0)
            (k0, k1) = (k1, k)
        }
        return k1
    }

    static func lcm(_ a: Int64, _ b: Int64) -> Int64 {
        var (x, y) = (a, b)
        while y != 0 { (x, y) = (y, x % y) }
        let (m, overflow) = (a / x).multipliedReportingOverflow(by: b)
        return overflow ? Int64.max : m
    }

    /// Appends one value as `slot` stores it, multiplied by `scale`.
    static func append(
        _ part: GPMFItemStream.Part, as slot: GPMFItemStream.Slot, scale: Int64, to w: inout ByteWriter,
        fail: (String) -> ReelError
    ) throws(ReelError) {
        let type = slot.type
        switch (part, type) {
        case (.text(let s), .char):
            let bytes = (TextDecoding.latin1(s) ?? Array(s.utf8)).prefix(slot.count)
            w.append(contentsOf: Array(bytes) + [UInt8](repeating: 0, count: slot.count - bytes.count))
        case (.text(let s), .fourCC):
            guard s.utf8.count == 4 else { throw fail("\"\(s)\" is not a FourCC") }
            w.u32be(FourCC(s).rawValue)
        case (.text(let s), .utcDate):
            let bytes = Array(s.utf8.prefix(16))
            w.append(contentsOf: bytes + [UInt8](repeating: 0, count: 16 - bytes.count))
        case (.text(let s), .guid):
            let hex = Array(s.utf8)
            var bytes: [UInt8] = []
            for i in stride(from: 0, to: hex.count - 1, by: 2) {
                guard let b = UInt8(String(decoding: hex[i...(i + 1)], as: UTF8.self), radix: 16) else { break }
                bytes.append(b)
            }
            guard bytes.count == 16 else { throw fail("\"\(s)\" is not a 128-bit id in hex") }
            w.append(contentsOf: bytes)
        case (.bytes(let d), .guid):
            guard d.count == 16 else { throw fail("a 128-bit id needs 16 bytes, not \(d.count)") }
            w.append(contentsOf: [UInt8](d))
        case (.number(let x), .float):
            w.u32be((Float(x * Double(scale))).bitPattern)
        case (.number(let x), .double):
            w.u64be((x * Double(scale)).bitPattern)
        case (.number(let x), .q15_16):
            let n = (x * 65536).rounded()
            guard n.isFinite, abs(n) <= 2_147_483_647 else { throw fail("\(x) does not fit Q15.16") }
            w.appendBE(UInt64(bitPattern: Int64(n)), 4)
        case (.number(let x), .q31_32):
            let n = (x * 4_294_967_296).rounded()
            guard n.isFinite, abs(n) < 9.2e18 else { throw fail("\(x) does not fit Q31.32") }
            w.appendBE(UInt64(bitPattern: Int64(n)), 8)
        case (.number(let x), _) where type.isInteger:
            let n = (x * Double(scale)).rounded()
            guard let range = type.integerRange, n >= range.lowerBound, n <= range.upperBound, let size = type.elementSize else {
                throw fail("\(x) does not fit type '\(type)'")
            }
            w.appendBE(n < 0 ? UInt64(bitPattern: Int64(n)) : UInt64(n), size)
        default:
            throw fail("a \(part) value cannot be stored as type '\(type)'")
        }
    }
}

extension GPMFType {
    var isInteger: Bool { integerRange != nil }

    /// The values an integer type holds (64-bit types limited to what a double counts exactly).
    var integerRange: ClosedRange<Double>? {
        switch self {
        case .int8: -128...127
        case .uint8: 0...255
        case .int16: -32768...32767
        case .uint16: 0...65535
        case .int32: -2_147_483_648...2_147_483_647
        case .uint32: 0...4_294_967_295
        case .int64: -9_007_199_254_740_992...9_007_199_254_740_992
        case .uint64: 0...9_007_199_254_740_992
        default: nil
        }
    }
}
