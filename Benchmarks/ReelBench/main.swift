import Foundation
import Reel
import ReelDocuments

/// The Reel side of the benchmarks: each case renders through ``AssetExportSession`` with
/// the peer's encoder settings (libx264 veryfast, CRF 23, yuv420p; no audio, or AAC at
/// 128 kbit/s for the audio cases) and prints `frames=N seconds=S`.
///
///     reel-bench transcode A OUT
///     reel-bench pip A B OUT
///     reel-bench pip-audio A B OUT   (both clips' sound mixed, B's fading out over [2, 3) s)
///     reel-bench mix A B OUT         (that mix alone: audio in, audio out)
///     reel-bench crossfade A B OUT
///     reel-bench gps A_GPS OUT
///     reel-bench gps-meta A_GPS OUT FORMAT   (the GPS track written too, as gpmd, mebx or camm)
///     reel-bench gps-audio A_GPS SOUND OUT   (SOUND's audio under it, fading out over its last second)
///     reel-bench long A OUT REPEAT
///     reel-bench make-gps A OUT      (A re-encoded like the inputs, plus a 30 Hz gpmd track)
///     reel-bench random-frames A COUNT [batch]   (COUNT exact frames at random times by
///                                         AssetImageGenerator, in one process, one `image(at:)`
///                                         after the other, or with `batch` all asked at once by
///                                         `images(for:)`; prints each frame's milliseconds)
enum Bench {
    /// The peer's settings; with `REEL_BENCH_LOSSLESS` set, lossless H.264 (CRF 0,
    /// `ultrafast`): the picture a case draws, for measuring the coding alone.
    static let preset =
        ProcessInfo.processInfo.environment["REEL_BENCH_LOSSLESS"] == nil
        ? ExportPreset.h264(crf: 23, preset: "veryfast") : ExportPreset.h264(crf: 0, preset: "ultrafast")

    static func main() async {
        FFmpegLogging.setQuiet()
        FrameMemory.configureAllocator()
        let args = Array(CommandLine.arguments.dropFirst())
        do {
            guard let command = args.first else { throw usage() }
            let started = ContinuousClock.now
            let frames: Int
            switch command {
            case "transcode" where args.count == 3:
                frames = try await transcode(url(args[1]), out: url(args[2]), repeat: 1)
            case "long" where args.count == 4:
                frames = try await transcode(url(args[1]), out: url(args[2]), repeat: Int(args[3]) ?? 6)
            case "pip" where args.count == 4:
                frames = try await pip(url(args[1]), url(args[2]), out: url(args[3]), audio: false)
            case "pip-audio" where args.count == 4:
                frames = try await pip(url(args[1]), url(args[2]), out: url(args[3]), audio: true)
            case "mix" where args.count == 4:
                frames = try await mix(url(args[1]), url(args[2]), out: url(args[3]))
            case "crossfade" where args.count == 4:
                frames = try await crossfade(url(args[1]), url(args[2]), out: url(args[3]))
            case "gps" where args.count == 3:
                frames = try await gps(url(args[1]), sound: nil, out: url(args[2]))
            case "gps-meta" where args.count == 4:
                frames = try await gps(url(args[1]), sound: nil, metadata: MetadataOutputFormat(rawValue: args[3]), out: url(args[2]))
            case "gps-audio" where args.count == 4:
                frames = try await gps(url(args[1]), sound: url(args[2]), out: url(args[3]))
            case "random-frames" where args.count == 3 || (args.count == 4 && args[3] == "batch"):
                frames = try await randomFrames(url(args[1]), count: Int(args[2]) ?? 100, batch: args.count == 4)
            case "make-gps" where args.count == 3:
                frames = try await makeGPSInput(url(args[1]), out: url(args[2]))
            default:
                throw usage()
            }
            let elapsed = ContinuousClock.now - started
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            print("frames=\(frames) seconds=\(String(format: "%.3f", seconds))")
        } catch {
            FileHandle.standardError.write(Data("reel-bench: \(error)\n".utf8))
            exit(1)
        }
    }

    static func usage() -> ReelError {
        ReelError(
            .invalidArgument,
            "usage: reel-bench transcode|pip|pip-audio|mix|crossfade|gps|gps-meta|gps-audio|long|make-gps FILES... OUT, or random-frames FILE COUNT [batch]")
    }

    static func url(_ path: String) -> URL { URL(fileURLWithPath: path) }

    static let oneSecond = MediaTime(value: 1, timescale: 1)
    static func seconds(_ s: Int64) -> MediaTime { MediaTime(value: s, timescale: 1) }

    /// The video track of `url` as the composition layer sees it.
    static func videoTrack(_ url: URL) async throws -> SourceTrackDescription {
        let source = try await SourceDescription(asset: Asset(url: url))
        guard let track = source.tracks(withMediaType: .video).first else {
            throw ReelError(.invalidArgument, "no video track", path: url.path)
        }
        return track
    }

    /// Adds one audio track per file in `urls`, each playing its file's first audio track
    /// from the start for at most `duration`; the last one fades from 1 to 0 over `fade`.
    /// Returns the mix that says so.
    static func addSound(of urls: [URL], to composition: inout Composition, duration: MediaTime, fade: TimeRange) async throws -> AudioMix {
        var ids: [Int32] = []
        for url in urls {
            let source = try await SourceDescription(asset: Asset(url: url))
            guard let track = source.tracks(withMediaType: .audio).first else {
                throw ReelError(.invalidArgument, "no audio track", path: url.path)
            }
            let id = composition.addMutableTrack(withMediaType: .audio)
            let length = MediaTime.minimum(track.timeRange.duration, duration)
            try composition.insertTimeRange(TimeRange(start: track.timeRange.start, duration: length), of: track, intoTrackWithID: id, at: .zero)
            ids.append(id)
        }
        guard let last = ids.last else { return AudioMix() }
        var ramp = MutableAudioMixInputParameters(trackID: last)
        ramp.setVolumeRamp(fromStartVolume: 1, toEndVolume: 0, timeRange: fade)
        return AudioMix(inputParameters: [.init(ramp)])
    }

    /// Exports (with `audioMix`'s sound when given, else none) and returns the number of
    /// frames written.
    static func export(_ composition: Composition, _ videoComposition: VideoComposition?, audioMix: AudioMix? = nil, to out: URL) async throws -> Int {
        let session = AssetExportSession(composition: composition, preset: preset)
        session.videoComposition = videoComposition
        session.overwrite = true
        session.includesAudio = audioMix != nil
        session.audioMix = audioMix
        session.shouldOptimizeForNetworkUse = false
        try await session.export(to: out, as: .mp4)
        let d = composition.duration
        return Int((d.seconds / (videoComposition?.frameDuration.seconds ?? 1.0 / 30)).rounded())
    }

    static func transcode(_ a: URL, out: URL, repeat count: Int) async throws -> Int {
        let track = try await videoTrack(a)
        var composition = Composition()
        let id = composition.addMutableTrack(withMediaType: .video)
        for i in 0..<max(1, count) {
            try composition.insertTimeRange(track.timeRange, of: track, intoTrackWithID: id, at: track.timeRange.duration * Int32(i))
        }
        let c = composition
        return try await export(c, VideoComposition(propertiesOf: c), to: out)
    }

    /// B's sound fading out over [2, 3) s: the peer's `volume='if(lt(t,2),1,max(0,3-t))'`.
    static let pipFade = TimeRange(start: seconds(2), duration: oneSecond)

    static func pip(_ a: URL, _ b: URL, out: URL, audio: Bool) async throws -> Int {
        let ta = try await videoTrack(a), tb = try await videoTrack(b)
        var composition = Composition()
        let main = composition.addMutableTrack(withMediaType: .video)
        let inset = composition.addMutableTrack(withMediaType: .video)
        try composition.insertTimeRange(ta.timeRange, of: ta, intoTrackWithID: main, at: .zero)
        try composition.insertTimeRange(tb.timeRange, of: tb, intoTrackWithID: inset, at: .zero)
        var mix: AudioMix?
        if audio { mix = try await addSound(of: [a, b], to: &composition, duration: ta.timeRange.duration, fade: pipFade) }
        let c = composition
        var v = VideoComposition(propertiesOf: c)
        let w = 1920.0, h = 1080.0, pw = 960.0
        var small = VideoCompositionLayerInstruction(trackID: inset)
        small.setTransform(Transform2D(scaleX: 0.5, y: 0.5).concatenating(Transform2D(translationX: w - pw - 48, y: 48)), at: .zero)
        v.renderSize = Size(width: w, height: h)
        v.instructions = [VideoCompositionInstruction(timeRange: c.timeRange, layerInstructions: [small, .init(trackID: main)])]
        return try await export(c, v, audioMix: mix, to: out)
    }

    /// pip's sound alone: A's and B's audio mixed, B fading out, encoded to AAC.
    static func mix(_ a: URL, _ b: URL, out: URL) async throws -> Int {
        var composition = Composition()
        let mix = try await addSound(of: [a, b], to: &composition, duration: seconds(10), fade: pipFade)
        return try await export(composition, nil, audioMix: mix, to: out)
    }

    static func crossfade(_ a: URL, _ b: URL, out: URL) async throws -> Int {
        let ta = try await videoTrack(a), tb = try await videoTrack(b)
        var composition = Composition()
        let first = composition.addMutableTrack(withMediaType: .video)
        let second = composition.addMutableTrack(withMediaType: .video)
        try composition.insertTimeRange(TimeRange(start: .zero, duration: seconds(6)), of: ta, intoTrackWithID: first, at: .zero)
        try composition.insertTimeRange(TimeRange(start: .zero, duration: seconds(10)), of: tb, intoTrackWithID: second, at: seconds(4))
        let c = composition
        let fade = TimeRange(start: seconds(4), duration: seconds(2))
        var fadeOut = VideoCompositionLayerInstruction(trackID: first)
        fadeOut.setOpacityRamp(fromStartOpacity: 1, toEndOpacity: 0, timeRange: fade)
        var v = VideoComposition(propertiesOf: c)
        v.instructions = [
            VideoCompositionInstruction(timeRange: TimeRange(start: .zero, duration: seconds(4)), layerInstructions: [.init(trackID: first)]),
            VideoCompositionInstruction(timeRange: fade, layerInstructions: [fadeOut, .init(trackID: second)]),
            VideoCompositionInstruction(timeRange: TimeRange(start: seconds(6), duration: seconds(8)), layerInstructions: [.init(trackID: second)]),
        ]
        return try await export(c, v, to: out)
    }

    static func gps(_ input: URL, sound: URL?, metadata: MetadataOutputFormat? = nil, out: URL) async throws -> Int {
        let source = try await SourceDescription(asset: Asset(url: input))
        guard let video = source.tracks(withMediaType: .video).first, let gps = source.tracks(withMediaType: .metadata).first else {
            throw ReelError(.invalidArgument, "the input needs a video and a gpmd track (make it with make-gps)", path: input.path)
        }
        var composition = Composition()
        try composition.insertTimeRange(video.timeRange, of: source, at: .zero)
        let end = video.timeRange.duration
        var mix: AudioMix?
        if let sound {
            mix = try await addSound(of: [sound], to: &composition, duration: end, fade: TimeRange(start: end - oneSecond, duration: oneSecond))
        }
        let c = composition
        guard let videoID = c.tracks(withMediaType: .video).first?.trackID, let gpsID = c.tracks(withMediaType: .metadata).first?.trackID else {
            throw ReelError(.invalidComposition, "tracks missing")
        }
        _ = gps
        var v = VideoComposition(propertiesOf: c)
        v.sourceSampleDataTrackIDs = [gpsID]
        v.instructions = [
            VideoCompositionInstruction(
                timeRange: c.timeRange, layerInstructions: [.init(trackID: videoID)],
                requiredSourceSampleDataTrackIDs: [gpsID])
        ]
        v.customVideoCompositor = { AsyncVideoCompositorAdapter(GPSOverlayCompositor(videoTrackID: videoID, metadataTrackID: gpsID)) }
        let session = AssetExportSession(composition: c, preset: preset)
        session.videoComposition = v
        session.metadataTrackIDs = metadata == nil ? [] : [gpsID]
        if let metadata { session.metadataFormat = metadata }
        session.overwrite = true
        session.includesAudio = mix != nil
        session.audioMix = mix
        session.shouldOptimizeForNetworkUse = false
        try await session.export(to: out, as: .mp4)
        return Int((c.duration.seconds * 30).rounded())
    }

    /// `count` pictures of `a` at random times (a fixed sequence), each exact (zero
    /// tolerances), from one generator: what scrubbing and thumbnails cost. One
    /// `image(at:)` after the other, or with `batch` one `images(for:)` of all the times (a
    /// picture's milliseconds are then from the one before it coming out). Prints `ms=` with
    /// every picture's milliseconds, in order, then the mean, median and 95th percentile.
    static func randomFrames(_ a: URL, count: Int, batch: Bool) async throws -> Int {
        let asset = Asset(url: a)
        let duration = try await asset.load(.duration)
        let generator = try await AssetImageGenerator(asset: asset)
        generator.requestedTimeToleranceBefore = .zero
        generator.requestedTimeToleranceAfter = .zero
        // A linear congruential sequence: the same times every run.
        var state: UInt64 = 0x2545F4914F6CDD1D
        var times: [MediaTime] = []
        for _ in 0..<count {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            let fraction = Double(state >> 11) / Double(1 << 53)
            times.append(MediaTime(seconds: fraction * duration.seconds * 0.999, preferredTimescale: 30000))
        }
        func milliseconds(_ d: Duration) -> Double { Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15 }
        var spent: [Double] = []
        var started = ContinuousClock.now
        if batch {
            for await result in generator.images(for: times) {
                _ = try result.image
                let now = ContinuousClock.now
                spent.append(milliseconds(now - started))
                started = now
            }
        } else {
            for time in times {
                _ = try await generator.image(at: time)
                let now = ContinuousClock.now
                spent.append(milliseconds(now - started))
                started = now
            }
        }
        let sorted = spent.sorted()
        let p50 = sorted[sorted.count / 2], p95 = sorted[min(sorted.count - 1, Int((Double(sorted.count) * 0.95).rounded(.down)))]
        print("ms=" + spent.map { String(format: "%.1f", $0) }.joined(separator: ","))
        print(String(format: "per_frame_ms_mean=%.1f p50=%.1f p95=%.1f", spent.reduce(0, +) / Double(count), p50, p95))
        return count
    }

    /// `a` re-encoded with the inputs' settings (libx264 medium, CRF 20, GOP 60) plus a
    /// gpmd track of 30 fixes a second: speed, altitude and position changing every frame.
    static func makeGPSInput(_ a: URL, out: URL) async throws -> Int {
        let reader = try await AssetReader.open(url: a)
        guard let track = reader.tracks(withMediaType: .video).first, let size = track.formatDescription.dimensions else {
            throw ReelError(.invalidArgument, "no video track", path: a.path)
        }
        let output = AssetReaderTrackOutput(trackID: track.trackID, settings: .video(pixelFormat: .yuv420p))
        try reader.add(output)
        try reader.startReading()
        let writer = try AssetWriter(outputURL: out, fileType: .mp4, overwrite: true)
        let video = AssetWriterInput(
            settings: .video(
                VideoEncoderSettings(
                    codec: .h264, width: size.width, height: size.height, quality: .crf(20), preset: "medium",
                    frameDuration: MediaTime(value: 1, timescale: 30), timescale: 15360, keyframeInterval: 60)))
        let meta = AssetWriterInput(settings: .metadata(format: .gpmd))
        try writer.add(video)
        try writer.add(meta)
        let adaptor = try AssetWriterInputMetadataAdaptor(assetWriterInput: meta)
        try await writer.start()
        writer.startSession(atSourceTime: .zero)
        var frames = 0
        var groups: [TimedMetadataGroup] = []
        for try await frame in output.frames {
            try await video.append(frame)
            let i = Double(frames)
            let fix = GPSFix(
                latitude: 48.8584 + i * 0.000012, longitude: 2.2945 + i * 0.000017, altitude: 35 + i * 0.05,
                speed2D: 8 + 3 * sin(i / 20), speed3D: 8 + 3 * sin(i / 20))
            groups.append(
                TimedMetadataGroup(
                    timeRange: TimeRange(start: MediaTime(value: Int64(frames), timescale: 30), duration: MediaTime(value: 1, timescale: 30)),
                    items: fix.metadataItems(time: MediaTime(value: Int64(frames), timescale: 30), duration: MediaTime(value: 1, timescale: 30))))
            frames += 1
        }
        video.markAsFinished()
        try await adaptor.appendGPS(groups)
        meta.markAsFinished()
        try await writer.finishWriting()
        return frames
    }
}

await Bench.main()
