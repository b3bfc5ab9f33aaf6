import Foundation
import Reel
import ReelTesting
import Testing

@testable import GPSDashboard

@Suite("GPSTrackTimeline")
struct GPSTrackTimelineTests {
    @Test func interpolatesBetweenFixes() throws {
        let timeline = GPSTrackTimeline(groups: try RenderTestSupport.gpsGroups())
        #expect(timeline.entries.count == 10)
        // Halfway between fix 1 (0.2 s) and fix 2 (0.4 s).
        let (fix, index, fraction) = try #require(timeline.fix(at: MediaTime(value: 3, timescale: 10)))
        #expect(index == 1)
        #expect(abs(fraction - 0.5) < 1e-9)
        #expect(abs((fix.speed2D ?? 0) - 3.5) < 1e-9)
        #expect(abs((fix.altitude ?? 0) - (-22.9 + 1.5)) < 1e-9)
        let a = timeline.entries[1].fix, b = timeline.entries[2].fix
        #expect(abs(fix.latitude - (a.latitude + b.latitude) / 2) < 1e-12)
        let t = try #require(fix.time)
        #expect(abs(t.timeIntervalSince1970 - (1_574_120_714 + 0.3)) < 1e-3)
    }

    @Test func holdsTheLastFixAndHasNothingBeforeTheFirst() throws {
        let timeline = GPSTrackTimeline(groups: try RenderTestSupport.gpsGroups())
        #expect(timeline.fix(at: MediaTime(value: -1, timescale: 10)) == nil)
        let last = try #require(timeline.fix(at: MediaTime(value: 19, timescale: 10)))
        #expect(last.fix == timeline.entries[9].fix)
    }

    @Test func courseTakesTheShorterWayRound() {
        let a = GPSFix(latitude: 0, longitude: 0, course: 350), b = GPSFix(latitude: 0, longitude: 0, course: 10)
        let mid = GPSTrackTimeline.interpolate(a, b, 0.5)
        #expect(abs((mid.course ?? -1) - 0) < 1e-9 || abs((mid.course ?? -1) - 360) < 1e-9)
    }
}
