import Foundation
import Reel
import ReelDocuments
import ReelTestSupport
import ReelTesting
import Testing

/// Caption tracks in composition files: carried through the edit into the render, from a
/// media file's track or a caption file, and burnt in by the `captions` compositor.
@Suite("CompositionFile captions")
struct CompositionFileCaptionsTests {
    static func ms(_ v: Int64) -> MediaTime { MediaTime(value: v, timescale: 1000) }

    static let captions = [
        Caption(spans: [.init("Hello "), .init("world", CaptionStyle(italic: true))], timeRange: TimeRange(start: ms(500), end: ms(1500))),
        Caption("second", timeRange: TimeRange(start: ms(2000), end: ms(3250))),
    ]

    /// A 4 s source "clip": a 64x64 video track 1 and a caption track of `type`.
    static func clip(captionTrackID: Int32, type: MediaType) -> SourceDescription {
        let seconds = TimeRange(start: .zero, duration: MediaTime(value: 4, timescale: 1))
        return SourceDescription(
            identifier: "clip",
            tracks: [
                SourceTrackDescription(
                    reference: SourceTrackReference(sourceIdentifier: "clip", trackID: 1), mediaType: .video, timeRange: seconds,
                    naturalSize: Size(width: 64, height: 64), nominalFrameDuration: MediaTime(value: 1, timescale: 10)),
                SourceTrackDescription(reference: SourceTrackReference(sourceIdentifier: "clip", trackID: captionTrackID), mediaType: type, timeRange: seconds),
            ])
    }

    /// Two segments of the clip: source 1-2 s at 0, source 2.5-4 s at 1 s.
    static let twoSegments = """
        {"version": 1, "sources": [{"name": "clip", "path": "clip.mp4"}],
         "tracks": [{"trackID": 1, "mediaType": "video",
                     "segments": [{"source": "clip", "sourceStart": 1, "duration": 1}, {"source": "clip", "sourceStart": 2.5, "duration": 1.5}]}],
         "instructions": [{"timeRange": {"start": 0, "end": "end"}, "layerInstructions": [{"trackID": 1}]}],
         "output": {"video": {"codec": "h264", "preset": "ultrafast"}}}
        """

    @Test func aCaptionFileIsASourceWithOneTrack() throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let srt = folder.appendingPathComponent("subs.srt")
        try SRT.write(Self.captions).write(to: srt)
        let source = try SourceDescription.captionFile(srt, identifier: "subs")
        #expect(source.tracks.map(\.trackID) == [1])
        #expect(source.tracks.first?.mediaType == .subtitle)
        #expect(source.tracks.first?.timeRange == TimeRange(start: .zero, end: Self.ms(3250)))
        try Data("1\n00:00:01,000 --> nonsense\nx\n".utf8).write(to: srt)
        expectReelError(.captionFormat) { _ = try SourceDescription.captionFile(srt, identifier: "subs") }
    }

    @Test func captionsTracksFollowThePictureUnlessTurnedOff() throws {
        let clip = Self.clip(captionTrackID: 2, type: .text)
        let file = try CompositionFile.decode(Data(Self.twoSegments.utf8))
        let composition = try file.addingSourceCaptions(to: file.makeComposition(sources: ["clip": clip]), sources: ["clip": clip])
        let captions = try #require(composition.track(withTrackID: 2))
        #expect(captions.mediaType == .text)
        #expect(
            captions.segments.map(\.sourceTrack) == [
                SourceTrackReference(sourceIdentifier: "clip", trackID: 2), SourceTrackReference(sourceIdentifier: "clip", trackID: 2),
            ])
        #expect(captions.segments.map(\.timeMapping.source.start) == [MediaTime(value: 1, timescale: 1), Self.ms(2500)])

        var off = file
        off.output?.captions = false
        #expect(try off.addingSourceCaptions(to: off.makeComposition(sources: ["clip": clip]), sources: ["clip": clip]).tracks.count == 1)
    }

    @Test func aCaptionsTrackPlaysAnyCaptionTrackAndRefusesOthers() throws {
        let clip = Self.clip(captionTrackID: 3, type: .subtitle)
        func file(_ segment: String) throws -> CompositionFile {
            try CompositionFile.decode(
                Data(
                    """
                    {"version": 1, "sources": [{"name": "clip", "path": "clip.mkv"}],
                     "tracks": [{"trackID": 1, "mediaType": "video", "segments": [{"source": "clip"}]},
                                {"trackID": 2, "mediaType": "captions", "segments": [{"empty": 1}, \(segment)]}],
                     "instructions": [{"timeRange": {"start": 0, "end": "end"}, "requiredSourceCaptionTrackIDs": [2], "layerInstructions": [{"trackID": 1}]}],
                     "compositor": {"name": "captions"}}
                    """.utf8))
        }
        let made = try file(#"{"source": "clip", "duration": 2}"#).makeComposition(sources: ["clip": clip])
        #expect(made.track(withTrackID: 2)?.mediaType == .subtitle)
        #expect(made.track(withTrackID: 2)?.segments.last?.sourceTrack?.trackID == 3)
        let error = expectReelError(.invalidComposition) {
            _ = try file(#"{"source": "clip", "sourceTrackID": 1}"#).makeComposition(sources: ["clip": clip], path: "c.json")
        }
        #expect(error?.field == "tracks[1].segments[1].sourceTrackID")
        #expect(error?.message.contains("is a video track, but tracks[1] is a captions track") == true)
    }

    // MARK: Burn-in

    /// A composition file burning `subs.srt` into `video` with the `captions` compositor,
    /// writing no caption track.
    static func burnJSON(video: URL) -> String {
        """
        {"version": 1, "sources": [{"name": "camera", "path": "\(video.path)"}, {"name": "subs", "path": "subs.srt"}],
         "tracks": [{"trackID": 1, "mediaType": "video", "segments": [{"source": "camera"}]},
                    {"trackID": 2, "mediaType": "captions", "segments": [{"source": "subs"}]}],
         "instructions": [{"timeRange": {"start": 0, "end": "end"}, "requiredSourceCaptionTrackIDs": [2], "layerInstructions": [{"trackID": 1}]}],
         "compositor": {"name": "captions"}, "output": {"captions": false}}
        """
    }

    /// The frame the composition file renders at `time`.
    static func renderedFrame(video: URL, captions: [Caption], at time: MediaTime) async throws -> PixelBuffer {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try SRT.write(captions).write(to: folder.appendingPathComponent("subs.srt"))
        let json = folder.appendingPathComponent("c.json")
        try Data(burnJSON(video: video).utf8).write(to: json)
        let loaded = try await LoadedComposition.load(path: json.path)
        // Not written (output.captions is false), still drawn.
        #expect(loaded.composition.track(withTrackID: 2)?.isEnabled == false)
        var options = RenderEngine.Options()
        options.timeRange = TimeRange(start: time, duration: loaded.videoComposition.frameDuration)
        options.preferredPixelFormat = .bgra
        let engine = RenderEngine(
            composition: loaded.composition, videoComposition: loaded.videoComposition,
            sources: AssetRenderSources(files: loaded.sourceURLs), options: options)
        return try #require(try await engine.renderAll().first?.pixelBuffer)
    }

    static let styled = Caption(
        spans: [
            .init("Burnt "), .init("bold", CaptionStyle(fontWeight: .bold)), .init(" and "),
            .init("italic", CaptionStyle(italic: true)),
        ],
        timeRange: TimeRange(start: ms(250), end: ms(750)))

    @Test(.requires(.dejaVuFont))
    func theCaptionsCompositorBurnsTheCaptionShowing() async throws {
        let counter = TestFiles.fixture("counter-320x240.mp4")
        let frame = try await Self.renderedFrame(video: counter, captions: [Self.styled], at: MediaTime(value: 15, timescale: 30))
        try Golden(nextTo: #filePath).verify(frame, named: "composition-captions", tolerance: .init(maximumChannelDifference: 2))
        // Before the caption shows, the picture is the source's; while it shows, it is not.
        let before = try await Self.renderedFrame(video: counter, captions: [Self.styled], at: MediaTime(value: 3, timescale: 30))
        #expect(ImageComparison(expected: RasterImage(try Self.sourceFrame(3, of: counter)), actual: RasterImage(before)).psnr > 45)
        #expect(ImageComparison(expected: RasterImage(try Self.sourceFrame(15, of: counter)), actual: RasterImage(frame)).psnr < 30)
    }

    /// Frame `n` of `url`'s video as decoded, in BGRA.
    static func sourceFrame(_ n: Int, of url: URL) throws -> PixelBuffer {
        let reader = try AssetReader(url: url)
        let id = try #require(reader.tracks(withMediaType: .video).first?.trackID)
        let output = AssetReaderTrackOutput(trackID: id, settings: .video(pixelFormat: .bgra), bufferCapacity: 4)
        try reader.add(output)
        try reader.startReading()
        var i = 0
        while let sample = try output.nextSample() {
            guard let frame = sample.videoFrame else { continue }
            if i == n { return frame.pixelBuffer }
            i += 1
        }
        throw ReelError(.internalError, "\(url.lastPathComponent) has fewer than \(n + 1) frames")
    }

    @Test(.requires(.dejaVuFont))
    func phoneFootageGetsItsCaptionsOnTheUprightPicture() async throws {
        // 160x120 stored, shown turned a quarter: 120x160 upright.
        let frame = try await Self.renderedFrame(
            video: TestFiles.fixture("portrait.mp4"),
            captions: [Caption("Upright", timeRange: TimeRange(start: .zero, end: Self.ms(1000)))],
            at: MediaTime(value: 12, timescale: 25))
        #expect(frame.width == 120 && frame.height == 160)
        try Golden(nextTo: #filePath).verify(frame, named: "composition-captions-portrait", tolerance: .init(maximumChannelDifference: 2))
    }
}
