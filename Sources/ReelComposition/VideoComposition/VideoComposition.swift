/// How to turn a composition's video tracks into frames: AVFoundation's `AVVideoComposition`
/// and `AVMutableVideoComposition` in one value type (``MutableVideoComposition`` is the same
/// type, for code that names it).
///
/// Build one with ``init()`` and its properties, or ``init(propertiesOf:)``, then
/// ``validate(for:timeRange:)`` it (the engine does so before rendering). A copy is
/// independent of the value it was copied from.
public struct VideoComposition: Sendable {
    /// The duration of one output frame (1/30 s for 30 fps).
    public var frameDuration: MediaTime
    /// The output size in composition coordinates.
    public var renderSize: Size
    /// A factor on `renderSize` for the pixels actually produced (0.5 for a half-size preview).
    public var renderScale: Double
    /// The instructions, tiling the timeline in time order.
    public var instructions: [any VideoCompositionInstructionProtocol]
    /// Makes the compositor for a render; the built-in ``StandardVideoCompositor`` when nil.
    /// Setting it forgets ``customVideoCompositorClass``.
    public var customVideoCompositor: (@Sendable () -> any VideoCompositing)? {
        didSet { compositorClass = nil }
    }
    /// The compositor type when it was given as one (AVFoundation's
    /// `customVideoCompositorClass`); ``customVideoCompositor`` then makes it with `init()`.
    /// Setting it sets ``customVideoCompositor``.
    public var customVideoCompositorClass: (any InitializableVideoCompositing.Type)? {
        get { compositorClass }
        set {
            customVideoCompositor = newValue.map(Self.factory(for:))
            compositorClass = newValue
        }
    }
    private var compositorClass: (any InitializableVideoCompositing.Type)?
    /// When set, output frames follow this video track's own frame times instead of
    /// `frameDuration` steps (where it has no frame, `frameDuration` steps are used).
    public var sourceTrackIDForFrameTiming: Int32?
    /// The metadata tracks whose groups may reach the compositor (rule 1).
    public var sourceSampleDataTrackIDs: [Int32]
    /// Colour description of the output (`kCVImageBufferColorPrimaries_ITU_R_709_2` style names).
    public var colorPrimaries: String?
    /// The output's transfer function, named the same way (`AVVideoComposition.colorTransferFunction`);
    /// nil when not described.
    public var colorTransferFunction: String?
    /// The output's YCbCr matrix, named the same way (`AVVideoComposition.colorYCbCrMatrix`); nil
    /// when not described.
    public var colorYCbCrMatrix: String?

    /// An empty video composition: 1/30 s frames, no size, no instructions.
    public init() {
        self.init(frameDuration: MediaTime(value: 1, timescale: 30), renderSize: .zero, instructions: [])
    }

    /// A video composition with the given properties. When both `customVideoCompositor` and
    /// `customVideoCompositorClass` are given, the factory makes the compositor.
    public init(
        frameDuration: MediaTime, renderSize: Size, renderScale: Double = 1,
        instructions: [any VideoCompositionInstructionProtocol],
        customVideoCompositor: (@Sendable () -> any VideoCompositing)? = nil,
        customVideoCompositorClass: (any InitializableVideoCompositing.Type)? = nil,
        sourceTrackIDForFrameTiming: Int32? = nil, sourceSampleDataTrackIDs: [Int32] = [],
        colorPrimaries: String? = nil, colorTransferFunction: String? = nil, colorYCbCrMatrix: String? = nil
    ) {
        self.frameDuration = frameDuration
        self.renderSize = renderSize
        self.renderScale = renderScale
        self.instructions = instructions
        // When both are given the factory makes the compositor.
        self.customVideoCompositor = customVideoCompositor ?? customVideoCompositorClass.map(Self.factory(for:))
        self.compositorClass = customVideoCompositorClass
        self.sourceTrackIDForFrameTiming = sourceTrackIDForFrameTiming
        self.sourceSampleDataTrackIDs = sourceSampleDataTrackIDs
        self.colorPrimaries = colorPrimaries
        self.colorTransferFunction = colorTransferFunction
        self.colorYCbCrMatrix = colorYCbCrMatrix
    }

    /// A copy of `videoComposition` (AVFoundation's snapshot of a mutable one).
    public init(_ videoComposition: VideoComposition) {
        self = videoComposition
    }

    /// A copy, to edit further (AVFoundation's `mutableCopy()`).
    public func mutableCopy() -> VideoComposition { self }

    /// The colour description above as the render context's frames carry it (limited range).
    public var colorProperties: ColorProperties {
        ColorProperties(primaries: colorPrimaries, transferFunction: colorTransferFunction, matrix: colorYCbCrMatrix)
    }

    /// Makes a compositor of `type` with its `init()`.
    static func factory(for type: any InitializableVideoCompositing.Type) -> @Sendable () -> any VideoCompositing {
        { type.init() }
    }

    /// The size in pixels of the frames produced: `renderSize * renderScale`, rounded.
    public var renderPixelSize: (width: Int, height: Int) {
        let w = (renderSize.width * renderScale).rounded(), h = (renderSize.height * renderScale).rounded()
        guard w.isFinite, h.isFinite, w >= 1, h >= 1, w <= 32768, h <= 32768 else { return (0, 0) }
        return (Int(w), Int(h))
    }

    /// The instruction whose time range holds `time`, and its index; nil in a gap.
    public func instruction(at time: MediaTime) -> (index: Int, instruction: any VideoCompositionInstructionProtocol)? {
        for (i, instruction) in instructions.enumerated() where instruction.timeRange.containsTime(time) {
            return (i, instruction)
        }
        return nil
    }

    /// A video composition that shows `composition`'s video tracks as they are
    /// (`videoComposition(withPropertiesOf:)`): render size from the composition's natural
    /// size or its largest track, frame duration from the shortest nominal frame duration
    /// (1/30 s when none is known), and one standard instruction per span where the set of
    /// playing video tracks is the same, with a layer per playing track (the first track on top).
    public init(propertiesOf composition: Composition) {
        self.init()
        let videoTracks = composition.tracks(withMediaType: .video).filter(\.isEnabled)
        if composition.naturalSize != .zero {
            renderSize = composition.naturalSize
        } else {
            renderSize = Size(
                width: videoTracks.map(\.naturalSize.width).max() ?? 0,
                height: videoTracks.map(\.naturalSize.height).max() ?? 0)
        }
        let durations = videoTracks.map(\.nominalFrameDuration).filter { $0.isNumeric && $0 > .zero }
        if let shortest = durations.min() { frameDuration = shortest }
        // Cut the timeline wherever any video track's segment starts or ends.
        var cuts: Set<MediaTime> = [.zero, composition.duration]
        for track in videoTracks { for s in track.segments { cuts.insert(s.target.start); cuts.insert(s.target.end) } }
        let times = cuts.sorted().filter { !($0 > composition.duration) }
        var result: [VideoCompositionInstruction] = []
        for (start, end) in zip(times, times.dropFirst()) where start < end {
            let playing = videoTracks.filter { $0.segment(forTrackTime: start).map { !$0.isEmpty } ?? false }.map(\.trackID)
            if var last = result.last, last.layerInstructions.map(\.trackID) == playing {
                last.timeRange = TimeRange(start: last.timeRange.start, end: end)
                result[result.count - 1] = last
            } else {
                result.append(
                    VideoCompositionInstruction(
                        timeRange: TimeRange(start: start, end: end),
                        layerInstructions: playing.map { VideoCompositionLayerInstruction(trackID: $0) }))
            }
        }
        instructions = result
    }
}

/// A video composition being set up (`AVMutableVideoComposition`): the same type as
/// ``VideoComposition``.
public typealias MutableVideoComposition = VideoComposition
