import Foundation
import ReelCore

/// An OpenTimelineIO timeline (`Timeline.1`, the JSON serialisation of a `.otio` file) as
/// Swift values: `Codable`, with no OpenTimelineIO library. docs/otio.md says what maps to
/// what between it and ``CompositionFile``.
///
/// Reading (``decode(_:path:)``) dispatches on each object's `OTIO_SCHEMA`; a type or
/// version this reader does not know is one `ReelError` naming the object's JSON path
/// (`tracks.children[1].children[3]: "Foo.1" is not supported`). A newer version of a
/// known type is read with the newest reader while its fields fit. Every object keeps its
/// `metadata` dictionary; Reel's own settings travel in the timeline's `metadata.reel`.
public struct OTIOTimeline: Sendable, Hashable, Codable {
    public var name: String
    /// The timeline's start on its clock (an EDL's `01:00:00:00`); Reel renders from zero
    /// whatever it is, and its rate is the output's frame rate when Reel's settings give none.
    public var globalStartTime: OTIORationalTime?
    /// The layers: video tracks, later ones on top, and audio tracks.
    public var tracks: OTIOStack
    public var metadata: [String: JSONValue]

    public init(name: String = "", globalStartTime: OTIORationalTime? = nil, tracks: OTIOStack, metadata: [String: JSONValue] = [:]) {
        self.name = name
        self.globalStartTime = globalStartTime
        self.tracks = tracks
        self.metadata = metadata
    }

    enum CodingKeys: String, CodingKey {
        case schema = "OTIO_SCHEMA", name, globalStartTime = "global_start_time", tracks, metadata
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        try OTIOSchema.expect(c, key: .schema, oneOf: ["Timeline"])
        name = try c.decodeIfPresent(String.self, forKey: .name) ?? ""
        globalStartTime = try c.decodeIfPresent(OTIORationalTime.self, forKey: .globalStartTime)
        tracks = try c.decode(OTIOStack.self, forKey: .tracks)
        metadata = try c.decodeIfPresent([String: JSONValue].self, forKey: .metadata) ?? [:]
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode("Timeline.1", forKey: .schema)
        try c.encode(metadata, forKey: .metadata)
        try c.encode(name, forKey: .name)
        try c.encodeOptional(globalStartTime, forKey: .globalStartTime)
        try c.encode(tracks, forKey: .tracks)
    }
}

/// `Stack.1`: items played at the same time; the timeline's `tracks`.
public struct OTIOStack: Sendable, Hashable, Codable {
    public var name: String
    public var children: [OTIOTrack]
    public var markers: [OTIOMarker]
    public var sourceRange: OTIOTimeRange?
    public var metadata: [String: JSONValue]

    public init(
        name: String = "tracks", children: [OTIOTrack], markers: [OTIOMarker] = [], sourceRange: OTIOTimeRange? = nil,
        metadata: [String: JSONValue] = [:]
    ) {
        self.name = name
        self.children = children
        self.markers = markers
        self.sourceRange = sourceRange
        self.metadata = metadata
    }

    enum CodingKeys: String, CodingKey {
        case schema = "OTIO_SCHEMA", name, children, markers, sourceRange = "source_range", metadata, effects, enabled, color
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        try OTIOSchema.expect(c, key: .schema, oneOf: ["Stack"])
        name = try c.decodeIfPresent(String.self, forKey: .name) ?? ""
        children = try c.decodeIfPresent([OTIOTrack].self, forKey: .children) ?? []
        markers = try c.decodeIfPresent([OTIOMarker].self, forKey: .markers) ?? []
        sourceRange = try c.decodeIfPresent(OTIOTimeRange.self, forKey: .sourceRange)
        metadata = try c.decodeIfPresent([String: JSONValue].self, forKey: .metadata) ?? [:]
        try OTIOSchema.refuseEffects(c, key: .effects)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode("Stack.1", forKey: .schema)
        try c.encode(metadata, forKey: .metadata)
        try c.encode(name, forKey: .name)
        try c.encodeOptional(sourceRange, forKey: .sourceRange)
        try c.encode([OTIOEffect](), forKey: .effects)
        try c.encode(markers, forKey: .markers)
        try c.encode(true, forKey: .enabled)
        try c.encodeNil(forKey: .color)
        try c.encode(children, forKey: .children)
    }
}

/// `Track.1`: items played one after another; `kind` is `Video` or `Audio`.
public struct OTIOTrack: Sendable, Hashable, Codable {
    public var name: String
    public var kind: String
    public var children: [OTIOItem]
    public var markers: [OTIOMarker]
    public var sourceRange: OTIOTimeRange?
    public var enabled: Bool
    public var metadata: [String: JSONValue]

    public static let video = "Video"
    public static let audio = "Audio"

    public init(
        name: String = "", kind: String, children: [OTIOItem], markers: [OTIOMarker] = [], sourceRange: OTIOTimeRange? = nil,
        enabled: Bool = true, metadata: [String: JSONValue] = [:]
    ) {
        self.name = name
        self.kind = kind
        self.children = children
        self.markers = markers
        self.sourceRange = sourceRange
        self.enabled = enabled
        self.metadata = metadata
    }

    enum CodingKeys: String, CodingKey {
        case schema = "OTIO_SCHEMA", name, kind, children, markers, sourceRange = "source_range", enabled, metadata, effects, color
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        try OTIOSchema.expect(c, key: .schema, oneOf: ["Track"], inside: "a stack of tracks")
        name = try c.decodeIfPresent(String.self, forKey: .name) ?? ""
        kind = try c.decodeIfPresent(String.self, forKey: .kind) ?? Self.video
        guard kind == Self.video || kind == Self.audio else {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: c.codingPath + [CodingKeys.kind],
                    debugDescription: "is \"\(kind)\": expected \"Video\" or \"Audio\""))
        }
        children = try c.decodeIfPresent([OTIOItem].self, forKey: .children) ?? []
        markers = try c.decodeIfPresent([OTIOMarker].self, forKey: .markers) ?? []
        sourceRange = try c.decodeIfPresent(OTIOTimeRange.self, forKey: .sourceRange)
        enabled = try c.decodeIfPresent(Bool.self, forKey: .enabled) ?? true
        metadata = try c.decodeIfPresent([String: JSONValue].self, forKey: .metadata) ?? [:]
        try OTIOSchema.refuseEffects(c, key: .effects)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode("Track.1", forKey: .schema)
        try c.encode(metadata, forKey: .metadata)
        try c.encode(name, forKey: .name)
        try c.encodeOptional(sourceRange, forKey: .sourceRange)
        try c.encode([OTIOEffect](), forKey: .effects)
        try c.encode(markers, forKey: .markers)
        try c.encode(enabled, forKey: .enabled)
        try c.encodeNil(forKey: .color)
        try c.encode(children, forKey: .children)
        try c.encode(kind, forKey: .kind)
    }
}

/// One child of a track: a clip, a gap or a transition.
public enum OTIOItem: Sendable, Hashable, Codable {
    case clip(OTIOClip)
    case gap(OTIOGap)
    case transition(OTIOTransition)

    enum CodingKeys: String, CodingKey { case schema = "OTIO_SCHEMA" }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let schema = try OTIOSchema.expect(c, key: .schema, oneOf: ["Clip", "Gap", "Transition"], inside: "a track")
        switch schema.name {
        case "Clip": self = .clip(try OTIOSchema.reading(schema, decoder.codingPath) { try OTIOClip(from: decoder) })
        case "Gap": self = .gap(try OTIOSchema.reading(schema, decoder.codingPath) { try OTIOGap(from: decoder) })
        default: self = .transition(try OTIOSchema.reading(schema, decoder.codingPath) { try OTIOTransition(from: decoder) })
        }
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .clip(let clip): try clip.encode(to: encoder)
        case .gap(let gap): try gap.encode(to: encoder)
        case .transition(let transition): try transition.encode(to: encoder)
        }
    }
}

/// `Clip.2` (or `Clip.1`): a part (`source_range`) of its active media reference, with effects.
public struct OTIOClip: Sendable, Hashable, Codable {
    public var name: String
    public var sourceRange: OTIOTimeRange?
    public var mediaReference: OTIOMediaReference?
    /// The key of ``mediaReference`` in `media_references` (`DEFAULT_MEDIA`).
    public var activeMediaReferenceKey: String
    public var effects: [OTIOEffect]
    public var markers: [OTIOMarker]
    public var enabled: Bool
    public var metadata: [String: JSONValue]

    public init(
        name: String = "", sourceRange: OTIOTimeRange?, mediaReference: OTIOMediaReference?, effects: [OTIOEffect] = [],
        markers: [OTIOMarker] = [], enabled: Bool = true, metadata: [String: JSONValue] = [:]
    ) {
        self.name = name
        self.sourceRange = sourceRange
        self.mediaReference = mediaReference
        self.activeMediaReferenceKey = "DEFAULT_MEDIA"
        self.effects = effects
        self.markers = markers
        self.enabled = enabled
        self.metadata = metadata
    }

    enum CodingKeys: String, CodingKey {
        case schema = "OTIO_SCHEMA", name, sourceRange = "source_range", mediaReference = "media_reference",
            mediaReferences = "media_references", activeKey = "active_media_reference_key", effects, markers, enabled, metadata, color
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        name = try c.decodeIfPresent(String.self, forKey: .name) ?? ""
        sourceRange = try c.decodeIfPresent(OTIOTimeRange.self, forKey: .sourceRange)
        if c.contains(.mediaReferences) {
            let key = try c.decodeIfPresent(String.self, forKey: .activeKey) ?? "DEFAULT_MEDIA"
            let references = try c.nestedContainer(keyedBy: OTIOAnyKey.self, forKey: .mediaReferences)
            activeMediaReferenceKey = key
            mediaReference = try references.decodeIfPresent(OTIOMediaReference.self, forKey: OTIOAnyKey(key))
            if mediaReference == nil, !references.allKeys.isEmpty {
                throw DecodingError.dataCorrupted(
                    .init(
                        codingPath: c.codingPath + [CodingKeys.activeKey],
                        debugDescription:
                            "is \"\(key)\", which is not a key of media_references (\(references.allKeys.map { "\"\($0.stringValue)\"" }.joined(separator: ", ")))"
                    ))
            }
        } else {
            activeMediaReferenceKey = "DEFAULT_MEDIA"
            mediaReference = try c.decodeIfPresent(OTIOMediaReference.self, forKey: .mediaReference)
        }
        effects = try c.decodeIfPresent([OTIOEffect].self, forKey: .effects) ?? []
        markers = try c.decodeIfPresent([OTIOMarker].self, forKey: .markers) ?? []
        enabled = try c.decodeIfPresent(Bool.self, forKey: .enabled) ?? true
        metadata = try c.decodeIfPresent([String: JSONValue].self, forKey: .metadata) ?? [:]
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode("Clip.2", forKey: .schema)
        try c.encode(metadata, forKey: .metadata)
        try c.encode(name, forKey: .name)
        try c.encodeOptional(sourceRange, forKey: .sourceRange)
        try c.encode(effects, forKey: .effects)
        try c.encode(markers, forKey: .markers)
        try c.encode(enabled, forKey: .enabled)
        try c.encodeNil(forKey: .color)
        var references = c.nestedContainer(keyedBy: OTIOAnyKey.self, forKey: .mediaReferences)
        try references.encode(mediaReference ?? .missing(name: "", metadata: [:]), forKey: OTIOAnyKey(activeMediaReferenceKey))
        try c.encode(activeMediaReferenceKey, forKey: .activeKey)
    }
}

/// `Gap.1`: nothing for its `source_range`'s duration.
public struct OTIOGap: Sendable, Hashable, Codable {
    public var name: String
    public var duration: OTIORationalTime
    public var metadata: [String: JSONValue]

    public init(name: String = "", duration: OTIORationalTime, metadata: [String: JSONValue] = [:]) {
        self.name = name
        self.duration = duration
        self.metadata = metadata
    }

    enum CodingKeys: String, CodingKey {
        case schema = "OTIO_SCHEMA", name, sourceRange = "source_range", metadata, effects, markers, enabled, color
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        name = try c.decodeIfPresent(String.self, forKey: .name) ?? ""
        guard let range = try c.decodeIfPresent(OTIOTimeRange.self, forKey: .sourceRange) else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: c.codingPath + [CodingKeys.sourceRange], debugDescription: "is missing: a gap needs its duration"))
        }
        duration = range.duration
        metadata = try c.decodeIfPresent([String: JSONValue].self, forKey: .metadata) ?? [:]
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode("Gap.1", forKey: .schema)
        try c.encode(metadata, forKey: .metadata)
        try c.encode(name, forKey: .name)
        try c.encode(OTIOTimeRange(startTime: OTIORationalTime(value: 0, rate: duration.rate), duration: duration), forKey: .sourceRange)
        try c.encode([OTIOEffect](), forKey: .effects)
        try c.encode([OTIOMarker](), forKey: .markers)
        try c.encode(true, forKey: .enabled)
        try c.encodeNil(forKey: .color)
    }
}

/// `Transition.1`: a dissolve from the item before to the item after, over `in_offset`
/// before the cut and `out_offset` after it (it takes no time of its own in the track).
public struct OTIOTransition: Sendable, Hashable, Codable {
    public var name: String
    /// `SMPTE_Dissolve` (the one type Reel renders), `Custom_Transition`, ...
    public var transitionType: String
    public var inOffset: OTIORationalTime
    public var outOffset: OTIORationalTime
    public var metadata: [String: JSONValue]

    public static let dissolve = "SMPTE_Dissolve"

    public init(
        name: String = "", transitionType: String = OTIOTransition.dissolve, inOffset: OTIORationalTime, outOffset: OTIORationalTime,
        metadata: [String: JSONValue] = [:]
    ) {
        self.name = name
        self.transitionType = transitionType
        self.inOffset = inOffset
        self.outOffset = outOffset
        self.metadata = metadata
    }

    enum CodingKeys: String, CodingKey {
        case schema = "OTIO_SCHEMA", name, transitionType = "transition_type", inOffset = "in_offset", outOffset = "out_offset", metadata
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        name = try c.decodeIfPresent(String.self, forKey: .name) ?? ""
        transitionType = try c.decodeIfPresent(String.self, forKey: .transitionType) ?? Self.dissolve
        inOffset = try c.decodeIfPresent(OTIORationalTime.self, forKey: .inOffset) ?? OTIORationalTime(value: 0, rate: 1)
        outOffset = try c.decodeIfPresent(OTIORationalTime.self, forKey: .outOffset) ?? OTIORationalTime(value: 0, rate: 1)
        metadata = try c.decodeIfPresent([String: JSONValue].self, forKey: .metadata) ?? [:]
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode("Transition.1", forKey: .schema)
        try c.encode(metadata, forKey: .metadata)
        try c.encode(name, forKey: .name)
        try c.encode(inOffset, forKey: .inOffset)
        try c.encode(outOffset, forKey: .outOffset)
        try c.encode(transitionType, forKey: .transitionType)
    }
}

/// A clip's media: a file (`ExternalReference.1`) or nothing (`MissingReference.1`).
public enum OTIOMediaReference: Sendable, Hashable, Codable {
    /// `target_url`: a `file://` URL or a path (relative to the .otio file's folder).
    case external(targetURL: String, availableRange: OTIOTimeRange?, name: String, metadata: [String: JSONValue])
    case missing(name: String, metadata: [String: JSONValue])

    enum CodingKeys: String, CodingKey {
        case schema = "OTIO_SCHEMA", name, targetURL = "target_url", availableRange = "available_range", metadata, bounds = "available_image_bounds"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let schema = try OTIOSchema.expect(c, key: .schema, oneOf: ["ExternalReference", "MissingReference"], inside: "a clip's media references")
        let name = try c.decodeIfPresent(String.self, forKey: .name) ?? ""
        let metadata = try c.decodeIfPresent([String: JSONValue].self, forKey: .metadata) ?? [:]
        if schema.name == "MissingReference" {
            self = .missing(name: name, metadata: metadata)
            return
        }
        guard let url = try c.decodeIfPresent(String.self, forKey: .targetURL), !url.isEmpty else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: c.codingPath + [CodingKeys.targetURL], debugDescription: "is missing or empty: an external reference names its file"))
        }
        self = .external(targetURL: url, availableRange: try c.decodeIfPresent(OTIOTimeRange.self, forKey: .availableRange), name: name, metadata: metadata)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .external(let url, let range, let name, let metadata):
            try c.encode("ExternalReference.1", forKey: .schema)
            try c.encode(metadata, forKey: .metadata)
            try c.encode(name, forKey: .name)
            try c.encodeOptional(range, forKey: .availableRange)
            try c.encodeNil(forKey: .bounds)
            try c.encode(url, forKey: .targetURL)
        case .missing(let name, let metadata):
            try c.encode("MissingReference.1", forKey: .schema)
            try c.encode(metadata, forKey: .metadata)
            try c.encode(name, forKey: .name)
            try c.encodeNil(forKey: .availableRange)
            try c.encodeNil(forKey: .bounds)
        }
    }
}

/// An effect on a clip: a speed change (`LinearTimeWarp.1`), a held frame
/// (`FreezeFrame.1`), or another effect by name (`Effect.1`, not rendered).
public enum OTIOEffect: Sendable, Hashable, Codable {
    case linearTimeWarp(timeScalar: Double)
    case freezeFrame
    case other(effectName: String)

    enum CodingKeys: String, CodingKey {
        case schema = "OTIO_SCHEMA", name, effectName = "effect_name", timeScalar = "time_scalar", metadata, enabled
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let schema = try OTIOSchema.expect(c, key: .schema, oneOf: ["LinearTimeWarp", "FreezeFrame", "Effect", "TimeEffect"], inside: "a clip's effects")
        switch schema.name {
        case "LinearTimeWarp":
            let scalar = try c.decodeIfPresent(Double.self, forKey: .timeScalar) ?? 1
            guard scalar.isFinite, scalar >= 0 else {
                throw DecodingError.dataCorrupted(
                    .init(
                        codingPath: c.codingPath + [CodingKeys.timeScalar],
                        debugDescription: "is \(scalar): Reel plays forward time warps only (0 or more)"))
            }
            self = scalar == 0 ? .freezeFrame : .linearTimeWarp(timeScalar: scalar)
        case "FreezeFrame": self = .freezeFrame
        default: self = .other(effectName: try c.decodeIfPresent(String.self, forKey: .effectName) ?? schema.name)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .linearTimeWarp(let scalar):
            try c.encode("LinearTimeWarp.1", forKey: .schema)
            try c.encode([String: JSONValue](), forKey: .metadata)
            try c.encode("", forKey: .name)
            try c.encode("LinearTimeWarp", forKey: .effectName)
            try c.encode(true, forKey: .enabled)
            try c.encode(scalar, forKey: .timeScalar)
        case .freezeFrame:
            try c.encode("FreezeFrame.1", forKey: .schema)
            try c.encode([String: JSONValue](), forKey: .metadata)
            try c.encode("", forKey: .name)
            try c.encode("FreezeFrame", forKey: .effectName)
            try c.encode(true, forKey: .enabled)
            try c.encode(0.0, forKey: .timeScalar)
        case .other(let name):
            try c.encode("Effect.1", forKey: .schema)
            try c.encode([String: JSONValue](), forKey: .metadata)
            try c.encode("", forKey: .name)
            try c.encode(name, forKey: .effectName)
            try c.encode(true, forKey: .enabled)
        }
    }
}

/// `Marker.2` (or `.1`): a named point or span; Reel writes markers as chapters.
public struct OTIOMarker: Sendable, Hashable, Codable {
    public var name: String
    public var markedRange: OTIOTimeRange
    public var color: String
    public var comment: String
    public var metadata: [String: JSONValue]

    public init(name: String, markedRange: OTIOTimeRange, color: String = "RED", comment: String = "", metadata: [String: JSONValue] = [:]) {
        self.name = name
        self.markedRange = markedRange
        self.color = color
        self.comment = comment
        self.metadata = metadata
    }

    enum CodingKeys: String, CodingKey {
        case schema = "OTIO_SCHEMA", name, markedRange = "marked_range", range, color, comment, metadata
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let schema = try OTIOSchema.expect(c, key: .schema, oneOf: ["Marker"], inside: "markers")
        name = try c.decodeIfPresent(String.self, forKey: .name) ?? ""
        if let range = try c.decodeIfPresent(OTIOTimeRange.self, forKey: .markedRange) {
            markedRange = range
        } else if let range = try c.decodeIfPresent(OTIOTimeRange.self, forKey: .range) {
            markedRange = range
        } else {
            throw DecodingError.keyNotFound(CodingKeys.markedRange, .init(codingPath: c.codingPath, debugDescription: "\(schema.text) has no marked_range"))
        }
        color = try c.decodeIfPresent(String.self, forKey: .color) ?? "RED"
        comment = try c.decodeIfPresent(String.self, forKey: .comment) ?? ""
        metadata = try c.decodeIfPresent([String: JSONValue].self, forKey: .metadata) ?? [:]
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode("Marker.2", forKey: .schema)
        try c.encode(metadata, forKey: .metadata)
        try c.encode(name, forKey: .name)
        try c.encode(color, forKey: .color)
        try c.encode(markedRange, forKey: .markedRange)
        try c.encode(comment, forKey: .comment)
    }
}

/// `RationalTime.1`: `value` frames at `rate` per second. ``mediaTime`` reads it exactly
/// (29.97 and 29.97002997... are both 30000/1001).
public struct OTIORationalTime: Sendable, Hashable, Codable {
    public var value: Double
    public var rate: Double

    public init(value: Double, rate: Double) {
        self.value = value
        self.rate = rate
    }

    enum CodingKeys: String, CodingKey { case schema = "OTIO_SCHEMA", value, rate }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        try OTIOSchema.expect(c, key: .schema, oneOf: ["RationalTime"], required: false)
        value = try c.decode(Double.self, forKey: .value)
        rate = try c.decode(Double.self, forKey: .rate)
        guard OTIOTime.exactRate(rate) != nil else {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: c.codingPath + [CodingKeys.rate],
                    debugDescription: "is \(rate): expected a positive frame rate such as 24, 25 or 29.97"))
        }
        guard OTIOTime.mediaTime(value: value, rate: rate) != nil else {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: c.codingPath + [CodingKeys.value],
                    debugDescription: "is \(value): not a time Reel can hold exactly at rate \(rate)"))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode("RationalTime.1", forKey: .schema)
        try c.encode(rate, forKey: .rate)
        try c.encode(value, forKey: .value)
    }

    /// The time, exact (checked when decoded).
    public var mediaTime: MediaTime { OTIOTime.mediaTime(value: value, rate: rate) ?? .invalid }
}

/// `TimeRange.1`: `start_time` and `duration`.
public struct OTIOTimeRange: Sendable, Hashable, Codable {
    public var startTime: OTIORationalTime
    public var duration: OTIORationalTime

    public init(startTime: OTIORationalTime, duration: OTIORationalTime) {
        self.startTime = startTime
        self.duration = duration
    }

    enum CodingKeys: String, CodingKey { case schema = "OTIO_SCHEMA", startTime = "start_time", duration }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        try OTIOSchema.expect(c, key: .schema, oneOf: ["TimeRange"], required: false)
        startTime = try c.decode(OTIORationalTime.self, forKey: .startTime)
        duration = try c.decode(OTIORationalTime.self, forKey: .duration)
        guard !(duration.mediaTime < .zero) else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: c.codingPath + [CodingKeys.duration], debugDescription: "is negative (\(duration.value) at rate \(duration.rate))"))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode("TimeRange.1", forKey: .schema)
        try c.encode(duration, forKey: .duration)
        try c.encode(startTime, forKey: .startTime)
    }

    /// The range, exact.
    public var timeRange: TimeRange { TimeRange(start: startTime.mediaTime, duration: duration.mediaTime) }
}

/// A string key for dictionaries of objects (`media_references`).
struct OTIOAnyKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ string: String) { stringValue = string }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

/// An `OTIO_SCHEMA` value, `Name.version`, and the versions this reader knows.
struct OTIOSchema: Sendable {
    var name: String
    var version: Int
    var text: String { "\(name).\(version)" }

    /// The newest version of each type this reader was written for; a newer one is read
    /// with the same reader while its fields fit.
    static let known: [String: Int] = [
        "Timeline": 1, "Stack": 1, "Track": 1, "Clip": 2, "Gap": 1, "Transition": 1, "ExternalReference": 1,
        "MissingReference": 1, "LinearTimeWarp": 1, "FreezeFrame": 1, "Effect": 1, "TimeEffect": 1, "Marker": 2,
        "RationalTime": 1, "TimeRange": 1,
    ]

    init?(_ text: String) {
        guard let dot = text.lastIndex(of: "."), let v = Int(text[text.index(after: dot)...]), v >= 1 else { return nil }
        name = String(text[..<dot])
        version = v
        guard !name.isEmpty else { return nil }
    }

    /// Reads and checks the schema of the object in `c`: one of `names`, at a version
    /// this reader knows or a newer one.
    @discardableResult
    static func expect<K: CodingKey>(
        _ c: KeyedDecodingContainer<K>, key: K, oneOf names: [String], inside place: String? = nil,
        required: Bool = true
    ) throws -> OTIOSchema {
        guard let text = try c.decodeIfPresent(String.self, forKey: key) else {
            if !required { return OTIOSchema(name: names[0], version: 1) }
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: c.codingPath,
                    debugDescription: "has no OTIO_SCHEMA: expected \(names.map { "\"\($0).N\"" }.joined(separator: " or "))"))
        }
        guard let schema = OTIOSchema(text), names.contains(schema.name) else {
            let known = OTIOSchema(text).map { Self.known[$0.name] != nil } ?? false
            let reason = known && place != nil ? " in \(place!)" : ""
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: c.codingPath,
                    debugDescription:
                        "\"\(text)\" is not supported\(reason) (Reel reads \(names.map { "\($0).\(Self.known[$0] ?? 1)" }.joined(separator: ", ")))"))
        }
        return schema
    }

    private init(name: String, version: Int) {
        self.name = name
        self.version = version
    }

    /// Runs `read`; when it fails on a version newer than the known one, the message says so.
    static func reading<T>(_ schema: OTIOSchema, _ path: [any CodingKey], _ read: () throws -> T) throws -> T {
        do { return try read() } catch let error as DecodingError {
            guard let newest = known[schema.name], schema.version > newest else { throw error }
            let note = " (\(schema.text) is newer than the \(schema.name).\(newest) this reel reads, and its fields differ)"
            switch error {
            case .dataCorrupted(let context):
                throw DecodingError.dataCorrupted(.init(codingPath: context.codingPath, debugDescription: context.debugDescription + note))
            case .keyNotFound(let key, let context):
                throw DecodingError.dataCorrupted(.init(codingPath: context.codingPath + [key], debugDescription: "is missing" + note))
            case .typeMismatch(let type, let context):
                throw DecodingError.dataCorrupted(
                    .init(
                        codingPath: context.codingPath,
                        debugDescription: "expected \(CompositionFileDiagnostics.name(of: type))" + note))
            default: throw error
            }
        }
    }

    /// Stacks and tracks with effects are refused: Reel applies effects to clips only.
    static func refuseEffects<K: CodingKey>(_ c: KeyedDecodingContainer<K>, key: K) throws {
        guard let effects = try c.decodeIfPresent([OTIOEffect].self, forKey: key), !effects.isEmpty else { return }
        throw DecodingError.dataCorrupted(
            .init(codingPath: c.codingPath + [key], debugDescription: "holds \(effects.count) effect(s): Reel applies effects to clips only"))
    }
}

extension KeyedEncodingContainer {
    /// The value, or `null` (OTIO writes every field).
    mutating func encodeOptional<T: Encodable>(_ value: T?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }
}
