import Foundation
import ReelCore
import ReelTestSupport
import Synchronization
import Testing

@testable import ReelIO

@Suite("AssetReader")
struct AssetReaderTests {
    static let maxFile = "gpmf-parser_max-heromode.mp4"

    /// Reads every sample of an output with the async API.
    func readAll(_ output: AssetReaderTrackOutput) async throws -> [AssetReaderSample] {
        var samples: [AssetReaderSample] = []
        for try await sample in output { samples.append(sample) }
        return samples
    }

    /// Every frame of track `trackID` of `url`, read straight through in gray.
    func grayFrames(of url: URL, trackID: Int32 = 1) async throws -> [VideoFrame] {
        let reader = try await AssetReader.open(url: url)
        let output = AssetReaderTrackOutput(trackID: trackID, settings: .video(pixelFormat: .gray8))
        try reader.add(output)
        try reader.startReading()
        return try await readAll(output).compactMap(\.videoFrame)
    }

    /// A started reader of track `trackID` of `url` in gray, for random access, whose first
    /// range (`range`, the whole file by default) seeks to `seekTime`, draining there when `draining`.
    func seekingGrayReader(
        _ url: URL, trackID: Int32 = 1, range: TimeRange? = nil, seekingTo seekTime: MediaTime, draining: Bool = false
    ) async throws -> (AssetReader, AssetReaderTrackOutput) {
        let reader = try await AssetReader.open(url: url)
        if let range { reader.timeRange = range }
        let output = AssetReaderTrackOutput(trackID: trackID, settings: .video(pixelFormat: .gray8))
        output.supportsRandomAccess = true
        output.startSeekTime = seekTime
        output.startDrainsAtSeekFrame = draining
        try reader.add(output)
        try reader.startReading()
        return (reader, output)
    }

    /// A started reader of track 1 of `url` for random access, in `format`, decoding as a
    /// player's reader does when `decodesForSeeks`.
    func randomAccessReader(
        _ url: URL, format: PixelFormat, decodesForSeeks: Bool
    ) async throws -> (AssetReader, AssetReaderTrackOutput) {
        let reader = try await AssetReader.open(url: url)
        let output = AssetReaderTrackOutput(trackID: 1, settings: .video(pixelFormat: format))
        output.supportsRandomAccess = true
        output.decodesForSeeks = decodesForSeeks
        try reader.add(output)
        try reader.startReading()
        return (reader, output)
    }

    /// Resets `output` to frames 40 to 42 of the 30 fps counter fixture, draining at frame 40.
    func seekToFrame40(_ output: AssetReaderTrackOutput) throws {
        let frame = MediaTime(value: 512, timescale: 15360)
        try output.reset(forReadingTimeRanges: [TimeRange(start: frame * 40, end: frame * 43)], seekingTo: frame * 40, drainingAtSeekFrame: true)
    }

    func videoTrackID(_ reader: AssetReader) throws -> Int32 {
        try #require(reader.tracks(withMediaType: .video).first).trackID
    }

    @Test("decodes every frame with exact timestamps", .requires(.ffmpeg))
    func decodesEveryFrame() async throws {
        let url = try ReadWriteTestMedia.testPatternClip()
        let reader = try await AssetReader.open(url: url)
        let output = AssetReaderTrackOutput(trackID: try videoTrackID(reader), settings: .video(pixelFormat: .bgra))
        try reader.add(output)
        try reader.startReading()
        let frames = try await readAll(output).compactMap(\.videoFrame)
        #expect(frames.count == 60)
        for (i, frame) in frames.enumerated() {
            #expect(frame.presentationTime == MediaTime(value: Int64(i), timescale: 30), "frame \(i)")
            #expect(frame.duration == MediaTime(value: 1, timescale: 30))
            #expect(frame.pixelBuffer.format == .bgra)
            #expect(frame.pixelBuffer.width == 320 && frame.pixelBuffer.height == 240)
        }
        #expect(reader.status == .completed)
    }

    @Test("frames, audio and sampleBuffers give an output's samples typed, and refuse an output of another kind")
    func typedSamples() async throws {
        let url = TestFiles.fixture("counter-320x240.mp4")
        let reader = try await AssetReader.open(url: url)
        let video = AssetReaderTrackOutput(trackID: try videoTrackID(reader), settings: .video(pixelFormat: .yuv420p))
        let audioTrack = try #require(reader.tracks(withMediaType: .audio).first).trackID
        let sound = AssetReaderTrackOutput(trackID: audioTrack, settings: .audioPCM)
        try reader.add(video)
        try reader.add(sound)
        try reader.startReading()
        var frames: [VideoFrame] = []
        for try await frame in video.frames { frames.append(frame) }
        #expect(frames.count == 60)
        #expect(frames.map(\.presentationTime) == (0..<60).map { MediaTime(value: Int64($0), timescale: 30) })
        var sampleFrames = 0
        for try await block in sound.audio { sampleFrames += block.frameCount }
        #expect(sampleFrames >= 95_000 && sampleFrames <= 97_000, "2 s at 48 kHz")

        let again = try await AssetReader.open(url: url)
        let packets = AssetReaderTrackOutput(trackID: try videoTrackID(again), settings: .passthrough)
        try again.add(packets)
        try again.startReading()
        var sizes: [Int] = []
        for try await buffer in packets.sampleBuffers { sizes.append(buffer.data.count) }
        #expect(sizes.count == 60 && sizes.allSatisfy { $0 > 0 })

        let wrong = try await AssetReader.open(url: url)
        let decoded = AssetReaderTrackOutput(trackID: try videoTrackID(wrong), settings: .video(pixelFormat: .yuv420p))
        try wrong.add(decoded)
        try wrong.startReading()
        let error = await expectReelError(.invalidArgument) {
            for try await _ in decoded.audio {}
        }
        #expect(error?.message == "audio reads an output with .audioPCM settings, not .video")
        wrong.cancelReading()
    }

    /// Reads every frame of the fixture `counter-320x240.mp4` (60 frames, keyframes at 0 and
    /// 1 s) with `packets` of its packets from `seconds` on damaged (``DamagedVideo``).
    func readDamaged(packets: Int, from seconds: Double) async throws -> [VideoFrame] {
        let (folder, url) = try TestFiles.copyOfFixture("counter-320x240.mp4")
        defer { try? FileManager.default.removeItem(at: folder) }
        try DamagedVideo.damage(url, packetsAtOrAfter: seconds, count: packets)
        let reader = try await AssetReader.open(url: url)
        let output = AssetReaderTrackOutput(trackID: try videoTrackID(reader), settings: .video(pixelFormat: .yuv420p))
        try reader.add(output)
        try reader.startReading()
        return try await readAll(output).compactMap(\.videoFrame)
    }

    @Test(
        "a damaged packet is skipped, as players skip it; a stream damaged for longer than a second fails the read",
        .requires(.ffmpeg, .ffprobe))
    func damagedPackets() async throws {
        let frames = try await readDamaged(packets: 1, from: 0.5)
        #expect(frames.count == 59)
        #expect(frames.map(\.presentationTime) == frames.map(\.presentationTime).sorted())
        // The 29 packets after the second keyframe: more than a second of refusals in a row.
        let error = await expectReelError(.decoderFailed) { _ = try await readDamaged(packets: 29, from: 1.0) }
        #expect(error?.description.contains("counter-320x240.mp4") == true, "\(String(describing: error))")
    }

    @Test("frames stay intact while held", .requires(.ffmpeg))
    func heldFramesStayIntact() async throws {
        // Holding every frame must not let the reader reuse their memory for later ones.
        func read(copyingEach: Bool) async throws -> [PixelBuffer] {
            let url = try ReadWriteTestMedia.testPatternClip()
            let reader = try await AssetReader.open(url: url)
            let output = AssetReaderTrackOutput(trackID: try videoTrackID(reader), settings: .video(pixelFormat: .yuv420p))
            try reader.add(output)
            try reader.startReading()
            var frames: [PixelBuffer] = []
            for try await sample in output {
                guard let buffer = sample.videoFrame?.pixelBuffer else { continue }
                if copyingEach {
                    let copy = PixelBuffer(width: buffer.width, height: buffer.height, format: buffer.format)
                    buffer.copyPixels(into: copy)
                    frames.append(copy)
                } else {
                    frames.append(buffer)
                }
            }
            return frames
        }
        let held = try await read(copyingEach: false), copied = try await read(copyingEach: true)
        #expect(held.count == 60 && copied.count == 60)
        for (i, (a, b)) in zip(held, copied).enumerated() { #expect(a.hasSamePixels(as: b), "frame \(i)") }
        #expect(!held[0].hasSamePixels(as: held[1]))
    }

    @Test(
        "converts to each pixel format with the right values", .requires(.ffmpeg),
        arguments: PixelFormat.allCases)
    func pixelValues(format: PixelFormat) throws {
        let url = try ReadWriteTestMedia.flatColourClip()
        let reader = try AssetReader(url: url)
        let output = AssetReaderTrackOutput(trackID: try videoTrackID(reader), settings: .video(pixelFormat: format))
        try reader.add(output)
        try reader.startReading()
        let frame = try #require(try output.nextFrame())
        let buffer = frame.pixelBuffer
        #expect(buffer.format == format)
        // The clip holds Y 98, U 177, V 101 (lavfi's colour source, coded losslessly): as
        // BT.709 limited range that is R 47, G 99, B 199.
        let center = (x: 32, y: 24)
        func byte(_ plane: Int, _ x: Int, _ y: Int, _ k: Int = 0) -> Int {
            buffer.withUnsafeBytes(plane: plane) { Int($0[y * buffer.bytesPerRow[plane] + x * format.bytesPerPixel(plane: plane) + k]) }
        }
        func near(_ a: Int, _ b: Int, _ tolerance: Int = 2) -> Bool { abs(a - b) <= tolerance }
        let pixel = (0..<format.bytesPerPixel(plane: 0)).map { byte(0, center.x, center.y, $0) }
        switch format {
        case .bgra:
            #expect(
                near(byte(0, center.x, center.y, 0), 199) && near(byte(0, center.x, center.y, 1), 99)
                    && near(byte(0, center.x, center.y, 2), 47) && byte(0, center.x, center.y, 3) == 255, "\(pixel)")
        case .rgba:
            #expect(
                near(byte(0, center.x, center.y, 0), 47) && near(byte(0, center.x, center.y, 1), 99)
                    && near(byte(0, center.x, center.y, 2), 199) && byte(0, center.x, center.y, 3) == 255, "\(pixel)")
        case .yuv420p:
            #expect(near(byte(0, center.x, center.y), 98) && near(byte(1, 16, 12), 177) && near(byte(2, 16, 12), 101))
        case .nv12:
            #expect(near(byte(0, center.x, center.y), 98) && near(byte(1, 16, 12, 0), 177) && near(byte(1, 16, 12, 1), 101))
        case .gray8:
            #expect(near(byte(0, center.x, center.y), 98))
        }
        var rest = 1
        while try output.nextFrame() != nil { rest += 1 }
        #expect(rest == 10)
    }

    @Test("scales to the size asked for", .requires(.ffmpeg))
    func scales() async throws {
        let url = try ReadWriteTestMedia.testPatternClip()
        let reader = try await AssetReader.open(url: url)
        let output = AssetReaderTrackOutput(trackID: try videoTrackID(reader), settings: .video(pixelFormat: .yuv420p, width: 160, height: 90))
        try reader.add(output)
        try reader.startReading()
        let frames = try await readAll(output).compactMap(\.videoFrame)
        #expect(frames.count == 60)
        #expect(frames.allSatisfy { $0.pixelBuffer.width == 160 && $0.pixelBuffer.height == 90 })
    }

    @Test(
        "a time range gives exactly the frames in it, starting between keyframes",
        .requires(.ffmpeg))
    func timeRange() async throws {
        let url = try ReadWriteTestMedia.testPatternClip()
        // Keyframes every 12 frames: 1 s = frame 30 is not one, so the reader seeks to 24 and drops 24...29.
        let cases: [(start: MediaTime, end: MediaTime, first: Int64, count: Int)] = [
            (MediaTime(value: 1, timescale: 1), MediaTime(value: 3, timescale: 2), 30, 15),
            (MediaTime(value: 0, timescale: 1), MediaTime(value: 1, timescale: 10), 0, 3),
            // A start inside frame 30's span: that frame is the one showing, so it is included.
            (MediaTime(value: 1010, timescale: 1000), MediaTime(value: 2, timescale: 1), 30, 30),
            (MediaTime(value: 59, timescale: 30), MediaTime(value: 10, timescale: 1), 59, 1),
        ]
        for c in cases {
            let reader = try await AssetReader.open(url: url)
            reader.timeRange = TimeRange(start: c.start, end: c.end)
            let output = AssetReaderTrackOutput(trackID: try videoTrackID(reader), settings: .video(pixelFormat: .gray8))
            try reader.add(output)
            try reader.startReading()
            let frames = try await readAll(output).compactMap(\.videoFrame)
            #expect(frames.count == c.count, "range \(c.start)..<\(c.end)")
            for (i, frame) in frames.enumerated() {
                #expect(frame.presentationTime == MediaTime(value: c.first + Int64(i), timescale: 30))
            }
        }
    }

    @Test(
        "a random-access output reads other ranges with the file it has open: frame-exact, no second open",
        .requires(.ffmpeg))
    func randomAccessResets() async throws {
        let url = try ReadWriteTestMedia.testPatternClip()
        let reader = try await AssetReader.open(url: url)
        let id = try videoTrackID(reader)
        // The whole clip once, as the reference.
        let whole = try await { () async throws -> [VideoFrame] in
            let r = try await AssetReader.open(url: url)
            let o = AssetReaderTrackOutput(trackID: id, settings: .video(pixelFormat: .gray8))
            try r.add(o)
            try r.startReading()
            return try await readAll(o).compactMap(\.videoFrame)
        }()
        try #require(whole.count == 60)
        reader.timeRange = TimeRange(start: MediaTime(value: 1, timescale: 1), end: MediaTime(value: 3, timescale: 2))
        let output = AssetReaderTrackOutput(trackID: id, settings: .video(pixelFormat: .gray8))
        output.supportsRandomAccess = true
        try reader.add(output)
        try reader.startReading()
        func expectFrames(_ frames: [VideoFrame], _ indices: Range<Int>, _ label: String) {
            #expect(frames.map(\.presentationTime) == indices.map { whole[$0].presentationTime }, "\(label)")
            for (frame, i) in zip(frames, indices) { #expect(frame.pixelBuffer.hasSamePixels(as: whole[i].pixelBuffer), "\(label): frame \(i)") }
        }
        expectFrames(try await readAll(output).compactMap(\.videoFrame), 30..<45, "first range")
        // Back to the start, then two ranges in one reset.
        try output.reset(forReadingTimeRanges: [TimeRange(start: .zero, end: MediaTime(value: 1, timescale: 10))])
        expectFrames(try await readAll(output).compactMap(\.videoFrame), 0..<3, "back to the start")
        try output.reset(forReadingTimeRanges: [TimeRange(start: MediaTime(value: 59, timescale: 30), duration: .positiveInfinity)])
        expectFrames(try await readAll(output).compactMap(\.videoFrame), 59..<60, "the last frame")
        try output.reset(forReadingTimeRanges: [
            TimeRange(start: MediaTime(value: 1, timescale: 2), end: MediaTime(value: 2, timescale: 3)),
            TimeRange(start: MediaTime(value: 3, timescale: 2), end: MediaTime(value: 8, timescale: 5)),
        ])
        // One after the other: 15...19, then 45...47.
        let both = try await readAll(output).compactMap(\.videoFrame)
        try #require(both.count == 8)
        expectFrames(Array(both.prefix(5)), 15..<20, "two ranges, the first")
        expectFrames(Array(both.suffix(3)), 45..<48, "two ranges, the second")
        // A reset while the range is still being read drops what it had not delivered.
        try output.reset(forReadingTimeRanges: [TimeRange(start: .zero, duration: .positiveInfinity)])
        let first = try #require(try await output.next()?.videoFrame)
        #expect(first.presentationTime == whole[0].presentationTime)
        try output.reset(forReadingTimeRanges: [TimeRange(start: MediaTime(value: 40, timescale: 30), end: MediaTime(value: 42, timescale: 30))])
        expectFrames(try await readAll(output).compactMap(\.videoFrame), 40..<42, "after a reset mid-range")
        #expect(reader.demuxerOpenCount == 1)
        #expect(output.resetCount == 5)
        #expect(reader.status == .reading)
        output.markConfigurationAsFinal()
        expectReelError(.invalidArgument) { try output.reset(forReadingTimeRanges: [TimeRange(start: .zero, end: MediaTime(value: 1, timescale: 1))]) }
    }

    @Test("an output of buffer capacity 0 decodes a frame only when asked, and every frame's successor is known from the packets")
    func decodesOnDemand() async throws {
        // B-frames (IBBBPBBBP...), so the next frame to show is not the next one decoded.
        // A copy of its own: the decoded-picture count is per file in the process.
        let url = try TestFiles.scratchFolder().appendingPathComponent("counter.mp4")
        try FileManager.default.copyItem(at: TestFiles.fixture("counter-320x240.mp4"), to: url)
        for capacity in [0, 1] {
            let reader = try await AssetReader.open(url: url)
            let before = reader.decodedPictureCount
            let output = AssetReaderTrackOutput(trackID: 1, settings: .video(pixelFormat: .gray8), bufferCapacity: capacity)
            try reader.add(output)
            try reader.startReading()
            let queue = try output.startedQueue()
            var frames: [VideoFrame] = []
            for taken in 1...10 {
                let sample = try await output.next()
                frames.append(try #require(sample?.videoFrame))
                // Once the queue wants nothing more, the reader has decoded nothing more than
                // asked (with capacity 1, one frame more: the one queued).
                while queue.wantsAnItem { await Task.yield() }
                let decoded = reader.decodedPictureCount - before
                if capacity == 0 {
                    #expect(decoded == taken, "\(decoded) decoded, \(taken) taken")
                } else {
                    #expect(decoded == taken + 1, "\(decoded) decoded, \(taken) taken")
                }
            }
            frames += try await readAll(output).compactMap(\.videoFrame)
            #expect(frames.count == 60)
            let times = frames.map(\.presentationTime)
            #expect(times == times.sorted())
            // Each frame's successor, told before it is decoded, for the frames still noted.
            for i in 30..<59 {
                #expect(output.timeOfFrame(after: times[i]) == times[i + 1], "frame \(i)")
            }
            #expect(output.timeOfFrame(after: times[59]) == nil)
        }
    }

    @Test("a read seeking to a time delivers from the frame showing then, decoding before it only what other pictures refer to")
    func seekToATime() async throws {
        // Keyframes at frames 0 and 30, B-frames between (IBBBPBBBP...): the frames before a
        // target that no picture refers to are skipped, the others decoded and dropped.
        let url = TestFiles.fixture("counter-320x240.mp4")
        let whole = try await grayFrames(of: url)
        try #require(whole.count == 60)
        let frame = MediaTime(value: 512, timescale: 15360)
        func expectFrom(_ target: Int, _ frames: [VideoFrame], count: Int, _ label: String) {
            #expect(frames.map(\.presentationTime) == (target..<target + count).map { whole[$0].presentationTime }, "\(label)")
            for (got, i) in zip(frames, target...) { #expect(got.pixelBuffer.hasSamePixels(as: whole[i].pixelBuffer), "\(label): frame \(i)") }
        }
        // The reader's first range: starts half a second early, seeks to frame 20's middle.
        let (reader, output) = try await seekingGrayReader(
            url, range: TimeRange(start: frame * 5, end: frame * 23), seekingTo: frame * 20 + MediaTime(value: 100, timescale: 15360))
        expectFrom(20, try await readAll(output).compactMap(\.videoFrame), count: 3, "the first range")
        // Fewer pictures dropped than the 20 before it: the B-frames nothing refers to were not decoded.
        let firstDropped = output.droppedFrameCount
        #expect(firstDropped > 0 && firstDropped < 20, "\(firstDropped) dropped")
        // The frames after it are timed from the packets read ahead, before they are decoded.
        #expect(output.timeOfFrame(after: whole[20].presentationTime) == whole[21].presentationTime)
        #expect(output.timeOfFrame(after: whole[22].presentationTime) == whole[23].presentationTime)
        #expect(output.timeOfFrame(after: whole[19].presentationTime) == nil)
        // Resets: to the frame before the second keyframe, to the keyframe, back to frame 1.
        for target in [29, 30, 47, 1] {
            let before = output.droppedFrameCount
            let at = frame * Int32(target) + MediaTime(value: 1, timescale: 15360)
            try output.reset(forReadingTimeRanges: [TimeRange(start: at - frame * 15, end: frame * Int32(target + 2))], seekingTo: at)
            expectFrom(target, try await readAll(output).compactMap(\.videoFrame), count: 2, "reset to frame \(target)")
            let dropped = output.droppedFrameCount - before
            // Frame 1 (a B-frame) needs the I-frame before it; a keyframe needs nothing.
            let most = [29: 28, 30: 0, 47: 16, 1: 1][target] ?? 0
            #expect(dropped <= most, "reset to frame \(target): \(dropped) dropped")
            if target == 29 || target == 47 { #expect(dropped > 0) }
        }
        #expect(reader.demuxerOpenCount == 1)
    }

    @Test("in MPEG-TS, which has no keyframe index, a seek landing between keyframes decodes from the keyframe before its time")
    func seekBetweenKeyframesWithoutAnIndex() async throws {
        // Keyframes at frames 0 and 40 (1.4667 and 2.8 s), B-frames between. A seek lands on
        // whatever packet comes before its time; its frames must still be the straight decode's.
        let url = TestFiles.fixture("counter-gop.ts")
        let whole = try await grayFrames(of: url, trackID: 256)
        try #require(whole.count == 60)
        // In the first group (back to the file's start), on the second keyframe, just after
        // it, and deep in the second group (back past it by a second or more). Each as the
        // start of a range, as a seek within a range that starts at the file's start, and
        // as such a seek draining at its frame.
        let tick = MediaTime(value: 1, timescale: 90000)
        for target in [5, 25, 39, 40, 41, 58] {
            let at = whole[target].presentationTime + tick
            let end = whole[min(target + 2, 59)].presentationTime + tick
            let fileStart = whole[0].presentationTime
            let ways = [(at, false, "a range from it"), (fileStart, false, "a seek"), (fileStart, true, "a drained seek")]
            for (start, draining, how) in ways {
                let (reader, output) = try await seekingGrayReader(
                    url, trackID: 256, range: TimeRange(start: start, end: end), seekingTo: at, draining: draining)
                let frames = try await readAll(output).compactMap(\.videoFrame)
                let label = "frame \(target), \(how)"
                #expect(frames.map(\.presentationTime) == whole[target...min(target + 2, 59)].map(\.presentationTime), "\(label)")
                for (got, i) in zip(frames, target...) { #expect(got.pixelBuffer.hasSamePixels(as: whole[i].pixelBuffer), "\(label): frame \(i)") }
                reader.cancelReading()
            }
        }
    }

    @Test("a seek that drains at its frame delivers the same frames, and decodes the pictures before it again to read on")
    func seekDrainingAtItsFrame() async throws {
        // IBBBP with B-pyramids, keyframes at frames 0 and 30: targets on P-frames, on
        // B-frames that show before a P decoded ahead of them, on a keyframe, and the frames
        // after each, which come after the decoder is sent the packets again.
        let url = TestFiles.fixture("counter-320x240.mp4")
        let whole = try await grayFrames(of: url)
        try #require(whole.count == 60)
        let frame = MediaTime(value: 512, timescale: 15360)
        func open(draining: Bool, at target: Int) async throws -> (AssetReader, AssetReaderTrackOutput) {
            try await seekingGrayReader(
                url, range: TimeRange(start: .zero, end: frame * Int32(target + 6)),
                seekingTo: frame * Int32(target) + MediaTime(value: 1, timescale: 15360), draining: draining)
        }
        let (plainReader, plain) = try await open(draining: false, at: 20)
        let (drainingReader, draining) = try await open(draining: true, at: 20)
        for target in [20, 29, 30, 47, 1, 13, 57] {
            let label = "seek to frame \(target)"
            if target != 20 {
                let at = frame * Int32(target) + MediaTime(value: 1, timescale: 15360)
                let range = [TimeRange(start: .zero, end: frame * Int32(target + 6))]
                try plain.reset(forReadingTimeRanges: range, seekingTo: at)
                try draining.reset(forReadingTimeRanges: range, seekingTo: at, drainingAtSeekFrame: true)
            }
            let (plainBefore, drainingBefore) = (plain.droppedFrameCount, draining.droppedFrameCount)
            let expected = Array(whole[target..<min(target + 6, 60)])
            let drained = try await readAll(draining).compactMap(\.videoFrame)
            let read = try await readAll(plain).compactMap(\.videoFrame)
            #expect(drained.map(\.presentationTime) == expected.map(\.presentationTime), "\(label): the times")
            #expect(read.map(\.presentationTime) == expected.map(\.presentationTime), "\(label): the times without draining")
            for (got, want) in zip(drained, expected) {
                #expect(got.pixelBuffer.hasSamePixels(as: want.pixelBuffer), "\(label): frame at \(want.presentationTime.seconds)")
            }
            // Drained: the pictures decoded to reach the frame, and the frame itself, are
            // decoded again and dropped.
            let (plainDropped, drainedDropped) = (plain.droppedFrameCount - plainBefore, draining.droppedFrameCount - drainingBefore)
            #expect(drainedDropped > plainDropped, "\(label): \(drainedDropped) dropped draining, \(plainDropped) without")
        }
        #expect(plainReader.demuxerOpenCount == 1 && drainingReader.demuxerOpenCount == 1)
    }

    @Test("after a drain at a seek's frame, the reader decodes from the keyframe again only once the next frame is asked for")
    func drainReadsOnWhenAsked() async throws {
        let url = TestFiles.fixture("counter-320x240.mp4")
        let whole = try await grayFrames(of: url)
        try #require(whole.count == 60)
        let frame = MediaTime(value: 512, timescale: 15360)
        let (_, output) = try await seekingGrayReader(url, seekingTo: frame * 27 + MediaTime(value: 1, timescale: 15360), draining: true)
        let seekFrame = try #require(try await output.next()?.videoFrame)
        #expect(seekFrame.presentationTime == whole[27].presentationTime)
        #expect(seekFrame.pixelBuffer.hasSamePixels(as: whole[27].pixelBuffer))
        // Its loop stops once the seek's frame is out (polled, whatever the time it takes).
        while !output.readLoopWaits { try await Task.sleep(for: .milliseconds(1)) }
        let droppedBeforeAsking = output.droppedFrameCount
        let next = try #require(try await output.next()?.videoFrame)
        #expect(next.presentationTime == whole[28].presentationTime)
        #expect(next.pixelBuffer.hasSamePixels(as: whole[28].pixelBuffer))
        // The pictures up to the seek's frame were decoded again, and dropped, only now.
        #expect(output.droppedFrameCount > droppedBeforeAsking, "dropped \(droppedBeforeAsking) before asking, \(output.droppedFrameCount) after")
    }

    @Test("a seek leaves the H.264 pictures no other refers to, before its frame, out of the decoder, and its frames stay exact")
    func seekLeavesNonReferencePicturesOut() async throws {
        // IBBBP with B-pyramids: of each three B-frames, the outer two are not references.
        let url = TestFiles.fixture("counter-320x240.mp4")
        let whole = try await grayFrames(of: url)
        let frame = MediaTime(value: 512, timescale: 15360)
        for draining in [false, true] {
            let before = try await AssetReader.open(url: url).pictureLeftOutCount
            let (reader, output) = try await seekingGrayReader(
                url, range: TimeRange(start: .zero, end: frame * 31), seekingTo: frame * 25 + MediaTime(value: 1, timescale: 15360), draining: draining)
            let frames = try await readAll(output).compactMap(\.videoFrame)
            #expect(frames.map(\.presentationTime) == whole[25..<31].map(\.presentationTime))
            for (got, want) in zip(frames, whole[25..<31]) {
                #expect(got.pixelBuffer.hasSamePixels(as: want.pixelBuffer), "frame at \(want.presentationTime.seconds), draining: \(draining)")
            }
            #expect(reader.pictureLeftOutCount - before >= 8, "left out: \(reader.pictureLeftOutCount - before), draining: \(draining)")
        }
    }

    @Test("a reader that seeks often hands on copies of the decoder's pictures, before and after a seek; one that reads on lends the pictures themselves")
    func seekingReaderCopiesPictures() async throws {
        var frames: [Bool: [VideoFrame]] = [:]
        for seeks in [false, true] {
            let (_, output) = try await randomAccessReader(TestFiles.fixture("counter-320x240.mp4"), format: .yuv420p, decodesForSeeks: seeks)
            var read: [VideoFrame] = []
            for _ in 0..<3 { read.append(try #require(try await output.next()?.videoFrame)) }
            try seekToFrame40(output)
            read += try await readAll(output).compactMap(\.videoFrame)
            #expect(read.count == 6, "seeks: \(seeks)")
            for got in read {
                #expect(got.pixelBuffer.ownsItsMemory == seeks, "frame at \(got.presentationTime.seconds), seeks: \(seeks)")
            }
            frames[seeks] = read
        }
        for (copied, lent) in zip(frames[true] ?? [], frames[false] ?? []) {
            #expect(copied.presentationTime == lent.presentationTime)
            #expect(copied.pixelBuffer.hasSamePixels(as: lent.pixelBuffer), "frame at \(lent.presentationTime.seconds)")
        }
    }

    @Test("a reader that seeks often starts its frame pool afresh at a seek, freeing the buffers the last read left idle; one that reads on keeps its pool")
    func seekingReaderFreesItsPoolAtASeek() async throws {
        for seeks in [false, true] {
            // Gray: converted, so every frame is a pooled buffer of the reader's own.
            let (_, output) = try await randomAccessReader(TestFiles.fixture("counter-320x240.mp4"), format: .gray8, decodesForSeeks: seeks)
            let before = try #require(try await output.next()?.videoFrame)
            // Not held here: the test must not keep the pool alive.
            try #require(before.pixelBuffer.pool != nil, "seeks: \(seeks)")
            try seekToFrame40(output)
            let after = try await readAll(output).compactMap(\.videoFrame)
            try #require(after.count == 3, "seeks: \(seeks)")
            let second = try #require(after[0].pixelBuffer.pool, "seeks: \(seeks)")
            if seeks {
                // The first pool is gone: the frame still out frees its memory when let go.
                #expect(before.pixelBuffer.pool == nil)
            } else {
                #expect(before.pixelBuffer.pool === second)
            }
        }
    }

    @Test("a video track's keyframe times come from the container's index")
    func keyframeTimes() async throws {
        let reader = try await AssetReader.open(url: TestFiles.fixture("counter-320x240.mp4"))
        #expect(reader.keyframeTimes(trackID: 1) == [.zero, MediaTime(value: 1, timescale: 1)])
        #expect(reader.keyframeTimes(trackID: 2).isEmpty)
        let vfr = try await AssetReader.open(url: TestFiles.fixture("vfr.mp4"))
        #expect(vfr.keyframeTimes(trackID: 1).count == 3)
    }

    @Test("reset is refused without random access, before reading, and for ranges out of order", .requires(.ffmpeg))
    func randomAccessRefusals() async throws {
        let url = try ReadWriteTestMedia.testPatternClip()
        let reader = try await AssetReader.open(url: url)
        let id = try videoTrackID(reader)
        let plain = AssetReaderTrackOutput(trackID: id, settings: .video(pixelFormat: .gray8))
        try reader.add(plain)
        let random = AssetReaderTrackOutput(trackID: id, settings: .video(pixelFormat: .gray8))
        random.supportsRandomAccess = true
        try reader.add(random)
        expectReelError(.invalidArgument) { try random.reset(forReadingTimeRanges: [TimeRange(start: .zero, end: MediaTime(value: 1, timescale: 1))]) }
        try reader.startReading()
        expectReelError(.invalidArgument) { try plain.reset(forReadingTimeRanges: [TimeRange(start: .zero, end: MediaTime(value: 1, timescale: 1))]) }
        expectReelError(.invalidArgument) { try random.reset(forReadingTimeRanges: []) }
        expectReelError(.invalidArgument) {
            try random.reset(forReadingTimeRanges: [
                TimeRange(start: MediaTime(value: 1, timescale: 1), end: MediaTime(value: 2, timescale: 1)),
                TimeRange(start: .zero, end: MediaTime(value: 1, timescale: 2)),
            ])
        }
        // Cancelling ends the random-access loop too.
        reader.cancelReading()
        await expectReelError(.cancelled) { _ = try await random.next() }
    }

    @Test("the synchronous pull API gives the same frames", .requires(.ffmpeg))
    func synchronousPull() throws {
        let url = try ReadWriteTestMedia.testPatternClip()
        let reader = try AssetReader(url: url)
        let output = AssetReaderTrackOutput(trackID: try videoTrackID(reader), settings: .video(pixelFormat: .nv12), bufferCapacity: 2)
        try reader.add(output)
        try reader.startReading()
        var times: [MediaTime] = []
        while let frame = try output.nextFrame() { times.append(frame.presentationTime) }
        #expect(times == (0..<60).map { MediaTime(value: Int64($0), timescale: 30) })
    }

    @Test("decodes audio to interleaved float", .requires(.ffmpeg))
    func audio() async throws {
        let url = try ReadWriteTestMedia.lavfi("sine=frequency=440:sample_rate=48000:duration=1", ["-c:a", "aac", "-ac", "2"], name: "tone.mp4")
        let reader = try await AssetReader.open(url: url)
        let track = try #require(reader.tracks(withMediaType: .audio).first)
        let output = AssetReaderTrackOutput(trackID: track.trackID, settings: .audioPCM)
        try reader.add(output)
        try reader.startReading()
        let buffers = try await readAll(output).compactMap(\.audio)
        let frames = buffers.reduce(0) { $0 + $1.frameCount }
        #expect(buffers.first?.channelCount == 2 && buffers.first?.sampleRate == 48000)
        #expect(frames >= 47_000 && frames <= 49_200)
        let peak = buffers.flatMap(\.samples).map(abs).max() ?? 0
        #expect(peak > 0.05 && peak <= 1.01)
    }

    @Test("cancelling stops the outputs with a cancelled error", .requires(.ffmpeg))
    func cancel() async throws {
        let url = try ReadWriteTestMedia.testPatternClip()
        let reader = try await AssetReader.open(url: url)
        let output = AssetReaderTrackOutput(trackID: try videoTrackID(reader), settings: .video(pixelFormat: .bgra), bufferCapacity: 1)
        try reader.add(output)
        try reader.startReading()
        _ = try await output.next()
        reader.cancelReading()
        #expect(reader.status == .cancelled)
        await expectReelError(.cancelled) {
            while try await output.next() != nil {}
        }
    }

    @Test("concurrent startReading calls start exactly one read", .requires(.ffmpeg))
    func concurrentStarts() async throws {
        let url = try ReadWriteTestMedia.testPatternClip()
        let reader = try await AssetReader.open(url: url)
        let output = AssetReaderTrackOutput(trackID: try videoTrackID(reader), settings: .video(pixelFormat: .gray8))
        try reader.add(output)
        let started = Atomic<Int>(0)
        let refused = Atomic<Int>(0)
        // Sixteen threads released together, so the calls overlap.
        let gate = DispatchSemaphore(value: 0)
        let done = DispatchGroup()
        for _ in 0..<16 {
            done.enter()
            Thread {
                gate.wait()
                do {
                    try reader.startReading()
                    started.add(1, ordering: .relaxed)
                } catch {
                    if (error as? ReelError)?.message.contains("already") == true { refused.add(1, ordering: .relaxed) }
                }
                done.leave()
            }.start()
        }
        for _ in 0..<16 { gate.signal() }
        done.wait()
        #expect(started.load(ordering: .relaxed) == 1)
        #expect(refused.load(ordering: .relaxed) == 15)
        #expect(try await readAll(output).count == 60)
        #expect(reader.status == .completed)
    }

    // MARK: Opened once, started without blocking

    @Test("a reader with two outputs opens its file twice: once to probe, then for the second output")
    func opensOncePerExtraOutput() async throws {
        let reader = try await AssetReader.open(url: TestFiles.fixture("counter-gps.mp4"))
        #expect(reader.demuxerOpenCount == 1)
        let video = AssetReaderTrackOutput(trackID: try videoTrackID(reader), settings: .video(pixelFormat: .gray8))
        let audio = AssetReaderTrackOutput(trackID: try #require(reader.tracks(withMediaType: .audio).first).trackID, settings: .audioPCM)
        try reader.add(video)
        try reader.add(audio)
        try reader.startReading()
        async let frames = readAll(video)
        let sound = try await readAll(audio)
        #expect(try await !frames.isEmpty)
        #expect(!sound.isEmpty)
        #expect(reader.status == .completed)
        // The first output read from the probed file; only the second opened its own.
        #expect(reader.demuxerOpenCount == 2)
    }

    /// A consumer that stops early and lets go of the reader and its output: the loop,
    /// blocked on a full queue, must not keep them (and the file, and the samples) alive.
    @Test("releasing a reader and its output mid-read cancels the output's queue, so its loop ends")
    func releasingTheOutputStopsItsLoop() async throws {
        var queue: BoundedQueue<AssetReaderSample>?
        do {
            let reader = try await AssetReader.open(url: TestFiles.fixture("counter-gps.mp4"))
            let video = AssetReaderTrackOutput(trackID: try videoTrackID(reader), settings: .passthrough, bufferCapacity: 1)
            try reader.add(video)
            try reader.startReading()
            #expect(try await video.next() != nil)
            queue = video.state.withLock { $0.queue }
            #expect(queue?.isCancelled == false)
        }
        #expect(queue?.isCancelled == true)
    }

    @Test("two outputs of metadata tracks read the file's MP4 boxes once")
    func readsBoxesOnce() async throws {
        // A copy of its own: the fixture's boxes may have been read by other tests.
        let (folder, url) = try TestFiles.copyOfFixture("counter-gps.mp4")
        defer { try? FileManager.default.removeItem(at: folder) }
        let reader = try await AssetReader.open(url: url)
        let gpmd = try #require(reader.tracks(withMediaType: .metadata).first).trackID
        let first = AssetReaderTrackOutput(trackID: gpmd, settings: .passthrough)
        let second = AssetReaderTrackOutput(trackID: gpmd, settings: .passthrough)
        try reader.add(first)
        try reader.add(second)
        #expect(reader.movieBoxReadCount == 0)
        try reader.startReading()
        async let one = readAll(first)
        let two = try await readAll(second).compactMap(\.sampleBuffer)
        let times = try await one.compactMap(\.sampleBuffer).map(\.presentationTime)
        #expect(!two.isEmpty)
        #expect(times == two.map(\.presentationTime))
        #expect(reader.movieBoxReadCount == 1)
    }

    /// The file is removed after the reader probed it: `startReading()` opens nothing, so
    /// it returns; the first output reads the probed (still open) file, the second fails
    /// on its own thread when it opens the file, and its consumer gets that error.
    @Test("startReading() opens no file: an output that cannot open it fails from next()")
    func startReadingOpensNothing() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("clip.mp4")
        try FileManager.default.copyItem(at: TestFiles.fixture("counter-gps.mp4"), to: url)
        let reader = try await AssetReader.open(url: url)
        let video = AssetReaderTrackOutput(trackID: try videoTrackID(reader), settings: .video(pixelFormat: .gray8))
        let audio = AssetReaderTrackOutput(trackID: try #require(reader.tracks(withMediaType: .audio).first).trackID, settings: .audioPCM)
        try reader.add(video)
        try reader.add(audio)
        try FileManager.default.removeItem(at: url)
        try reader.startReading()
        await expectReelError(.fileNotFound) {
            while try await audio.next() != nil {}
        }
        #expect(reader.status == .failed)
        #expect(reader.error?.code == .fileNotFound)
        #expect(reader.error?.path == url.path)
        // The first output's loop read the probed file: it ends normally or was still
        // going when the reader failed.
        _ = try? await readAll(video)
        #expect(reader.demuxerOpenCount == 1)
    }

    @Test("bad input gives clear errors")
    func errors() throws {
        let missing = URL(fileURLWithPath: "/nonexistent/reel/clip.mp4")
        #expect { try AssetReader(url: missing) } throws: { ($0 as? ReelError)?.code == .fileNotFound }
        let folder = try TestFiles.scratchFolder()
        let junk = folder.appendingPathComponent("junk.mp4")
        try Data("this is not a movie at all, just text".utf8).write(to: junk)
        #expect { try AssetReader(url: junk) } throws: { ($0 as? ReelError)?.code == .unsupportedFormat }
    }

    @Test("unknown tracks and unfit settings are refused", .requires(.ffmpeg))
    func refusals() throws {
        let url = try ReadWriteTestMedia.testPatternClip()
        let reader = try AssetReader(url: url)
        let unknown = AssetReaderTrackOutput(trackID: 99, settings: .passthrough)
        #expect(!reader.canAdd(unknown))
        #expect { try reader.add(unknown) } throws: { ($0 as? ReelError)?.trackID == 99 }
        let audioOnVideo = AssetReaderTrackOutput(trackID: try videoTrackID(reader), settings: .audioPCM)
        try reader.add(audioOnVideo)
        #expect { try reader.startReading() } throws: { ($0 as? ReelError)?.code == .invalidArgument }
        #expect(reader.status == .failed)
        #expect { try audioOnVideo.nextAudio() } throws: { ($0 as? ReelError)?.code == .invalidArgument }
    }

    @Test("reads an Asset's track", .requires(.ffmpeg))
    func fromAsset() async throws {
        let asset = Asset(url: try ReadWriteTestMedia.testPatternClip())
        let track = try #require(try await asset.loadTracks(withMediaType: .video).first)
        let reader = try await AssetReader.open(asset: asset)
        let output = AssetReaderTrackOutput(track: track, settings: .video(pixelFormat: .rgba))
        try reader.add(output)
        try reader.startReading()
        #expect(try await readAll(output).count == 60)
    }

    @Test("GoPro MAX: 315 video frames and 11 gpmd samples", .requires(.sharedMedia))
    func goProMax() async throws {
        let reader = try await AssetReader.open(url: TestFiles.sharedMedia(Self.maxFile))
        let gpmd = try #require(reader.tracks(withMediaType: .metadata).first { $0.metadataFormat == .gpmd })
        let video = AssetReaderTrackOutput(trackID: try videoTrackID(reader), settings: .video(pixelFormat: .yuv420p))
        let metadata = AssetReaderTrackOutput(trackID: gpmd.trackID, settings: .passthrough)
        try reader.add(video)
        try reader.add(metadata)
        try reader.startReading()
        async let frames = readAll(video)
        let samples = try await readAll(metadata).compactMap(\.sampleBuffer)
        let videoFrames = try await frames.compactMap(\.videoFrame)
        #expect(videoFrames.count == 315)
        #expect(videoFrames.first?.pixelBuffer.width == 848 && videoFrames.first?.pixelBuffer.height == 480)
        #expect(videoFrames.last?.presentationTime == MediaTime(value: 314 * 1001, timescale: 30000))
        #expect(samples.count == 11)
        #expect(samples.allSatisfy { $0.format == "gpmd" })
        #expect(samples.first?.presentationTime == .zero)
        #expect(samples.first?.duration == MediaTime(value: 1001, timescale: 1000))
        // The sample table's span (stts), which the edit list cuts at 10.507 s where FFmpeg
        // reports 0.507 s: the payload's fixes are spread over the span the camera wrote.
        #expect(samples.last?.duration == MediaTime(value: 533, timescale: 1000))
        #expect(samples.last?.presentationTime == MediaTime(value: 10010, timescale: 1000))
        #expect(samples.first.map { Array($0.data.prefix(4)) } == Array("DEVC".utf8))
    }

    // MARK: One classification with Asset

    /// An MP4 with video, 3GPP timed text and a cover picture, and an MPEG-TS with video and a
    /// timed ID3 stream: the reader's tracks are the asset's, with the same media types.
    @Test(.requires(.ffmpeg))
    func classifiesTracksAsAssetDoes() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try "1\n00:00:00,000 --> 00:00:00,500\nHello\n".write(to: folder.appendingPathComponent("s.srt"), atomically: true, encoding: .utf8)
        try TestTools.output("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "color=red:size=16x16", "-frames:v", "1", "cover.png"], in: folder)
        try TestTools.output(
            "ffmpeg",
            [
                "-v", "error", "-f", "lavfi", "-i", "testsrc=size=64x64:rate=10:duration=1", "-i", "s.srt",
                "-i", "cover.png", "-map", "0", "-map", "1", "-map", "2", "-c:v", "libx264", "-c:s", "mov_text",
                "-c:v:1", "png", "-disposition:v:1", "attached_pic", "tracks.mp4",
            ], in: folder)
        try Data([0x49, 0x44, 0x33, 4, 0, 0, 0, 0, 0, 0]).write(to: folder.appendingPathComponent("tag.id3"))
        try TestTools.output(
            "ffmpeg",
            [
                "-v", "error", "-f", "lavfi", "-i", "testsrc=size=64x64:rate=10:duration=1", "-f", "data",
                "-i", "tag.id3", "-map", "0", "-map", "1", "-c:v", "libx264", "-c:d", "copy", "data.ts",
            ], in: folder)
        let ts = try Data(contentsOf: folder.appendingPathComponent("data.ts"))
        try TimedID3Stream.retagged(ts).write(to: folder.appendingPathComponent("id3.ts"))

        for (name, expected) in [("tracks.mp4", [MediaType.video, .text, .video]), ("id3.ts", [.video, .metadata])] {
            let url = folder.appendingPathComponent(name)
            let reader = try await AssetReader.open(url: url)
            let assetTracks = try await Asset(url: url).load(.tracks)
            #expect(assetTracks.map(\.mediaType) == expected, "\(name)")
            #expect(reader.tracks.map(\.mediaType) == assetTracks.map(\.mediaType), "\(name)")
            #expect(reader.tracks.map(\.trackID) == assetTracks.map(\.trackID), "\(name)")
            #expect(reader.tracks.map(\.metadataFormat) == assetTracks.map(\.metadataFormat), "\(name)")
        }
        let reader = try await AssetReader.open(url: folder.appendingPathComponent("tracks.mp4"))
        // The cover picture is listed, flagged, but is not a video track to read.
        #expect(reader.tracks.map(\.isCoverPicture) == [false, false, true])
        #expect(reader.tracks(withMediaType: .video).map(\.trackID) == [reader.tracks[0].trackID])
        #expect(try await AssetReader.open(url: folder.appendingPathComponent("id3.ts")).tracks[1].formatDescription.codecName == "timed_id3")
    }
}

/// ffmpeg muxes a data stream into MPEG-TS as private data (stream type 6); this rewrites
/// the program map so that stream is timed ID3 (stream type 0x15 with an `ID3 ` metadata
/// descriptor, ISO/IEC 13818-1 2.6.60), as HLS streams carry it. ffmpeg's CLI cannot make
/// one: there is no timed ID3 encoder to name.
enum TimedID3Stream {
    static func retagged(_ data: Data) throws -> Data {
        var bytes = [UInt8](data)
        var patched = 0
        for start in stride(from: 0, to: bytes.count - 187, by: 188) {
            let pid = Int(bytes[start + 1] & 0x1F) << 8 | Int(bytes[start + 2])
            // ffmpeg's program map is PID 0x1000, one section starting in the packet.
            guard pid == 0x1000, bytes[start + 1] & 0x40 != 0 else { continue }
            let section = start + 5 + Int(bytes[start + 4])
            let sectionEnd = section + 3 + (Int(bytes[section + 1] & 0x0F) << 8 | Int(bytes[section + 2])) - 4
            let programInfo = Int(bytes[section + 10] & 0x0F) << 8 | Int(bytes[section + 11])
            var out = Array(bytes[section..<(section + 12 + programInfo)])
            var i = section + 12 + programInfo
            while i < sectionEnd {
                var type = bytes[i]
                let infoLength = Int(bytes[i + 3] & 0x0F) << 8 | Int(bytes[i + 4])
                var descriptors = Array(bytes[(i + 5)..<(i + 5 + infoLength)])
                if type == 0x06 {
                    type = 0x15
                    descriptors = [0x26, 13, 0xFF, 0xFF] + Array("ID3 ".utf8) + [0xFF] + Array("ID3 ".utf8) + [0x00, 0x0F]
                }
                out += [type, bytes[i + 1], bytes[i + 2], 0xF0 | UInt8(descriptors.count >> 8), UInt8(descriptors.count & 0xFF)] + descriptors
                i += 5 + infoLength
            }
            let length = out.count - 3 + 4
            out[1] = 0xB0 | UInt8(length >> 8)
            out[2] = UInt8(length & 0xFF)
            out += withUnsafeBytes(of: crc32MPEG2(out).bigEndian, Array.init)
            let packet = Array(bytes[start..<(start + 5)]) + out
            guard packet.count <= 188 else { throw ReelError(.internalError, "the program map does not fit its packet") }
            bytes.replaceSubrange(start..<(start + 188), with: packet + [UInt8](repeating: 0xFF, count: 188 - packet.count))
            patched += 1
        }
        guard patched > 0 else { throw ReelError(.internalError, "no program map at PID 0x1000") }
        return Data(bytes)
    }

    /// CRC-32/MPEG-2 (polynomial 0x04C11DB7, not reflected), which ends every PSI section.
    static func crc32MPEG2(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte) << 24
            for _ in 0..<8 { crc = crc & 0x8000_0000 != 0 ? (crc << 1) ^ 0x04C1_1DB7 : crc << 1 }
        }
        return crc
    }
}
