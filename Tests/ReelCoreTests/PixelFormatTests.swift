import Foundation
import ReelCore
import Testing

@Suite("PixelFormat")
struct PixelFormatTests {
    @Test func planesAndBytes() {
        #expect(PixelFormat.bgra.planeCount == 1 && PixelFormat.bgra.bytesPerPixel(plane: 0) == 4)
        #expect(PixelFormat.rgba.planeCount == 1 && PixelFormat.rgba.bytesPerPixel(plane: 0) == 4)
        #expect(PixelFormat.gray8.planeCount == 1 && PixelFormat.gray8.bytesPerPixel(plane: 0) == 1)
        #expect(PixelFormat.nv12.planeCount == 2)
        #expect(PixelFormat.nv12.bytesPerPixel(plane: 0) == 1 && PixelFormat.nv12.bytesPerPixel(plane: 1) == 2)
        #expect(PixelFormat.yuv420p.planeCount == 3)
        #expect((0..<3).allSatisfy { PixelFormat.yuv420p.bytesPerPixel(plane: $0) == 1 })
    }

    @Test(arguments: [(1, 1, 1, 1), (2, 2, 1, 1), (3, 5, 2, 3), (1920, 1080, 960, 540), (1921, 1081, 961, 541)])
    func chromaPlanesRoundUp(width: Int, height: Int, chromaWidth: Int, chromaHeight: Int) {
        for format in [PixelFormat.yuv420p, .nv12] {
            let luma = format.planeSize(plane: 0, width: width, height: height)
            let chroma = format.planeSize(plane: 1, width: width, height: height)
            #expect(luma.width == width && luma.height == height)
            #expect(chroma.width == chromaWidth && chroma.height == chromaHeight)
        }
    }

    @Test func kinds() {
        #expect(PixelFormat.allCases.filter(\.hasAlpha) == [.bgra, .rgba])
        #expect(Set(PixelFormat.allCases.filter(\.isYUV)) == [.yuv420p, .nv12, .gray8])
    }

    @Test func codableUsesFFmpegNames() throws {
        let data = try JSONEncoder().encode(PixelFormat.allCases)
        #expect(String(decoding: data, as: UTF8.self) == #"["bgra","rgba","yuv420p","nv12","gray8"]"#)
        #expect(try JSONDecoder().decode([PixelFormat].self, from: data) == PixelFormat.allCases)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([PixelFormat].self, from: Data(#"["argb"]"#.utf8)) }
    }
}
