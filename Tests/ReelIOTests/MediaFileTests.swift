import Foundation
import ReelCore
import ReelTestSupport
import Testing

@testable import ReelIO

/// One file, shared by the process: demuxers go back to the file's pool and its MP4
/// boxes are parsed once.
@Suite("MediaFile: one file, opened once")
struct MediaFileTests {
    /// What a reader gives for every track of the file: each frame's time and its luma
    /// rows summed, each sound buffer's time and sample count, each metadata sample's
    /// time and bytes.
    struct Everything: Equatable {
        var frames: [String] = []
        var sound: [String] = []
        var metadata: [String] = []
    }

    static func readEverything(_ url: URL, range: TimeRange? = nil) async throws -> (Everything, AssetReader) {
        let reader = try await AssetReader.open(url: url)
        let video = AssetReaderTrackOutput(trackID: try #require(reader.tracks(withMediaType: .video).first).trackID, settings: .video(pixelFormat: .gray8))
        let audio = AssetReaderTrackOutput(trackID: try #require(reader.tracks(withMediaType: .audio).first).trackID, settings: .audioPCM)
        let gpmd = AssetReaderTrackOutput(trackID: try #require(reader.tracks(withMediaType: .metadata).first).trackID, settings: .passthrough)
        for output in [video, audio, gpmd] { try reader.add(output) }
        if let range { reader.timeRange = range }
        try reader.startReading()
        var all = Everything()
        for try await sample in video {
            guard let frame = sample.videoFrame else { continue }
            let p = frame.pixelBuffer
            let sum = p.withUnsafeBytes(plane: 0) { bytes in
                (0..<p.height).reduce(0) { total, y in total &+ (0..<p.width).reduce(0) { $0 &+ Int(bytes[y * p.bytesPerRow[0] + $1]) } }
            }
            all.frames.append("\(frame.presentationTime) \(sum)")
        }
        for try await sample in audio {
            guard let buffer = sample.audio else { continue }
            all.sound.append("\(buffer.presentationTime) \(buffer.frameCount)")
        }
        for try await sample in gpmd {
            guard let buffer = sample.sampleBuffer else { continue }
            all.metadata.append("\(buffer.presentationTime) \(buffer.duration) \(Array(buffer.data))")
        }
        return (all, reader)
    }

    @Test("readers one after another open the file once, and a demuxer taken back gives what a fresh one gives")
    func readersShareOneOpening() async throws {
        let (folder, url) = try TestFiles.copyOfFixture("counter-gps.mp4")
        defer { try? FileManager.default.removeItem(at: folder) }
        let (first, firstReader) = try await Self.readEverything(url)
        #expect(first.frames.count == 60)
        #expect(!first.sound.isEmpty && !first.metadata.isEmpty)
        // Three outputs: at most three demuxers, each opened once (fewer when one output
        // finished before another's thread started and took its demuxer).
        #expect((1...3).contains(firstReader.fileOpenCount))
        for _ in 0..<3 {
            let (again, reader) = try await Self.readEverything(url)
            #expect(again == first)
            // Two idle demuxers are kept: the third output opens one more each time.
            #expect(reader.demuxerOpenCount == 3)
        }
        #expect(firstReader.fileOpenCount <= 6, "opened \(firstReader.fileOpenCount) times")
        // A range read from a reused demuxer: the same frames as from the start.
        let half = TimeRange(start: MediaTime(value: 1, timescale: 1), duration: MediaTime(value: 1, timescale: 2))
        let (part, _) = try await Self.readEverything(url, range: half)
        #expect(part.frames == Array(first.frames[30..<45]))
    }

    /// FFmpeg's Matroska demuxer, sought back to its start, drops the sound packet at 0 that
    /// comes before the first video keyframe's time: such files are opened for each reader.
    @Test("a Matroska file read again gives the same frames and sound (its demuxers are not pooled)", .requires(.ffmpeg))
    func matroskaRewinds() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let ffmpeg = try #require(TestTools.which("ffmpeg"))
        let made = try TestTools.run(ffmpeg, ["-v", "error", "-i", TestFiles.fixture("counter-320x240.mp4").path, "-c", "copy", "clip.mkv"], in: folder)
        #expect(made.status == 0, "\(made.stderr)")
        let url = folder.appendingPathComponent("clip.mkv")
        func read() async throws -> ([String], [String], AssetReader) {
            let reader = try await AssetReader.open(url: url)
            let video = AssetReaderTrackOutput(trackID: try #require(reader.tracks(withMediaType: .video).first).trackID, settings: .video(pixelFormat: .gray8))
            let audio = AssetReaderTrackOutput(trackID: try #require(reader.tracks(withMediaType: .audio).first).trackID, settings: .passthrough)
            try reader.add(video)
            try reader.add(audio)
            try reader.startReading()
            var frames: [String] = [], sound: [String] = []
            for try await sample in video {
                guard let frame = sample.videoFrame else { continue }
                let p = frame.pixelBuffer
                let sum = p.withUnsafeBytes(plane: 0) { bytes in (0..<p.height * p.bytesPerRow[0]).reduce(0) { $0 &+ Int(bytes[$1]) &* ($1 % 7 + 1) } }
                frames.append("\(frame.presentationTime) \(sum)")
            }
            for try await sample in audio {
                guard let buffer = sample.sampleBuffer else { continue }
                sound.append("\(buffer.presentationTime) \(Array(buffer.data))")
            }
            return (frames, sound, reader)
        }
        let (frames, sound, _) = try await read()
        #expect(frames.count == 60 && !sound.isEmpty)
        #expect(sound.first?.hasPrefix("0/") == true, "\(sound.first ?? "")")
        let (again, againSound, _) = try await read()
        #expect(again == frames)
        #expect(againSound == sound)
        #expect(!MediaFile.pools("matroska,webm"))
        #expect(MediaFile.pools("mov,mp4,m4a,3gp,3g2,mj2"))
    }

    @Test("an asset's probe and the readers after it share the demuxer: the file is opened once")
    func assetAndReaderShare() async throws {
        let (folder, url) = try TestFiles.copyOfFixture("counter-gps.mp4")
        defer { try? FileManager.default.removeItem(at: folder) }
        let asset = Asset(url: url)
        let tracks = try await asset.load(.tracks)
        #expect(tracks.count >= 3)
        #expect(asset.openCount == 1)
        let reader = try await AssetReader.open(url: url)
        #expect(reader.fileOpenCount == 1)
        // A reader never started gives its demuxer back when it goes.
        _ = consume reader
        let second = try await AssetReader.open(url: url)
        let output = AssetReaderTrackOutput(trackID: try #require(second.tracks(withMediaType: .video).first).trackID, settings: .video(pixelFormat: .gray8))
        try second.add(output)
        try second.startReading()
        var frames = 0
        for try await sample in output where sample.videoFrame != nil { frames += 1 }
        #expect(frames == 60)
        #expect(second.fileOpenCount == 1)
    }

    @Test("an asset keeps its file while the process opens many others: its readers still share the asset's demuxer")
    func anAssetKeepsItsFile() async throws {
        let (folder, url) = try TestFiles.copyOfFixture("counter-gps.mp4")
        defer { try? FileManager.default.removeItem(at: folder) }
        let asset = Asset(url: url)
        _ = try await asset.load(.tracks)
        #expect(asset.openCount == 1)
        // More files than are kept after their last user, each used once.
        for k in 0..<(MediaFile.recentLimit + 4) {
            let other = folder.appendingPathComponent("other-\(k).mp4")
            try FileManager.default.copyItem(at: TestFiles.fixture("counter-320x240.mp4"), to: other)
            _ = MediaFile.shared(other)
        }
        // A reader of the same path (as an image generator or a render source opens one)
        // gets the asset's file, with its idle demuxer: no second opening.
        #expect(MediaFile.shared(url) === asset.source.file)
        let reader = try await AssetReader.open(url: url)
        #expect(reader.fileOpenCount == 1)
        #expect(asset.openCount == 1)
    }

    @Test("a file written again is opened again: its old demuxers are not handed out for it")
    func aRewrittenFileIsAnotherFile() async throws {
        let (folder, url) = try TestFiles.copyOfFixture("counter-gps.mp4")
        defer { try? FileManager.default.removeItem(at: folder) }
        let (before, reader) = try await Self.readEverything(url)
        #expect(before.frames.count == 60)
        #expect((1...3).contains(reader.fileOpenCount))
        // Another file at the same path.
        try FileManager.default.removeItem(at: url)
        try FileManager.default.copyItem(at: TestFiles.fixture("counter-320x240.mp4"), to: url)
        let other = try await AssetReader.open(url: url)
        #expect(other.fileOpenCount == 1)
        #expect(other.tracks(withMediaType: .metadata).isEmpty)
        let asset = Asset(url: url)
        #expect(try await asset.load(.tracks).count == other.tracks.count)
    }

    @Test("a demuxer whose read failed is not taken back")
    func aFailedReadIsNotReused() async throws {
        let (folder, url) = try TestFiles.copyOfFixture("counter-gps.mp4")
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = MediaFile.shared(url)
        let demuxer = try file.takeDemuxer(networkTimeout: .seconds(5))
        file.giveBack(demuxer)
        #expect(file.openCount == 1)
        // Taken back and handed out again, rewound.
        let again = try file.takeDemuxer(networkTimeout: .seconds(5))
        #expect(again === demuxer)
        #expect(file.openCount == 1)
        // Not given back (as after a failed read): the next user opens the file.
        _ = try file.takeDemuxer(networkTimeout: .seconds(5))
        #expect(file.openCount == 2)
    }
}
