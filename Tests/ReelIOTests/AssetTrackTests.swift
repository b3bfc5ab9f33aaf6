import Foundation
import ReelCore
import ReelTestSupport
import Testing

@testable import ReelIO

@Suite("AssetTrack")
struct AssetTrackTests {
    func tracks(_ name: String) async throws -> [AssetTrack] {
        try await Asset(url: TestFiles.fixture(name)).load(.tracks)
    }

    @Test("counter fixture: H.264 320x240 at 30 fps and mono AAC, 2 s each")
    func counter() async throws {
        let t = try await tracks("counter-320x240.mp4")
        try #require(t.count == 2)
        let (video, audio) = (t[0], t[1])
        #expect(video.trackID == 1 && video.index == 0)
        #expect(video.naturalSize == Size(width: 320, height: 240))
        #expect(video.preferredTransform == .identity)
        #expect(video.nominalFrameRate == 30)
        #expect(video.minFrameDuration == MediaTime(value: 1, timescale: 30))
        #expect(video.timeRange == TimeRange(start: .zero, duration: MediaTime(value: 2, timescale: 1)))
        #expect(video.naturalTimeScale == 15360)
        #expect(video.codec == "h264" && video.format == "avc1")
        #expect(video.formatDescriptions.first?.pixelFormat == "yuv420p")
        #expect(video.handlerName == "VideoHandler")
        #expect(video.languageCode == "und")
        #expect(video.sampleCount == 60)
        #expect(video.startTimecode == nil)
        // The edit list's one edit: the media from its B-frame delay (1024 of 15360) over the whole timeline.
        #expect(
            video.segments == [
                TimeMapping(
                    source: TimeRange(start: MediaTime(value: 1024, timescale: 15360), duration: video.timeRange.duration),
                    target: video.timeRange)
            ])
        #expect(video.estimatedDataRate > 0)
        #expect(audio.trackID == 2 && audio.mediaType == .audio)
        #expect(audio.formatDescriptions.first?.sampleRate == 48000)
        #expect(audio.formatDescriptions.first?.channelCount == 1)
        #expect(audio.codec == "aac" && audio.format == "mp4a")
        #expect(audio.minFrameDuration == .invalid)
    }

    @Test("the display matrix becomes the preferred transform")
    func rotated() async throws {
        let video = try #require(try await tracks("rotated-90.mp4").first)
        #expect(video.preferredTransform == Transform2D(a: 0, b: -1, c: 1, d: 0, tx: 0, ty: 0))
        #expect(video.rotationDegrees == 90)
        #expect(video.naturalSize == Size(width: 320, height: 240))
        let (transform, size) = try await video.load(.preferredTransform, .naturalSize)
        #expect(transform == video.preferredTransform && size == video.naturalSize)
    }

    @Test("variable frame rate: the shortest frame gap from the sample table")
    func variableFrameRate() async throws {
        let video = try #require(try await tracks("vfr.mp4").first)
        #expect(video.minFrameDuration == MediaTime(value: 1000, timescale: 30000))
        #expect(video.nominalFrameRate < 30 && video.nominalFrameRate > 15)
        #expect(video.sampleCount == 45)
    }

    @Test("a track that starts late has an empty edit first")
    func editList() async throws {
        let t = try await tracks("edit-list.mp4")
        let video = try #require(t.first)
        #expect(video.timeRange.start == MediaTime(value: 1, timescale: 2))
        try #require(video.segments.count == 2)
        #expect(video.segments[0].isEmpty)
        #expect(video.segments[0].target == TimeRange(start: .zero, duration: MediaTime(value: 1, timescale: 2)))
        #expect(video.segments[1].source == TimeRange(start: MediaTime(value: 1024, timescale: 15360), duration: video.timeRange.duration))
        #expect(video.segments[1].target == video.timeRange)
        // The sound's own edits: 478 ms of nothing, then its media from the start.
        let audio = try #require(t.first { $0.mediaType == .audio })
        #expect(
            audio.segments == [
                TimeMapping(emptyTarget: TimeRange(start: .zero, duration: MediaTime(value: 478, timescale: 1000))),
                TimeMapping(
                    source: TimeRange(start: .zero, duration: MediaTime(value: 2022, timescale: 1000)),
                    target: TimeRange(start: MediaTime(value: 478, timescale: 1000), duration: MediaTime(value: 2022, timescale: 1000))),
            ])
        let duration = try await Asset(url: TestFiles.fixture("edit-list.mp4")).load(.duration)
        #expect(duration == MediaTime(value: 5, timescale: 2))
    }

    @Test("sample presentation time: the frame shown at a track time")
    func samplePresentationTime() async throws {
        let video = try #require(try await tracks("counter-320x240.mp4").first)
        let at1 = try await video.loadSamplePresentationTime(forTrackTime: MediaTime(value: 101, timescale: 100))
        #expect(at1 == MediaTime(value: 1, timescale: 1))
        let justBefore = try await video.loadSamplePresentationTime(forTrackTime: MediaTime(value: 999, timescale: 1000))
        #expect(justBefore == MediaTime(value: 29, timescale: 30))
        let start = try await video.loadSamplePresentationTime(forTrackTime: .zero)
        #expect(start == .zero)
        let late = try await video.loadSamplePresentationTime(forTrackTime: MediaTime(value: 5, timescale: 1))
        #expect(late == MediaTime(value: 59, timescale: 30))
    }

    @Test("Matroska: track IDs count from 1 in stream order, durations from the DURATION tag")
    func matroska() async throws {
        let t = try await tracks("chapters.mkv")
        #expect(t.map(\.mediaType) == [.video, .subtitle])
        #expect(t.map(\.trackID) == [1, 2])
        #expect(t[1].timeRange.duration == MediaTime(value: 4, timescale: 5))
        #expect(t[1].languageCode == "eng")
        #expect(t[1].hasMediaCharacteristic(.legible))
    }

    @Test(
        "GoPro MAX: timecode, GPMF metadata and data tracks, with handlers",
        .requires(.sharedMedia))
    func goPro() async throws {
        let asset = Asset(url: TestFiles.sharedMedia("gpmf-parser_max-heromode.mp4"))
        let t = try await asset.load(.tracks)
        #expect(t.map(\.mediaType) == [.video, .audio, .timecode, .metadata, .data])
        #expect(t.map(\.trackID) == [1, 2, 3, 4, 5])
        #expect(t.map(\.format) == ["avc1", "mp4a", "tmcd", "gpmd", "fdsc"])
        #expect(t.map(\.codec) == ["h264", "aac", "none", "bin_data", "none"])
        #expect(t.map(\.handlerName) == ["GoPro AVC", "GoPro AAC", "GoPro TCD", "GoPro MET", "GoPro SOS"])
        #expect(t[3].naturalTimeScale == 1000)
        #expect(t[3].sampleCount == 11)
        #expect(t[0].naturalSize == Size(width: 848, height: 480))
        #expect(abs(t[0].nominalFrameRate - 29.97) < 0.01)
        #expect(t[0].minFrameDuration == MediaTime(value: 1001, timescale: 30000))
        let described = try await t[3].loadAssociatedTracks(ofType: .metadataReferent)
        #expect(described.map(\.trackID) == [1])
        let timecode = try await t[0].loadAssociatedTracks(ofType: .timecode)
        #expect(timecode.map(\.trackID) == [3])
        // Only the file's `tref` says that the audio track has a timecode track too.
        #expect(try await t[1].loadAssociatedTracks(ofType: .timecode).map(\.trackID) == [3])
        #expect(try await t[3].loadAssociatedTracks(ofType: .timecode).isEmpty)
        // The camera's time of day at the first frame, from the timecode track's sample.
        #expect(t[2].startTimecode == Timecode(hours: 15, minutes: 44, seconds: 35, frames: 10))
        #expect(t[0].startTimecode == t[2].startTimecode)
        #expect(t[3].startTimecode == nil)
        let metadataTracks = try await asset.loadTracks(withMediaCharacteristic: .containsTimedMetadata)
        #expect(metadataTracks.map(\.trackID) == [4])
        #expect(asset.openCount == 1)
    }

    @Test(
        "iPhone MOV: two mebx metadata tracks",
        .requires(.sharedMedia))
    func iPhone() async throws {
        let t = try await Asset(url: TestFiles.sharedMedia("nom-exif_meta.mov")).load(.tracks)
        #expect(t.map(\.mediaType) == [.video, .audio, .metadata, .metadata])
        #expect(t[2].format == "mebx" && t[3].format == "mebx")
        #expect(t[2].handlerName == "Core Media Metadata")
        // The file has no `tref`: each metadata track is taken to describe the video track.
        #expect(try await t[2].loadAssociatedTracks(ofType: .metadataReferent).map(\.trackID) == [1])
        #expect(try await t[3].loadAssociatedTracks(ofType: .metadataReferent).map(\.trackID) == [1])
        #expect(try await t[0].loadAssociatedTracks(ofType: .metadataReferent).isEmpty)
    }

    @Test(
        "MPEG-TS with KLV: PIDs as track IDs, klv format",
        .requires(.sharedMedia))
    func klv() async throws {
        let t = try await Asset(url: TestFiles.sharedMedia("kwiver_mpeg2_klv.ts")).load(.tracks)
        #expect(t.map(\.trackID) == [0x100, 0x101])
        #expect(t.map(\.mediaType) == [.video, .metadata])
        #expect(t[1].format == "klv" && t[1].codec == "klv")
        #expect(t[1].naturalTimeScale == 90000)
    }

    @Test(
        "the frames of an interlaced H.264 track coded as field pictures last a frame, not a field (av_guess_frame_rate, not r_frame_rate)",
        .requires(.sharedMedia))
    func fieldPicturesFrameDuration() async throws {
        // 29.97 frames a second, each coded as two field pictures: FFmpeg's base rate is 59.94.
        let t = try await Asset(url: TestFiles.sharedMedia("kwiver_aphill_short.ts")).load(.tracks)
        let video = try #require(t.first { $0.mediaType == .video })
        #expect(video.minFrameDuration == MediaTime(value: 1001, timescale: 30000))
    }
}
