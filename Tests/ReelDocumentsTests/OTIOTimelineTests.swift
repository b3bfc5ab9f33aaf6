import Foundation
import Reel
import ReelDocuments
import ReelTestSupport
import Testing

@Suite("OTIOTimeline")
struct OTIOTimelineTests {
    static func time(_ value: Double, _ rate: Double) -> String {
        "{\"OTIO_SCHEMA\": \"RationalTime.1\", \"rate\": \(rate), \"value\": \(value)}"
    }

    static func document(
        clipSchema: String = "Clip.2", rate: Double = 30, start: Double = 0, frames: Double = 15,
        extra: String = ""
    ) -> Data {
        Data(
            """
            {"OTIO_SCHEMA": "Timeline.1", "name": "t", "tracks": {"OTIO_SCHEMA": "Stack.1", "children": [
              {"OTIO_SCHEMA": "Track.1", "kind": "Video", "children": [
                {"OTIO_SCHEMA": "\(clipSchema)", "name": "a"\(extra),
                 "source_range": {"OTIO_SCHEMA": "TimeRange.1", "start_time": \(time(start, rate)), "duration": \(time(frames, rate))},
                 "media_references": {"DEFAULT_MEDIA": {"OTIO_SCHEMA": "ExternalReference.1", "target_url": "a.mp4"}}}]}]}}
            """.utf8)
    }

    @Test(
        "NTSC rates written any way are exact: 29.97, 30000/1001 in full, 23.976, 59.94",
        arguments: [
            (29.97, 30000, 1001), (30000.0 / 1001.0, 30000, 1001), (23.976, 24000, 1001), (24000.0 / 1001.0, 24000, 1001),
            (59.94, 60000, 1001), (25.0, 25, 1), (12.5, 125, 10),
        ])
    func ratesAreExact(rate: Double, numerator: Int64, denominator: Int64) throws {
        let timeline = try OTIOTimeline.decode(Self.document(rate: rate, start: 3, frames: 1001))
        guard case .clip(let clip)? = timeline.tracks.children.first?.children.first, let range = clip.sourceRange else {
            Issue.record("no clip")
            return
        }
        #expect(range.timeRange.duration == MediaTime(value: 1001 * denominator, timescale: Int32(numerator)))
        #expect(range.timeRange.start == MediaTime(value: 3 * denominator, timescale: Int32(numerator)))
    }

    @Test("A clip's range read back after writing is the same")
    func roundTrip() throws {
        let timeline = try OTIOTimeline.decode(Self.document(rate: 29.97, start: 10, frames: 20))
        let again = try OTIOTimeline.decode(timeline.encoded())
        #expect(again == timeline)
    }

    @Test("An unknown type names its object path")
    func unknownType() {
        let error = expectReelError(.invalidComposition) { try OTIOTimeline.decode(Self.document(clipSchema: "Foo.1"), path: "e.otio") }
        #expect(error?.field == "tracks.children[0].children[0]")
        #expect(error?.message.hasPrefix("\"Foo.1\" is not supported") == true, "\(String(describing: error))")
    }

    @Test("A newer version of a known type is read while its fields fit, and says so when they do not")
    func newerVersions() throws {
        let timeline = try OTIOTimeline.decode(Self.document(clipSchema: "Clip.7", extra: ", \"new_field\": [1, 2]"))
        guard case .clip(let clip)? = timeline.tracks.children.first?.children.first else {
            Issue.record("no clip")
            return
        }
        #expect(clip.name == "a")
        let broken = Data(
            """
            {"OTIO_SCHEMA": "Timeline.1", "tracks": {"OTIO_SCHEMA": "Stack.1", "children": [{"OTIO_SCHEMA": "Track.1", "kind": "Video",
             "children": [{"OTIO_SCHEMA": "Gap.3", "source_range": 5}]}]}}
            """.utf8)
        let error = expectReelError(.invalidComposition) { try OTIOTimeline.decode(broken) }
        #expect(error?.message.contains("Gap.3 is newer than the Gap.1 this reel reads") == true, "\(String(describing: error))")
    }

    @Test("A truncated file names the JSON path it ends in, with line and column")
    func truncated() {
        let data = Self.document()
        let text = String(decoding: data, as: UTF8.self)
        let cut = text.range(of: "\"target_url\": \"a.")!.upperBound
        let error = expectReelError(.invalidComposition) { try OTIOTimeline.decode(Data(text[..<cut].utf8)) }
        #expect(error?.field == "tracks.children[0].children[0].media_references.DEFAULT_MEDIA.target_url")
        #expect(error?.message.contains("line 5") == true && error?.message.contains("truncated") == true, "\(String(describing: error))")
    }

    @Test("A wrong value names its path and quotes it")
    func wrongValue() {
        let data = Data(String(decoding: Self.document(), as: UTF8.self).replacingOccurrences(of: "\"kind\": \"Video\"", with: "\"kind\": \"Smell\"").utf8)
        let error = expectReelError(.invalidComposition) { try OTIOTimeline.decode(data) }
        #expect(error?.field == "tracks.children[0].kind")
        #expect(error?.message == "is \"Smell\": expected \"Video\" or \"Audio\"")
    }

    @Test("Clip.1's single media_reference is read")
    func clipVersionOne() throws {
        let text = String(decoding: Self.document(clipSchema: "Clip.1"), as: UTF8.self)
            .replacingOccurrences(of: "\"media_references\": {\"DEFAULT_MEDIA\": {", with: "\"media_reference\": {")
            .replacingOccurrences(of: "\"a.mp4\"}}}]}]}}", with: "\"a.mp4\"}}]}]}}")
        let timeline = try OTIOTimeline.decode(Data(text.utf8))
        guard case .clip(let clip)? = timeline.tracks.children.first?.children.first,
            case .external(let url, _, _, _)? = clip.mediaReference
        else {
            Issue.record("no clip with a reference")
            return
        }
        #expect(url == "a.mp4")
    }
}
