import ReelCore
import Testing

@testable import ReelText

@Suite("CoverageMask")
struct CoverageMaskTests {
    @Test func aPolylineCoversItsPathAndNothingFar() {
        var mask = CoverageMask(width: 50, height: 50)
        mask.strokePolyline([Point(x: 5, y: 5), Point(x: 45, y: 5), Point(x: 45, y: 45)], lineWidth: 3)
        #expect(mask.value(x: 25, y: 4) == 255)
        #expect(mask.value(x: 44, y: 25) == 255)
        #expect(mask.value(x: 25, y: 25) == 0)
        #expect(mask.value(x: 25, y: 9) == 0)
        // Edges are anti-aliased: some partial coverage exists.
        #expect(mask.coverage.contains { $0 > 0 && $0 < 255 })
    }

    @Test func overlappingStrokesKeepTheMaximum() {
        var mask = CoverageMask(width: 20, height: 20)
        mask.strokePolyline([Point(x: 2, y: 10), Point(x: 18, y: 10), Point(x: 2, y: 10)], lineWidth: 2)
        #expect(mask.coverage.max() == 255)
        let once = mask
        mask.strokePolyline([Point(x: 2, y: 10), Point(x: 18, y: 10)], lineWidth: 2)
        #expect(mask == once)
    }

    @Test func nonFinitePointsAndOutOfBoundsAreIgnored() {
        var mask = CoverageMask(width: 10, height: 10)
        mask.strokePolyline([Point(x: .nan, y: 1), Point(x: 500, y: 500)], lineWidth: 2)
        mask.fillCircle(center: Point(x: -100, y: -100), radius: 3)
        #expect(mask.coverage.allSatisfy { $0 == 0 })
        #expect(mask.value(x: -1, y: 0) == 0)
    }

    @Test func aCircleIsRound() {
        var mask = CoverageMask(width: 21, height: 21)
        mask.fillCircle(center: Point(x: 10.5, y: 10.5), radius: 6)
        #expect(mask.value(x: 10, y: 10) == 255)
        #expect(mask.value(x: 10, y: 5) == 255)
        #expect(mask.value(x: 5, y: 5) == 0)
        #expect(mask.value(x: 10, y: 2) == 0)
    }
}
