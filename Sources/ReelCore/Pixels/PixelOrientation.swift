/// One of the eight ways to lay a picture on a pixel grid without resampling: a turn by a
/// multiple of 90°, mirrored or not (the eight EXIF orientations). It is what a display
/// matrix such as a phone's does to a frame, applied exactly by moving whole pixels
/// (``PixelBuffer/oriented(_:)``).
///
/// Shown position of a stored pixel (x, y): `(a x + c y, b x + d y)`, moved into view;
/// each of `a`, `b`, `c`, `d` is -1, 0 or 1, as in ``Transform2D`` (y grows downwards).
public struct PixelOrientation: Sendable, Hashable, CustomStringConvertible {
    public let a: Int, b: Int, c: Int, d: Int

    public static let identity = PixelOrientation(checkedA: 1, b: 0, c: 0, d: 1)

    private init(checkedA a: Int, b: Int, c: Int, d: Int) {
        self.a = a; self.b = b; self.c = c; self.d = d
    }

    /// The turn and mirroring of `transform`, whatever its scale and translation; nil when
    /// it turns by an angle that is not a multiple of 90°, or flattens the picture.
    public init?(_ transform: Transform2D) {
        let m = [transform.a, transform.b, transform.c, transform.d]
        guard m.allSatisfy(\.isFinite) else { return nil }
        let largest = m.map(abs).max() ?? 0
        guard largest > 0 else { return nil }
        // Entries below this share of the largest are rounding (16.16 fixed point).
        let tiny = largest * 1e-6
        func sign(_ v: Double) -> Int { abs(v) <= tiny ? 0 : (v < 0 ? -1 : 1) }
        let (a, b, c, d) = (sign(transform.a), sign(transform.b), sign(transform.c), sign(transform.d))
        let straight = a != 0 && d != 0 && b == 0 && c == 0
        let quarter = a == 0 && d == 0 && b != 0 && c != 0
        guard straight || quarter else { return nil }
        self.init(checkedA: a, b: b, c: c, d: d)
    }

    public var isIdentity: Bool { self == .identity }

    /// Whether the shown picture is the stored one turned a quarter (width and height swap).
    public var swapsWidthAndHeight: Bool { a == 0 }

    /// Whether the picture is shown mirrored.
    public var isMirrored: Bool { a * d - b * c < 0 }

    /// The shown size of a `width` x `height` picture.
    public func size(width: Int, height: Int) -> (width: Int, height: Int) {
        swapsWidthAndHeight ? (height, width) : (width, height)
    }

    public var description: String {
        let turn: Int
        // The angle of the x axis, clockwise on a y-down picture; mirroring is a flip of x
        // before the turn.
        let (ax, bx) = isMirrored ? (-a, -b) : (a, b)
        switch (ax, bx) {
        case (0, 1): turn = 90
        case (-1, 0): turn = 180
        case (0, -1): turn = 270
        default: turn = 0
        }
        return isMirrored ? "mirrored, turned \(turn)° clockwise" : "turned \(turn)° clockwise"
    }

    /// Where stored pixel (0, 0) lands: the shift that brings the shown picture of a
    /// `width` x `height` grid to start at (0, 0).
    func offset(width: Int, height: Int) -> (x: Int, y: Int) {
        let (w, h) = (width - 1, height - 1)
        return ((a < 0 ? w : 0) + (c < 0 ? h : 0), (b < 0 ? w : 0) + (d < 0 ? h : 0))
    }
}

extension PixelBuffer {
    /// The picture as `orientation` shows it, in a new buffer of the same format (the
    /// buffer itself for the identity). Exact: every pixel is moved, none is resampled;
    /// subsampled chroma planes move with their luma.
    public func oriented(_ orientation: PixelOrientation) -> PixelBuffer {
        guard !orientation.isIdentity else { return self }
        let size = orientation.size(width: width, height: height)
        let out = PixelBuffer(width: size.width, height: size.height, format: format)
        for p in 0..<planeCount {
            switch format.bytesPerPixel(plane: p) {
            case 1: move(UInt8.self, plane: p, to: out, orientation)
            case 2: move(UInt16.self, plane: p, to: out, orientation)
            default: move(UInt32.self, plane: p, to: out, orientation)
            }
        }
        out.colorProperties = colorProperties
        return out
    }

    /// Moves each pixel of `plane` (of `T`'s size) to where `o` shows it in `out`.
    private func move<T: FixedWidthInteger>(_: T.Type, plane p: Int, to out: PixelBuffer, _ o: PixelOrientation) {
        let (w, h) = planeSize(p)
        let size = MemoryLayout<T>.size
        let ss = bytesPerRow[p], ds = out.bytesPerRow[p]
        let (ox, oy) = o.offset(width: w, height: h)
        // Byte steps in the output for one step right, and one step down, in the source.
        let stepX = o.a * size + o.b * ds, stepY = o.c * size + o.d * ds
        withUnsafeBytes(plane: p) { s in
            out.withUnsafeMutableBytes(plane: p) { d in
                guard let sb = s.baseAddress, let db = d.baseAddress else { return }
                for y in 0..<h {
                    let row = sb + y * ss
                    var at = ox * size + oy * ds + y * stepY
                    for x in 0..<w {
                        db.storeBytes(of: row.loadUnaligned(fromByteOffset: x * size, as: T.self), toByteOffset: at, as: T.self)
                        at += stepX
                    }
                }
            }
        }
    }
}
