import Foundation
import Testing
@testable import Reel

/// Reel's GPX 1.1: what it writes, what it reads back, and what it refuses.
@Suite("GPS track GPX")
struct MetadataGPSTrackGPXTests {
    static func read(_ text: String) throws(ReelError) -> [GPSTrackPoint] {
        try GPSTrackGPX.points(Data(text.utf8), path: "t.gpx")
    }

    @Test("reads back every field it writes")
    func roundTrip() throws {
        let fixes = [
            GPSFix(latitude: 46.2043907, longitude: 6.1431577, altitude: 374.2, speed2D: 7.5, course: 38,
                   time: Date(timeIntervalSince1970: 1_704_067_200.2), fix: 3, dop: 1.2),
            GPSFix(latitude: -33.5, longitude: -70.25, fix: 0),
            GPSFix(latitude: 0, longitude: 0, fix: 2),
        ]
        let text = GPSTrackGPX.text(fixes.map { (MediaTime.zero, $0) }, name: "a & b <c>")
        #expect(text.contains("<name>a &amp; b &lt;c&gt;</name>"))
        #expect(text.contains("<time>2024-01-01T00:00:00.200Z</time>"))
        #expect(text.contains("<fix>3d</fix>") && text.contains("<fix>none</fix>") && text.contains("<fix>2d</fix>"))
        #expect(text.contains("<gpxtpx:speed>7.5</gpxtpx:speed><gpxtpx:course>38</gpxtpx:course>"))
        let points = try Self.read(text)
        #expect(points.map(\.fix) == fixes)
        #expect(points.allSatisfy { $0.mediaTime == nil })
    }

    @Test("route points when there are no track points; GPX 1.0 speed; pdop when no hdop; prefixed names")
    func variants() throws {
        let route = try Self.read("""
            <gpx version="1.0"><rte><rtept lat="1.5" lon="2.5"><speed>3.25</speed><pdop>2.5</pdop><fix>dgps</fix></rtept></rte></gpx>
            """)
        #expect(route.count == 1)
        #expect(route.first?.fix == GPSFix(latitude: 1.5, longitude: 2.5, speed2D: 3.25, fix: 3, dop: 2.5))
        let prefixed = try Self.read("""
            <g:gpx xmlns:g="http://www.topografix.com/GPX/1/1"><g:wpt lat="9" lon="9"/><g:trk><g:trkseg>
            <g:trkpt lat="1" lon="2"><g:ele>3</g:ele><g:time>2024-01-01T01:00:00+01:00</g:time></g:trkpt>
            </g:trkseg></g:trk><g:rte><g:rtept lat="5" lon="5"/></g:rte></g:gpx>
            """)
        #expect(prefixed.map(\.fix) == [GPSFix(latitude: 1, longitude: 2, altitude: 3, time: Date(timeIntervalSince1970: 1_704_067_200))])
        #expect(prefixed.first?.line == 2)
    }

    @Test("refuses bad files, naming the line", arguments: [
        ("no markup at all <", "not valid XML", "line 1"),
        ("<kml><Placemark/></kml>", "not a GPX file: the root element is <kml>", nil),
        ("<gpx>\n<trk><trkseg><trkpt lon=\"2\"/></trkseg></trk></gpx>", "has no lat attribute", "line 2"),
        ("<gpx>\n<trk><trkseg><trkpt lat=\"1\" lon=\"200\"/></trkseg></trk></gpx>", "lon=\"200\" is not a number in -180...180", "line 2"),
        ("<gpx><trk><trkseg><trkpt lat=\"1\" lon=\"2\">\n<time>noon</time></trkpt></trkseg></trk></gpx>", "<time> \"noon\" is not an ISO 8601 time", "line 2"),
        ("<gpx><trk><trkseg><trkpt lat=\"1\" lon=\"2\"><ele>high</ele></trkpt></trkseg></trk></gpx>", "<ele> \"high\" is not a number", "line 1"),
        ("<gpx><trk><trkseg><trkpt lat=\"1\" lon=\"2\"><fix>4d</fix></trkpt></trkseg></trk></gpx>", "is not none, 2d, 3d", "line 1"),
    ] as [(String, String, String?)])
    func refuses(_ text: String, _ words: String, _ field: String?) {
        #expect {
            _ = try Self.read(text)
        } throws: { error in
            guard let error = error as? ReelError else { return false }
            return error.code == .metadataFormat && error.path == "t.gpx" && error.field == field && error.message.contains(words)
        }
    }
}
