import ReelCore
import Testing

/// Sizes that hit the alignment edges: odd, one under/over 64 bytes, HD.
let pixelSizes: [(Int, Int)] = [
    (1, 1), (2, 2), (3, 3), (15, 7), (16, 16), (17, 9), (63, 1), (64, 64), (65, 33),
    (1920, 1080), (1921, 1081),
]

@Suite("PixelBuffer")
struct PixelBufferTests {
    @Test(arguments: PixelFormat.allCases)
    func layoutIsAlignedAndDisjoint(format: PixelFormat) {
        for (width, height) in pixelSizes {
            let buffer = PixelBuffer(width: width, height: height, format: format)
            #expect(buffer.width == width && buffer.height == height && buffer.format == format)
            #expect(buffer.planeCount == format.planeCount)
            #expect(buffer.bytesPerRow.count == format.planeCount)
            buffer.withUnsafePlanePointers { planes in
                #expect(planes.count == format.planeCount)
                for p in 0..<format.planeCount {
                    let (w, h) = buffer.planeSize(p)
                    let rowBytes = w * format.bytesPerPixel(plane: p)
                    let stride = buffer.bytesPerRow[p]
                    #expect(stride % 64 == 0, "\(format) \(width)x\(height) plane \(p): stride \(stride)")
                    #expect(stride >= rowBytes && stride < rowBytes + 64)
                    #expect(Int(bitPattern: planes[p]) % 64 == 0, "plane \(p) is not 64-byte aligned")
                    if p + 1 < planes.count {
                        // The next plane starts after this one's last row.
                        #expect(planes[p + 1] - planes[p] >= stride * h)
                    }
                    buffer.withUnsafeBytes(plane: p) { bytes in
                        #expect(bytes.count == stride * h)
                        #expect(bytes.baseAddress == UnsafeRawPointer(planes[p]))
                    }
                }
            }
        }
    }

    @Test(arguments: PixelFormat.allCases)
    func newBuffersAreZeroed(format: PixelFormat) {
        let buffer = PixelBuffer(width: 33, height: 17, format: format)
        for p in 0..<buffer.planeCount {
            buffer.withUnsafeBytes(plane: p) { bytes in #expect(bytes.allSatisfy { $0 == 0 }) }
        }
    }

    @Test func planeSizesOfSubsampledFormats() {
        let buffer = PixelBuffer(width: 5, height: 3, format: .yuv420p)
        #expect(buffer.planeSize(0) == (5, 3))
        #expect(buffer.planeSize(1) == (3, 2))
        #expect(buffer.planeSize(2) == (3, 2))
        let nv12 = PixelBuffer(width: 4, height: 4, format: .nv12)
        #expect(nv12.planeSize(1) == (2, 2))
        #expect(nv12.bytesPerRow[1] == 64)
    }

    /// Fills every byte of every plane, padding included, from `value(plane, offset)`.
    func fill(_ buffer: PixelBuffer, _ value: (Int, Int) -> UInt8) {
        for p in 0..<buffer.planeCount {
            buffer.withUnsafeMutableBytes(plane: p) { bytes in
                for i in bytes.indices { bytes[i] = value(p, i) }
            }
        }
    }

    @Test(arguments: PixelFormat.allCases)
    func packedBytesSkipPadding(format: PixelFormat) {
        let (width, height) = (7, 5)
        let buffer = PixelBuffer(width: width, height: height, format: format)
        fill(buffer) { p, i in
            let stride = buffer.bytesPerRow[p]
            let rowBytes = buffer.planeSize(p).width * format.bytesPerPixel(plane: p)
            return i % stride < rowBytes ? UInt8(truncatingIfNeeded: 1 + p * 50 + i / stride * 7 + i % stride) : 0xEE
        }
        let packed = buffer.packedBytes()
        var expected: [UInt8] = []
        for p in 0..<format.planeCount {
            let (w, h) = buffer.planeSize(p)
            let rowBytes = w * format.bytesPerPixel(plane: p)
            for y in 0..<h { for x in 0..<rowBytes { expected.append(UInt8(truncatingIfNeeded: 1 + p * 50 + y * 7 + x)) } }
        }
        #expect(packed == expected)
        #expect(!packed.contains(0xEE))
    }

    @Test("copyPixels copies every visible pixel and the colour properties", arguments: PixelFormat.allCases)
    func copyPixels(format: PixelFormat) {
        let source = PixelBuffer(width: 33, height: 9, format: format)
        for p in 0..<source.planeCount {
            source.withUnsafeMutableBytes(plane: p) { bytes in
                for i in bytes.indices { bytes[i] = UInt8(truncatingIfNeeded: i &* 31 &+ p &* 7 &+ 1) }
            }
        }
        source.colorProperties = ColorProperties(matrix: "bt709", fullRange: true)
        let destination = PixelBuffer(width: 33, height: 9, format: format)
        #expect(!destination.hasSamePixels(as: source))
        source.copyPixels(into: destination)
        #expect(destination.hasSamePixels(as: source))
        #expect(destination.colorProperties == source.colorProperties)
    }

    @Test func samePixelsIgnoresPaddingOnly() {
        let a = PixelBuffer(width: 3, height: 2, format: .rgba)
        let b = PixelBuffer(width: 3, height: 2, format: .rgba)
        // Garbage in b's padding only.
        b.withUnsafeMutableBytes(plane: 0) { bytes in
            for y in 0..<2 { for x in 12..<64 { bytes[y * 64 + x] = 0xAB } }
        }
        #expect(a.hasSamePixels(as: b))
        b.withUnsafeMutableBytes(plane: 0) { bytes in bytes[5] = 1 }
        #expect(!a.hasSamePixels(as: b))
        #expect(!a.hasSamePixels(as: PixelBuffer(width: 3, height: 2, format: .bgra)))
        #expect(!a.hasSamePixels(as: PixelBuffer(width: 2, height: 3, format: .rgba)))
    }

    @Test("a buffer over another owner's memory shows it in place and keeps the owner alive")
    func bufferOverAnotherOwnersMemory() throws {
        final class Owner {
            let memory = UnsafeMutableRawPointer.allocate(byteCount: 4096, alignment: 64)
            deinit { memory.deallocate() }
        }
        weak var watched: Owner?
        var buffer: PixelBuffer?
        do {
            let owner = Owner()
            watched = owner
            let y = owner.memory, u = owner.memory + 2048, v = owner.memory + 3072
            for i in 0..<4096 { owner.memory.storeBytes(of: UInt8(i % 251), toByteOffset: i, as: UInt8.self) }
            buffer = try #require(
                PixelBuffer(width: 48, height: 16, format: .yuv420p, planes: [y, u, v], bytesPerRow: [64, 64, 64], keepingAlive: owner))
            #expect(buffer?.withUnsafeBytes(plane: 1) { $0.baseAddress } == UnsafeRawPointer(u))
            #expect(buffer?.withUnsafeBytes(plane: 2) { $0[64 * 7 + 23] } == UInt8((3072 + 64 * 7 + 23) % 251))
        }
        #expect(watched != nil, "the buffer keeps its owner")
        buffer = nil
        #expect(watched == nil, "and lets it go with the last reference")
    }

    @Test("a buffer over another owner's memory needs 64-byte aligned planes and strides at least a row long")
    func bufferOverAnotherOwnersMemoryIsAligned() {
        let memory = UnsafeMutableRawPointer.allocate(byteCount: 8192, alignment: 64)
        defer { memory.deallocate() }
        final class Owner {}
        let owner = Owner()
        func make(_ planes: [UnsafeMutableRawPointer], _ strides: [Int], width: Int = 48) -> PixelBuffer? {
            PixelBuffer(width: width, height: 16, format: .yuv420p, planes: planes, bytesPerRow: strides, keepingAlive: owner)
        }
        #expect(make([memory, memory + 2048, memory + 3072], [64, 64, 64]) != nil)
        #expect(make([memory + 16, memory + 2048, memory + 3072], [64, 64, 64]) == nil)
        #expect(make([memory, memory + 2048, memory + 3072], [96, 64, 64]) == nil)
        #expect(make([memory, memory + 2048, memory + 3072], [64, 64, 64], width: 80) == nil)
        #expect(make([memory, memory + 2048], [64, 64]) == nil)
    }

    @Test func colorPropertiesDefaultToLimitedRangeAndUnknown() {
        let buffer = PixelBuffer(width: 2, height: 2, format: .nv12)
        #expect(buffer.colorProperties == ColorProperties())
        #expect(!buffer.colorProperties.fullRange && buffer.colorProperties.matrix == nil)
    }
}

@Suite("PixelBufferPool")
struct PixelBufferPoolTests {
    @Test func buffersHaveThePoolsShape() {
        let pool = PixelBufferPool(width: 65, height: 33, format: .yuv420p)
        let buffer = pool.makeBuffer()
        #expect(buffer.width == 65 && buffer.height == 33 && buffer.format == .yuv420p)
        #expect(buffer.bytesPerRow == PixelBuffer(width: 65, height: 33, format: .yuv420p).bytesPerRow)
        #expect(pool.allocationCount == 1)
    }

    @Test func releasedMemoryIsReused() {
        let pool = PixelBufferPool(width: 16, height: 16, format: .bgra)
        var address: UnsafeMutableRawPointer?
        do {
            let first = pool.makeBuffer()
            address = first.withUnsafePlanePointers { $0[0] }
        }
        let second = pool.makeBuffer()
        #expect(second.withUnsafePlanePointers { $0[0] } == address)
        #expect(pool.allocationCount == 1)
    }

    @Test func allocationCountStopsGrowingInASteadyState() {
        let pool = PixelBufferPool(width: 64, height: 36, format: .nv12)
        var inFlight: [PixelBuffer] = []
        var counts: [Int] = []
        for frame in 0..<200 {
            inFlight.append(pool.makeBuffer())
            if inFlight.count > 3 { inFlight.removeFirst() }  // a pipeline three frames deep
            if frame % 50 == 49 { counts.append(pool.allocationCount) }
        }
        #expect(counts == [4, 4, 4, 4])
    }

    @Test func idleBuffersBeyondTheLimitAreFreed() {
        let pool = PixelBufferPool(width: 8, height: 8, format: .gray8, maximumIdleCount: 2)
        var held = (0..<5).map { _ in pool.makeBuffer() }
        #expect(pool.allocationCount == 5)
        held.removeAll()  // two go back to the pool, three are freed
        held = (0..<5).map { _ in pool.makeBuffer() }
        #expect(pool.allocationCount == 8)
        #expect(held.count == 5)
    }

    @Test func reusedBuffersStartWithFreshColorProperties() {
        let pool = PixelBufferPool(width: 8, height: 8, format: .nv12)
        do {
            let b = pool.makeBuffer()
            b.colorProperties = ColorProperties(matrix: "bt601", fullRange: true)
        }
        #expect(pool.makeBuffer().colorProperties == ColorProperties())
        #expect(pool.allocationCount == 1)
    }

    @Test func buffersMayOutliveTheirPool() {
        var pool: PixelBufferPool? = PixelBufferPool(width: 8, height: 8, format: .rgba)
        let buffer = pool?.makeBuffer()
        pool = nil
        buffer?.withUnsafeMutableBytes(plane: 0) { $0[0] = 42 }
        #expect(buffer?.packedBytes().first == 42)
    }

    @Test func concurrentUseAllocatesAtMostOnePerTask() async {
        let pool = PixelBufferPool(width: 32, height: 32, format: .bgra)
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<4 {
                group.addTask {
                    for i in 0..<200 {
                        let b = pool.makeBuffer()
                        b.withUnsafeMutableBytes(plane: 0) { $0[0] = UInt8(truncatingIfNeeded: task * 200 + i) }
                    }
                }
            }
        }
        #expect(pool.allocationCount >= 1 && pool.allocationCount <= 4)
    }
}
