import ReelComposition
import Testing

@Suite struct StandardVideoCompositorTests {
    static let size = Size(width: 128, height: 72)
    let colourA: [UInt8] = [200, 100, 50, 255]  // B, G, R, A
    let colourB: [UInt8] = [20, 40, 60, 255]

    /// Two video tracks (1: solid A, 2: solid B, both 128x72) over [0, 2), one standard
    /// instruction with the given layers, rendered at 1/2 s frames.
    func render(
        _ layers: [VideoCompositionLayerInstruction], background: Color? = nil, format: PixelFormat = .bgra,
        sourceA: PixelBuffer? = nil
    ) async throws -> [RenderedFrame] {
        var m = MutableComposition()
        let a = m.addMutableTrack(withMediaType: .video), b = m.addMutableTrack(withMediaType: .video)
        try m.insertTimeRange(range(0, 2), of: videoTrack("a", 1, size: Self.size), intoTrackWithID: a, at: .zero)
        try m.insertTimeRange(range(0, 2), of: videoTrack("b", 1, size: Self.size), intoTrackWithID: b, at: .zero)
        let instruction = VideoCompositionInstruction(timeRange: range(0, 2), backgroundColor: background, layerInstructions: layers)
        let v = VideoComposition(frameDuration: t(0.5), renderSize: Self.size, instructions: [instruction])
        let frameA = sourceA ?? solid(colourA[0], colourA[1], colourA[2], width: 128, height: 72)
        let frameB = solid(colourB[0], colourB[1], colourB[2], width: 128, height: 72)
        var sources = RenderSources()
        sources.add(InMemoryVideoFrameSource(count: 4, frameDuration: t(0.5)) { _ in frameA }, for: SourceTrackReference(sourceIdentifier: "a", trackID: 1))
        sources.add(InMemoryVideoFrameSource(count: 4, frameDuration: t(0.5)) { _ in frameB }, for: SourceTrackReference(sourceIdentifier: "b", trackID: 1))
        let engine = RenderEngine(
            composition: Composition(m), videoComposition: v, sources: sources,
            options: .init(preferredPixelFormat: format))
        return try await engine.renderAll()
    }

    func close(_ a: [UInt8], _ b: [UInt8], tolerance: Int = 1) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { abs(Int($0) - Int($1)) <= tolerance }
    }

    @Test func crossfadeMidpointIsTheAverage() async throws {
        var top = VideoCompositionLayerInstruction(trackID: 1)
        top.setOpacityRamp(fromStartOpacity: 1, toEndOpacity: 0, timeRange: range(0, 2))
        let frames = try await render([top, VideoCompositionLayerInstruction(trackID: 2)])
        #expect(frames.count == 4)
        #expect(pixel(frames[0].pixelBuffer, 5, 5) == colourA)
        let mid = pixel(frames[2].pixelBuffer, 64, 36)  // t = 1 s: opacity 0.5
        #expect(close(mid, [110, 70, 55, 255]), "\(mid)")
        let quarter = pixel(frames[1].pixelBuffer, 64, 36)  // t = 0.5 s: opacity 0.75
        #expect(close(quarter, [155, 85, 52, 255]), "\(quarter)")
    }

    @Test func crossfadeInYUV() async throws {
        var top = VideoCompositionLayerInstruction(trackID: 1)
        top.setOpacityRamp(fromStartOpacity: 1, toEndOpacity: 0, timeRange: range(0, 2))
        let frames = try await render([top, VideoCompositionLayerInstruction(trackID: 2)], format: .yuv420p)
        let start = pixel(frames[0].pixelBuffer, 5, 5)[0], end = try await render([VideoCompositionLayerInstruction(trackID: 2)], format: .yuv420p)
        let yB = pixel(end[0].pixelBuffer, 5, 5)[0]
        let mid = pixel(frames[2].pixelBuffer, 64, 36)[0]
        #expect(frames[0].pixelBuffer.format == .yuv420p)
        #expect(abs(Int(mid) - (Int(start) + Int(yB)) / 2) <= 1, "Y \(start) -> \(yB), midpoint \(mid)")
        let u = pixel(frames[2].pixelBuffer, 10, 10, plane: 1)[0], uA = pixel(frames[0].pixelBuffer, 10, 10, plane: 1)[0]
        let uB = pixel(end[0].pixelBuffer, 10, 10, plane: 1)[0]
        #expect(abs(Int(u) - (Int(uA) + Int(uB)) / 2) <= 1)
    }

    @Test(arguments: [PixelFormat.bgra, .yuv420p])
    func pictureInPicturePlacement(format: PixelFormat) async throws {
        // A at a quarter size, its top-left corner at (80, 40): it covers x 80..<112, y 40..<58.
        var pip = VideoCompositionLayerInstruction(trackID: 1)
        pip.setTransform(Transform2D(scaleX: 0.25, y: 0.25).concatenating(Transform2D(translationX: 80, y: 40)), at: .zero)
        let frames = try await render([pip, VideoCompositionLayerInstruction(trackID: 2)], format: format)
        let out = frames[0].pixelBuffer
        let a = pixel(out, 96, 48), b = pixel(out, 10, 10)
        #expect(a != b)
        for (x, y) in [(80, 40), (111, 57), (90, 50)] { #expect(pixel(out, x, y) == a, "inside at \(x),\(y)") }
        for (x, y) in [(79, 50), (112, 50), (90, 39), (90, 58), (0, 71), (127, 0)] { #expect(pixel(out, x, y) == b, "outside at \(x),\(y)") }
        if format == .bgra {
            #expect(a == colourA)
            #expect(b == colourB)
        }
    }

    @Test(arguments: [(0.0, 1.0, false), (2.0, 1.0, true), (1.0, 1.0, true), (-2.0, 1.0, true), (0.0, 0.5, true)])
    func backgroundShowsWhereTheBottomLayerLeavesIt(shift: Double, opacity: Double, backgroundVisible: Bool) async throws {
        // YUV: the fill under an opaque layer covering the frame is skipped; anything else
        // (moved, translucent) must still show the background, never a recycled frame.
        let red = Color(red: 1, green: 0, blue: 0, alpha: 1)
        let empty = try await render([], background: red, format: .yuv420p)
        let plain = try await render([VideoCompositionLayerInstruction(trackID: 2)], background: red, format: .yuv420p)
        var layer = VideoCompositionLayerInstruction(trackID: 2)
        layer.setTransform(Transform2D(translationX: shift, y: 0), at: .zero)
        layer.setOpacity(opacity, at: .zero)
        let frames = try await render([layer], background: red, format: .yuv420p)
        let edge = shift < 0 ? 127 : 0
        for (frame, time) in zip(frames, [0, 1, 2, 3]) {
            let seen = pixel(frame.pixelBuffer, edge, 10), u = pixel(frame.pixelBuffer, edge / 2, 5, plane: 1)
            let layerPixel = pixel(plain[0].pixelBuffer, edge, 10), backgroundPixel = pixel(empty[0].pixelBuffer, edge, 10)
            #expect(layerPixel != backgroundPixel)
            if backgroundVisible && opacity == 1 {
                #expect(seen == backgroundPixel, "frame \(time)")
                if shift.truncatingRemainder(dividingBy: 2) == 0 {
                    // An odd shift moves chroma by half a sample: its edge column is still drawn.
                    #expect(u == pixel(empty[0].pixelBuffer, edge / 2, 5, plane: 1), "frame \(time)")
                }
            } else if backgroundVisible {
                #expect(seen != backgroundPixel && seen != layerPixel, "frame \(time): a blend of both")
            } else {
                #expect(seen == layerPixel, "frame \(time)")
            }
        }
    }

    @Test func aSingleLayerThatIsTheFrameIsReturnedAsItIs() async throws {
        let yuv = PixelBuffer(width: 128, height: 72, format: .yuv420p)
        let same = try await render([VideoCompositionLayerInstruction(trackID: 1)], format: .yuv420p, sourceA: yuv)
        #expect(same.count == 4 && same.allSatisfy { $0.pixelBuffer === yuv })
        var moved = VideoCompositionLayerInstruction(trackID: 1)
        moved.setTransform(Transform2D(translationX: 2, y: 0), at: .zero)
        let drawn = try await render([moved], format: .yuv420p, sourceA: yuv)
        #expect(drawn.allSatisfy { $0.pixelBuffer !== yuv })
        let stacked = try await render(
            [VideoCompositionLayerInstruction(trackID: 2), VideoCompositionLayerInstruction(trackID: 1)],
            format: .yuv420p, sourceA: yuv)
        #expect(stacked.allSatisfy { $0.pixelBuffer !== yuv })
    }

    @Test func cropShowsOnlyTheRectangle() async throws {
        var layer = VideoCompositionLayerInstruction(trackID: 1)
        layer.setCropRectangle(Rect(x: 16, y: 8, width: 32, height: 20), at: .zero)
        let frames = try await render([layer], background: .white)
        let out = frames[0].pixelBuffer
        #expect(pixel(out, 16, 8) == colourA)
        #expect(pixel(out, 47, 27) == colourA)
        #expect(pixel(out, 15, 8) == [255, 255, 255, 255])
        #expect(pixel(out, 48, 10) == [255, 255, 255, 255])
        #expect(pixel(out, 20, 28) == [255, 255, 255, 255])
    }

    @Test func opacityRampValuesAtTimes() async throws {
        // A over a white background, fading in from 0 to 1 over [0, 2).
        var layer = VideoCompositionLayerInstruction(trackID: 1)
        layer.setOpacityRamp(fromStartOpacity: 0, toEndOpacity: 1, timeRange: range(0, 2))
        let frames = try await render([layer], background: .white)
        let greens = frames.map { pixel($0.pixelBuffer, 3, 3)[1] }
        // G: 255 -> 100 with opacity 0, 0.25, 0.5, 0.75.
        let expected = [0.0, 0.25, 0.5, 0.75].map { 255 - (255 - 100) * $0 }
        for (g, e) in zip(greens, expected) { #expect(abs(Double(g) - e) <= 1, "\(greens)") }
    }

    @Test func rotationUsesTheGeneralPath() async throws {
        // A left half red, right half blue; rotated 90 degrees clockwise about the frame's
        // centre-ish and shown at half size, the red half ends on top.
        let source = solid(0, 0, 255, width: 128, height: 72)
        source.withUnsafeMutableBytes(plane: 0) { raw in
            for y in 0..<72 { for x in 64..<128 { let o = y * source.bytesPerRow[0] + 4 * x; raw[o] = 255; raw[o + 2] = 0 } }
        }
        var layer = VideoCompositionLayerInstruction(trackID: 1)
        // Scale to 0.5 (64x36), rotate 90 degrees (x' = -y, y' = x), move into view.
        let t = Transform2D(scaleX: 0.5, y: 0.5).concatenating(Transform2D(rotationAngle: .pi / 2))
            .concatenating(Transform2D(translationX: 60, y: 0))
        layer.setTransform(t, at: .zero)
        let frames = try await render([layer], background: .black, sourceA: source)
        let out = frames[0].pixelBuffer
        // The rotated picture covers x 24..<60, y 0..<64: red (source left) on top.
        #expect(pixel(out, 40, 10) == [0, 0, 255, 255])
        #expect(pixel(out, 40, 50) == [255, 0, 0, 255])
        #expect(pixel(out, 70, 10) == [0, 0, 0, 255])
    }

    @Test func shrinkingAFineCheckerboardGivesGrey() async throws {
        // One-pixel checks shrunk to a third: a prefiltered result is an even grey, not the
        // black or white that sampling every third pixel gives.
        let checks = solid(0, 0, 0, width: 128, height: 72)
        checks.withUnsafeMutableBytes(plane: 0) { raw in
            for y in 0..<72 {
                for x in 0..<128 where (x + y) % 2 == 0 { let o = y * checks.bytesPerRow[0] + 4 * x; raw[o] = 255; raw[o + 1] = 255; raw[o + 2] = 255 }
            }
        }
        var layer = VideoCompositionLayerInstruction(trackID: 1)
        layer.setTransform(Transform2D(scaleX: 1.0 / 3, y: 1.0 / 3), at: .zero)
        let frames = try await render([layer], sourceA: checks)
        let out = frames[0].pixelBuffer
        for (x, y) in [(1, 1), (5, 3), (16, 9), (30, 16)] {
            let p = pixel(out, x, y)
            #expect(abs(Int(p[0]) - 128) <= 2 && abs(Int(p[1]) - 128) <= 2, "\(p) at \(x),\(y)")
        }
    }

    @Test func translucentSourceBlendsWithItsAlpha() async throws {
        let half = solid(0, 0, 255, 128, width: 128, height: 72)
        let frames = try await render([VideoCompositionLayerInstruction(trackID: 1)], background: .white, sourceA: half)
        let p = pixel(frames[0].pixelBuffer, 0, 0)
        #expect(close(p, [127, 127, 255, 255]), "\(p)")
    }
}

@Suite struct LayerGeometryEdgeCaseTests {
    @Test(arguments: [
        Transform2D(a: .nan, b: 0, c: 0, d: 1, tx: 0, ty: 0),
        Transform2D(a: 1e-300, b: 0, c: 0, d: 1e-300, tx: 5, ty: 5),
        Transform2D(a: 1e300, b: 0, c: 0, d: 1e300, tx: 0, ty: 0),
        Transform2D(a: 1e-30, b: 1e-30, c: -1e-30, d: 1e-30, tx: 3, ty: 3),
        Transform2D(a: 0, b: 0, c: 0, d: 0, tx: 0, ty: 0),
        Transform2D(translationX: 1e30, y: -1e30),
        Transform2D(translationX: .infinity, y: 0),
    ])
    func wildTransformsDoNotTrap(transform: Transform2D) async throws {
        var m = MutableComposition()
        try m.insertTimeRange(range(0, 1), of: SourceDescription(identifier: "a", tracks: [videoTrack("a", 1, duration: 1)]), at: .zero)
        var layer = VideoCompositionLayerInstruction(trackID: 1)
        layer.setTransform(transform, at: .zero)
        layer.setCropRectangle(Rect(x: .nan, y: 0, width: 1e300, height: 10), at: t(0.5))
        layer.setOpacity(.nan, at: t(0.75))
        let v = VideoComposition(
            frameDuration: t(0.25), renderSize: Size(width: 16, height: 8),
            instructions: [VideoCompositionInstruction(timeRange: range(0, 1), layerInstructions: [layer])])
        var s = RenderSources()
        s.add(
            InMemoryVideoFrameSource(count: 4, frameDuration: t(0.25)) { _ in solid(1, 2, 3, width: 16, height: 8) },
            for: SourceTrackReference(sourceIdentifier: "a", trackID: 1))
        for format in [PixelFormat.bgra, .yuv420p] {
            let frames = try await RenderEngine(
                composition: Composition(m), videoComposition: v, sources: s,
                options: .init(preferredPixelFormat: format)
            ).renderAll()
            #expect(frames.count == 4)
        }
    }
}
