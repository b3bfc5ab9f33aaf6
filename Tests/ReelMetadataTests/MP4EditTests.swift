import Foundation
import ReelCore
import ReelMetadata
import ReelTestSupport
import Testing

@Suite struct MP4EditTests {
    static func ms(_ value: Int64) -> MediaTime { MediaTime(value: value, timescale: 1000) }
    static func range(_ start: Int64, _ duration: Int64) -> TimeRange { TimeRange(start: ms(start), duration: ms(duration)) }

    /// A track of 8 s of media (timescale 1000) with these edits.
    static func track(_ edits: [MP4Edit]) -> MP4Track {
        MP4Track(
            trackID: 1, handlerType: FourCC("vide"), handlerName: "", timescale: 1000, duration: 8000,
            sampleEntries: [], sampleTable: MP4SampleTable(), references: [:], edits: edits)
    }

    @Test func eachEditIsOneMappingFromTheMediaToTheMovieTimeline() {
        // Movie timescale 600: 300 is 0.5 s.
        let track = Self.track([
            MP4Edit(segmentDuration: 300, mediaTime: -1),  // nothing for 0.5 s
            MP4Edit(segmentDuration: 1200, mediaTime: 500),  // 2 s from 0.5 s in
            MP4Edit(segmentDuration: 60, mediaTime: 2000, mediaRate: 0),  // hold 2 s for 0.1 s
            MP4Edit(segmentDuration: 600, mediaTime: 3000, mediaRate: 0x20000),  // 2 s of media in 1 s
            MP4Edit(segmentDuration: 0, mediaTime: 5000),  // the rest of the media
        ])
        let mappings = track.timeMappings(movieTimescale: 600)
        #expect(
            mappings == [
                TimeMapping(emptyTarget: Self.range(0, 500)),
                TimeMapping(source: Self.range(500, 2000), target: Self.range(500, 2000)),
                TimeMapping(source: Self.range(2000, 0), target: Self.range(2500, 100)),
                TimeMapping(source: Self.range(3000, 2000), target: Self.range(2600, 1000)),
                TimeMapping(source: Self.range(5000, 3000), target: Self.range(3600, 3000)),
            ], "\(mappings)")
        #expect(mappings[3].rate == 2)
    }

    @Test func noEditListOrNoTimescaleGivesNoMappings() {
        #expect(Self.track([]).timeMappings(movieTimescale: 600).isEmpty)
        #expect(Self.track([MP4Edit(segmentDuration: 300, mediaTime: 0)]).timeMappings(movieTimescale: 0).isEmpty)
        // An empty edit of no length, and an edit of no length past the media's end, map nothing.
        #expect(
            Self.track([MP4Edit(segmentDuration: 0, mediaTime: -1), MP4Edit(segmentDuration: 0, mediaTime: 9000)])
                .timeMappings(movieTimescale: 600).isEmpty)
    }

    @Test func aFilesEditListIsReadFromItsBoxes() throws {
        // Made by ffmpeg with -output_ts_offset 0.5: an empty edit, then the media from its
        // B-frame delay (1024 of 15360).
        let file = try MP4File(contentsOf: TestFiles.fixture("edit-list.mp4"))
        let video = try #require(try file.tracks().first { $0.handlerType == FourCC("vide") })
        #expect(
            video.timeMappings(movieTimescale: try file.movieTimescale()) == [
                TimeMapping(emptyTarget: Self.range(0, 500)),
                TimeMapping(
                    source: TimeRange(start: MediaTime(value: 1024, timescale: 15360), duration: MediaTime(value: 2, timescale: 1)),
                    target: Self.range(500, 2000)),
            ])
    }
}
