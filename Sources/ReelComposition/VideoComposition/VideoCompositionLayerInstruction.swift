/// How one source track is drawn by a standard instruction (`AVVideoCompositionLayerInstruction`):
/// opacity, transform and crop rectangle, each constant or ramping over time ranges.
///
/// Rule 10: a ramp interpolates linearly over its time range; before the first ramp the
/// default holds (opacity 1, identity transform, no crop), after a ramp its end value holds
/// until the next one. `setOpacity(_:at:)` and its siblings set a value from a time on (a
/// ramp of zero duration).
public struct VideoCompositionLayerInstruction: Sendable, Hashable, Codable {
    /// A value ramping linearly from `start` to `end` over `timeRange`.
    public struct Ramp<Value: Sendable & Hashable & Codable>: Sendable, Hashable, Codable {
        /// The value at the start of the time range.
        public var start: Value
        /// The value at the end of the time range, held until the next ramp.
        public var end: Value
        /// Where the ramp lies in composition time; empty for a value set at a time.
        public var timeRange: TimeRange
        /// A ramp from `start` to `end` over `timeRange`.
        public init(start: Value, end: Value, timeRange: TimeRange) {
            self.start = start
            self.end = end
            self.timeRange = timeRange
        }
    }

    /// The composition track drawn.
    public var trackID: Int32
    /// Opacity ramps in time order (0 transparent ... 1 opaque).
    public private(set) var opacityRamps: [Ramp<Double>]
    /// Transform ramps in time order: source pixels to render coordinates.
    public private(set) var transformRamps: [Ramp<Transform2D>]
    /// Crop rectangle ramps in time order, in source pixel coordinates.
    public private(set) var cropRectangleRamps: [Ramp<Rect>]

    /// A layer instruction for the track `trackID` with no ramps: opaque, untransformed, uncropped.
    public init(trackID: Int32) {
        self.trackID = trackID
        self.opacityRamps = []
        self.transformRamps = []
        self.cropRectangleRamps = []
    }

    // MARK: Setting

    /// Opacity ramps from `start` to `end` over `timeRange` (replacing ramps it overlaps).
    public mutating func setOpacityRamp(fromStartOpacity start: Double, toEndOpacity end: Double, timeRange: TimeRange) {
        Self.place(Ramp(start: start, end: end, timeRange: timeRange), in: &opacityRamps)
    }

    /// Opacity is `opacity` from `time` on, until the next ramp.
    public mutating func setOpacity(_ opacity: Double, at time: MediaTime) {
        setOpacityRamp(fromStartOpacity: opacity, toEndOpacity: opacity, timeRange: TimeRange(start: time, duration: .zero))
    }

    /// Transform ramps from `start` to `end` over `timeRange` (replacing ramps it overlaps).
    public mutating func setTransformRamp(fromStart start: Transform2D, toEnd end: Transform2D, timeRange: TimeRange) {
        Self.place(Ramp(start: start, end: end, timeRange: timeRange), in: &transformRamps)
    }

    /// The transform is `transform` from `time` on, until the next ramp.
    public mutating func setTransform(_ transform: Transform2D, at time: MediaTime) {
        setTransformRamp(fromStart: transform, toEnd: transform, timeRange: TimeRange(start: time, duration: .zero))
    }

    /// Crop rectangle ramps from `start` to `end` over `timeRange` (replacing ramps it overlaps).
    public mutating func setCropRectangleRamp(fromStartCropRectangle start: Rect, toEndCropRectangle end: Rect, timeRange: TimeRange) {
        Self.place(Ramp(start: start, end: end, timeRange: timeRange), in: &cropRectangleRamps)
    }

    /// The crop rectangle is `rect` from `time` on, until the next ramp.
    public mutating func setCropRectangle(_ rect: Rect, at time: MediaTime) {
        setCropRectangleRamp(fromStartCropRectangle: rect, toEndCropRectangle: rect, timeRange: TimeRange(start: time, duration: .zero))
    }

    // MARK: Reading

    /// The opacity ramp whose time range holds `time` (a zero-length one holds its own start), if any.
    public func opacityRamp(for time: MediaTime) -> Ramp<Double>? { Self.ramp(in: opacityRamps, at: time) }
    /// The transform ramp whose time range holds `time` (a zero-length one holds its own start), if any.
    public func transformRamp(for time: MediaTime) -> Ramp<Transform2D>? { Self.ramp(in: transformRamps, at: time) }
    /// The crop rectangle ramp whose time range holds `time` (a zero-length one holds its own start), if any.
    public func cropRectangleRamp(for time: MediaTime) -> Ramp<Rect>? { Self.ramp(in: cropRectangleRamps, at: time) }

    /// The opacity at `time`, 0...1.
    public func opacity(at time: MediaTime) -> Double {
        Self.value(in: opacityRamps, at: time, default: 1) { a, b, f in a + (b - a) * f }
    }

    /// The transform at `time`.
    public func transform(at time: MediaTime) -> Transform2D {
        Self.value(in: transformRamps, at: time, default: .identity) { Transform2D.interpolate($0, $1, $2) }
    }

    /// The crop rectangle at `time`; `Rect.infinite` (no crop) by default.
    public func cropRectangle(at time: MediaTime) -> Rect {
        Self.value(in: cropRectangleRamps, at: time, default: .infinite) { a, b, f in
            if a.isInfinite || b.isInfinite { return f < 1 ? a : b }
            func mix(_ x: Double, _ y: Double) -> Double { x + (y - x) * f }
            return Rect(x: mix(a.minX, b.minX), y: mix(a.minY, b.minY), width: mix(a.width, b.width), height: mix(a.height, b.height))
        }
    }

    /// Whether opacity, transform and crop are the same at every time.
    public var isConstant: Bool {
        opacityRamps.allSatisfy { $0.start == $0.end } && transformRamps.allSatisfy { $0.start == $0.end }
            && cropRectangleRamps.allSatisfy { $0.start == $0.end }
            && opacityRamps.count <= 1 && transformRamps.count <= 1 && cropRectangleRamps.count <= 1
            && (opacityRamps.first?.timeRange.start ?? .zero) <= .zero
            && (transformRamps.first?.timeRange.start ?? .zero) <= .zero
            && (cropRectangleRamps.first?.timeRange.start ?? .zero) <= .zero
    }

    // MARK: Ramps

    static func place<V: Sendable & Hashable & Codable>(_ ramp: Ramp<V>, in ramps: inout [Ramp<V>]) {
        ramps.removeAll { overlaps($0.timeRange, ramp.timeRange) }
        let i = ramps.firstIndex { ramp.timeRange.start < $0.timeRange.start } ?? ramps.count
        ramps.insert(ramp, at: i)
    }

    /// Two ramps overlap when they share time, or start at the same time.
    static func overlaps(_ a: TimeRange, _ b: TimeRange) -> Bool {
        if a.start == b.start { return true }
        return a.start < b.end && b.start < a.end
    }

    static func ramp<V: Sendable & Hashable & Codable>(in ramps: [Ramp<V>], at time: MediaTime) -> Ramp<V>? {
        ramps.last { r in r.timeRange.containsTime(time) || (r.timeRange.duration == .zero && r.timeRange.start == time) }
    }

    static func value<V: Sendable & Hashable & Codable>(in ramps: [Ramp<V>], at time: MediaTime, default initial: V, mix: (V, V, Double) -> V) -> V {
        guard let i = ramps.lastIndex(where: { !(time < $0.timeRange.start) }) else { return initial }
        let r = ramps[i]
        guard r.timeRange.duration > .zero, time < r.timeRange.end else { return r.end }
        return mix(r.start, r.end, fraction(of: time - r.timeRange.start, over: r.timeRange.duration))
    }

    /// `part / whole` as a Double, computed from the exact rationals.
    static func fraction(of part: MediaTime, over whole: MediaTime) -> Double {
        let common = MediaTime.leastCommonTimescale(part.timescale, whole.timescale) ?? max(part.timescale, whole.timescale)
        let p = part.convertScale(common), w = whole.convertScale(common)
        guard w.value != 0 else { return 1 }
        return min(max(Double(p.value) / Double(w.value), 0), 1)
    }
}
