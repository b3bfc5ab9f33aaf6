import Foundation
import ReelMetadata
import ReelTestSupport
import ReelTesting
import Testing

@Suite struct SyntheticMetadataTests {
    @Test func groupsTileTheTimelineAndCarryGPSFixItems() throws {
        let groups = try SyntheticMetadata.gpsGroups([
            GPSSample(seconds: 0, latitude: 46.5, longitude: 6.6, altitude: 372, speed2D: 3.5),
            GPSSample(seconds: 0.5, latitude: 46.5001, longitude: 6.6002, altitude: 373, speed2D: 4),
            GPSSample(seconds: 1.5, latitude: 46.5003, longitude: 6.6004),
        ])
        #expect(groups.count == 3)
        #expect(groups[0].timeRange == TimeRange(start: .zero, end: MediaTime(value: 500, timescale: 1000)))
        #expect(groups[1].timeRange.end == groups[2].timeRange.start)
        #expect(groups[2].timeRange.duration == MediaTime(value: 1, timescale: 1))  // repeats the interval before it
        let fix = try #require(GPSFix(groups[1]))
        #expect(fix.latitude == 46.5001 && fix.longitude == 6.6002 && fix.altitude == 373 && fix.speed2D == 4)
        #expect(groups[1].item(.quickTimeMetadataLocationISO6709)?.stringValue == "+46.5001+006.6002+373.000/")
        #expect(groups[1].items.allSatisfy { $0.time == groups[1].timeRange.start })
    }

    @Test func refusesTimesThatDoNotIncrease() {
        expectReelError(.invalidArgument) {
            try SyntheticMetadata.gpsGroups([
                GPSSample(seconds: 1, latitude: 0, longitude: 0),
                GPSSample(seconds: 1, latitude: 0, longitude: 0),
            ])
        }
    }

    @Test func straightLineMoves() throws {
        let groups = try SyntheticMetadata.straightLine(
            from: GPSFix(latitude: 10, longitude: 20), latitudeStep: 0.001,
            longitudeStep: -0.002, count: 4,
            interval: MediaTime(value: 1001, timescale: 30000))
        #expect(groups.count == 4)
        #expect(groups[3].timeRange.start == MediaTime(value: 3003, timescale: 30000))
        #expect(abs((groups[3].number(.longitude) ?? 0) - 19.994) < 1e-9)
    }

    static let gpx = """
        <?xml version="1.0" encoding="UTF-8"?>
        <gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1"
             xmlns:gpxtpx="http://www.garmin.com/xmlschemas/TrackPointExtension/v2">
          <trk><name>ride</name><trkseg>
            <trkpt lat="33.1268" lon="-117.3273"><ele>-22.959</ele><time>2024-05-01T10:00:00Z</time>
              <extensions><gpxtpx:TrackPointExtension><gpxtpx:speed>5.25</gpxtpx:speed></gpxtpx:TrackPointExtension></extensions>
            </trkpt>
            <trkpt lon='-117.3270' lat='33.1270'><ele>-22.5</ele><time>2024-05-01T10:00:00.500Z</time><fix>3d</fix><pdop>1.54</pdop></trkpt>
            <trkpt lat="33.1272" lon="-117.3267"><time>2024-05-01T10:00:02Z</time><course>41.5</course></trkpt>
          </trkseg></trk>
        </gpx>
        """

    @Test func readsGPX() throws {
        let groups = try SyntheticMetadata.gpsGroups(gpx: Self.gpx)
        #expect(groups.count == 3)
        #expect(groups.map(\.timeRange.start) == [.zero, MediaTime(value: 500, timescale: 1000), MediaTime(value: 2000, timescale: 1000)])
        let first = try #require(GPSFix(groups[0]))
        #expect(first.latitude == 33.1268 && first.longitude == -117.3273 && first.altitude == -22.959 && first.speed2D == 5.25)
        #expect(first.time == Date(timeIntervalSince1970: 1_714_557_600))
        #expect(groups[0].item(.quickTimeMetadataLocationISO6709)?.stringValue == "+33.1268-117.3273-022.959/")
        let second = try #require(GPSFix(groups[1]))
        #expect(second.fix == 3 && second.dop == 1.54 && second.longitude == -117.3270)
        #expect(GPSFix(groups[2])?.course == 41.5)
    }

    @Test func gpxErrorsNameThePoint() {
        let bad = """
            <gpx><trk><trkseg>
            <trkpt lat="1" lon="2"><time>2024-05-01T10:00:00Z</time></trkpt>
            <trkpt lat="north" lon="2"><time>2024-05-01T10:00:01Z</time></trkpt>
            </trkseg></trk></gpx>
            """
        #expect {
            try SyntheticMetadata.gpsGroups(gpx: bad)
        } throws: { error in
            let text = "\(error)"
            return text.contains("point 1") && text.contains("line 3") && text.contains("north")
        }
        expectReelError(.metadataFormat) { try SyntheticMetadata.gpsGroups(gpx: "<gpx></gpx>") }
    }

    static let gpri = [
        GPRIRecord(
            time: 812.25, latitude: 37.7749123, longitude: -122.4194155, altitude: 35.42, horizontalAccuracy: 1.2,
            verticalAccuracy: 2.3, speed: 4.56, course: 87.5, fix: 3, satellites: 14),
        GPRIRecord(time: 812.5, latitude: 37.7749234, longitude: -122.4193987, altitude: 35.61, speed: 4.61, course: 88.25),
        GPRIRecord(time: 812.75, latitude: 37.7749345, longitude: -122.4193801, altitude: 35.8, speed: 4.7, course: 89, fix: 2),
        GPRIRecord(time: 813.0, latitude: 37.7749455, longitude: -122.4193623, altitude: 36, speed: 4.75, course: 90.1),
    ]

    static let glpi = [
        GLPIRecord(
            time: 100.1, latitude: -33.8567844, longitude: 151.2152967, altitude: 58.3, relativeAltitude: 40.2,
            velocityNorth: 3, velocityEast: 4, velocityDown: -1.2, heading: 270.5),
        GLPIRecord(
            time: 100.3, latitude: -33.8567712, longitude: 151.2153101, altitude: 58.9, relativeAltitude: 40.8,
            velocityNorth: -1.5, velocityEast: 2, velocityDown: 0, heading: 271),
        GLPIRecord(
            time: 100.6, latitude: -33.8567601, longitude: 151.2153234, altitude: 59.1, relativeAltitude: 41,
            velocityNorth: 0, velocityEast: 0, velocityDown: 0.5, heading: 0),
    ]

    @Test func gpriPayloadGivesOneFixPerRecordSpacedByItsTime() throws {
        let gpsu = Date(timeIntervalSince1970: 1_600_000_000.5)
        let data = try SyntheticMetadata.gpriPayload(Self.gpri, gpsu: gpsu)
        let fixes = try GPMF.fixes(payload: data, timeRange: TimeRange(start: .zero, duration: MediaTime(value: 1001, timescale: 1000)))
        #expect(fixes.count == 4)
        for (r, f) in zip(Self.gpri, fixes) {
            #expect(abs(f.fix.latitude - r.latitude) < 1e-9)
            #expect(abs(f.fix.longitude - r.longitude) < 1e-9)
            #expect(abs((f.fix.altitude ?? .nan) - r.altitude) < 1e-9)
            #expect(abs((f.fix.speed2D ?? .nan) - r.speed) < 1e-9)
            #expect(f.fix.speed3D == nil)
            #expect(abs((f.fix.course ?? .nan) - r.course) < 1e-9)
            #expect(f.fix.fix == r.fix)
            // Device time spaces the fixes, and with GPSU gives their UTC.
            #expect(abs(f.time.seconds - (r.time - Self.gpri[0].time)) < 1e-6)
            #expect(abs((f.fix.time?.timeIntervalSince(gpsu) ?? .nan) - (r.time - Self.gpri[0].time)) < 1e-6)
        }
        #expect(fixes[0].duration == MediaTime(value: 1, timescale: 4))
        #expect(abs(fixes[3].duration.seconds - 0.251) < 1e-9)
    }

    @Test func glpiPayloadGivesFixesWithSpeedsFromTheVelocity() throws {
        let data = try SyntheticMetadata.glpiPayload(Self.glpi)
        let range = TimeRange(start: MediaTime(value: 10, timescale: 1), duration: MediaTime(value: 1, timescale: 1))
        let groups = try GPMF.groups(payload: data, timeRange: range)
        #expect(groups.count == 3)
        for (r, g) in zip(Self.glpi, groups) {
            let f = try #require(GPSFix(g))
            #expect(abs(f.latitude - r.latitude) < 1e-9)
            #expect(abs(f.longitude - r.longitude) < 1e-9)
            #expect(abs((f.altitude ?? .nan) - r.altitude) < 1e-9)
            #expect(abs((f.speed2D ?? .nan) - (r.velocityNorth * r.velocityNorth + r.velocityEast * r.velocityEast).squareRoot()) < 1e-9)
            let v3 = (r.velocityNorth * r.velocityNorth + r.velocityEast * r.velocityEast + r.velocityDown * r.velocityDown).squareRoot()
            #expect(abs((f.speed3D ?? .nan) - v3) < 1e-9)
            #expect(abs((f.course ?? .nan) - r.heading) < 1e-9)
            #expect(f.time == nil)  // no GPSU: device time is not UTC
            #expect(abs(g.item(.latitude)!.time.seconds - 10 - (r.time - Self.glpi[0].time)) < 1e-6)
            // The record itself stays, with its TYPE and units.
            let raw = try #require(g.item(MetadataIdentifier(keySpace: .gpmf, key: "GLPI")))
            #expect(raw.dataType == "LllllsssS")
            #expect(raw.unit == "s,deg,deg,m,m,m/s,m/s,m/s,deg")
        }
        #expect(groups[0].timeRange.start == range.start)
        #expect(groups[2].timeRange.end == range.end)
        #expect(abs(groups[0].timeRange.duration.seconds - 0.2) < 1e-9)
    }

    @Test func gps5WinsOverGPRIAndGPRIStaysAsItems() throws {
        let gps5 = try GPMFWriter.payload(fixes: [GPSFix(latitude: 1, longitude: 2, altitude: 3), GPSFix(latitude: 1.5, longitude: 2.5, altitude: 4)])
        let data = gps5 + (try SyntheticMetadata.gpriPayload(Self.gpri))
        let groups = try GPMF.groups(payload: data, timeRange: TimeRange(start: .zero, duration: MediaTime(value: 1, timescale: 1)))
        #expect(groups.compactMap { GPSFix($0)?.latitude } == [1, 1.5])
        let gpri = groups.flatMap { $0.items.filter { $0.key == "GPRI" } }
        #expect(gpri.count == 4)
        if case .numbers(let n) = gpri[1].value { #expect(abs(n[1] - Self.gpri[1].latitude) < 1e-9) } else { Issue.record("GPRI should be numbers") }
        // GLPI is preferred to GPRI.
        let drone = try SyntheticMetadata.gpriPayload(Self.gpri) + SyntheticMetadata.glpiPayload(Self.glpi)
        let fixes = try GPMF.fixes(payload: drone, timeRange: TimeRange(start: .zero, duration: MediaTime(value: 1, timescale: 1)))
        #expect(fixes.map(\.fix.latitude) == Self.glpi.map(\.latitude).map { ($0 * 1e7).rounded() / 1e7 })
    }

    @Test func nonsenseDeviceTimesFallBackToEvenSpacing() throws {
        var records = Self.gpri
        records[2].time = records[1].time  // not increasing
        let fixes = try GPMF.fixes(
            payload: SyntheticMetadata.gpriPayload(records), timeRange: TimeRange(start: .zero, duration: MediaTime(value: 1, timescale: 1)))
        #expect(fixes.map(\.time) == (0..<4).map { MediaTime(value: Int64($0), timescale: 4) })
        let zeros = Self.gpri.map { r -> GPRIRecord in
            var r = r; r.time = 0; return r
        }
        let even = try GPMF.fixes(
            payload: SyntheticMetadata.gpriPayload(zeros), timeRange: TimeRange(start: .zero, duration: MediaTime(value: 1, timescale: 1)))
        #expect(even.map(\.time) == (0..<4).map { MediaTime(value: Int64($0), timescale: 4) })
        // Times spanning more than the payload are not believed either.
        let wide = Self.gpri.enumerated().map { i, r -> GPRIRecord in
            var r = r; r.time = Double(i) * 10; return r
        }
        let spread = try GPMF.fixes(
            payload: SyntheticMetadata.gpriPayload(wide), timeRange: TimeRange(start: .zero, duration: MediaTime(value: 1, timescale: 1)))
        #expect(spread.map(\.time) == (0..<4).map { MediaTime(value: Int64($0), timescale: 4) })
    }
}
