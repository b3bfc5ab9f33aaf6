import Foundation

/// The samples of one GPMF data key in one stream (`STRM`), with the sticky modifiers that
/// were in force for it: device, stream name, SCAL, TYPE, units.
///
/// Numbers in ``samples`` are already divided by SCAL (as `GPMFValue/real`); a key with
/// no SCAL keeps its integer values. Each entry of ``samples`` is one point in time: one
/// structure of the KLV (`ACCL 's' 6 198` gives 198 samples of 3 numbers), or, when the
/// same key repeats within a stream (`FACE '?' 20 3`, `FACE '?' 20 0`, ...), one KLV with
/// all its structures flattened.
public struct GPMFSeries: Sendable, Hashable {
    public var key: FourCC
    public var type: GPMFType
    /// The TYPE in force, for complex (`?`) data.
    public var layout: GPMFStructLayout?
    public var deviceID: UInt64?
    public var deviceName: String?
    /// STNM.
    public var streamName: String?
    /// SIUN, else UNIT: one entry for all elements, or one per element.
    public var units: [String]
    /// SCAL divisors: one for all elements, or one per element; empty when none.
    public var scale: [Double]
    /// One entry per time sample, scaled.
    public var samples: [[GPMFValue]]
    /// Single-structure values seen earlier in the same stream (`GPSU`, `GPSF`, `GPSP`, `TMPC`, ...), unscaled.
    public var context: [FourCC: GPMFValue]
    /// Offset of the (first) KLV in the payload.
    public var offset: Int
    /// STMP: when the stream's first sample in this payload was taken, in microseconds on
    /// the camera's clock (which GoPro cameras run from the start of the recording).
    public var firstSampleMicroseconds: UInt64?
    /// TSMP: how many samples the stream has delivered since the recording started,
    /// this payload's included.
    public var totalSamples: UInt64?

    public init(
        key: FourCC, type: GPMFType, layout: GPMFStructLayout? = nil, deviceID: UInt64? = nil, deviceName: String? = nil,
        streamName: String? = nil, units: [String] = [], scale: [Double] = [], samples: [[GPMFValue]] = [],
        context: [FourCC: GPMFValue] = [:], offset: Int = 0, firstSampleMicroseconds: UInt64? = nil, totalSamples: UInt64? = nil
    ) {
        self.key = key
        self.type = type
        self.layout = layout
        self.deviceID = deviceID
        self.deviceName = deviceName
        self.streamName = streamName
        self.units = units
        self.scale = scale
        self.samples = samples
        self.context = context
        self.offset = offset
        self.firstSampleMicroseconds = firstSampleMicroseconds
        self.totalSamples = totalSamples
    }

    /// The unit of element `index`, if any.
    public func unit(ofElement index: Int) -> String? {
        if units.count == 1 { return units[0].isEmpty ? nil : units[0] }
        guard index >= 0, index < units.count else { return nil }
        let u = units[index].trimmingCharacters(in: .whitespaces)
        return u.isEmpty ? nil : u
    }

    /// The units as one string: the single unit, or per-element units joined by commas.
    public var unitDescription: String? {
        let trimmed = units.map { $0.trimmingCharacters(in: .whitespaces) }
        guard let first = trimmed.first else { return nil }
        if trimmed.allSatisfy({ $0 == first }) { return first.isEmpty ? nil : first }
        return trimmed.joined(separator: ",")
    }

    /// The type as GPMF writes it: the type character, or the TYPE string for complex data.
    public var typeDescription: String {
        if type == .complex, let layout { return layout.description }
        return type.description
    }
}

extension GPMF {
    /// Keys that describe the data after them rather than being data.
    static let modifierKeys: Set<FourCC> = [
        "DVID", "DVNM", "STNM", "RMRK", "SCAL", "SIUN", "UNIT", "TYPE", "TSMP", "TIMO", "EMPT",
        "TICK", "TOCK", "STMP", "ORIN", "ORIO", "MTRX", "QUAN",
    ]

    /// GPS context values that SCAL never applies to.
    static let unscaledKeys: Set<FourCC> = ["GPSU", "GPSF", "GPSP", "GPSA"]

    /// The sticky state while walking a device or stream.
    struct WalkState {
        var deviceID: UInt64?
        var deviceName: String?
        var streamName: String?
        var scale: [Double] = []
        var layout: GPMFStructLayout?
        var siun: [String] = []
        var unit: [String] = []
        var context: [FourCC: GPMFValue] = [:]
        var stamp: UInt64?
        var total: UInt64?

        mutating func resetStream() {
            stamp = nil
            total = nil
            streamName = nil
            scale = []
            layout = nil
            siun = []
            unit = []
            context = [:]
        }
    }

    /// Every data series of a parsed payload, in payload order.
    public static func series(in nodes: [GPMFNode]) throws(ReelError) -> [GPMFSeries] {
        var out: [GPMFSeries] = []
        var state = WalkState()
        try walk(nodes, state: &state, into: &out)
        return out
    }

    /// Every data series of a payload, in payload order.
    ///
    /// - Throws: what ``GPMFNode/parse(_:)`` throws, and `.corruptData` for a payload of
    ///   zero bytes only (a sample the camera never filled in): zero padding ends a
    ///   payload, but a payload that is nothing else holds no KLV at all.
    public static func series(payload: Data) throws(ReelError) -> [GPMFSeries] {
        if !payload.isEmpty, payload.allSatisfy({ $0 == 0 }) {
            throw .corrupt("GPMF", "the payload's \(payload.count) bytes are all zero: it holds no KLV", offset: 0)
        }
        return try series(in: GPMFNode.parse(payload))
    }

    private static func walk(_ nodes: [GPMFNode], state: inout WalkState, into out: inout [GPMFSeries]) throws(ReelError) {
        // Keys that appear more than once at this level: each KLV is one time sample.
        var keyCounts: [FourCC: Int] = [:]
        for node in nodes where !node.isNested && !modifierKeys.contains(node.key) { keyCounts[node.key, default: 0] += 1 }
        var seriesIndex: [FourCC: Int] = [:]

        for node in nodes {
            if node.isNested {
                var inner = state
                if node.key == "DEVC" {
                    inner = WalkState()
                } else if node.key == "STRM" {
                    inner.resetStream()
                }
                try walk(node.children, state: &inner, into: &out)
                continue
            }
            switch node.key {
            case "DVID":
                state.deviceID = try node.values().first?.first.flatMap { v -> UInt64? in
                    switch v {
                    case .uint(let u): return u
                    case .int(let i): return i >= 0 ? UInt64(i) : nil
                    default: return v.doubleValue.flatMap { $0.isFinite && $0 >= 0 && $0 < 1.8e19 ? UInt64($0) : nil }
                    }
                }
            case "DVNM":
                state.deviceName = try strings(node).first
            case "STNM":
                state.streamName = try strings(node).first
            case "SCAL":
                state.scale = try node.values().flatMap { $0 }.compactMap { $0.doubleValue }
            case "TYPE":
                let text = try strings(node).joined()
                state.layout = try GPMFStructLayout(parsing: text)
            case "SIUN":
                state.siun = try strings(node)
            case "UNIT":
                state.unit = try strings(node)
            case "STMP":
                state.stamp = try count(node)
            case "TSMP":
                state.total = try count(node)
            default:
                if modifierKeys.contains(node.key) { continue }
                let layout = node.type == .complex ? state.layout : nil
                let structures = try node.values(layout: layout)
                let scaled = unscaledKeys.contains(node.key) ? structures : structures.map { apply(scale: state.scale, to: $0) }
                if node.repeatCount == 1, let only = structures.first, only.count == 1 {
                    state.context[node.key] = only[0]
                }
                if keyCounts[node.key, default: 0] > 1 {
                    let sample = scaled.flatMap { $0 }
                    if let i = seriesIndex[node.key] {
                        out[i].samples.append(sample)
                        continue
                    }
                    seriesIndex[node.key] = out.count
                    out.append(makeSeries(node, state: state, layout: layout, samples: [sample]))
                } else {
                    out.append(makeSeries(node, state: state, layout: layout, samples: scaled))
                }
            }
        }
    }

    private static func makeSeries(_ node: GPMFNode, state: WalkState, layout: GPMFStructLayout?, samples: [[GPMFValue]]) -> GPMFSeries {
        GPMFSeries(
            key: node.key, type: node.type, layout: layout, deviceID: state.deviceID, deviceName: state.deviceName,
            streamName: state.streamName, units: state.siun.isEmpty ? state.unit : state.siun,
            scale: unscaledKeys.contains(node.key) ? [] : state.scale, samples: samples,
            context: state.context, offset: node.offset, firstSampleMicroseconds: state.stamp, totalSamples: state.total)
    }

    /// A single whole number (STMP, TSMP); nil when the KLV holds something else, which
    /// then does not time the stream.
    private static func count(_ node: GPMFNode) throws(ReelError) -> UInt64? {
        guard node.repeatCount == 1, let value = try node.values().first?.first else { return nil }
        switch value {
        case .uint(let u): return u
        case .int(let i): return i >= 0 ? UInt64(i) : nil
        default: return nil
        }
    }

    private static func strings(_ node: GPMFNode) throws(ReelError) -> [String] {
        guard node.type == .char else {
            throw .metadataFormat("GPMF", "\(node.key) should hold characters (type 'c') but has type '\(node.type)'", offset: node.offset)
        }
        return try node.values().compactMap { if case .string(let s) = $0.first { s } else { nil } }
    }

    /// Divides numbers by SCAL: one divisor for all elements, or one per element. A zero
    /// divisor leaves the value as it is.
    static func apply(scale: [Double], to values: [GPMFValue]) -> [GPMFValue] {
        guard !scale.isEmpty else { return values }
        return values.enumerated().map { i, v in
            guard let x = v.doubleValue else { return v }
            let s = scale.count == 1 ? scale[0] : (i < scale.count ? scale[i] : 1)
            return s == 0 ? v : .real(x / s)
        }
    }
}
