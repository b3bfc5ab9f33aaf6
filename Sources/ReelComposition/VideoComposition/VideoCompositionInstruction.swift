/// The built-in instruction (`AVVideoCompositionInstruction` and
/// `AVMutableVideoCompositionInstruction`): a background colour and a stack of layers, each
/// a source track with opacity, transform and crop ramps. The built-in compositor draws it;
/// custom compositors may read it too.
///
/// A value type with settable properties, so one type does the work of AVFoundation's
/// immutable/mutable pair: ``MutableVideoCompositionInstruction`` names the same type.
public struct VideoCompositionInstruction: VideoCompositionInstructionProtocol, Hashable, Codable {
    public var timeRange: TimeRange
    /// Painted under every layer; opaque black when nil.
    public var backgroundColor: Color?
    /// The layers, top first (the first one is drawn last, over the others).
    public var layerInstructions: [VideoCompositionLayerInstruction]
    public var enablePostProcessing: Bool
    public var containsTweening: Bool
    public var passthroughTrackID: Int32?
    public var requiredSourceSampleDataTrackIDs: [Int32]
    public var requiredSourceCaptionTrackIDs: [Int32]

    /// An instruction over `timeRange` with the given background, layers and settings.
    public init(
        timeRange: TimeRange, backgroundColor: Color? = nil,
        layerInstructions: [VideoCompositionLayerInstruction] = [],
        enablePostProcessing: Bool = false, containsTweening: Bool = true,
        passthroughTrackID: Int32? = nil, requiredSourceSampleDataTrackIDs: [Int32] = [],
        requiredSourceCaptionTrackIDs: [Int32] = []
    ) {
        self.timeRange = timeRange
        self.backgroundColor = backgroundColor
        self.layerInstructions = layerInstructions
        self.enablePostProcessing = enablePostProcessing
        self.containsTweening = containsTweening
        self.passthroughTrackID = passthroughTrackID
        self.requiredSourceSampleDataTrackIDs = requiredSourceSampleDataTrackIDs
        self.requiredSourceCaptionTrackIDs = requiredSourceCaptionTrackIDs
    }

    /// An instruction with no time range yet, as `AVMutableVideoCompositionInstruction()`
    /// makes one: set ``timeRange`` before use (validation reports an invalid range).
    public init() {
        self.init(timeRange: .invalid)
    }

    /// The tracks of the layer instructions, top first (each once).
    public var requiredSourceTrackIDs: [Int32]? {
        var seen = Set<Int32>()
        return layerInstructions.map(\.trackID).filter { seen.insert($0).inserted }
    }
}

/// AVFoundation's mutable instruction class; in Reel the instruction is a value type with
/// settable properties, so this is the same type.
public typealias MutableVideoCompositionInstruction = VideoCompositionInstruction

/// The former name of ``VideoCompositionInstruction``.
@available(*, deprecated, renamed: "VideoCompositionInstruction")
public typealias VideoCompositionStandardInstruction = VideoCompositionInstruction
