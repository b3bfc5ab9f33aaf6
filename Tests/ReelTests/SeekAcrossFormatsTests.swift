import Foundation
import Reel
import ReelTestSupport
import Testing

/// Exact seeks in files of the codecs and containers users bring, made here by the ffmpeg
/// CLI: a seek's frame must be the frame a straight decode shows at that time, pixel for
/// pixel. MPEG-TS (and M2TS) has no keyframe index, so its seeks land between keyframes;
/// open groups of pictures put pictures that refer to the group before just before a
/// keyframe; the MPEG-2 transport stream's clock starts at 11.4 s; the MPEG-2 program stream
/// gives most I- and P-pictures no presentation time.
@Suite struct SeekAcrossFormatsTests {
    struct Clip: Sendable, CustomTestStringConvertible {
        /// The file's name; its extension picks the container.
        var name: String
        /// The ffmpeg CLI's encoding options.
        var options: [String]
        var testDescription: String { name }
    }

    static let clips = [
        Clip(name: "h264-gop20.ts", options: ["-c:v", "libx264", "-g", "20", "-bf", "3"]),
        Clip(
            name: "h264-gop75.m2ts",
            options: ["-c:v", "libx264", "-g", "75", "-keyint_min", "75", "-sc_threshold", "0", "-bf", "2", "-mpegts_m2ts_mode", "1"]),
        Clip(name: "hevc-open-gop.ts", options: ["-c:v", "libx265", "-x265-params", "log-level=none:keyint=24:open-gop=1:bframes=3"]),
        Clip(name: "mpeg2.ts", options: ["-c:v", "mpeg2video", "-g", "15", "-bf", "2", "-output_ts_offset", "10"]),
        Clip(name: "mpeg2.mpg", options: ["-c:v", "mpeg2video", "-g", "15", "-bf", "2", "-f", "vob"]),
        Clip(name: "h264-open-gop.mkv", options: ["-c:v", "libx264", "-x264-params", "open-gop=1:keyint=30", "-bf", "3"]),
        Clip(name: "vp9.webm", options: ["-c:v", "libvpx-vp9", "-g", "30", "-deadline", "realtime"]),
    ]

    @Test(
        "a seek to any time gives the frame a straight decode shows then", .requires(.ffmpeg),
        arguments: clips)
    func aSeeksFrameIsTheStraightDecodes(_ clip: Clip) async throws {
        let url = try TestFiles.scratchFolder().appendingPathComponent(clip.name)
        try TestTools.output(
            "ffmpeg",
            ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=30:duration=3"] + clip.options + [url.path])
        let reference = try await TestFrames.decodeAll(url)
        try #require(reference.count == 90)
        let track = try #require(try await Asset(url: url).load(.tracks).first { $0.mediaType == .video })
        let source = AssetVideoFrameSource(url: url, trackID: track.trackID, options: .init(maximumCursors: 1))
        // Frames in an order that jumps both ways, each asked for in its middle.
        for k in 0..<15 {
            let i = (k * 37 + 5) % 90
            let next = i + 1 < 90 ? reference[i + 1].presentationTime : reference[i].presentationTime + reference[i].duration
            let t = reference[i].presentationTime + MediaTime(seconds: (next - reference[i].presentationTime).seconds / 2, preferredTimescale: 90000)
            let got = try #require(try await source.seekFrame(at: t, acceptedFormats: nil), "\(clip.name): no frame at \(t)")
            #expect(got.presentationTime == reference[i].presentationTime, "\(clip.name): frame \(i)")
            #expect(got.pixelBuffer.hasSamePixels(as: reference[i].pixelBuffer), "\(clip.name): frame \(i)")
        }
    }
}
