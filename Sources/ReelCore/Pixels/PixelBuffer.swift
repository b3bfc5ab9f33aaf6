import Synchronization

/// A frame's pixels in memory: one to three planes of a ``PixelFormat``, each row aligned
/// to 64 bytes (what libswscale's SIMD paths want).
///
/// A reference type, like `CVPixelBuffer`: passing one around does not copy pixels. The
/// producer writes it, then hands it on; from then on it is read, not written (the
/// engine never writes a buffer it has given to a compositor). Buffers made by a
/// ``PixelBufferPool`` give their memory back to the pool when the last reference goes;
/// a buffer can also show memory another owner keeps, such as a decoder's frame
/// (``init(width:height:format:planes:bytesPerRow:keepingAlive:)``).
public final class PixelBuffer: @unchecked Sendable {
    // @unchecked: the pixel memory and `colorProperties` are written only by the one owner
    // that made the buffer, before it publishes it; every other access is a read. The
    // other stored properties are immutable.
    public let width: Int
    public let height: Int
    public let format: PixelFormat
    /// Bytes from the start of one row to the start of the next, per plane.
    public let bytesPerRow: [Int]
    /// Colour properties carried through from the source, if known. Like the pixels, only
    /// the buffer's producer sets them, before handing the buffer on.
    public var colorProperties: ColorProperties

    /// The first byte of each plane.
    private let planeBases: [UnsafeMutableRawPointer]
    /// What keeps the memory alive: a ``PixelStorage`` of the buffer's own, or another
    /// owner's object.
    private let owner: AnyObject
    /// The pool the memory goes back to when the buffer goes; nil once that pool is gone
    /// (the memory is freed then).
    package private(set) weak var pool: PixelBufferPool?

    /// Whether the pixel memory is the buffer's own (a ``PixelStorage``, pooled or not),
    /// rather than memory another owner keeps, such as a decoder's picture.
    package var ownsItsMemory: Bool { owner is PixelStorage }

    /// A buffer of its own memory (not pooled), filled with zeros.
    public convenience init(width: Int, height: Int, format: PixelFormat) {
        let layout = PixelLayout(width: width, height: height, format: format)
        self.init(layout: layout, storage: PixelStorage(byteCount: layout.byteCount), pool: nil)
    }

    init(layout: PixelLayout, storage: PixelStorage, pool: PixelBufferPool?) {
        precondition(layout.width > 0 && layout.height > 0, "a pixel buffer needs a positive size")
        self.width = layout.width
        self.height = layout.height
        self.format = layout.format
        self.bytesPerRow = layout.bytesPerRow
        self.planeBases = layout.planeOffsets.map { storage.base + $0 }
        self.owner = storage
        self.pool = pool
        self.colorProperties = ColorProperties()
    }

    /// A buffer showing pixel memory that `owner` keeps (a decoder's frame), without
    /// copying it: `planes` are the first bytes of the format's planes and `bytesPerRow`
    /// their strides. Nil unless every plane and stride is 64-byte aligned, as this type's
    /// own buffers are (copy into a pooled buffer then).
    ///
    /// The buffer keeps `owner` alive, and the memory must not change while it does: only
    /// read from then on.
    public init?(
        width: Int, height: Int, format: PixelFormat, planes: [UnsafeMutableRawPointer], bytesPerRow: [Int],
        keepingAlive owner: AnyObject
    ) {
        let alignment = PixelLayout.rowAlignment
        guard width > 0, height > 0, planes.count == format.planeCount, bytesPerRow.count == format.planeCount else { return nil }
        for p in 0..<format.planeCount {
            let (w, _) = format.planeSize(plane: p, width: width, height: height)
            let stride = bytesPerRow[p]
            guard stride % alignment == 0, stride >= w * format.bytesPerPixel(plane: p),
                Int(bitPattern: planes[p]) % alignment == 0
            else { return nil }
        }
        self.width = width
        self.height = height
        self.format = format
        self.bytesPerRow = bytesPerRow
        self.planeBases = planes
        self.owner = owner
        self.pool = nil
        self.colorProperties = ColorProperties()
    }

    deinit {
        if let pool, let storage = owner as? PixelStorage { pool.recycle(storage) }
    }

    public var planeCount: Int { format.planeCount }

    /// The width and height of `plane` in pixels.
    public func planeSize(_ plane: Int) -> (width: Int, height: Int) {
        format.planeSize(plane: plane, width: width, height: height)
    }

    /// Lends the bytes of `plane` (`bytesPerRow[plane] * planeHeight` of them) for reading.
    public func withUnsafeBytes<R, E: Error>(plane: Int, _ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        let count = bytesPerRow[plane] * planeSize(plane).height
        return try body(UnsafeRawBufferPointer(start: planeBases[plane], count: count))
    }

    /// Lends the bytes of `plane` for writing. Only the buffer's producer may call this.
    public func withUnsafeMutableBytes<R, E: Error>(plane: Int, _ body: (UnsafeMutableRawBufferPointer) throws(E) -> R) throws(E) -> R {
        let count = bytesPerRow[plane] * planeSize(plane).height
        return try body(UnsafeMutableRawBufferPointer(start: planeBases[plane], count: count))
    }

    /// The base address of each plane, for code that hands all planes to a C function at
    /// once (libswscale). The pointers are valid only inside `body`.
    public func withUnsafePlanePointers<R, E: Error>(_ body: ([UnsafeMutableRawPointer]) throws(E) -> R) throws(E) -> R {
        return try withExtendedLifetime(self) { () throws(E) -> R in try body(planeBases) }
    }

    /// Copies the visible pixels of every plane, and the colour properties, into
    /// `destination`, which must have the same size and format. Padding is not copied,
    /// except when both buffers have the same row stride, where one block copy is cheapest.
    public func copyPixels(into destination: PixelBuffer) {
        precondition(
            width == destination.width && height == destination.height && format == destination.format,
            "copyPixels needs buffers of the same size and format")
        for p in 0..<planeCount {
            let (w, h) = planeSize(p)
            let rowBytes = w * format.bytesPerPixel(plane: p)
            let ss = bytesPerRow[p], ds = destination.bytesPerRow[p]
            withUnsafeBytes(plane: p) { s in
                destination.withUnsafeMutableBytes(plane: p) { d in
                    guard let sb = s.baseAddress, let db = d.baseAddress else { return }
                    if ss == ds {
                        db.copyMemory(from: sb, byteCount: ss * (h - 1) + rowBytes)
                    } else {
                        for y in 0..<h { (db + y * ds).copyMemory(from: sb + y * ss, byteCount: rowBytes) }
                    }
                }
            }
        }
        destination.colorProperties = colorProperties
    }

    /// The visible pixels of each plane, row by row without padding: what two buffers are
    /// compared by.
    public func packedBytes() -> [UInt8] {
        var out: [UInt8] = []
        for p in 0..<planeCount {
            let (w, h) = planeSize(p)
            let rowBytes = w * format.bytesPerPixel(plane: p)
            withUnsafeBytes(plane: p) { raw in
                for y in 0..<h {
                    out.append(contentsOf: raw[(y * bytesPerRow[p])..<(y * bytesPerRow[p] + rowBytes)])
                }
            }
        }
        return out
    }

    /// Whether both buffers have the same size, format and visible pixels (padding ignored).
    public func hasSamePixels(as other: PixelBuffer) -> Bool {
        width == other.width && height == other.height && format == other.format && packedBytes() == other.packedBytes()
    }
}

/// Where each plane of a frame of some size and format lies in one allocation.
struct PixelLayout: Hashable {
    let width: Int
    let height: Int
    let format: PixelFormat
    let bytesPerRow: [Int]
    let planeOffsets: [Int]
    let byteCount: Int

    static let rowAlignment = 64

    init(width: Int, height: Int, format: PixelFormat) {
        self.width = width
        self.height = height
        self.format = format
        var strides: [Int] = []
        var offsets: [Int] = []
        var offset = 0
        for p in 0..<format.planeCount {
            let (w, h) = format.planeSize(plane: p, width: width, height: height)
            let raw = w * format.bytesPerPixel(plane: p)
            let stride = (raw + Self.rowAlignment - 1) / Self.rowAlignment * Self.rowAlignment
            strides.append(stride)
            offsets.append(offset)
            offset += stride * h
        }
        self.bytesPerRow = strides
        self.planeOffsets = offsets
        // Slack at the end: SIMD readers may read a little past the last row.
        self.byteCount = offset + Self.rowAlignment
    }
}

/// One 64-byte aligned allocation, freed when the last owner lets go.
final class PixelStorage: @unchecked Sendable {
    // @unchecked: `base` is set once; the memory behind it is governed by PixelBuffer's rules.
    let base: UnsafeMutableRawPointer
    let byteCount: Int

    init(byteCount: Int) {
        self.byteCount = byteCount
        self.base = UnsafeMutableRawPointer.allocate(byteCount: byteCount, alignment: PixelLayout.rowAlignment)
        base.initializeMemory(as: UInt8.self, repeating: 0, count: byteCount)
    }

    deinit { base.deallocate() }
}

/// Recycles the memory of buffers of one size and format (`CVPixelBufferPool`): in the
/// steady state a render allocates no frames.
public final class PixelBufferPool: Sendable {
    public let width: Int
    public let height: Int
    public let format: PixelFormat
    /// How many idle allocations the pool keeps; more are freed.
    public let maximumIdleCount: Int
    private let layout: PixelLayout
    private let idle = Lock<[PixelStorage]>([])
    private let allocations = Atomic<Int>(0)

    public init(width: Int, height: Int, format: PixelFormat, maximumIdleCount: Int = 16) {
        self.width = width
        self.height = height
        self.format = format
        self.maximumIdleCount = maximumIdleCount
        self.layout = PixelLayout(width: width, height: height, format: format)
    }

    /// A buffer from the pool. Its pixels are whatever the last user left: write them all.
    public func makeBuffer() -> PixelBuffer {
        let storage =
            idle.withLock { $0.popLast() }
            ?? {
                allocations.add(1, ordering: .relaxed)
                return PixelStorage(byteCount: layout.byteCount)
            }()
        return PixelBuffer(layout: layout, storage: storage, pool: self)
    }

    /// How many allocations the pool has made since it was created (a steady render stops
    /// making new ones).
    public var allocationCount: Int { allocations.load(ordering: .relaxed) }

    func recycle(_ storage: PixelStorage) {
        idle.withLock { list in
            if list.count < maximumIdleCount { list.append(storage) }
        }
    }
}
