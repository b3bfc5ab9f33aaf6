import Foundation
import ReelTestSupport
import Testing

@testable import Reel

@Suite struct ExportPresetTests {
    /// A 4096x2160 clip (wider than 16:9, larger than every preset) of five frames, with
    /// sound; made once with ffmpeg. (libx265 needs more frames than its B-frame delay to
    /// time its packets: with two, it sometimes gives a packet decoded after it is shown,
    /// which the MP4 muxer refuses.)
    static let large: URL? = {
        guard let folder = try? TestFiles.scratchFolder() else { return nil }
        let url = folder.appendingPathComponent("large.mp4")
        do {
            try TestTools.output(
                "ffmpeg",
                [
                    "-v", "error", "-nostdin", "-f", "lavfi", "-i", "testsrc2=size=4096x2160:rate=5:duration=1",
                    "-f", "lavfi", "-i", "sine=frequency=440:duration=1", "-c:v", "libx264", "-preset", "ultrafast",
                    "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest", url.path,
                ])
        } catch { return nil }
        return url
    }()

    /// What each preset promises for the 4096x2160 clip: codec and size of the video
    /// (nil for none), written out by hand from the table on `ExportPreset`.
    static let promises: [(preset: ExportPreset, video: String?)] = [
        (.lowQuality, "h264 320x168"),
        (.mediumQuality, "h264 640x338"),
        (.highestQuality, "h264 4096x2160"),
        (.hevcHighestQuality, "hevc 4096x2160"),
        (.preset640x480, "h264 640x338"),
        (.preset960x540, "h264 960x506"),
        (.preset1280x720, "h264 1280x674"),
        (.preset1920x1080, "h264 1920x1012"),
        (.preset3840x2160, "h264 3840x2024"),
        (.hevc1920x1080, "hevc 1920x1012"),
        (.hevc3840x2160, "hevc 3840x2024"),
        (.appleM4A, nil),
    ]

    /// The streams of `url` as ffprobe sees them: "codec WxH" for video, "codec" for audio.
    static func streams(_ url: URL) throws -> [String] {
        let data = try TestTools.output(
            "ffprobe",
            [
                "-v", "error", "-show_entries", "stream=codec_type,codec_name,width,height",
                "-of", "json", url.path,
            ])
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let streams = try #require(json["streams"] as? [[String: Any]])
        return streams.map { s in
            let codec = s["codec_name"] as? String ?? "?"
            guard s["codec_type"] as? String == "video" else { return "\(s["codec_type"] as? String ?? "?") \(codec)" }
            return "video \(codec) \(s["width"] as? Int ?? 0)x\(s["height"] as? Int ?? 0)"
        }
    }

    @Test(.requires(.ffmpeg, .ffprobe), .serialized, arguments: promises.indices)
    func eachNamedPresetGivesTheSizeAndCodecItPromises(_ index: Int) async throws {
        let (preset, video) = Self.promises[index]
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let session = try await AssetExportSession(asset: Asset(url: try #require(Self.large)), presetName: preset)
        #expect(session.presetName == preset)
        session.outputURL = folder.appendingPathComponent(preset == .appleM4A ? "out.m4a" : "out.mp4")
        try await session.export()
        let found = try Self.streams(try #require(session.outputURL))
        #expect(found == (video.map { ["video \($0)"] } ?? []) + ["audio aac"], "\(preset)")
    }

    /// The major brand and the stream kinds of `url`.
    static func brandAndStreams(_ url: URL) throws -> (brand: String, streams: String) {
        let brand = try TestTools.outputString("ffprobe", ["-v", "error", "-show_entries", "format_tags=major_brand", "-of", "csv=p=0", url.path])
        let streams = try TestTools.outputString("ffprobe", ["-v", "error", "-show_entries", "stream=codec_type", "-of", "csv=p=0", url.path])
        return (brand.trimmingCharacters(in: .whitespacesAndNewlines), streams.split(separator: "\n").joined(separator: " "))
    }

    @Test(.requires(.ffmpeg, .ffprobe), arguments: [ExportPreset.appleM4A, .highestQuality, .passthrough])
    func anM4AOutputIsMPEG4AudioWhateverThePreset(preset: ExportPreset) async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // Video, sound and a GPS track in; the sound alone out.
        let session = try await AssetExportSession(asset: Asset(url: TestFiles.fixture("counter-gps.mp4")), presetName: preset)
        session.outputURL = folder.appendingPathComponent("out.m4a")
        try await session.export()
        let found = try Self.brandAndStreams(try #require(session.outputURL))
        #expect(found.brand == "M4A" && found.streams == "audio", "\(preset): \(found)")
    }

    @Test func anM4AOutputWithoutSoundIsRefusedUpFront() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let session = try await AssetExportSession(asset: Asset(url: TestFiles.fixture("portrait.mp4")), presetName: .highestQuality)
        let out = folder.appendingPathComponent("out.m4a")
        let error = await expectReelError(.invalidArgument) { try await session.export(to: out, as: .mp4) }
        #expect(error?.message.contains("no audio track") == true)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
    }

    @Test func namesAreAVFoundations() {
        #expect(ExportPreset.preset1920x1080.name == "AVAssetExportPreset1920x1080")
        #expect(ExportPreset.hevc3840x2160.name == "AVAssetExportPresetHEVC3840x2160")
        #expect(ExportPreset.passthrough.name == "AVAssetExportPresetPassthrough")
        #expect(ExportPreset.h264().name == nil)
        #expect(ExportPreset.fitting(width: 100, height: 100, codec: .h264).name == nil)
        #expect(ExportPreset(name: "AVAssetExportPresetHighestQuality") == .highestQuality)
        #expect(ExportPreset(name: "AssetExportPresetAppleM4A") == .appleM4A)
        #expect(ExportPreset(name: "hevc1920x1080") == .hevc1920x1080)
        #expect(ExportPreset(name: "1920x1081") == nil)
        #expect(AssetExportPreset960x540 == .preset960x540)
        // Every named preset round-trips through its name.
        #expect(AssetExportSession.allExportPresets().allSatisfy { ExportPreset(name: $0.name ?? "") == $0 })
        #expect(AssetExportSession.allExportPresets().count == 13)
    }

    @Test func fileTypesFollowTheCodec() {
        #expect(ExportPreset.prores().supportedFileTypes == [.mov, .mkv])
        #expect(ExportPreset.lossless.supportedFileTypes == [.mkv, .mov])
        #expect(ExportPreset.appleM4A.supportedFileTypes == [.mp4])
        #expect(ExportPreset.preset1280x720.supportedFileTypes == [.mp4, .mov, .mpegts, .mkv])
    }

    @Test func smallSourcesAreNotEnlarged() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // A 320x240 source in the 640x480 preset stays 320x240.
        let session = try await AssetExportSession(asset: Asset(url: TestFiles.fixture("counter-320x240.mp4")), presetName: AssetExportPreset640x480)
        let out = folder.appendingPathComponent("small.mov")
        session.outputURL = out
        try await session.export()
        let track = try #require(try await Asset(url: out).load(.tracks).first { $0.mediaType == .video })
        #expect(track.naturalSize == Size(width: 320, height: 240))
        #expect(track.codec == "h264")
    }

    @Test func portraitPicturesFitTheTurnedBox() {
        #expect(ExportPreset.preset1920x1080.outputSize(width: 2160, height: 3840) == (1080, 1920))
        #expect(ExportPreset.preset1920x1080.outputSize(width: 3840, height: 2160) == (1920, 1080))
        #expect(ExportPreset.mediumQuality.outputSize(width: 1080, height: 1080) == (480, 480))
        #expect(ExportPreset.highestQuality.outputSize(width: 4096, height: 2160) == (4096, 2160))
    }
}

@Suite struct FileTypePathExtensionTests {
    @Test func extensionsNameTheirContainers() {
        let names = ["mp4", "M4V", "m4a", "mov", "qt", "ts", "m2ts", "mts", "mkv", "avi", ""]
        #expect(
            names.map { AssetWriter.FileType(pathExtension: $0)?.rawValue ?? "-" }
                == ["mp4", "mp4", "mp4", "mov", "mov", "mpegts", "mpegts", "mpegts", "mkv", "-", "-"])
    }
}
