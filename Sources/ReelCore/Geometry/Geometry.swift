import Foundation

/// A point in pixels (CGPoint).
public struct Point: Sendable, Hashable, Codable {
    public var x: Double
    public var y: Double
    public init(x: Double, y: Double) { self.x = x; self.y = y }
    public static let zero = Point(x: 0, y: 0)

    /// The point moved by `transform`.
    public func applying(_ t: Transform2D) -> Point {
        Point(x: t.a * x + t.c * y + t.tx, y: t.b * x + t.d * y + t.ty)
    }
}

/// A width and a height in pixels (CGSize).
public struct Size: Sendable, Hashable, Codable {
    public var width: Double
    public var height: Double
    public init(width: Double, height: Double) { self.width = width; self.height = height }
    public init(width: Int, height: Int) { self.init(width: Double(width), height: Double(height)) }
    public static let zero = Size(width: 0, height: 0)
}

/// A rectangle in pixels, origin at the top left, y downward (CGRect, as video uses it).
public struct Rect: Sendable, Hashable, Codable {
    public var origin: Point
    public var size: Size
    public init(origin: Point, size: Size) { self.origin = origin; self.size = size }
    public init(x: Double, y: Double, width: Double, height: Double) {
        self.init(origin: Point(x: x, y: y), size: Size(width: width, height: height))
    }
    public static let zero = Rect(x: 0, y: 0, width: 0, height: 0)
    /// The "no crop" rectangle: infinitely large (CGRect.infinite).
    public static let infinite = Rect(
        x: -.greatestFiniteMagnitude / 2, y: -.greatestFiniteMagnitude / 2,
        width: .greatestFiniteMagnitude, height: .greatestFiniteMagnitude)

    public var minX: Double { origin.x }
    public var minY: Double { origin.y }
    public var maxX: Double { origin.x + size.width }
    public var maxY: Double { origin.y + size.height }
    public var width: Double { size.width }
    public var height: Double { size.height }
    public var isEmpty: Bool { size.width <= 0 || size.height <= 0 }
    public var isInfinite: Bool { self == .infinite }

    /// The overlap of two rectangles (empty `.zero` when they do not meet).
    public func intersection(_ other: Rect) -> Rect {
        if isInfinite { return other }
        if other.isInfinite { return self }
        let x0 = max(minX, other.minX), y0 = max(minY, other.minY)
        let x1 = min(maxX, other.maxX), y1 = min(maxY, other.maxY)
        return x1 <= x0 || y1 <= y0 ? .zero : Rect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    /// The bounding box of the rectangle's four corners moved by `transform`.
    public func applying(_ t: Transform2D) -> Rect {
        if isInfinite { return self }
        let corners = [Point(x: minX, y: minY), Point(x: maxX, y: minY), Point(x: minX, y: maxY), Point(x: maxX, y: maxY)]
            .map { $0.applying(t) }
        let xs = corners.map(\.x), ys = corners.map(\.y)
        return Rect(x: xs.min()!, y: ys.min()!, width: xs.max()! - xs.min()!, height: ys.max()! - ys.min()!)
    }
}

/// A 2D affine transform (CGAffineTransform): `x' = a x + c y + tx`, `y' = b x + d y + ty`.
///
/// Not named `AffineTransform`: Foundation has a type of that name, and code importing
/// both Foundation and Reel would have to qualify every use.
public struct Transform2D: Sendable, Hashable, Codable {
    public var a: Double, b: Double, c: Double, d: Double, tx: Double, ty: Double

    public init(a: Double, b: Double, c: Double, d: Double, tx: Double, ty: Double) {
        self.a = a; self.b = b; self.c = c; self.d = d; self.tx = tx; self.ty = ty
    }

    public static let identity = Transform2D(a: 1, b: 0, c: 0, d: 1, tx: 0, ty: 0)

    public init(translationX tx: Double, y ty: Double) { self.init(a: 1, b: 0, c: 0, d: 1, tx: tx, ty: ty) }
    public init(scaleX sx: Double, y sy: Double) { self.init(a: sx, b: 0, c: 0, d: sy, tx: 0, ty: 0) }
    /// A rotation by `angle` radians.
    public init(rotationAngle angle: Double) {
        let (s, c) = (Foundation.sin(angle), Foundation.cos(angle))
        self.init(a: c, b: s, c: -s, d: c, tx: 0, ty: 0)
    }

    public var isIdentity: Bool { self == .identity }

    /// `self` then `other` (CGAffineTransformConcat(self, other)).
    public func concatenating(_ t2: Transform2D) -> Transform2D {
        Transform2D(
            a: a * t2.a + b * t2.c, b: a * t2.b + b * t2.d,
            c: c * t2.a + d * t2.c, d: c * t2.b + d * t2.d,
            tx: tx * t2.a + ty * t2.c + t2.tx, ty: tx * t2.b + ty * t2.d + t2.ty)
    }

    public func translatedBy(x: Double, y: Double) -> Transform2D { Transform2D(translationX: x, y: y).concatenating(self) }
    public func scaledBy(x: Double, y: Double) -> Transform2D { Transform2D(scaleX: x, y: y).concatenating(self) }
    public func rotated(by angle: Double) -> Transform2D { Transform2D(rotationAngle: angle).concatenating(self) }

    public var determinant: Double { a * d - b * c }

    /// The inverse, or nil when the transform is singular.
    public func inverted() -> Transform2D? {
        let det = determinant
        guard det != 0, det.isFinite else { return nil }
        return Transform2D(
            a: d / det, b: -b / det, c: -c / det, d: a / det,
            tx: (c * ty - d * tx) / det, ty: (b * tx - a * ty) / det)
    }

    /// Linear interpolation of each component, `t` in 0...1 (what a transform ramp does).
    public static func interpolate(_ from: Transform2D, _ to: Transform2D, _ t: Double) -> Transform2D {
        func mix(_ x: Double, _ y: Double) -> Double { x + (y - x) * t }
        return Transform2D(
            a: mix(from.a, to.a), b: mix(from.b, to.b), c: mix(from.c, to.c),
            d: mix(from.d, to.d), tx: mix(from.tx, to.tx), ty: mix(from.ty, to.ty))
    }
}

/// An RGBA colour, components 0...1, straight alpha (CGColor in device RGB).
public struct Color: Sendable, Hashable, Codable {
    public var red: Double, green: Double, blue: Double, alpha: Double
    public init(red: Double, green: Double, blue: Double, alpha: Double = 1) {
        self.red = red; self.green = green; self.blue = blue; self.alpha = alpha
    }
    public static let black = Color(red: 0, green: 0, blue: 0)
    public static let white = Color(red: 1, green: 1, blue: 1)
    public static let clear = Color(red: 0, green: 0, blue: 0, alpha: 0)
}
