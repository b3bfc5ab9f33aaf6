import Foundation
import Reel
import ReelTestSupport
import Testing

@Suite struct AssetImageGeneratorTests {
    let counter = TestFiles.fixture("counter-320x240.mp4")

    @Test func zeroToleranceGivesTheExactFrameAtTheAskedTime() async throws {
        let reference = try await TestFrames.decodeAll(counter)
        let generator = try await AssetImageGenerator(asset: Asset(url: counter))
        generator.requestedTimeToleranceBefore = .zero
        generator.requestedTimeToleranceAfter = .zero
        for k in [0, 17, 3, 42, 59, 30] {
            let t = MediaTime.ratio(Int64(k * 512 + 300), 15360)
            let (image, actual) = try await generator.image(at: t)
            #expect(actual == t)
            #expect(image.width == 320 && image.height == 240)
            #expect(
                image.hasSamePixels(as: reference[k].pixelBuffer),
                "picture at \(t) should be frame \(k), closest is \(TestFrames.closest(image, in: reference).index)")
        }
    }

    /// Open groups of pictures (x265's CRA keyframes, whose leading B-frames refer to the
    /// group before): the frames just before each keyframe are exact too. Seeking to such a
    /// frame lands on the keyframe after it, from which a decoder drops them.
    @Test(.requires(.ffmpeg, .hevcEncoder))
    func zeroToleranceIsExactForTheLeadingPicturesOfAnOpenGroup() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("open-gop.mp4")
        try TestTools.output(
            "ffmpeg",
            [
                "-v", "error", "-nostdin", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30:duration=3", "-c:v", "libx265",
                "-preset", "veryfast", "-pix_fmt", "yuv420p", "-x265-params",
                "log-level=error:keyint=30:min-keyint=30:scenecut=0:bframes=3:open-gop=1", url.path,
            ])
        let reference = try await TestFrames.decodeAll(url)
        try #require(reference.count == 90)
        let generator = try await AssetImageGenerator(asset: Asset(url: url))
        generator.requestedTimeToleranceBefore = .zero
        generator.requestedTimeToleranceAfter = .zero
        // The three frames before each keyframe, a keyframe, and a frame inside a group.
        for k in [29, 57, 58, 59, 60, 28, 27, 44] {
            let (image, _) = try await generator.image(at: .ratio(Int64(k), 30))
            #expect(
                image.hasSamePixels(as: reference[k].pixelBuffer),
                "picture at frame \(k) is frame \(TestFrames.closest(image, in: reference).index)")
        }
    }

    @Test func aToleranceReportsTheFramesOwnTime() async throws {
        let reference = try await TestFrames.decodeAll(TestFiles.fixture("vfr.mp4"))
        let generator = try await AssetImageGenerator(asset: Asset(url: TestFiles.fixture("vfr.mp4")))
        // 1.5 s lies inside a 1/15 s frame starting at 1.4667 s.
        let t = MediaTime.ratio(3, 2)
        let k = try #require(TestFrames.index(in: reference, at: t))
        let (image, actual) = try await generator.image(at: t)
        #expect(actual == reference[k].presentationTime)
        #expect(image.hasSamePixels(as: reference[k].pixelBuffer))
        // A tolerance too small for the frame's start: the asked time is reported.
        generator.requestedTimeToleranceBefore = .ratio(1, 100)
        let (_, exact) = try await generator.image(at: t)
        #expect(exact == t)
    }

    @Test func picturesFitTheMaximumSizeAndTurnUpright() async throws {
        let generator = try await AssetImageGenerator(asset: Asset(url: counter))
        generator.maximumSize = Size(width: 160, height: 160)
        let (small, _) = try await generator.image(at: .ratio(1, 2))
        #expect(small.width == 160 && small.height == 120)

        let rotated = try await AssetImageGenerator(asset: Asset(url: TestFiles.fixture("rotated-90.mp4")))
        let (plain, _) = try await rotated.image(at: .ratio(1, 2))
        #expect(plain.width == 320 && plain.height == 240)
        rotated.appliesPreferredTrackTransform = true
        let (upright, _) = try await rotated.image(at: .ratio(1, 2))
        #expect(upright.width == 240 && upright.height == 320)
    }

    /// The luma at (x, y) of a yuv420p picture.
    static func luma(_ image: PixelBuffer, _ x: Int, _ y: Int) -> UInt8 {
        image.withUnsafeBytes(plane: 0) { $0[y * image.bytesPerRow[0] + x] }
    }

    @Test func phoneFootageTurnsUprightExactlyAndThenFits() async throws {
        // Stored 160x120 with a white block top left; the phone's matrix turns it clockwise.
        let generator = try await AssetImageGenerator(asset: Asset(url: TestFiles.fixture("portrait.mp4")))
        let (stored, _) = try await generator.image(at: .ratio(1, 2))
        #expect(stored.width == 160 && stored.height == 120)
        #expect(Self.luma(stored, 10, 10) > 200 && Self.luma(stored, 150, 10) < 50)

        generator.appliesPreferredTrackTransform = true
        let (upright, _) = try await generator.image(at: .ratio(1, 2))
        #expect(upright.width == 120 && upright.height == 160)
        // The block is shown top right, 30 wide and 40 high.
        #expect(Self.luma(upright, 110, 10) > 200 && Self.luma(upright, 92, 36) > 200)
        #expect(Self.luma(upright, 10, 10) < 50 && Self.luma(upright, 110, 150) < 50 && Self.luma(upright, 84, 10) < 50)
        let phone = try #require(PixelOrientation(Transform2D(a: 0, b: 1, c: -1, d: 0, tx: 0, ty: 0)))
        #expect(upright.hasSamePixels(as: stored.oriented(phone)), "turned by moving pixels, not resampled")

        // The maximum size bounds the picture as shown.
        generator.maximumSize = Size(width: 60, height: 60)
        let (small, _) = try await generator.image(at: .ratio(1, 2))
        #expect(small.width == 44 && small.height == 60)
        #expect(Self.luma(small, 40, 4) > 200 && Self.luma(small, 4, 4) < 50)
    }

    @Test func imagesForTimesComeInOrder() async throws {
        let reference = try await TestFrames.decodeAll(counter)
        let generator = try await AssetImageGenerator(asset: Asset(url: counter))
        generator.requestedTimeToleranceBefore = .zero
        generator.requestedTimeToleranceAfter = .zero
        let times = [5, 6, 40, 2].map { MediaTime.ratio(Int64($0), 30) }
        var seen: [Int] = []
        for await result in generator.images(for: times) {
            #expect(try result.actualTime == result.requestedTime)
            seen.append(TestFrames.closest(try result.image, in: reference).index)
        }
        #expect(seen == [5, 6, 40, 2])
    }

    /// A batch in random order makes its pictures in time order where they share a stretch
    /// to decode: the same pictures, in the order asked, with each picture of the file
    /// decoded about once, against about a group of pictures' worth for each time when
    /// asked one at a time.
    @Test(.requires(.ffmpeg))
    func aBatchDecodesWhatItsTimesShareOnce() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // A file of this test's own: the decoded-picture count is the file's, all readers'.
        let url = folder.appendingPathComponent("gop30.mp4")
        try TestTools.output(
            "ffmpeg",
            [
                "-v", "error", "-nostdin", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30:duration=4", "-c:v", "libx264",
                "-preset", "veryfast", "-g", "30", "-pix_fmt", "yuv420p", url.path,
            ])
        let reference = try await TestFrames.decodeAll(url)
        try #require(reference.count == 120)
        var state: UInt64 = 7
        let frames = (0..<40).map { _ in
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int(state >> 33) % 120
        }
        let times = frames.map { MediaTime.ratio(Int64($0), 30) }
        let asset = Asset(url: url)

        let single = try await AssetImageGenerator(asset: asset)
        single.requestedTimeToleranceBefore = .zero
        single.requestedTimeToleranceAfter = .zero
        let beforeSingle = asset.decodedPictureCount
        for (time, k) in zip(times, frames) {
            let (image, _) = try await single.image(at: time)
            #expect(image.hasSamePixels(as: reference[k].pixelBuffer))
        }
        let decodedOneAtATime = asset.decodedPictureCount - beforeSingle

        let batch = try await AssetImageGenerator(asset: asset)
        batch.requestedTimeToleranceBefore = .zero
        batch.requestedTimeToleranceAfter = .zero
        let beforeBatch = asset.decodedPictureCount
        var seen: [MediaTime] = []
        for await result in batch.images(for: times) {
            seen.append(result.requestedTime)
            let k = frames[seen.count - 1]
            #expect(try result.image.hasSamePixels(as: reference[k].pixelBuffer), "result \(seen.count - 1) should be frame \(k)")
        }
        let decodedInABatch = asset.decodedPictureCount - beforeBatch
        #expect(seen == times)
        let counts = "\(decodedInABatch) pictures decoded in a batch, \(decodedOneAtATime) one at a time"
        #expect(decodedInABatch <= reference.count * 6 / 5, "\(counts)")
        #expect(decodedInABatch * 2 < decodedOneAtATime, "\(counts)")
    }

    /// "s" for a picture, "f" for a failure, "c" for cancelled.
    static func letter(_ result: AssetImageGenerator.Result) -> String {
        switch result {
        case .succeeded: "s"
        case .failed: "f"
        case .cancelled: "c"
        }
    }

    @Test func eachTimeGetsItsOwnResultAndBadTimesFailAlone() async throws {
        let reference = try await TestFrames.decodeAll(counter)
        let generator = try await AssetImageGenerator(asset: Asset(url: counter))
        generator.requestedTimeToleranceBefore = .zero
        generator.requestedTimeToleranceAfter = .zero
        // Ten times: one before the start (second), one past the end (seventh).
        let frames: [Int64?] = [3, nil, 10, 20, 25, 30, nil, 45, 50, 58]
        let times = frames.enumerated().map { i, k in k.map { MediaTime.ratio($0, 30) } ?? (i == 1 ? .ratio(-1, 2) : .ratio(9, 1)) }
        var results: [AssetImageGenerator.GeneratedImage] = []
        for await result in generator.images(for: times) { results.append(result) }
        #expect(results.map(\.requestedTime) == times)
        #expect(results.map { Self.letter($0.result) }.joined() == "sfssssfsss")
        #expect(results.count { $0.result == .succeeded } == 8)
        for (result, k) in zip(results, frames) {
            if let k {
                #expect(TestFrames.closest(try result.image, in: reference).index == Int(k))
            } else {
                guard case .failed(_, let error) = result else { Issue.record("\(result.requestedTime) should fail"); continue }
                #expect(error.code == .invalidArgument && error.time == result.requestedTime)
                expectReelError(.invalidArgument) { try result.image }
            }
        }
    }

    @Test func theHandlerFormCallsOncePerTimeInOrder() async throws {
        let generator = try await AssetImageGenerator(asset: Asset(url: counter))
        let times: [MediaTime] = [.ratio(1, 10), .ratio(99, 1), .ratio(1, 2)]
        let calls = await withCheckedContinuation { (done: CheckedContinuation<[String], Never>) in
            let seen = Lock<[String]>([])
            generator.generateCGImagesAsynchronously(forTimes: times) { requested, image, actual, result, error in
                let line = "\(requested.secondsDescription) \(Self.letter(result)) \(image != nil) \(actual.isNumeric) \(error != nil)"
                let all = seen.withLock {
                    $0.append(line); return $0
                }
                if all.count == times.count { done.resume(returning: all) }
            }
        }
        #expect(calls == ["0.1 s s true true false", "99 s f false false true", "0.5 s s true true false"])
    }

    @Test func cancellingAllCancelsWhatIsNotMadeYet() async throws {
        let generator = try await AssetImageGenerator(asset: Asset(url: counter))
        let times = (0..<6).map { MediaTime.ratio(Int64($0), 5) }
        var letters = ""
        var iterator = generator.images(for: times).makeAsyncIterator()
        while let result = await iterator.next() {
            letters += Self.letter(result.result)
            if letters.count == 2 { generator.cancelAllCGImageGeneration() }
        }
        #expect(letters == "sscccc")
        // A batch started after the cancel is not affected.
        var after = ""
        for await result in generator.images(for: [.ratio(1, 5)]) { after += Self.letter(result.result) }
        #expect(after == "s")
        if case .cancelled = try #require(await generator.images(for: [.zero]).first { _ in true }) {
            Issue.record("a new batch should not be cancelled")
        }
    }

    @Test(.requires(.ffmpeg))
    func apertureModeStretchesNonSquarePixels() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // 320x240 stored pixels, each meant to be 4/3 as wide: shown 427x240 (426 even).
        let url = folder.appendingPathComponent("anamorphic.mp4")
        try TestTools.output(
            "ffmpeg",
            [
                "-v", "error", "-nostdin", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=10:duration=1",
                "-vf", "setsar=4/3", "-c:v", "libx264", "-pix_fmt", "yuv420p", url.path,
            ])
        let generator = try await AssetImageGenerator(asset: Asset(url: url))
        #expect(generator.apertureMode == .cleanAperture)
        var sizes: [String] = []
        for mode in [AssetImageGenerator.ApertureMode.cleanAperture, .productionAperture, .encodedPixels] {
            generator.apertureMode = mode
            let (image, _) = try await generator.image(at: .ratio(1, 2))
            sizes.append("\(image.width)x\(image.height)")
        }
        #expect(sizes == ["426x240", "426x240", "320x240"])
        // Square pixels are never stretched.
        let square = try await AssetImageGenerator(asset: Asset(url: counter))
        square.apertureMode = .productionAperture
        let (image, _) = try await square.image(at: .ratio(1, 2))
        #expect(image.width == 320 && image.height == 240)
    }

    @Test(arguments: [ImageFileType.png, .jpeg(quality: 95)])
    func writtenFilesReadBackAsTheSamePicture(_ type: ImageFileType) async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let generator = try await AssetImageGenerator(asset: Asset(url: counter))
        let url = folder.appendingPathComponent("still.\(type.fileExtension)")
        let actual = try await generator.writeImage(at: .ratio(1, 1), to: url, as: type)
        let (image, _) = try await generator.image(at: actual)
        let back = try await TestFrames.decodeAll(url)
        try #require(back.count == 1)
        // A JPEG decodes to full-range YUV, which the reader passes on as it is.
        let decoded = type == .png ? back[0].pixelBuffer : TestFrames.limitedRange(back[0].pixelBuffer)
        let psnr = TestFrames.psnr(decoded, image)
        #expect(psnr > 35, "\(type) read back at \(psnr) dB")
        await expectReelError(.outputExists) { try await generator.writeImage(at: .zero, to: url, as: type) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == [url.lastPathComponent])
    }
}
