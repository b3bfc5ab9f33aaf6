import Foundation
import Reel

extension CompositionFile {
    /// What to draw over one span of the output timeline (a
    /// `VideoCompositionInstruction`).
    public struct Instruction: Sendable, Hashable, Codable {
        public var timeRange: TimeRangeValue
        /// The metadata tracks whose groups the compositor gets over this span.
        public var requiredSourceSampleDataTrackIDs: [Int32]?
        /// The caption tracks whose captions the compositor gets over this span (the
        /// `captions` compositor draws them).
        public var requiredSourceCaptionTrackIDs: [Int32]?
        /// When set, this video track's frames are the output as they are.
        public var passthroughTrackID: Int32?
        /// Painted under the layers; opaque black when absent.
        public var backgroundColor: ColorValue?
        /// False when every frame of the span is the same.
        public var containsTweening: Bool?
        /// The layers, top first.
        public var layerInstructions: [LayerInstruction]?

        public init(
            timeRange: TimeRangeValue, requiredSourceSampleDataTrackIDs: [Int32]? = nil, passthroughTrackID: Int32? = nil,
            backgroundColor: ColorValue? = nil, containsTweening: Bool? = nil, layerInstructions: [LayerInstruction]? = nil,
            requiredSourceCaptionTrackIDs: [Int32]? = nil
        ) {
            self.timeRange = timeRange
            self.requiredSourceCaptionTrackIDs = requiredSourceCaptionTrackIDs
            self.requiredSourceSampleDataTrackIDs = requiredSourceSampleDataTrackIDs
            self.passthroughTrackID = passthroughTrackID
            self.backgroundColor = backgroundColor
            self.containsTweening = containsTweening
            self.layerInstructions = layerInstructions
        }
    }

    /// How one video track is drawn: a constant opacity, transform and crop, and ramps.
    public struct LayerInstruction: Sendable, Hashable, Codable {
        public var trackID: Int32
        /// Opacity from time zero (before any ramp).
        public var opacity: Double?
        /// Transform from time zero, source pixels to render coordinates.
        public var transform: TransformValue?
        /// Crop from time zero, in source pixels.
        public var cropRectangle: RectValue?
        public var opacityRamps: [Ramp<Double>]?
        public var transformRamps: [Ramp<TransformValue>]?
        public var cropRectangleRamps: [Ramp<RectValue>]?

        public init(
            trackID: Int32, opacity: Double? = nil, transform: TransformValue? = nil, cropRectangle: RectValue? = nil,
            opacityRamps: [Ramp<Double>]? = nil, transformRamps: [Ramp<TransformValue>]? = nil,
            cropRectangleRamps: [Ramp<RectValue>]? = nil
        ) {
            self.trackID = trackID
            self.opacity = opacity
            self.transform = transform
            self.cropRectangle = cropRectangle
            self.opacityRamps = opacityRamps
            self.transformRamps = transformRamps
            self.cropRectangleRamps = cropRectangleRamps
        }
    }

    /// A value going linearly from `from` to `to` over `timeRange`.
    public struct Ramp<Value: Sendable & Hashable & Codable>: Sendable, Hashable, Codable {
        public var from: Value
        public var to: Value
        public var timeRange: TimeRangeValue

        public init(from: Value, to: Value, timeRange: TimeRangeValue) {
            self.from = from
            self.to = to
            self.timeRange = timeRange
        }
    }

    /// A time range written `{"start": 0, "duration": 2}` or `{"start": 0, "end": 2}`; an
    /// instruction may also say `{"start": 2, "end": "end"}`: up to the end of the
    /// composition, whatever source it is rendered with.
    public struct TimeRangeValue: Sendable, Hashable, Codable {
        /// The range; its duration is positive infinity when it runs to the composition's end.
        public var range: TimeRange

        public init(_ range: TimeRange) { self.range = range }

        /// From `start` to the end of the composition.
        public static func toEnd(from start: MediaTime) -> TimeRangeValue {
            TimeRangeValue(TimeRange(start: start, duration: .positiveInfinity))
        }

        /// Whether the range runs to the composition's end (`"end": "end"`).
        public var runsToEnd: Bool { range.duration.isPositiveInfinity }

        /// The range with a `"end": "end"` made concrete.
        public func resolved(compositionEnd: MediaTime) -> TimeRange {
            guard runsToEnd else { return range }
            return TimeRange(start: range.start, end: MediaTime.maximum(compositionEnd, range.start))
        }

        enum CodingKeys: String, CodingKey { case start, duration, end }

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            let start = try c.decode(MediaTime.self, forKey: .start)
            let duration = try c.decodeIfPresent(MediaTime.self, forKey: .duration)
            let toEnd = (try? c.decode(String.self, forKey: .end)) == "end"
            let end = toEnd ? nil : try c.decodeIfPresent(MediaTime.self, forKey: .end)
            switch (duration, end) {
            case (let d?, nil):
                guard d.isNumeric, !(d < .zero) else {
                    throw DecodingError.dataCorrupted(
                        .init(
                            codingPath: c.codingPath + [CodingKeys.duration],
                            debugDescription: "is \(d.isNumeric ? d.secondsDescription : d.description): a duration must be zero or more"))
                }
                range = TimeRange(start: start, duration: d)
            case (nil, nil) where toEnd:
                guard start.isNumeric else {
                    throw DecodingError.dataCorrupted(.init(codingPath: c.codingPath + [CodingKeys.start], debugDescription: "is \(start): expected a time"))
                }
                range = TimeRange(start: start, duration: .positiveInfinity)
            case (nil, let e?):
                guard e.isNumeric, start.isNumeric, !(e < start) else {
                    throw DecodingError.dataCorrupted(
                        .init(
                            codingPath: c.codingPath + [CodingKeys.end],
                            debugDescription: "is \(e.isNumeric ? e.secondsDescription : e.description), before the start \(start.secondsDescription)"))
                }
                range = TimeRange(start: start, end: e)
            case (nil, nil):
                throw DecodingError.dataCorrupted(.init(codingPath: c.codingPath, debugDescription: "needs \"duration\" or \"end\" besides \"start\""))
            case (_?, _?):
                throw DecodingError.dataCorrupted(.init(codingPath: c.codingPath, debugDescription: "has both \"duration\" and \"end\": use one"))
            }
        }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(range.start, forKey: .start)
            if runsToEnd { try c.encode("end", forKey: .end) } else { try c.encode(range.duration, forKey: .duration) }
        }
    }

    /// An affine transform written as a matrix `{"a":1,"b":0,"c":0,"d":1,"tx":0,"ty":0}` or as
    /// steps `{"scale": 0.5, "rotate": 90, "translate": [100, 50]}` (scale, then rotate by
    /// degrees, then translate; `scale` may be `[sx, sy]`).
    public struct TransformValue: Sendable, Hashable, Codable {
        public var transform: Transform2D

        public init(_ transform: Transform2D) { self.transform = transform }

        enum CodingKeys: String, CodingKey { case a, b, c, d, tx, ty, scale, rotate, translate }

        public init(from decoder: any Decoder) throws {
            let k = try decoder.container(keyedBy: CodingKeys.self)
            if k.contains(.a) || k.contains(.tx) {
                transform = Transform2D(
                    a: try k.decodeIfPresent(Double.self, forKey: .a) ?? 1, b: try k.decodeIfPresent(Double.self, forKey: .b) ?? 0,
                    c: try k.decodeIfPresent(Double.self, forKey: .c) ?? 0, d: try k.decodeIfPresent(Double.self, forKey: .d) ?? 1,
                    tx: try k.decodeIfPresent(Double.self, forKey: .tx) ?? 0, ty: try k.decodeIfPresent(Double.self, forKey: .ty) ?? 0)
                return
            }
            var t = Transform2D.identity
            if k.contains(.scale) {
                if let s = try? k.decode(Double.self, forKey: .scale) {
                    t = t.concatenating(Transform2D(scaleX: s, y: s))
                } else {
                    let pair = try Self.pair(k, .scale)
                    t = t.concatenating(Transform2D(scaleX: pair.0, y: pair.1))
                }
            }
            if let degrees = try k.decodeIfPresent(Double.self, forKey: .rotate) {
                t = t.concatenating(Transform2D(rotationAngle: degrees * .pi / 180))
            }
            if k.contains(.translate) {
                let pair = try Self.pair(k, .translate)
                t = t.concatenating(Transform2D(translationX: pair.0, y: pair.1))
            }
            transform = t
        }

        private static func pair(_ k: KeyedDecodingContainer<CodingKeys>, _ key: CodingKeys) throws -> (Double, Double) {
            let values = try k.decode([Double].self, forKey: key)
            guard values.count == 2 else {
                throw DecodingError.dataCorrupted(.init(codingPath: k.codingPath + [key], debugDescription: "expected two numbers [x, y], got \(values.count)"))
            }
            return (values[0], values[1])
        }

        /// Writes the matrix form, `{"a": 1, "b": 0, "c": 0, "d": 1, "tx": 0, "ty": 0}`:
        /// `Transform2D`'s own encoding.
        public func encode(to encoder: any Encoder) throws {
            try transform.encode(to: encoder)
        }
    }

    /// A rectangle written `{"x": 0, "y": 0, "width": 960, "height": 540}` (pixels, origin
    /// at the top left).
    public struct RectValue: Sendable, Hashable, Codable {
        public var rect: Rect

        public init(_ rect: Rect) { self.rect = rect }

        enum CodingKeys: String, CodingKey { case x, y, width, height }

        public init(from decoder: any Decoder) throws {
            let k = try decoder.container(keyedBy: CodingKeys.self)
            rect = Rect(
                x: try k.decode(Double.self, forKey: .x), y: try k.decode(Double.self, forKey: .y),
                width: try k.decode(Double.self, forKey: .width), height: try k.decode(Double.self, forKey: .height))
        }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(rect.minX, forKey: .x)
            try c.encode(rect.minY, forKey: .y)
            try c.encode(rect.width, forKey: .width)
            try c.encode(rect.height, forKey: .height)
        }
    }

    /// A colour written `"#RRGGBB"`, `"#RRGGBBAA"` or `{"red": 1, "green": 0.5, "blue": 0, "alpha": 1}`.
    public struct ColorValue: Sendable, Hashable, Codable {
        public var color: Color

        public init(_ color: Color) { self.color = color }

        enum CodingKeys: String, CodingKey { case red, green, blue, alpha }

        public init(from decoder: any Decoder) throws {
            if let text = try? decoder.singleValueContainer().decode(String.self) {
                guard let c = Self.parse(hex: text) else {
                    throw DecodingError.dataCorrupted(
                        .init(codingPath: decoder.codingPath, debugDescription: "expected a colour such as \"#1E90FF\" or \"#00000080\", got \"\(text)\""))
                }
                color = c
                return
            }
            let k = try decoder.container(keyedBy: CodingKeys.self)
            color = Color(
                red: try k.decode(Double.self, forKey: .red), green: try k.decode(Double.self, forKey: .green),
                blue: try k.decode(Double.self, forKey: .blue), alpha: try k.decodeIfPresent(Double.self, forKey: .alpha) ?? 1)
        }

        /// `#RRGGBB` or `#RRGGBBAA`.
        public static func parse(hex text: String) -> Color? {
            var s = Substring(text)
            if s.hasPrefix("#") { s = s.dropFirst() }
            guard s.count == 6 || s.count == 8, let v = UInt32(s, radix: 16) else { return nil }
            let full = s.count == 6 ? (v << 8) | 0xFF : v
            func c(_ shift: UInt32) -> Double { Double((full >> shift) & 0xFF) / 255 }
            return Color(red: c(24), green: c(16), blue: c(8), alpha: c(0))
        }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(color.red, forKey: .red)
            try c.encode(color.green, forKey: .green)
            try c.encode(color.blue, forKey: .blue)
            try c.encode(color.alpha, forKey: .alpha)
        }
    }
}
