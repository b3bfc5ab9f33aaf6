import Foundation
import GPSDashboard
import Reel
import ReelDocuments
import ReelTestSupport
import ReelTesting
import Testing

/// Opens and renders the example compositions of Examples/ in process, on the fixtures
/// (or, with `--source`-like overrides, on other files).
enum ExampleSupport {
    static func compositionPath(_ example: String) -> String {
        TestFiles.packageRoot.appendingPathComponent("Examples/\(example)/composition.json").path
    }

    /// The registry of the stock `reel`: the built-ins and gps-dashboard.
    static var registry: CompositorRegistry {
        var r = CompositorRegistry()
        r.register(GPSDashboardCompositor.registration)
        return r
    }

    /// Renders `example` and returns the frames at `indices` (in time order).
    static func frames(_ example: String, at indices: [Int], overrides: [CompositionFile.SourceOverride] = []) async throws -> [Int: PixelBuffer] {
        let loaded = try await LoadedComposition.load(path: compositionPath(example), overrides: overrides, registry: registry)
        var options = RenderEngine.Options()
        options.timeRange = loaded.renderRange
        let engine = RenderEngine(
            composition: loaded.composition, videoComposition: loaded.videoComposition,
            sources: AssetRenderSources(files: loaded.sourceURLs), options: options)
        var out: [Int: PixelBuffer] = [:]
        var index = 0
        let wanted = Set(indices)
        for try await frame in try engine.frames() {
            if wanted.contains(index) { out[index] = frame.pixelBuffer }
            index += 1
            if out.count == wanted.count { break }
        }
        return out
    }

    /// Renders `example` into `url` as `reel render` does: the file's video settings, audio
    /// mix and audio codec; no metadata tracks.
    static func render(_ example: String, to url: URL, overrides: [CompositionFile.SourceOverride] = []) async throws {
        let loaded = try await LoadedComposition.load(path: compositionPath(example), overrides: overrides, registry: registry)
        let video = loaded.videoComposition
        let output = loaded.file.output ?? CompositionFile.Output()
        let fileType = try output.fileType(forOutputPath: url.path)
        let settings = try output.videoSettings(
            width: video.renderPixelSize.width, height: video.renderPixelSize.height,
            frameDuration: video.frameDuration)
        let session = AssetExportSession(
            composition: loaded.composition, preset: .custom(settings),
            sources: AssetRenderSources(files: loaded.sourceURLs))
        session.videoComposition = video
        session.audioMix = loaded.audioMix
        session.includesAudio = loaded.audioMix != nil
        session.audioCodec = try output.audioEncoderCodec(for: fileType)
        session.timeRange = loaded.renderRange
        session.metadataTrackIDs = []
        try await session.export(to: url, as: fileType)
    }

    /// Every frame of `url`'s first video track, as Reel's reader decodes it.
    static func decodedFrames(of url: URL) throws -> [VideoFrame] {
        let reader = try AssetReader(url: url)
        let id = try #require(reader.tracks(withMediaType: .video).first?.trackID)
        let output = AssetReaderTrackOutput(trackID: id, settings: .video(pixelFormat: .yuv420p), bufferCapacity: 4)
        try reader.add(output)
        try reader.startReading()
        var frames: [VideoFrame] = []
        while let sample = try output.nextSample() {
            if let frame = sample.videoFrame { frames.append(frame) }
        }
        return frames
    }

    /// The first audio stream of `url` decoded by the ffmpeg CLI (a decoder independent of
    /// Reel's reader), at 48 kHz, channels averaged.
    static func audio(of url: URL) throws -> AudioSignal {
        let data = try TestTools.output("ffmpeg", ["-v", "error", "-nostdin", "-i", url.path, "-map", "0:a:0", "-ac", "1", "-ar", "48000", "-f", "f32le", "-"])
        let samples = data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        return AudioSignal(samples: samples, sampleRate: 48000)
    }

    /// ffprobe's `duration` and `codec_name` of each stream of `url`, by kind (`audio`, `video`).
    static func streams(of url: URL) throws -> [(kind: String, codec: String, duration: Double)] {
        let text = String(
            decoding: try TestTools.output(
                "ffprobe",
                [
                    "-v", "error", "-show_entries", "stream=codec_type,codec_name,duration",
                    "-of", "csv=p=0", url.path,
                ]), as: UTF8.self)
        return text.split(separator: "\n").compactMap { line in
            let f = line.split(separator: ",").map(String.init)
            guard f.count >= 3 else { return nil }
            return (kind: f[1], codec: f[0], duration: Double(f[2]) ?? .nan)
        }
    }
}
