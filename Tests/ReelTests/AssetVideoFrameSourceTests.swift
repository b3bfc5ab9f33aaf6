import Foundation
import Reel
import ReelTestSupport
import Testing

@Suite struct AssetVideoFrameSourceTests {
    let counter = TestFiles.fixture("counter-320x240.mp4")

    @Test func sequentialReadGivesEveryFrameExactly() async throws {
        let reference = try await TestFrames.decodeAll(counter)
        try #require(reference.count == 60)
        let source = AssetVideoFrameSource(url: counter, trackID: 1)
        for k in 0..<60 {
            // Ask in the middle of each frame, and at its start.
            for t in [MediaTime.ratio(Int64(k * 512 + 256), 15360), MediaTime.ratio(Int64(k * 512), 15360)] {
                let frame = try #require(try await source.frame(at: t), "no frame at \(t)")
                #expect(frame.timeRange.start == reference[k].presentationTime)
                #expect(frame.pixelBuffer.hasSamePixels(as: reference[k].pixelBuffer), "frame \(k) at \(t)")
            }
        }
        #expect(await source.readerOpenCount == 1)
        #expect(try await source.frame(at: .ratio(2, 1)) == nil)
    }

    @Test func jumpsBackAndFarAheadAreFrameExact() async throws {
        let reference = try await TestFrames.decodeAll(counter)
        let source = AssetVideoFrameSource(url: counter, trackID: 1, options: .init(maximumForwardSkip: .ratio(1, 5), maximumCursors: 1))
        let order = [45, 3, 59, 0, 31, 30, 29, 12, 50, 1]
        for k in order {
            let frame = try #require(try await source.frame(at: .ratio(Int64(k * 512 + 100), 15360)))
            #expect(frame.pixelBuffer.hasSamePixels(as: reference[k].pixelBuffer), "frame \(k)")
            #expect(frame.timeRange == reference[k].timeRange)
        }
        // One reader: every jump seeks the file it has open.
        #expect(await source.readerOpenCount == 1)
        #expect(await source.seekCount >= 6)
    }

    @Test func everyFrameInAnyOrderIsTheFrameAStraightDecodeShows() async throws {
        // B-frames, keyframes at 0 and 1 s; and a variable frame rate with keyframes at
        // frames 0, 11 and 41. Each frame once, in an order that jumps both ways (k * step
        // modulo the count), asked at its start and in its middle, from one read position:
        // every answer comes from a seek to the frame showing at that time.
        for (name, step) in [("counter-320x240.mp4", 37), ("vfr.mp4", 17)] {
            let url = TestFiles.fixture(name)
            let reference = try await TestFrames.decodeAll(url)
            let count = reference.count
            try #require(count > 40)
            let source = AssetVideoFrameSource(url: url, trackID: 1, options: .init(maximumCursors: 1))
            for k in 0..<count {
                let i = (k * step) % count
                let frame = reference[i]
                let next = i + 1 < count ? reference[i + 1].presentationTime : frame.presentationTime + frame.duration
                let middle = MediaTime(seconds: (frame.presentationTime.seconds + next.seconds) / 2, preferredTimescale: 90000)
                for t in [frame.presentationTime, middle] {
                    let got = try #require(try await source.frame(at: t), "\(name): no frame at \(t)")
                    #expect(got.presentationTime == frame.presentationTime, "\(name) at \(t): frame \(i)")
                    #expect(got.timeRange.end == next, "\(name) at \(t): frame \(i) lasts until the next")
                    #expect(got.pixelBuffer.hasSamePixels(as: frame.pixelBuffer), "\(name): frame \(i) at \(t)")
                }
            }
            #expect(await source.readerOpenCount == 1)
            #expect(await source.seekCount > count / 2, "\(name)")
        }
    }

    @Test("a seek's frame, and the frames after it, are the frames a straight decode shows; the pictures before it are decoded again")
    func aSeeksFrameAndTheFramesAfterItAreExact() async throws {
        // As above, each frame in an order that jumps both ways, now asked for as a seek's
        // (the decoder drained at it), then the two frames after it (read on, after the
        // packets from the keyframe are decoded again). MPEG-TS has no keyframe index, so its
        // seeks land between keyframes: one group of pictures (counter.ts), a keyframe every
        // 1.33 s with B-frames (counter-gop.ts).
        let files: [(name: String, trackID: Int32, step: Int)] = [
            ("counter-320x240.mp4", 1, 37), ("vfr.mp4", 1, 17), ("counter.ts", 256, 7), ("counter-gop.ts", 256, 23),
        ]
        for (name, trackID, step) in files {
            let url = TestFiles.fixture(name)
            let reference = try await TestFrames.decodeAll(url)
            let count = reference.count
            var dropped: [Bool: Int] = [:]
            var seeks = 0
            for seeking in [false, true] {
                let source = AssetVideoFrameSource(url: url, trackID: trackID, options: .init(maximumCursors: 1))
                for k in 0..<count {
                    let i = (k * step) % count
                    let t = reference[i].presentationTime
                    let got = try #require(
                        try await seeking ? source.seekFrame(at: t, acceptedFormats: nil) : source.frame(at: t), "\(name): no frame at \(t)")
                    #expect(got.presentationTime == t && got.pixelBuffer.hasSamePixels(as: reference[i].pixelBuffer), "\(name): frame \(i)")
                    for j in i + 1..<min(i + 3, count) {
                        let after = try #require(try await source.frame(at: reference[j].presentationTime), "\(name): no frame \(j)")
                        #expect(after.pixelBuffer.hasSamePixels(as: reference[j].pixelBuffer), "\(name): frame \(j) after a seek to \(i)")
                    }
                }
                dropped[seeking] = await source.droppedPictureCount
                seeks = await source.seekCount
            }
            // Each seek decodes its frame at least twice: as it is drained, and to read on.
            // Without a keyframe index (MPEG-TS) a jump forward of up to two seconds reads on
            // (no keyframe is known to seek to), so mostly the jumps back are seeks there.
            let plain = try #require(dropped[false]), drained = try #require(dropped[true])
            let fewestSeeks = name.hasSuffix(".ts") ? count / 5 : count / 2
            #expect(
                seeks > fewestSeeks && drained - plain >= seeks,
                "\(name): \(drained) pictures dropped for \(seeks) seeks' frames, \(plain) for plain frames")
        }
    }

    @Test(
        "an H.264 clip coded as field pictures (each field a packet of its own) gives each frame whole for the whole time it shows, after any seek",
        .requires(.sharedMedia))
    func fieldPicturesSeekToWholeFrames() async throws {
        // Interlaced 29.97 fps MPEG-TS, keyframes at frames 0, 16 and 32: a field's packet
        // shows half a frame after the one before, but no frame comes out at its time.
        let url = TestFiles.sharedMedia("kwiver_aphill_short.ts")
        let reference = try await TestFrames.decodeAll(url)
        try #require(reference.count == 48)
        let frame = MediaTime(value: 3003, timescale: 90000)
        for seeking in [false, true] {
            let source = AssetVideoFrameSource(url: url, trackID: 256, options: .init(maximumCursors: 1))
            for k in 0..<48 {
                let i = (k * 13) % 48
                // In the second half of the frame, where its second field's time has passed.
                let t = reference[i].presentationTime + MediaTime(value: 2400, timescale: 90000)
                let got = try #require(
                    try await seeking ? source.seekFrame(at: t, acceptedFormats: nil) : source.frame(at: t), "no frame at \(t)")
                #expect(got.presentationTime == reference[i].presentationTime, "frame \(i)")
                #expect(got.pixelBuffer.hasSamePixels(as: reference[i].pixelBuffer), "frame \(i)")
                #expect(got.duration == frame, "frame \(i): \(got.duration)")
            }
        }
    }

    @Test("a seek to a later frame of the group a drained seek stopped in seeks again, and a frame asked for after it reads on")
    func aSeekPastADrainedSeeksFrameSeeksAgain() async throws {
        let reference = try await TestFrames.decodeAll(counter)
        let source = AssetVideoFrameSource(url: counter, trackID: 1, options: .init(maximumCursors: 1))
        let first = try #require(try await source.seekFrame(at: reference[3].presentationTime, acceptedFormats: nil))
        #expect(first.pixelBuffer.hasSamePixels(as: reference[3].pixelBuffer))
        // Reading on from frame 3 would decode from the keyframe again, then on to 9 without
        // a drain: a seek to 9 costs less.
        let second = try #require(try await source.seekFrame(at: reference[9].presentationTime, acceptedFormats: nil))
        #expect(second.pixelBuffer.hasSamePixels(as: reference[9].pixelBuffer))
        #expect(await source.seekCount == 1)
        let next = try #require(try await source.frame(at: reference[10].presentationTime))
        #expect(next.pixelBuffer.hasSamePixels(as: reference[10].pixelBuffer))
        #expect(await source.seekCount == 1)
        #expect(await source.readerOpenCount == 1)
    }

    @Test("a wait for a frame that is cancelled leaves its reader open, and the next seek moves it")
    func aCancelledWaitLeavesItsReaderForTheNextSeek() async throws {
        let reference = try await TestFrames.decodeAll(counter)
        let source = AssetVideoFrameSource(url: counter, trackID: 1)
        _ = try #require(try await source.seekFrame(at: reference[3].presentationTime, acceptedFormats: nil))
        // As a player's seek stops a render waiting for the frame after one it showed.
        let cancelled = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await source.frame(at: reference[4].presentationTime)
        }
        await expectReelError(.cancelled) { try await cancelled.value }
        let far = try #require(try await source.seekFrame(at: reference[40].presentationTime, acceptedFormats: nil))
        #expect(far.pixelBuffer.hasSamePixels(as: reference[40].pixelBuffer))
        #expect(await source.readerOpenCount == 1)
        #expect(await source.seekCount == 1)
        // Moved back, it reads on from there.
        let back = try #require(try await source.frame(at: reference[4].presentationTime))
        #expect(back.pixelBuffer.hasSamePixels(as: reference[4].pixelBuffer))
    }

    @Test func aJumpPastAKeyframeSeeksAndAJumpWithinAGroupReadsOn() async throws {
        // Keyframes at frames 0 and 30. From frame 5 to frame 35 is within the forward skip
        // (2 s), but decoding from the keyframe at 30 costs less than decoding 6...35.
        let reference = try await TestFrames.decodeAll(counter)
        let source = AssetVideoFrameSource(url: counter, trackID: 1, options: .init(maximumCursors: 1))
        func check(_ k: Int) async throws {
            let frame = try #require(try await source.frame(at: .ratio(Int64(k * 512 + 100), 15360)))
            #expect(frame.pixelBuffer.hasSamePixels(as: reference[k].pixelBuffer), "frame \(k)")
        }
        try await check(5)
        try await check(35)
        #expect(await source.seekCount == 1)
        // Within the group: reading on.
        try await check(40)
        try await check(52)
        try await check(53)
        #expect(await source.seekCount == 1)
        // A jump forward with no keyframe in between reads on too (from 2 to 25 of the first group).
        try await check(2)
        #expect(await source.seekCount == 2)
        try await check(25)
        #expect(await source.seekCount == 2)
        #expect(await source.readerOpenCount == 1)
    }

    @Test func stepsBackByAFrameNeedNoSeek() async throws {
        let reference = try await TestFrames.decodeAll(counter)
        let source = AssetVideoFrameSource(url: counter, trackID: 1, options: .init(maximumCursors: 1))
        for k in [20, 21, 22, 21, 20, 22, 23, 22] {
            let frame = try #require(try await source.frame(at: .ratio(Int64(k * 512 + 100), 15360)))
            #expect(frame.pixelBuffer.hasSamePixels(as: reference[k].pixelBuffer), "frame \(k)")
        }
        #expect(await source.readerOpenCount == 1)
        #expect(await source.seekCount == 0)
    }

    @Test func twoInterleavedPositionsKeepTheirOwnReaders() async throws {
        let reference = try await TestFrames.decodeAll(counter)
        let source = AssetVideoFrameSource(url: counter, trackID: 1)
        for k in 0..<20 {
            for base in [0, 35] {
                let i = base + k
                let frame = try #require(try await source.frame(at: .ratio(Int64(i * 512), 15360)))
                #expect(frame.pixelBuffer.hasSamePixels(as: reference[i].pixelBuffer), "frame \(i)")
            }
        }
        #expect(await source.readerOpenCount == 2)
    }

    @Test func aClipPlayedAgainFromItsStartReusesTheReaderThatReachedItsEnd() async throws {
        // A join of a clip with itself: read to the end, then from the start again. The
        // position that ended moves back (one reader, one decoder) instead of a second one
        // opening beside it and holding the first one's frames for the rest of the render.
        let reference = try await TestFrames.decodeAll(counter)
        let source = AssetVideoFrameSource(url: counter, trackID: 1)
        for pass in 0..<3 {
            for k in 0..<60 {
                let frame = try #require(try await source.frame(at: .ratio(Int64(k * 512), 15360)))
                #expect(frame.pixelBuffer.hasSamePixels(as: reference[k].pixelBuffer), "pass \(pass), frame \(k)")
            }
        }
        #expect(await source.readerOpenCount == 1)
        #expect(await source.seekCount == 2)
    }

    @Test func aClosedSourceOpensAgainOnTheNextRequestWithExactFrames() async throws {
        // A render closes a source once the composition is done with it; a player or a
        // preview sharing the sources may still ask it for a frame afterwards.
        let reference = try await TestFrames.decodeAll(counter)
        let source = AssetVideoFrameSource(url: counter, trackID: 1)
        for k in [10, 11] {
            let frame = try #require(try await source.frame(at: .ratio(Int64(k * 512), 15360)))
            #expect(frame.pixelBuffer.hasSamePixels(as: reference[k].pixelBuffer), "frame \(k)")
        }
        await source.close()
        for k in [40, 41] {
            let frame = try #require(try await source.frame(at: .ratio(Int64(k * 512), 15360)))
            #expect(frame.pixelBuffer.hasSamePixels(as: reference[k].pixelBuffer), "frame \(k) after closing")
            #expect(frame.timeRange == reference[k].timeRange)
        }
        #expect(await source.readerOpenCount == 2)
    }

    @Test func closeReturnsOnceItsReadersStoppedAndGaveTheirDemuxersBack() async throws {
        let (folder, url) = try TestFiles.copyOfFixture("counter-320x240.mp4")
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = AssetVideoFrameSource(url: url, trackID: 1)
        _ = try #require(try await source.frame(at: .ratio(10 * 512, 15360)))
        await source.close()
        // The reader's thread ended, its decoder freed and its demuxer back with the file,
        // before close returned: the next reader of the file takes that demuxer instead of
        // opening the file again.
        let next = try await AssetReader.open(url: url)
        #expect(next.fileOpenCount == 1)
    }

    @Test func variableFrameRateFramesShowOverTheirOwnDurations() async throws {
        let vfr = TestFiles.fixture("vfr.mp4")
        let reference = try await TestFrames.decodeAll(vfr)
        try #require(reference.count == 45)
        let source = AssetVideoFrameSource(url: vfr, trackID: 1)
        // Every 1/60 s: each time shows the frame whose range holds it.
        for n in 0..<114 {
            let t = MediaTime.ratio(Int64(n * 500), 30000)
            let expected = try #require(TestFrames.index(in: reference, at: t))
            let frame = try #require(try await source.frame(at: t), "at \(t), reference \(reference[expected].timeRange)")
            #expect(frame.timeRange.start == reference[expected].presentationTime, "at \(t)")
            #expect(frame.timeRange.containsTime(t))
            #expect(frame.pixelBuffer.hasSamePixels(as: reference[expected].pixelBuffer))
        }
    }

    @Test func anEmptyEditShowsNothing() async throws {
        let source = AssetVideoFrameSource(url: TestFiles.fixture("edit-list.mp4"), trackID: 1)
        #expect(try await source.frame(at: .ratio(1, 4)) == nil)
        let first = try #require(try await source.frame(at: .ratio(1, 2)))
        #expect(first.timeRange.start == .ratio(7680, 15360))
        #expect(try await source.frame(at: .ratio(5, 2)) == nil)
    }

    @Test func aMissingTrackIsAClearError() async throws {
        let source = AssetVideoFrameSource(url: counter, trackID: 9)
        let error = await expectReelError(.invalidArgument) { try await source.frame(at: .zero) }
        #expect(error?.code == .invalidArgument)
        #expect(error?.message.contains("no track 9") == true)
        let audio = AssetVideoFrameSource(url: counter, trackID: 2)
        await expectReelError(.invalidArgument) { try await audio.frame(at: .zero) }
    }
}
