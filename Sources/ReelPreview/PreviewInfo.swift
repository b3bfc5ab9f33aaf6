import Foundation
import Reel

/// What the page is told about the document (the `info` message, and `GET /info`): its
/// frames and size, its tracks and segments, and its instructions with the metadata tracks
/// each requires.
struct PreviewInfo: Encodable {
    var type = "info"
    var name: String
    var generation: Int
    var frameCount: Int
    /// `value/timescale`, exact.
    var frameDuration: String
    var framesPerSecond: Double
    var start: Double
    var duration: Double
    var width: Int
    var height: Int
    /// Whether the document has sound, which `GET /sound.wav` serves.
    var hasSound: Bool
    /// The generation whose sound the state plays: the page loads the sound again only
    /// when it changes (``PreviewDocument/State/soundGeneration``).
    var soundGeneration: Int
    var sampleDataTrackIDs: [Int32]
    var tracks: [Track]
    var instructions: [Instruction]
    var problem: String?

    struct Track: Encodable {
        var trackID: Int32
        var mediaType: String
        var segments: [Segment]
    }

    struct Segment: Encodable {
        var start: Double
        var end: Double
        /// `NAME track N`; nil for an empty segment.
        var source: String?
    }

    struct Instruction: Encodable {
        var index: Int
        var start: Double
        var end: Double
        var requiredSampleDataTrackIDs: [Int32]
        var passthroughTrackID: Int32?
        var layers: [Int32]
    }

    init(name: String, state: PreviewDocument.State, pixelSize: (width: Int, height: Int), problem: String?) {
        self.name = name
        generation = state.generation
        frameCount = state.frameCount
        let d = state.videoComposition.frameDuration
        frameDuration = "\(d.value)/\(d.timescale)"
        framesPerSecond = d.seconds > 0 ? 1 / d.seconds : 0
        start = state.range.start.seconds
        duration = state.range.duration.seconds
        width = pixelSize.width
        height = pixelSize.height
        hasSound = PreviewSound(state) != nil
        soundGeneration = state.soundGeneration
        sampleDataTrackIDs = state.videoComposition.sourceSampleDataTrackIDs
        tracks = state.composition.tracks.map { track in
            Track(
                trackID: track.trackID, mediaType: Self.name(of: track.mediaType),
                segments: track.segments.map { segment in
                    Segment(
                        start: segment.target.start.seconds, end: segment.target.end.seconds,
                        source: segment.isEmpty ? nil : segment.sourceTrack?.description)
                })
        }
        instructions = state.videoComposition.instructions.enumerated().map { i, instruction in
            Instruction(
                index: i, start: instruction.timeRange.start.seconds, end: instruction.timeRange.end.seconds,
                requiredSampleDataTrackIDs: instruction.requiredSourceSampleDataTrackIDs,
                passthroughTrackID: instruction.passthroughTrackID,
                layers: (instruction as? VideoCompositionInstruction)?.layerInstructions.map(\.trackID) ?? [])
        }
        self.problem = problem
    }

    /// The word the page shows for a media type (its four-character code otherwise).
    static func name(of type: MediaType) -> String {
        switch type {
        case .video: "video"
        case .audio: "audio"
        case .metadata: "metadata"
        case .text, .subtitle: "captions"
        case .timecode: "timecode"
        default: type.rawValue
        }
    }
}

/// A frame's header: sent as JSON just before the frame's JPEG.
struct PreviewFrameHeader: Encodable {
    var type = "frame"
    var index: Int
    /// `value/timescale`, exact.
    var time: String
    var seconds: Double
    var generation: Int
    var instruction: Int?
    var passthrough: Bool
    var metadata: [Group]

    struct Group: Encodable {
        var trackID: Int32
        var start: Double
        var end: Double
        var items: [Item]
    }

    struct Item: Encodable {
        /// `keySpace/key`, as ``MetadataIdentifier`` writes it.
        var identifier: String
        var value: String
        var unit: String?
    }

    init(_ frame: PreviewFrame) {
        index = frame.index
        time = "\(frame.time.value)/\(frame.time.timescale)"
        seconds = frame.time.seconds
        generation = frame.generation
        instruction = frame.instructionIndex
        passthrough = frame.isPassthrough
        metadata = frame.metadata.map { trackID, group in
            Group(
                trackID: trackID, start: group.timeRange.start.seconds, end: group.timeRange.end.seconds,
                items: group.items.map { item in
                    Item(identifier: item.identifier.description, value: Self.text(item), unit: item.unit)
                })
        }
    }

    /// A value as the panel shows it: text, numbers, a date; bytes by their count.
    static func text(_ item: MetadataItem) -> String {
        if case .data(let bytes) = item.value, item.numberValue == nil { return "\(bytes.count) bytes" }
        if let number = item.numberValue, case .data = item.value { return String(number) }
        return item.stringValue ?? ""
    }
}
