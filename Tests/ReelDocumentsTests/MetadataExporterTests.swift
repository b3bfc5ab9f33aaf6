import Foundation
import Reel
import ReelTestSupport
import Testing

@testable import ReelDocuments

/// ``MetadataExporter`` as a library: choosing the track, and the documents it writes.
@Suite("MetadataExporter")
struct MetadataExporterTests {
    static let exporter = MetadataExporter(url: URL(fileURLWithPath: "/tmp/clip.mp4"))

    static func track(fixes: Int) -> MetadataExporter.Track {
        let groups = (0..<fixes).map { i in
            let range = TimeRange(start: MediaTime(value: Int64(i), timescale: 10), duration: MediaTime(value: 1, timescale: 10))
            return TimedMetadataGroup(timeRange: range, items: GPSFix(latitude: 1, longitude: Double(i)).metadataItems(time: range.start))
        }
        return MetadataExporter.Track(
            trackID: 3, format: "gpmd",
            groups: groups + [
                TimedMetadataGroup(timeRange: .invalid, items: [MetadataItem(identifier: .commonIdentifierTitle, value: .data(Data([1, 2])))])
            ])
    }

    @Test("reads the fixture's gpmd track by default")
    func readsFixture() async throws {
        let track = try await MetadataExporter(url: TestFiles.fixtures.appendingPathComponent("counter-gps.mp4")).readTrack()
        #expect(track.trackID == 3)
        #expect(track.format == "gpmd")
        #expect(track.fixes.count == 10)
        #expect(track.fixes.first?.fix.latitude == 46.2043907)
    }

    @Test("documents: JSON counts fixes and keeps untimed groups; CSV and GPX one entry per fix")
    func documents() throws {
        let track = Self.track(fixes: 3)
        let json = try Self.exporter.document(track, format: .json)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        #expect(object["file"] as? String == "clip.mp4")
        #expect(object["fixCount"] as? Int == 3)
        let groups = try #require(object["groups"] as? [[String: Any]])
        #expect(groups.count == 4)
        #expect(groups.last?["start"] == nil, "an untimed group has no start")
        #expect((groups.last?["items"] as? [[String: Any]])?.first?["value"] as? String == "AQI=")
        let csv = try Self.exporter.document(track, format: .csv)
        #expect(csv.split(separator: "\n").count == 4)
        #expect(csv.split(separator: "\n")[2] == "0.1,1.0,1.0" + String(repeating: ",", count: 20))
        let gpx = try Self.exporter.document(track, format: .gpx, name: "ride")
        #expect(gpx.components(separatedBy: "<trkpt ").count == 4)
        #expect(gpx.contains("<name>ride track 3</name>"))
    }

    @Test("CSV and GPX need fixes", arguments: [MetadataExporter.Format.csv, .gpx])
    func needsFixes(_ format: MetadataExporter.Format) {
        #expect {
            _ = try Self.exporter.document(Self.track(fixes: 0), format: format)
        } throws: { error in
            (error as? ReelError)?.message.contains("holds no GPS fixes") == true
        }
    }
}
