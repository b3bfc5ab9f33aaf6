import Foundation
import Reel
import ReelDocuments
import ReelTestSupport
import ReelTesting
import Testing

/// The sound of each example, rendered as `reel render` does and decoded by the ffmpeg CLI:
/// whose tone plays when, and how loud. Clip A (counter-320x240.mp4, counter-gps.mp4) has a
/// 440 Hz tone, clip B (counter-bars-320x240.mp4, counter-gps-b.mp4) a 660 Hz one, both at
/// the same level.
@Suite("Examples: audio")
struct ExampleAudioTests {
    /// The level of each fixture's tone over its middle, as decoded by ffmpeg.
    static func sourceLevel(_ fixture: String, _ frequency: Double) throws -> Double {
        try ExampleSupport.audio(of: TestFiles.packageRoot.appendingPathComponent("Fixtures/\(fixture)")).tone(frequency, 0.2, 1.8)
    }

    /// Renders `example` and returns its decoded sound and ffprobe's streams.
    static func render(_ example: String, overrides: [CompositionFile.SourceOverride] = []) async throws
        -> (audio: AudioSignal, streams: [(kind: String, codec: String, duration: Double)])
    {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("\(example).mp4")
        try await ExampleSupport.render(example, to: url, overrides: overrides)
        return (try ExampleSupport.audio(of: url), try ExampleSupport.streams(of: url))
    }

    /// Every 20 ms of `[from, to)` is within 10 dB of `level`: no gap, no drop-out.
    static func expectNoGap(_ audio: AudioSignal, from: Double, to: Double, level: Double) {
        let quiet = audio.quietSpans(from, to, below: level - 10)
        #expect(quiet.isEmpty, "gaps at \(quiet) s")
    }

    @Test func gpsDashboardKeepsTheCamerasSound() async throws {
        let full = try Self.sourceLevel("counter-gps.mp4", 440)
        let (audio, streams) = try await Self.render("gps-dashboard")
        let sound = try #require(streams.first { $0.kind == "audio" }, "no audio stream")
        #expect(sound.codec == "aac")
        #expect(abs(audio.duration - 2) < 0.03)
        #expect(abs(audio.tone(440, 0.2, 1.8) - full) < 0.5, "the camera's tone at its own level")
        #expect(full > -25)
        Self.expectNoGap(audio, from: 0.02, to: 1.98, level: full)
    }

    @Test func crossfadeMovesFromAToBAcrossTheTransition() async throws {
        let full = try Self.sourceLevel("counter-320x240.mp4", 440)
        #expect(abs(try Self.sourceLevel("counter-bars-320x240.mp4", 660) - full) < 0.5, "the two tones are equally loud")
        let (audio, _) = try await Self.render("crossfade")
        // A alone over [0, 0.5), the fade over [0.5, 1.5), B alone over [1.5, 2.5).
        #expect(abs(audio.duration - 2.5) < 0.03)
        #expect(abs(audio.tone(440, 0.05, 0.45) - full) < 1)
        #expect(audio.tone(660, 0.05, 0.45) < full - 40, "only A before the transition")
        #expect(abs(audio.tone(660, 1.55, 2.45) - full) < 1)
        #expect(audio.tone(440, 1.55, 2.45) < full - 40, "only B after the transition")
        let faults = audio.crossfadeFaults(from: 440, to: 660, over: 0.5, 1.5)
        #expect(faults.isEmpty, "A falls and B rises: \(faults)")
        // Halfway through, both at half volume (-6 dB).
        #expect(abs(audio.tone(440, 0.95, 1.05) - (full - 6)) < 1.5)
        #expect(abs(audio.tone(660, 0.95, 1.05) - (full - 6)) < 1.5)
        Self.expectNoGap(audio, from: 0.02, to: 2.48, level: full)
        #expect(audio.peak < 0.5, "no clipping")
    }

    @Test func pictureInPicturePlaysTheMainClipAtFullAndTheInsetAt0_3() async throws {
        let full = try Self.sourceLevel("counter-320x240.mp4", 440)
        let (audio, _) = try await Self.render("picture-in-picture")
        #expect(abs(audio.duration - 2) < 0.03)
        // The inset plays over [0, 1.5) at 0.3: 20 log10(0.3) = -10.5 dB.
        #expect(abs(audio.tone(440, 0.1, 1.4) - full) < 1, "the main clip at full volume")
        #expect(abs(audio.tone(660, 0.1, 1.4) - (full - 10.46)) < 1, "the inset at 0.3")
        #expect(abs(audio.tone(440, 1.55, 1.95) - full) < 1)
        #expect(audio.tone(660, 1.55, 1.95) < full - 40, "no inset once it has gone")
        Self.expectNoGap(audio, from: 0.02, to: 1.98, level: full)
        #expect(audio.peak < 0.5)
    }

    @Test func multiCameraSwitchesTheSoundAtTheInstructionBoundary() async throws {
        let full = try Self.sourceLevel("counter-gps.mp4", 440)
        let loaded = try await LoadedComposition.load(path: ExampleSupport.compositionPath("multi-camera"), registry: ExampleSupport.registry)
        let switchTime = try #require(loaded.videoComposition.instructions.dropFirst().first?.timeRange.start.seconds)
        let end = loaded.renderRange.end.seconds
        #expect(switchTime == 1)
        let (audio, _) = try await Self.render("multi-camera")
        #expect(abs(audio.duration - end) < 0.03)
        #expect(abs(audio.tone(440, 0.05, switchTime - 0.05) - full) < 1, "camera A before the switch")
        #expect(audio.tone(660, 0.05, switchTime - 0.05) < full - 40)
        #expect(abs(audio.tone(660, switchTime + 0.05, end - 0.05) - full) < 1, "camera B after it")
        #expect(audio.tone(440, switchTime + 0.05, end - 0.05) < full - 40)
        // The cut is at the boundary: A in the 40 ms before it, B in the 40 ms after.
        #expect(audio.tone(440, switchTime - 0.04, switchTime) > audio.tone(660, switchTime - 0.04, switchTime) + 20)
        #expect(audio.tone(660, switchTime, switchTime + 0.04) > audio.tone(440, switchTime, switchTime + 0.04) + 20)
        Self.expectNoGap(audio, from: 0.02, to: end - 0.02, level: full)
    }

    /// `scripts/demo`: the dashboard over the GoPro clip keeps the clip's sound, as long as
    /// the picture and as loud, second by second.
    @Test(.requires(.sharedMedia, .dejaVuFont))
    func theDemoKeepsTheGoProClipsSound() async throws {
        let clip = TestFiles.sharedMedia.appendingPathComponent("gpmf-parser_max-heromode.mp4")
        let source = try ExampleSupport.audio(of: clip)
        let (audio, streams) = try await Self.render("gps-dashboard", overrides: [.init(name: nil, path: clip.path)])
        let video = try #require(streams.first { $0.kind == "video" })
        let sound = try #require(streams.first { $0.kind == "audio" }, "the render has no audio stream")
        #expect(abs(sound.duration - video.duration) <= 1024.0 / 48000, "audio \(sound.duration) s, video \(video.duration) s")
        for second in 0..<Int(video.duration.rounded(.down)) {
            let (from, to) = (Double(second), Double(second + 1))
            #expect(abs(audio.rms(from, to) - source.rms(from, to)) < 1, "second \(second): \(audio.rms(from, to)) dBFS, the clip \(source.rms(from, to))")
        }
    }
}
