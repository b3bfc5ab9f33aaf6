import ReelComposition
import Testing

@Suite struct VideoCompositionLayerInstructionTests {
    @Test func defaultsHoldWithNoRamps() {
        let layer = VideoCompositionLayerInstruction(trackID: 1)
        #expect(layer.opacity(at: t(3)) == 1)
        #expect(layer.transform(at: t(3)) == .identity)
        #expect(layer.cropRectangle(at: t(3)).isInfinite)
        #expect(layer.opacityRamp(for: t(3)) == nil)
    }

    @Test(arguments: [
        (0.5, 1.0),  // before the first ramp: the default
        (1.0, 1.0),  // ramp start
        (1.5, 0.875),
        (2.0, 0.75),
        (2.999, 0.50025),
        (3.0, 0.5),  // after the first ramp: its end value
        (4.0, 0.5),  // between ramps: still the first ramp's end
        (5.0, 0.5),
        (6.0, 0.25),
        (9.0, 0.0),  // after the last ramp: its end value
    ])
    func opacityRampValues(time: Double, expected: Double) {
        var layer = VideoCompositionLayerInstruction(trackID: 1)
        layer.setOpacityRamp(fromStartOpacity: 1, toEndOpacity: 0.5, timeRange: range(1, 3))
        layer.setOpacityRamp(fromStartOpacity: 0.5, toEndOpacity: 0, timeRange: range(5, 7))
        #expect(abs(layer.opacity(at: t(time)) - expected) < 1e-9)
    }

    @Test func rampGettersReturnTheRampHoldingTheTime() throws {
        var layer = VideoCompositionLayerInstruction(trackID: 1)
        layer.setOpacityRamp(fromStartOpacity: 1, toEndOpacity: 0, timeRange: range(1, 3))
        let ramp = try #require(layer.opacityRamp(for: t(2)))
        #expect(ramp.start == 1 && ramp.end == 0 && ramp.timeRange == range(1, 3))
        #expect(layer.opacityRamp(for: t(3)) == nil)
        // A new ramp over the same time replaces the old one.
        layer.setOpacityRamp(fromStartOpacity: 0.2, toEndOpacity: 0.4, timeRange: range(2, 4))
        #expect(layer.opacityRamps.count == 1)
        #expect(abs(layer.opacity(at: t(3)) - 0.3) < 1e-9)
    }

    @Test func setValueAtTimeHoldsFromThenOn() {
        var layer = VideoCompositionLayerInstruction(trackID: 1)
        layer.setOpacity(0.25, at: t(2))
        #expect(layer.opacity(at: t(1.99)) == 1)
        #expect(layer.opacity(at: t(2)) == 0.25)
        #expect(layer.opacity(at: t(100)) == 0.25)
        #expect(layer.opacityRamp(for: t(2))?.start == 0.25)
    }

    @Test func transformAndCropRampsInterpolate() {
        var layer = VideoCompositionLayerInstruction(trackID: 1)
        layer.setTransformRamp(fromStart: .identity, toEnd: Transform2D(translationX: 100, y: 40), timeRange: range(0, 2))
        #expect(layer.transform(at: t(1)) == Transform2D(translationX: 50, y: 20))
        #expect(layer.transform(at: t(5)) == Transform2D(translationX: 100, y: 40))
        layer.setCropRectangleRamp(
            fromStartCropRectangle: Rect(x: 0, y: 0, width: 100, height: 100),
            toEndCropRectangle: Rect(x: 50, y: 0, width: 50, height: 100), timeRange: range(1, 2))
        #expect(layer.cropRectangle(at: t(0.5)).isInfinite)
        #expect(layer.cropRectangle(at: t(1.5)) == Rect(x: 25, y: 0, width: 75, height: 100))
        #expect(layer.cropRectangle(at: t(3)) == Rect(x: 50, y: 0, width: 50, height: 100))
        #expect(layer.transformRamp(for: t(1))?.end == Transform2D(translationX: 100, y: 40))
        #expect(layer.cropRectangleRamp(for: t(1.2)) != nil)
    }
}
