import Foundation
import Testing
import ReelTesting

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
        #expect(throws: ReelError.self) {
            try SyntheticMetadata.gpsGroups([GPSSample(seconds: 1, latitude: 0, longitude: 0),
                                             GPSSample(seconds: 1, latitude: 0, longitude: 0)])
        }
    }

    @Test func straightLineMoves() throws {
        let groups = try SyntheticMetadata.straightLine(from: GPSFix(latitude: 10, longitude: 20), latitudeStep: 0.001,
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
        #expect(throws: ReelError.self) { try SyntheticMetadata.gpsGroups(gpx: "<gpx></gpx>") }
    }
}
