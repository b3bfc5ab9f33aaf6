import Foundation
import Reel
import ReelTestSupport
import Testing

@Suite struct AssetExportSessionTests {
    let counter = TestFiles.fixture("counter-320x240.mp4")

    static func seconds(_ s: Double) -> MediaTime { MediaTime(seconds: s, preferredTimescale: 15360) }

    /// Exports lossless (FFV1 in MOV) so the output frames can be compared exactly.
    func exportLossless(
        _ composition: Composition, videoComposition: VideoComposition? = nil,
        timeRange: TimeRange? = nil, in folder: URL
    ) async throws -> [VideoFrame] {
        let session = AssetExportSession(composition: composition, preset: .lossless)
        session.videoComposition = videoComposition
        session.timeRange = timeRange
        let out = folder.appendingPathComponent("out.mov")
        try await session.export(to: out, as: .mov)
        #expect(session.status == .completed)
        #expect(session.progress == 1)
        return try await TestFrames.decodeAll(out)
    }

    @Test func joiningClipsGivesTheSourceFramesAtTheMappedTimes() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let reference = try await TestFrames.decodeAll(counter)
        let source = try await SourceDescription(asset: Asset(url: counter))
        var composition = MutableComposition()
        // Frames 30..<60, then frames 5..<20 (a jump back into the same file).
        try composition.insertTimeRange(TimeRange(start: .ratio(1, 1), duration: .ratio(1, 1)), of: source, at: .zero)
        try composition.insertTimeRange(TimeRange(start: .ratio(5, 30), duration: .ratio(15, 30)), of: source, at: .ratio(1, 1))
        let frames = try await exportLossless(Composition(composition), in: folder)
        let expected = Array(30..<60) + Array(5..<20)
        try #require(frames.count == expected.count)
        for (n, frame) in frames.enumerated() {
            #expect(frame.presentationTime == MediaTime.ratio(Int64(n), 30), "output frame \(n) time")
            let want = reference[expected[n]].pixelBuffer
            #expect(
                frame.pixelBuffer.hasSamePixels(as: want),
                "output frame \(n) should be source frame \(expected[n]), closest is \(TestFrames.closest(frame.pixelBuffer, in: reference).index)")
        }
    }

    @Test(arguments: [ExportPreset.h264(crf: 23, preset: "veryfast"), .passthrough])
    func phoneFootageKeepsItsDisplayMatrix(preset: ExportPreset) async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = TestFiles.fixture("portrait.mp4")
        let source = try #require(try await Asset(url: url).load(.tracks).first { $0.mediaType == .video })
        #expect(source.preferredTransform == Transform2D(a: 0, b: 1, c: -1, d: 0, tx: 0, ty: 0))
        let session = AssetExportSession(composition: try await Composition(asset: Asset(url: url)), preset: preset)
        let out = folder.appendingPathComponent("out.mp4")
        try await session.export(to: out, as: .mp4)
        let track = try #require(try await Asset(url: out).load(.tracks).first { $0.mediaType == .video })
        #expect(track.preferredTransform == source.preferredTransform)
        #expect(track.naturalSize == Size(width: 160, height: 120))
    }

    @Test func aVideoCompositionsOutputHasNoDisplayMatrix() async throws {
        // As in AVFoundation: a video composition draws the picture as it is to be shown.
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let composition = try await Composition(asset: Asset(url: TestFiles.fixture("portrait.mp4")))
        let session = AssetExportSession(composition: composition, preset: .h264(crf: 23, preset: "veryfast"))
        session.videoComposition = VideoComposition(propertiesOf: composition)
        let out = folder.appendingPathComponent("out.mp4")
        try await session.export(to: out, as: .mp4)
        let track = try #require(try await Asset(url: out).load(.tracks).first { $0.mediaType == .video })
        #expect(track.preferredTransform == .identity)
    }

    @Test func aCrossfadeBlendsTheExpectedFramesEveryFrame() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let reference = try await TestFrames.decodeAll(counter)
        let source = try await SourceDescription(asset: Asset(url: counter))
        let video = try #require(source.tracks(withMediaType: .video).first)
        var composition = MutableComposition()
        let a = composition.addMutableTrack(withMediaType: .video)
        let b = composition.addMutableTrack(withMediaType: .video)
        // A: source [0, 1.5) at 0. B: source [0.5, 2) at 1. They overlap over [1, 1.5).
        try composition.insertTimeRange(TimeRange(start: .zero, duration: .ratio(3, 2)), of: video, intoTrackWithID: a, at: .zero)
        try composition.insertTimeRange(TimeRange(start: .ratio(1, 2), duration: .ratio(3, 2)), of: video, intoTrackWithID: b, at: .ratio(1, 1))
        let fade = TimeRange(start: .ratio(1, 1), duration: .ratio(1, 2))
        var fadeOut = VideoCompositionLayerInstruction(trackID: a)
        fadeOut.setOpacityRamp(fromStartOpacity: 1, toEndOpacity: 0, timeRange: fade)
        var v = MutableVideoComposition(propertiesOf: Composition(composition))
        v.instructions = [
            VideoCompositionInstruction(timeRange: TimeRange(start: .zero, duration: .ratio(1, 1)), layerInstructions: [.init(trackID: a)]),
            VideoCompositionInstruction(timeRange: fade, layerInstructions: [fadeOut, .init(trackID: b)]),
            VideoCompositionInstruction(timeRange: TimeRange(start: .ratio(3, 2), duration: .ratio(1, 1)), layerInstructions: [.init(trackID: b)]),
        ]
        let frames = try await exportLossless(Composition(composition), videoComposition: VideoComposition(v), in: folder)
        try #require(frames.count == 75)
        for (n, frame) in frames.enumerated() {
            let pixels = frame.pixelBuffer
            if n < 30 {
                #expect(pixels.hasSamePixels(as: reference[n].pixelBuffer), "frame \(n) is A's frame \(n)")
            } else if n >= 45 {
                #expect(pixels.hasSamePixels(as: reference[n - 15].pixelBuffer), "frame \(n) is B's frame \(n - 15)")
            } else {
                let opacity = fadeOut.opacity(at: .ratio(Int64(n), 30))
                let want = Self.blend(top: reference[n].pixelBuffer, bottom: reference[n - 15].pixelBuffer, opacity: opacity)
                let diff = TestFrames.maximumDifference(pixels, want)
                #expect(diff <= 2, "frame \(n): A \(n) over B \(n - 15) at opacity \(opacity) differs by \(diff)")
                // A neighbouring pair of source frames would not match.
                let wrong = Self.blend(top: reference[n + 1].pixelBuffer, bottom: reference[n - 14].pixelBuffer, opacity: opacity)
                #expect(TestFrames.maximumDifference(pixels, wrong) > 2)
            }
        }
    }

    /// Exports made by a preset keep the video's own span: the fragmented file's pictures
    /// start 2 frames after its sound (a B-frame delay with no edit list) and end 2 frames
    /// before it; no black frame is made before the first picture nor a copy after the last.
    @Test(.requires(.ffmpeg))
    func anExportWithoutAVideoCompositionKeepsTheVideosOwnSpan() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let clip = folder.appendingPathComponent("fragmented.mp4")
        _ = try TestTools.run(
            "ffmpeg",
            [
                "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=30:duration=1",
                "-f", "lavfi", "-i", "sine=duration=1.1", "-c:v", "libx264", "-bf", "2", "-c:a", "aac",
                "-movflags", "frag_keyframe+empty_moov", clip.path,
            ]
        ).succeeded("ffmpeg")
        let video = try #require(try await Asset(url: clip).load(.tracks).first { $0.mediaType == .video })
        try #require(video.timeRange.start > .zero)
        let session = try await AssetExportSession(asset: Asset(url: clip), preset: .lossless)
        let out = folder.appendingPathComponent("out.mov")
        try await session.export(to: out, as: .mov)
        let frames = try await TestFrames.decodeAll(out)
        #expect(frames.count == 30)
        #expect(frames.first.map { abs(($0.presentationTime - video.timeRange.start).seconds) < 0.001 } == true)
        // testsrc2's first picture is bright, not the black of an empty stretch.
        let first = try #require(frames.first?.pixelBuffer)
        let luma = first.withUnsafeBytes(plane: 0) { bytes in bytes.prefix(first.width).reduce(0) { $0 + Int($1) } / first.width }
        #expect(luma > 40)
    }

    @Test func variableFrameRateAndEditListSourcesRenderTheFrameShowingAtEachTime() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let vfr = TestFiles.fixture("vfr.mp4"), edited = TestFiles.fixture("edit-list.mp4")
        let vfrFrames = try await TestFrames.decodeAll(vfr)
        let editFrames = try await TestFrames.decodeAll(edited)
        var composition = MutableComposition()
        try await composition.insertTimeRange(TimeRange(start: .zero, duration: .ratio(19, 10)), of: Asset(url: vfr), at: .zero)
        try await composition.insertTimeRange(TimeRange(start: .zero, duration: .ratio(5, 2)), of: Asset(url: edited), at: .ratio(19, 10))
        var v = MutableVideoComposition(propertiesOf: Composition(composition))
        v.renderSize = Size(width: 320, height: 240)
        v.frameDuration = .ratio(1, 30)
        // The vfr clip is 160x120: show it scaled up to the render size.
        var scaled = VideoCompositionLayerInstruction(trackID: 1)
        scaled.setTransform(Transform2D(scaleX: 2, y: 2), at: .zero)
        v.instructions = [
            VideoCompositionInstruction(timeRange: TimeRange(start: .zero, duration: .ratio(19, 10)), layerInstructions: [scaled]),
            VideoCompositionInstruction(timeRange: TimeRange(start: .ratio(19, 10), duration: .ratio(5, 2)), layerInstructions: [.init(trackID: 1)]),
        ]
        let frames = try await exportLossless(Composition(composition), videoComposition: VideoComposition(v), in: folder)
        try #require(frames.count == 132)
        var vfrMatched = 0
        for (n, frame) in frames.enumerated() {
            let t = MediaTime.ratio(Int64(n), 30)
            if n < 57 {
                // Scaled 160x120 frames: compare with the vfr frame scaled the same way, by
                // picking the closest among the source frames (downscaled output).
                let expected = try #require(TestFrames.index(in: vfrFrames, at: t))
                let small = Self.halve(frame.pixelBuffer)
                let best = TestFrames.closest(small, in: vfrFrames)
                if best.index == expected { vfrMatched += 1 }
                let same = best.index == expected || vfrFrames[best.index].pixelBuffer.hasSamePixels(as: vfrFrames[expected].pixelBuffer)
                #expect(same, "output frame \(n) at \(t) should be vfr frame \(expected), closest is \(best.index)")
            } else if n < 57 + 15 {
                // The edit-list clip's empty edit: black.
                #expect(Self.isBlack(frame.pixelBuffer), "frame \(n) is in the empty edit")
            } else {
                let k = n - 72
                #expect(frame.pixelBuffer.hasSamePixels(as: editFrames[k].pixelBuffer), "frame \(n) should be edit-list frame \(k)")
            }
        }
        #expect(vfrMatched > 50)
    }

    @Test func anExistingOutputIsAnErrorUnlessOverwriting() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("exists.mp4")
        try Data("keep".utf8).write(to: out)
        let composition = try await Composition(asset: Asset(url: counter))
        let session = AssetExportSession(composition: composition, preset: .h264(crf: 30, preset: "ultrafast"))
        let error = await expectReelError(.outputExists) { try await session.export(to: out, as: .mp4) }
        #expect(error?.code == .outputExists)
        #expect(try Data(contentsOf: out) == Data("keep".utf8))
        #expect(session.status == .failed)

        let again = AssetExportSession(composition: composition, preset: .h264(crf: 30, preset: "ultrafast"))
        again.overwrite = true
        again.timeRange = TimeRange(start: .ratio(1, 2), duration: .ratio(1, 2))
        again.metadata = [MetadataItem(identifier: .commonIdentifierTitle, value: .string("Exported"))]
        try await again.export(to: out, as: .mp4)
        let tags = try await Asset(url: out).load(.commonMetadata)
        #expect(tags.contains { $0.stringValue == "Exported" })
        let frames = try await TestFrames.decodeAll(out)
        #expect(frames.count == 15)
        let tracks = try await Asset(url: out).load(.tracks)
        let kinds: [MediaType] = tracks.map(\.mediaType)
        #expect(kinds.contains(.audio) && kinds.contains(.video) && kinds.count == 2)
    }

    @Test func cancellingInTheMiddleLeavesNothing() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = try await SourceDescription(asset: Asset(url: counter))
        var composition = MutableComposition()
        for i in 0..<20 {
            try composition.insertTimeRange(TimeRange(start: .zero, duration: .ratio(2, 1)), of: source, at: .ratio(Int64(2 * i), 1))
        }
        let session = AssetExportSession(composition: Composition(composition), preset: .h264(crf: 23, preset: "medium"))
        let out = folder.appendingPathComponent("cancelled.mp4")
        let export = Task { try await session.export(to: out, as: .mp4) }
        for await p in session.progressUpdates() where p > 0.1 {
            session.cancelExport()
            break
        }
        let result = await export.result
        expectReelError(.cancelled) { try result.get() }
        if case .failure(let error as ReelError) = result { #expect(error.code == .cancelled) }
        #expect(session.status == .cancelled)
        #expect(!FileManager.default.fileExists(atPath: out.path))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
    }

    // MARK: Helpers

    /// `top` over `bottom` at `opacity`, per plane (how YUV layers blend).
    static func blend(top: PixelBuffer, bottom: PixelBuffer, opacity: Double) -> PixelBuffer {
        let out = PixelBuffer(width: top.width, height: top.height, format: top.format)
        let op = Int((opacity * 256).rounded())
        for p in 0..<top.planeCount {
            let (w, h) = top.planeSize(p)
            top.withUnsafeBytes(plane: p) { t in
                bottom.withUnsafeBytes(plane: p) { b in
                    out.withUnsafeMutableBytes(plane: p) { o in
                        for y in 0..<h {
                            for x in 0..<w {
                                let tv = Int(t[y * top.bytesPerRow[p] + x]), bv = Int(b[y * bottom.bytesPerRow[p] + x])
                                o[y * out.bytesPerRow[p] + x] = UInt8((tv * op + bv * (256 - op) + 128) >> 8)
                            }
                        }
                    }
                }
            }
        }
        return out
    }

    /// A half-size copy (2x2 averages) of a yuv420p frame.
    static func halve(_ frame: PixelBuffer) -> PixelBuffer {
        let out = PixelBuffer(width: frame.width / 2, height: frame.height / 2, format: frame.format)
        for p in 0..<frame.planeCount {
            let (w, h) = out.planeSize(p)
            frame.withUnsafeBytes(plane: p) { s in
                out.withUnsafeMutableBytes(plane: p) { o in
                    let ss = frame.bytesPerRow[p]
                    for y in 0..<h {
                        for x in 0..<w {
                            let sum =
                                Int(s[2 * y * ss + 2 * x]) + Int(s[2 * y * ss + 2 * x + 1]) + Int(s[(2 * y + 1) * ss + 2 * x])
                                + Int(s[(2 * y + 1) * ss + 2 * x + 1])
                            o[y * out.bytesPerRow[p] + x] = UInt8((sum + 2) / 4)
                        }
                    }
                }
            }
        }
        return out
    }

    static func isBlack(_ frame: PixelBuffer) -> Bool {
        frame.withUnsafeBytes(plane: 0) { y in
            for row in 0..<frame.height {
                for x in 0..<frame.width where y[row * frame.bytesPerRow[0] + x] > 17 { return false }
            }
            return true
        }
    }

    @Test(arguments: ["mp4", "mov"])
    func aSourcesTagsAreWrittenWhereTheContainerHoldsThemAndTheRestNamedOnce(container: String) async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = TestFiles.fixture("metadata.mov")
        let session = try await AssetExportSession(asset: Asset(url: source), preset: .h264(crf: 30, preset: "ultrafast"))
        // The 16x16 PNG cover of selection.mp4.
        let png = try #require(
            try await Asset(url: TestFiles.fixture("selection.mp4")).load(.commonMetadata)
                .first { $0.identifier == .commonIdentifierArtwork }?.dataValue)
        let picture = MetadataItem(identifier: .commonIdentifierArtwork, value: .data(png))
        // Bytes that are no JPEG nor PNG picture: no container has a place for them.
        let blob = MetadataItem(identifier: MetadataIdentifier(keySpace: .quickTimeMetadata, key: "com.example.blob"), value: .data(Data([1, 2, 3])))
        let lens = MetadataItem(identifier: MetadataIdentifier(keySpace: .quickTimeMetadata, key: "com.example.lens"), value: .string("35mm"))
        session.metadata += [picture, lens, blob]
        let said = Lock<[String]>([])
        session.renderOptions.diagnostics = { d in if d.kind == .metadataNotCarried { said.withLock { $0.append(d.message) } } }
        let out = folder.appendingPathComponent("out.\(container)")
        try await session.export(to: out, as: try #require(AssetWriter.FileType(pathExtension: container)))
        let sourceCommon = try await Asset(url: source).load(.commonMetadata)
        let (common, all) = try await Asset(url: out).load(.commonMetadata, .metadata)
        for item in sourceCommon {
            #expect(common.first { $0.identifier == item.identifier }?.value == item.value, "\(item.identifier) in \(container)")
        }
        #expect(all.first { $0.identifier == lens.identifier }?.stringValue == "35mm")
        // The cover picture is written (a metadata key beside the lens key, in both), the
        // bytes that are no picture are not: one line says so, naming them alone.
        #expect(common.first { $0.identifier == .commonIdentifierArtwork }?.dataValue == png, "artwork in \(container)")
        let lines = said.withLock { $0 }
        #expect(lines.count == 1 && lines.first?.contains("com.example.blob") == true, "\(lines)")
        #expect(lines.first?.contains("artwork") == false && lines.first?.contains("title") == false)
    }
}

/// A source's cover picture is its artwork, not a track: the export carries it in the
/// output's metadata (before, the picture was taken for a video track and refused).
@Suite struct AssetExportSessionCoverTests {
    @Test(arguments: ["mp4", "mov"])
    func aSourcesCoverPictureIsCarriedAsItsArtwork(container: String) async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = Asset(url: TestFiles.fixture("selection.mp4"))
        let cover = try #require(try await source.load(.commonMetadata).first { $0.identifier == .commonIdentifierArtwork }?.dataValue)
        #expect(try await source.load(.tracks).contains { $0.isCoverPicture })
        let session = try await AssetExportSession(asset: source, preset: .h264(crf: 30, preset: "ultrafast"))
        let out = folder.appendingPathComponent("out.\(container)")
        try await session.export(to: out, as: try #require(AssetWriter.FileType(pathExtension: container)))
        let exported = Asset(url: out)
        #expect(try await exported.load(.commonMetadata).first { $0.identifier == .commonIdentifierArtwork }?.dataValue == cover)
        let tracks = try await exported.load(.tracks)
        #expect(tracks.filter { $0.mediaType == .video && !$0.isCoverPicture }.count == 1)
    }
}

@Suite struct AssetExportSessionPassthroughTests {
    @Test func passthroughCopiesTheVideoPacketsUnchanged() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let counter = TestFiles.fixture("counter-320x240.mp4")
        let reference = try await TestFrames.decodeAll(counter)
        let session = try await AssetExportSession(asset: Asset(url: counter), preset: .passthrough)
        let out = folder.appendingPathComponent("copy.mp4")
        try await session.export(to: out, as: .mp4)
        let frames = try await TestFrames.decodeAll(out)
        // A re-encode would not give the decoded pixels back bit for bit.
        try #require(frames.count == 60)
        for (k, frame) in frames.enumerated() {
            #expect(frame.presentationTime == reference[k].presentationTime)
            #expect(frame.pixelBuffer.hasSamePixels(as: reference[k].pixelBuffer), "frame \(k)")
        }

        // A cut would lose frames that B-frames before it need: the frames are rendered.
        let trimmed = try await AssetExportSession(asset: Asset(url: counter), preset: .passthrough)
        trimmed.timeRange = TimeRange(start: .zero, duration: .ratio(3, 2))
        let cut = folder.appendingPathComponent("cut.mp4")
        try await trimmed.export(to: cut, as: .mp4)
        let cutFrames = try await TestFrames.decodeAll(cut)
        try #require(cutFrames.count == 45)
        for (k, frame) in cutFrames.enumerated() {
            #expect(TestFrames.psnr(frame.pixelBuffer, reference[k].pixelBuffer) > 35, "frame \(k)")
        }
    }
}

/// AVAssetExportSession's preset API: compatibility known before anything is written, and
/// the container taken from the output's extension.
@Suite struct AssetExportSessionPresetTests {
    let counter = TestFiles.fixture("counter-320x240.mp4")
    let silent = TestFiles.fixture("vfr.mp4")

    @Test func incompatiblePresetAndFileTypeAreRefusedUpFront() async throws {
        let asset = Asset(url: counter)
        #expect(await AssetExportSession.compatibility(ofExportPreset: .preset1920x1080, with: asset, outputFileType: .mp4))
        #expect(await AssetExportSession.compatibility(ofExportPreset: .hevc1920x1080, with: asset, outputFileType: .mpegts))
        #expect(await !AssetExportSession.compatibility(ofExportPreset: .prores(), with: asset, outputFileType: .mp4))
        #expect(await !AssetExportSession.compatibility(ofExportPreset: .appleM4A, with: asset, outputFileType: .mov))
        // No sound: AppleM4A has nothing to write.
        #expect(await !AssetExportSession.compatibility(ofExportPreset: .appleM4A, with: Asset(url: silent), outputFileType: nil))
        // The handler form says the same.
        let handled = await withCheckedContinuation { done in
            AssetExportSession.determineCompatibility(ofExportPreset: .lossless, with: asset, outputFileType: .mp4) { done.resume(returning: $0) }
        }
        #expect(handled == false)
        // A file that does not load suits no preset.
        #expect(await AssetExportSession.exportPresets(compatibleWith: Asset(url: TestFiles.fixture("missing.mp4"))).isEmpty)
        #expect(await AssetExportSession.exportPresets(compatibleWith: asset).count == 13)
        #expect(await !AssetExportSession.exportPresets(compatibleWith: Asset(url: silent)).contains(AssetExportPresetAppleM4A))

        // Exporting anyway fails before the session starts and writes nothing.
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let session = try await AssetExportSession(asset: asset, presetName: .prores())
        let out = folder.appendingPathComponent("out.mp4")
        let error = await expectReelError(.invalidArgument) { try await session.export(to: out, as: .mp4) }
        #expect(error?.message == "the prores hq preset writes mov or mkv, not mp4")
        #expect(session.status == .waiting)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
    }

    @Test func theContainerComesFromTheExtensionWhenNotSet() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let session = try await AssetExportSession(asset: Asset(url: counter), presetName: .passthrough)
        session.outputURL = folder.appendingPathComponent("out.mkv")
        #expect(session.outputFileType == nil)
        try await session.export()
        let probe = try TestTools.output(
            "ffprobe",
            [
                "-v", "error", "-show_entries", "format=format_name", "-of", "csv=p=0",
                folder.appendingPathComponent("out.mkv").path,
            ])
        #expect(String(decoding: probe, as: UTF8.self).contains("matroska"))

        let unknown = try await AssetExportSession(asset: Asset(url: counter), presetName: .passthrough)
        unknown.outputURL = folder.appendingPathComponent("out.xyz")
        let error = await expectReelError(.invalidArgument) { try await unknown.export() }
        #expect(error?.message.contains("\"xyz\"") == true)
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("out.xyz").path))
    }
}
