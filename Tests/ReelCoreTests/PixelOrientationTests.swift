import Foundation
import ReelCore
import Testing

@Suite("PixelOrientation")
struct PixelOrientationTests {
    /// The eight turns and mirrorings, as display matrices with a translation (as files hold them).
    static let matrices: [Transform2D] = [0.0, 90, 180, 270].flatMap { degrees -> [Transform2D] in
        let turn = Transform2D(rotationAngle: degrees * .pi / 180)
        return [turn.translatedBy(x: 7, y: -3), Transform2D(scaleX: -1, y: 1).concatenating(turn)]
    }

    /// A `width` x `height` buffer whose every byte is different (modulo 256).
    static func numbered(width: Int, height: Int, format: PixelFormat) -> PixelBuffer {
        let buffer = PixelBuffer(width: width, height: height, format: format)
        var n: UInt8 = 1
        for p in 0..<buffer.planeCount {
            let (w, h) = buffer.planeSize(p)
            let rowBytes = w * format.bytesPerPixel(plane: p)
            buffer.withUnsafeMutableBytes(plane: p) { raw in
                for y in 0..<h {
                    for i in 0..<rowBytes { raw[y * buffer.bytesPerRow[p] + i] = n; n &+= 1 }
                }
            }
        }
        return buffer
    }

    /// The pixel of `plane` at (x, y), as bytes.
    static func pixel(_ buffer: PixelBuffer, plane p: Int, _ x: Int, _ y: Int) -> [UInt8] {
        let size = buffer.format.bytesPerPixel(plane: p)
        return buffer.withUnsafeBytes(plane: p) { Array($0[(y * buffer.bytesPerRow[p] + x * size)..<(y * buffer.bytesPerRow[p] + (x + 1) * size)]) }
    }

    /// Geometry, not index arithmetic: each pixel's centre goes through the transform, and
    /// the shown picture's bounding box is moved to the origin.
    @Test(arguments: matrices)
    func everyPixelLandsWhereTheTransformPutsItsCentre(transform: Transform2D) throws {
        let orientation = try #require(PixelOrientation(transform))
        for format in PixelFormat.allCases {
            for (width, height) in [(5, 3), (4, 6), (1, 1), (66, 9)] {
                let source = Self.numbered(width: width, height: height, format: format)
                let shown = source.oriented(orientation)
                let size = orientation.size(width: width, height: height)
                #expect(shown.width == size.width && shown.height == size.height)
                for p in 0..<source.planeCount {
                    let (w, h) = source.planeSize(p)
                    let bounds = Rect(x: 0, y: 0, width: Double(w), height: Double(h)).applying(transform)
                    for y in 0..<h {
                        for x in 0..<w {
                            let centre = Point(x: Double(x) + 0.5, y: Double(y) + 0.5).applying(transform)
                            let (X, Y) = (Int((centre.x - bounds.minX).rounded(.down)), Int((centre.y - bounds.minY).rounded(.down)))
                            #expect(
                                Self.pixel(shown, plane: p, X, Y) == Self.pixel(source, plane: p, x, y),
                                "\(orientation), \(format) \(width)x\(height) plane \(p): (\(x), \(y)) should be at (\(X), \(Y))")
                        }
                    }
                }
            }
        }
    }

    @Test func aPhonesMatrixTurnsClockwiseAndTheTopLeftGoesTopRight() throws {
        // iPhone, held upright: tkhd (0, 1, -1, 0, height, 0).
        let phone = try #require(PixelOrientation(Transform2D(a: 0, b: 1, c: -1, d: 0, tx: 120, ty: 0)))
        #expect(phone.swapsWidthAndHeight && !phone.isMirrored)
        #expect(phone.description == "turned 90° clockwise")
        // 3x2 stored:  1 2 3      shown 2x3:  4 1
        //              4 5 6                  5 2
        //                                     6 3
        let source = PixelBuffer(width: 3, height: 2, format: .gray8)
        source.withUnsafeMutableBytes(plane: 0) { raw in
            for i in 0..<6 { raw[(i / 3) * source.bytesPerRow[0] + i % 3] = UInt8(i + 1) }
        }
        let shown = source.oriented(phone)
        #expect(shown.width == 2 && shown.height == 3)
        #expect(shown.packedBytes() == [4, 1, 5, 2, 6, 3])
    }

    @Test func halfATurnAndAMirror() throws {
        let source = PixelBuffer(width: 3, height: 2, format: .gray8)
        source.withUnsafeMutableBytes(plane: 0) { raw in
            for i in 0..<6 { raw[(i / 3) * source.bytesPerRow[0] + i % 3] = UInt8(i + 1) }
        }
        // 180°: (-1, 0, 0, -1), as a display matrix holds it (with its translation).
        let half = try #require(PixelOrientation(Transform2D(a: -1, b: 0, c: 0, d: -1, tx: 3, ty: 2)))
        #expect(!half.swapsWidthAndHeight && half.description == "turned 180° clockwise")
        #expect(source.oriented(half).packedBytes() == [6, 5, 4, 3, 2, 1])
        // Mirrored left to right.
        let mirror = try #require(PixelOrientation(Transform2D(a: -1, b: 0, c: 0, d: 1, tx: 3, ty: 0)))
        #expect(mirror.isMirrored && mirror.description == "mirrored, turned 0° clockwise")
        #expect(source.oriented(mirror).packedBytes() == [3, 2, 1, 6, 5, 4])
        // Mirrored across the diagonal (a transpose): x and y swap.
        let transpose = try #require(PixelOrientation(Transform2D(a: 0, b: 1, c: 1, d: 0, tx: 0, ty: 0)))
        #expect(transpose.isMirrored)
        #expect(source.oriented(transpose).packedBytes() == [1, 4, 2, 5, 3, 6])
    }

    @Test func theIdentityGivesTheSameBuffer() throws {
        let source = Self.numbered(width: 4, height: 4, format: .bgra)
        let same = try #require(PixelOrientation(.identity))
        #expect(same.isIdentity)
        #expect(source.oriented(same) === source)
        // A scale keeps the orientation: only the signs count.
        #expect(PixelOrientation(Transform2D(scaleX: 2, y: 0.5)) == .identity)
    }

    @Test func otherAnglesAndFlatMatricesHaveNoOrientation() {
        #expect(PixelOrientation(Transform2D(rotationAngle: .pi / 4)) == nil)
        #expect(PixelOrientation(Transform2D(rotationAngle: 0.01)) == nil)
        #expect(PixelOrientation(Transform2D(a: 0, b: 0, c: 0, d: 0, tx: 1, ty: 1)) == nil)
        #expect(PixelOrientation(Transform2D(a: 1, b: 1, c: 1, d: 1, tx: 0, ty: 0)) == nil)
        #expect(PixelOrientation(Transform2D(a: .nan, b: 0, c: 0, d: 1, tx: 0, ty: 0)) == nil)
    }

    @Test func colourPropertiesComeAlong() throws {
        let source = Self.numbered(width: 4, height: 2, format: .yuv420p)
        source.colorProperties.fullRange = true
        source.colorProperties.primaries = "ITU_R_709_2"
        let shown = source.oriented(try #require(PixelOrientation(Transform2D(rotationAngle: .pi / 2))))
        #expect(shown.colorProperties == source.colorProperties)
    }
}
