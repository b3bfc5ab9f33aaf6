import Foundation
import Reel
import ReelDocuments
import ReelTestSupport
import Testing

@Suite("OTIOImport")
struct OTIOImportTests {
    static func t(_ frames: Double) -> OTIORationalTime { OTIORationalTime(value: frames, rate: 30) }
    static func clip(_ name: String, _ start: Double, _ frames: Double, markers: [OTIOMarker] = []) -> OTIOItem {
        .clip(
            OTIOClip(
                name: name, sourceRange: OTIOTimeRange(startTime: t(start), duration: t(frames)),
                mediaReference: .external(targetURL: "cam.mp4", availableRange: nil, name: "", metadata: [:]), markers: markers))
    }
    static func seconds(_ frames: Int64) -> MediaTime { MediaTime(value: frames, timescale: 30) }

    /// Cut, dissolve (5 frames each side), and a marker on the last clip at its media's frame 50.
    static let timeline = OTIOTimeline(
        name: "e",
        tracks: OTIOStack(
            children: [
                OTIOTrack(
                    kind: OTIOTrack.video,
                    children: [
                        clip("a", 0, 15), clip("b", 30, 15),
                        .transition(OTIOTransition(inOffset: t(5), outOffset: t(5))),
                        clip("c", 45, 15, markers: [OTIOMarker(name: "here", markedRange: OTIOTimeRange(startTime: t(50), duration: t(0)))]),
                    ])
            ], markers: [OTIOMarker(name: "start", markedRange: OTIOTimeRange(startTime: t(0), duration: t(0)))]))

    @Test("A dissolve puts the incoming clip on a second track under the outgoing one, whose opacity ramps down over both offsets")
    func dissolve() throws {
        let converted = try Self.timeline.compositionFile(baseDirectory: URL(fileURLWithPath: "/media")) { _ in
            OTIOMediaInfo(hasAudio: false, hasTimedMetadata: true)
        }
        let file = converted.file
        #expect(file.sources == [CompositionFile.Source(name: "cam", path: "cam.mp4")])
        let video = file.tracks.filter { $0.mediaType == .video }
        #expect(video.count == 2)
        // Roll 0: a, then b up to 5 frames past the cut; roll 1: c from 5 frames before it.
        #expect(
            video[0].segments == [
                .init(source: "cam", sourceStart: .zero, duration: Self.seconds(15)),
                .init(source: "cam", sourceStart: Self.seconds(30), duration: Self.seconds(20)),
            ])
        #expect(video[1].segments == [.init(empty: Self.seconds(25)), .init(source: "cam", sourceStart: Self.seconds(40), duration: Self.seconds(20))])
        // The metadata track plays the kept stretches only: 0..0.5, 1..1.5, 1.5..2 s.
        let metadata = file.tracks.filter { $0.mediaType == .metadata }
        #expect(
            metadata.first?.segments == [
                .init(source: "cam", sourceStart: .zero, duration: Self.seconds(15)),
                .init(source: "cam", sourceStart: Self.seconds(30), duration: Self.seconds(15)),
                .init(source: "cam", sourceStart: Self.seconds(45), duration: Self.seconds(15)),
            ])
        #expect(file.sourceSampleDataTrackIDs == metadata.map(\.trackID))
        // Instructions split at the cuts and the dissolve's edges; in the dissolve roll 0 is on top.
        let starts = file.instructions.map(\.timeRange.range.start)
        #expect(starts == [.zero, Self.seconds(15), Self.seconds(25), Self.seconds(30), Self.seconds(35)])
        let first = file.instructions[2].layerInstructions?.first
        #expect(first?.trackID == video[0].trackID && first?.opacityRamps?.first?.from == 1 && first?.opacityRamps?.first?.to == 0.5)
        #expect(file.instructions[3].layerInstructions?.first?.opacityRamps?.first?.to == 0)
        #expect(file.instructions.allSatisfy { $0.requiredSourceSampleDataTrackIDs == metadata.map(\.trackID) })
        // Markers: the stack's at 0, the clip's at its media's frame 50, i.e. 35 frames in.
        #expect(
            file.output?.chapters == [
                CompositionFile.Output.Chapter(title: "start", start: .zero),
                CompositionFile.Output.Chapter(title: "here", start: Self.seconds(35)),
            ])
    }

    @Test("Reel's settings come from metadata.reel; a wrong one names its path")
    func settings() throws {
        var timeline = Self.timeline
        timeline.metadata["reel"] = .object(["compositor": .object(["name": .string("gps-dashboard")]), "timedMetadata": .bool(false)])
        let file = try timeline.compositionFile(baseDirectory: URL(fileURLWithPath: "/media")) { _ in
            OTIOMediaInfo(hasAudio: true, hasTimedMetadata: true)
        }.file
        #expect(file.compositor?.name == "gps-dashboard")
        #expect(file.tracks.filter { $0.mediaType == .metadata }.isEmpty)
        #expect(file.tracks.filter { $0.mediaType == .audio }.count == 2)
        timeline.metadata["reel"] = .object(["renderScale": .string("big")])
        let error = expectReelError(.invalidComposition) { try timeline.compositionFile(baseDirectory: URL(fileURLWithPath: "/")) }
        #expect(error?.field == "metadata.reel.renderScale")
    }

    @Test("A missing media reference names the clip")
    func missingReference() {
        let timeline = OTIOTimeline(
            tracks: OTIOStack(children: [
                OTIOTrack(
                    kind: OTIOTrack.video,
                    children: [
                        .clip(
                            OTIOClip(
                                name: "lost", sourceRange: OTIOTimeRange(startTime: Self.t(0), duration: Self.t(5)),
                                mediaReference: .missing(name: "", metadata: [:])))
                    ])
            ]))
        let error = expectReelError(.invalidComposition) { try timeline.compositionFile(baseDirectory: URL(fileURLWithPath: "/")) }
        #expect(error?.field == "tracks.children[0].children[0].media_references.DEFAULT_MEDIA")
        #expect(error?.message.contains("clip \"lost\"") == true)
    }
}
