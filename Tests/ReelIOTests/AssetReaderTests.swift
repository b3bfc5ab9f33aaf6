import Foundation
import Synchronization
import Testing
import ReelCore
@testable import ReelIO
import ReelTestSupport

@Suite("AssetReader")
struct AssetReaderTests {
    static let maxFile = "gpmf-parser_max-heromode.mp4"

    /// Reads every sample of an output with the async API.
    func readAll(_ output: AssetReaderTrackOutput) async throws -> [AssetReaderSample] {
        var samples: [AssetReaderSample] = []
        for try await sample in output { samples.append(sample) }
        return samples
    }

    func videoTrackID(_ reader: AssetReader) throws -> Int32 {
        try #require(reader.tracks(withMediaType: .video).first).trackID
    }

    @Test("decodes every frame with exact timestamps", .requires(.ffmpeg))
    func decodesEveryFrame() async throws {
        let url = try ReadWriteTestMedia.testPatternClip()
        let reader = try AssetReader(url: url)
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

    @Test("frames stay intact while held", .requires(.ffmpeg))
    func heldFramesStayIntact() async throws {
        // Holding every frame must not let the reader reuse their memory for later ones.
        func read(copyingEach: Bool) async throws -> [PixelBuffer] {
            let url = try ReadWriteTestMedia.testPatternClip()
            let reader = try AssetReader(url: url)
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

    @Test("converts to each pixel format with the right values", .requires(.ffmpeg),
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
            #expect(near(byte(0, center.x, center.y, 0), 199) && near(byte(0, center.x, center.y, 1), 99)
                    && near(byte(0, center.x, center.y, 2), 47) && byte(0, center.x, center.y, 3) == 255, "\(pixel)")
        case .rgba:
            #expect(near(byte(0, center.x, center.y, 0), 47) && near(byte(0, center.x, center.y, 1), 99)
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
        let reader = try AssetReader(url: url)
        let output = AssetReaderTrackOutput(trackID: try videoTrackID(reader), settings: .video(pixelFormat: .yuv420p, width: 160, height: 90))
        try reader.add(output)
        try reader.startReading()
        let frames = try await readAll(output).compactMap(\.videoFrame)
        #expect(frames.count == 60)
        #expect(frames.allSatisfy { $0.pixelBuffer.width == 160 && $0.pixelBuffer.height == 90 })
    }

    @Test("a time range gives exactly the frames in it, starting between keyframes",
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
            let reader = try AssetReader(url: url)
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
        let reader = try AssetReader(url: url)
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
        let reader = try AssetReader(url: url)
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
        let reader = try AssetReader(url: url)
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
        let reader = try AssetReader(asset: asset)
        let output = AssetReaderTrackOutput(track: track, settings: .video(pixelFormat: .rgba))
        try reader.add(output)
        try reader.startReading()
        #expect(try await readAll(output).count == 60)
    }

    @Test("GoPro MAX: 315 video frames and 11 gpmd samples", .requires(.sharedMedia))
    func goProMax() async throws {
        let reader = try AssetReader(url: TestFiles.sharedMedia(Self.maxFile))
        let gpmd = try #require(reader.tracks(withMediaType: .metadata).first { $0.metadataFormat == "gpmd" })
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
}
