import Foundation
import Reel
import Testing

@testable import ReelDocuments

/// How ``MetadataImporter`` places a track's points on a video's timeline.
@Suite("MetadataImporter")
struct MetadataImporterTests {
    static let creation = Date(timeIntervalSince1970: 1_704_067_200)
    static let importer = MetadataImporter(trackURL: URL(fileURLWithPath: "/tmp/t.gpx"), videoURL: URL(fileURLWithPath: "/tmp/v.mp4"))
    static let twoSeconds = MediaTime(value: 2, timescale: 1)

    /// GPX-like points `spacing` seconds apart from `start` seconds after the creation time.
    static func points(_ count: Int, start: Double = 0, spacing: Double = 0.25, speeds: Bool = true) -> [GPSTrackPoint] {
        (0..<count).map { i in
            GPSTrackPoint(
                fix: GPSFix(
                    latitude: 46 + Double(i) * 1e-4, longitude: 6, altitude: 100 + Double(i),
                    speed2D: speeds ? 5 : nil, time: creation.addingTimeInterval(start + Double(i) * spacing)),
                mediaTime: nil, label: "trkpt \(i + 1)")
        }
    }

    @Test("GPX times against the creation time plus the offset; groups tile until the next point, the last cut at the end")
    func alignment() throws {
        let (groups, omitted, notes) = try Self.importer.groups(
            points: Self.points(8), duration: Self.twoSeconds,
            creationDate: Self.creation, options: .init(offset: 0.5))
        #expect(notes.isEmpty)
        #expect(omitted == 2, "points at 2 s and 2.25 s are past the end")
        #expect(groups.map(\.timeRange.start) == (0..<6).map { MediaTime(value: 500 + Int64($0) * 250, timescale: 1000) })
        for (a, b) in zip(groups, groups.dropFirst()) { #expect(a.timeRange.end == b.timeRange.start) }
        #expect(groups.last?.timeRange.end == MediaTime(value: 2000, timescale: 1000))
        #expect(GPSFix(groups[0])?.latitude == 46)
        #expect(groups[0].item(.latitude)?.time == MediaTime(value: 500, timescale: 1000))
    }

    @Test("points before zero are left out; CSV media seconds win over GPS times")
    func before() throws {
        var points = Self.points(4)
        points[3].mediaTime = 1.9
        let (groups, omitted, _) = try Self.importer.groups(
            points: points, duration: Self.twoSeconds,
            creationDate: Self.creation, options: .init(offset: -0.3))
        #expect(omitted == 2)
        #expect(groups.map { $0.timeRange.start.seconds } == [0.2, 1.6])
    }

    @Test("missing speeds come from the distance to the next point")
    func speeds() throws {
        let (groups, _, _) = try Self.importer.groups(
            points: Self.points(3, speeds: false), duration: Self.twoSeconds,
            creationDate: Self.creation, options: .init())
        let fixes = groups.compactMap { GPSFix($0) }
        // 1e-4 degrees of latitude is 11.12 m; in 0.25 s that is 44.5 m/s, climbing 4 m/s.
        for fix in fixes {
            #expect(abs((fix.speed2D ?? 0) - 44.478) < 0.01, "\(fix)")
            #expect(abs((fix.speed3D ?? 0) - (44.478 * 44.478 + 16).squareRoot()) < 0.01, "\(fix)")
        }
    }

    @Test("without a creation time the first point is at zero, and the caller is told")
    func noCreationTime() throws {
        let (groups, _, notes) = try Self.importer.groups(
            points: Self.points(3, start: 5000), duration: Self.twoSeconds,
            creationDate: nil, options: .init())
        #expect(groups.first?.timeRange.start == .zero)
        #expect(notes.count == 1)
        #expect(notes.first?.contains("no creation time") == true)
    }

    @Test("no point within the video: an error saying where the track falls")
    func noOverlap() {
        #expect {
            _ = try Self.importer.groups(
                points: Self.points(3, start: -3600), duration: Self.twoSeconds,
                creationDate: Self.creation, options: .init())
        } throws: { error in
            guard let error = error as? ReelError else { return false }
            return error.code == .invalidArgument && error.path == "/tmp/t.gpx"
                && error.message.contains("no point falls within the video") && error.message.contains("-3600 s to -3599.5 s")
        }
    }

    @Test("auto writes GPS9 next to GPS5 when every fix has a time, GPS5 otherwise; a requested format wins")
    func autoFormat() throws {
        let (timed, _, _) = try Self.importer.groups(
            points: Self.points(4), duration: Self.twoSeconds,
            creationDate: Self.creation, options: .init())
        #expect(MetadataImporter.gpsFormat(for: timed) == .gps5AndGPS9)
        #expect(MetadataImporter.gpsFormat(for: timed, requested: .gps5) == .gps5)
        var untimed = timed
        untimed[1].items.removeAll { $0.identifier == .gpsTime }
        #expect(MetadataImporter.gpsFormat(for: untimed) == .gps5)
        #expect(MetadataImporter.gpsFormat(for: []) == .gps5)
        // What GPS9 keeps of a timed fix: its own time, DOP and fix type.
        let payload = try GPMFWriter.payload(fixes: timed.compactMap { GPSFix($0) }, options: .init(format: .gps5AndGPS9))
        let back = try GPMF.fixes(payload: payload, timeRange: TimeRange(start: .zero, duration: MediaTime(value: 1, timescale: 1)))
        #expect(back.map { $0.fix.time } == timed.map { GPSFix($0)?.time })
    }
}
