import Foundation
import ReelTestSupport
import Testing

@testable import ReelMetadata

@Suite("GPX import and export")
struct GPXTests {
    static let sample = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!-- exported by a phone -->
        <gpx version="1.1" creator="Test &amp; Co" xmlns="http://www.topografix.com/GPX/1/1"
             xmlns:gpxtpx="http://www.garmin.com/xmlschemas/TrackPointExtension/v2">
          <metadata><time>2020-01-01T00:00:00Z</time></metadata>
          <trk><name>Ride &lt;1&gt;</name><trkseg>
            <trkpt lat="47.0" lon="8.0"><ele>400.5</ele><time>2020-05-01T10:00:00Z</time></trkpt>
            <trkpt lat='47.001' lon="8.002">
              <ele>401</ele><time>2020-05-01T10:00:01.500Z</time><fix>3d</fix><hdop>0.9</hdop>
              <extensions><gpxtpx:TrackPointExtension><gpxtpx:speed>5.5</gpxtpx:speed><gpxtpx:course>90</gpxtpx:course></gpxtpx:TrackPointExtension></extensions>
            </trkpt>
            <trkpt lat="47.002" lon="8.004"><time>2020-05-01T12:00:03+02:00</time><![CDATA[ignored]]></trkpt>
          </trkseg></trk>
        </gpx>
        """

    static let start = Date(timeIntervalSince1970: 1_588_327_200)  // 2020-05-01T10:00:00Z

    @Test func importsPointsAlignedToMediaStart() throws {
        let groups = try GPX.groups(from: Data(Self.sample.utf8), mediaStartTime: Self.start)
        #expect(groups.count == 3)
        #expect(groups.map(\.timeRange.start) == [MediaTime(value: 0, timescale: 1), MediaTime(value: 3, timescale: 2), MediaTime(value: 3, timescale: 1)])
        #expect(groups[0].timeRange.duration == MediaTime(value: 3, timescale: 2))
        #expect(groups[2].timeRange.duration == MediaTime(value: 3, timescale: 2))
        let second = try #require(GPSFix(groups[1]))
        #expect(second.latitude == 47.001 && second.longitude == 8.002 && second.altitude == 401)
        #expect(second.speed2D == 5.5 && second.course == 90 && second.fix == 3 && second.dop == 0.9)
        #expect(second.time == Self.start.addingTimeInterval(1.5))
        #expect(groups[0].item(.quickTimeMetadataLocationISO6709)?.stringValue == "+47.0000+008.0000+400.500/")
        // Points before media start are dropped.
        #expect(try GPX.groups(from: Data(Self.sample.utf8), mediaStartTime: Self.start.addingTimeInterval(1)).count == 2)
    }

    @Test(.requires(.sharedMedia))
    func exportThenImportKeepsTheFixes() throws {
        let file = try MP4File(contentsOf: TestFiles.sharedMedia("gpmf-parser_max-heromode.mp4"))
        let gpmd = try #require(try file.tracks().first { $0.format == "gpmd" })
        let sample = try #require(try gpmd.samples().first)
        let groups = try GPMF.groups(payload: file.data(of: sample), timeRange: sample.timeRange)
        let gpx = GPX.document(for: groups, name: "MAX")
        let text = try #require(String(data: gpx, encoding: .utf8))
        #expect(
            text.contains("<trkpt lat=\"33.12677\" lon=\"-117.3273436\"><ele>-22.959</ele><time>2019-11-18T23:45:14.000Z</time><fix>3d</fix><hdop>1.54</hdop>"))
        // GPSU is the first fix's UTC, and the first fix was taken 101994 µs into the payload (its STMP).
        let mediaStart = Date(timeIntervalSince1970: 1_574_120_714 - 0.101994)
        let back = try GPX.groups(from: gpx, mediaStartTime: mediaStart)
        #expect(back.count == groups.count)
        for (a, b) in zip(groups, back) {
            let fa = try #require(GPSFix(a)), fb = try #require(GPSFix(b))
            #expect(fa.latitude == fb.latitude && fa.longitude == fb.longitude && fa.altitude == fb.altitude)
            #expect(fa.speed2D == fb.speed2D && fa.fix == fb.fix && fa.dop == fb.dop)
            #expect(close(fa.time?.timeIntervalSince1970, fb.time!.timeIntervalSince1970, 0.0005))
            #expect(abs(GPSFix.time(in: a).seconds - b.timeRange.start.seconds) < 0.001)
        }
    }

    @Test(arguments: [
        ("<gpx><trk><trkseg><trkpt lon=\"1\"></trkpt></trkseg></trk></gpx>", "no lat", 1),
        ("<gpx>\n<trkpt lat=\"91\" lon=\"1\"/></gpx>", "out of range", 2),
        ("<gpx><trkpt lat=\"x\" lon=\"1\"/></gpx>", "not a number", 1),
        ("<gpx>\n\n<trkpt lat=\"1\" lon=\"1\">\n<time>yesterday</time></trkpt></gpx>", "ISO 8601", 4),
        ("<gpx><trkpt lat=\"1\" lon=\"1\"><ele>high</ele></trkpt></gpx>", "ele", 1),
        ("<gpx><trkpt lat=\"1\" lon=\"1\"></trkpt>", "not well-formed XML", 1),
        ("<gpx>\n<trkpt lat=\"1\" lon=\"1\"/>\n<trkpt lat=\"1\" lon=\"1\"/></gpx>", "trkpt 1 has no <time>", 2),
        ("<gpx>\n<trkpt lat=\"1 lon=\"1\"/></gpx>", "not well-formed XML", 2),
        ("<kml></kml>", "not a GPX document", 1),
        ("<gpx>\n&bogus;</gpx>", "not well-formed XML", 2),
        ("</gpx>", "not well-formed XML", 1),
        ("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><gpx/>", "declares encoding", 1),
        // FoundationXML's parser crashes on a processing instruction without data.
        ("<?xml version=\"1.0\"?>\n<gpx>\n<?x_?>\n</gpx>", "processing instruction without data (<?x_?>)", 3),
    ])
    func errors(text: String, expected: String, line: Int) {
        do {
            _ = try GPX.groups(from: Data(text.utf8), mediaStartTime: Self.start)
            Issue.record("\(text) should not import")
        } catch {
            #expect(error.code == .metadataFormat)
            #expect(error.message.contains(expected), "\(error)")
            #expect(error.field == "line \(line)", "\(error)")
        }
    }

    /// FoundationXML traps on names that are not valid in the document's encoding: anything
    /// but UTF-8 is refused before it parses.
    @Test func refusesTextThatIsNotUTF8() {
        var data = Data("<gpx>\n<name>X</name></gpx>".utf8)
        data[data.firstIndex(of: UInt8(ascii: "X"))!] = 0xFF
        let error = expectReelError(.metadataFormat) { try GPX.fixes(from: data) }
        #expect(error?.message.contains("not UTF-8") == true && error?.field == "line 2")
    }

    /// Only a processing instruction without data is refused (the parser crashes on it);
    /// one with data, or with a space before `?>`, is read past.
    @Test func processingInstructionsWithDataAreReadPast() throws {
        for pi in ["<?xml-stylesheet href=\"a.xsl\"?>", "<?x_ ?>"] {
            let text = "<?xml version=\"1.0\"?>\n\(pi)\n<gpx><trkpt lat=\"47\" lon=\"8\"><time>2020-05-01T10:00:00Z</time></trkpt></gpx>"
            #expect(try GPX.fixes(from: Data(text.utf8)).first?.latitude == 47, "\(pi)")
        }
    }

    @Test func readsEntitiesAndCharacterReferencesInValues() throws {
        let text = "<gpx><trkpt lat=\"&#52;7\" lon=\"8\"><ele>4&#x30;0</ele><time><![CDATA[2020-05-01T10:00:00Z]]></time></trkpt></gpx>"
        let fix = try #require(try GPX.fixes(from: Data(text.utf8)).first)
        #expect(fix.latitude == 47 && fix.altitude == 400 && fix.time == Self.start)
    }

    @Test func damagedDocumentsNeverCrash() {
        let data = Data(Self.sample.utf8)
        for cut in 0..<data.count {
            survives { () throws(ReelError) in try GPX.groups(from: data.prefix(cut), mediaStartTime: Self.start) }
        }
        var rng = SeededGenerator(seed: 21)
        for _ in 0..<2000 {
            var copy = data
            copy[Int.random(in: 0..<copy.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
            survives { () throws(ReelError) in try GPX.groups(from: copy, mediaStartTime: Self.start) }
            let random = rng.bytes(Int.random(in: 0...100, using: &rng))
            survives { () throws(ReelError) in try GPX.fixes(from: random) }
        }
    }

    @Test func iso8601() {
        #expect(ISO8601.date("2019-11-18T23:45:14Z")?.timeIntervalSince1970 == 1_574_120_714)
        #expect(ISO8601.date("2019-11-18T23:45:14.250Z")?.timeIntervalSince1970 == 1_574_120_714.25)
        #expect(ISO8601.date("2019-11-19T01:45:14+02:00")?.timeIntervalSince1970 == 1_574_120_714)
        #expect(ISO8601.date("2019-11-18T23:45:14")?.timeIntervalSince1970 == 1_574_120_714)
        #expect(ISO8601.date("2019-13-18T23:45:14Z") == nil)
        #expect(ISO8601.date("2019-11-18T23:45:14Zjunk") == nil)
        #expect(ISO8601.string(Date(timeIntervalSince1970: 1_574_120_714.0004)) == "2019-11-18T23:45:14.000Z")
        #expect(ISO8601.string(Date(timeIntervalSince1970: -0.5)) == "1969-12-31T23:59:59.500Z")
        // To the nearest millisecond, not truncated.
        #expect(ISO8601.string(Date(timeIntervalSince1970: 1_574_120_714.123)) == "2019-11-18T23:45:14.123Z")
        #expect(ISO8601.string(Date(timeIntervalSince1970: 1_574_120_714.9996)) == "2019-11-18T23:45:15.000Z")
        #expect(ISO8601.string(Date(timeIntervalSince1970: 1.007)) == "1970-01-01T00:00:01.007Z")
        // RFC 3339's separators and ISO 8601's decimal comma; an offset without a colon.
        #expect(ISO8601.date("2019-11-18 23:45:14.5z")?.timeIntervalSince1970 == 1_574_120_714.5)
        #expect(ISO8601.date("2019-11-18t23:45:14,5Z")?.timeIntervalSince1970 == 1_574_120_714.5)
        #expect(ISO8601.date(" 2019-11-18T21:15:14-0230 ")?.timeIntervalSince1970 == 1_574_120_714)
        #expect(ISO8601.date("2019-11-18T23:45:14.Z") == nil)
        #expect(ISO8601.date("") == nil)
    }
}

@Suite("GPX: satellites")
struct GPXSatellitesTests {
    @Test func satellitesAreWrittenAsSatAndReadBack() throws {
        let fix = GPSFix(
            latitude: 33.1, longitude: -117.3, course: 331.56, time: Date(timeIntervalSince1970: 1_492_457_277.526), fix: 3,
            dop: 1.5, satellites: 20)
        let group = TimedMetadataGroup(timeRange: TimeRange(start: .zero, duration: .zero), items: fix.metadataItems(time: .zero, duration: .zero))
        let text = String(decoding: GPX.document(for: [group]), as: UTF8.self)
        // GPX 1.1's order: ele, time, fix, sat, hdop; course in the Garmin extension.
        #expect(text.contains("<time>2017-04-17T19:27:57.526Z</time><fix>3d</fix><sat>20</sat><hdop>1.5</hdop>"), "\(text)")
        #expect(text.contains("<gpxtpx:course>331.56</gpxtpx:course>"))
        let back = try #require(try GPX.fixes(from: Data(text.utf8)).first)
        #expect(back.satellites == 20 && back.course == 331.56 && back.time == fix.time)
        expectReelError(.metadataFormat) { try GPX.fixes(from: Data(text.replacingOccurrences(of: "<sat>20", with: "<sat>many").utf8)) }
    }
}
