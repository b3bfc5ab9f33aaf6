import Foundation
import ReelCore
import ReelTestSupport

/// Inputs for the reader and writer tests: the shared camera files (when the folder is
/// there) and small clips made on the fly.
enum ReadWriteTestMedia {
    /// Makes a clip with ffmpeg from a lavfi source graph.
    static func lavfi(_ graph: String, _ encode: [String], name: String) throws -> URL {
        let url = try TestFiles.scratchFolder().appendingPathComponent(name)
        try TestTools.output("ffmpeg", ["-hide_banner", "-loglevel", "error", "-f", "lavfi", "-i", graph] + encode + [url.path])
        return url
    }

    /// 60 frames of testsrc2 at 30 fps, 320x240, H.264 with B-frames and a keyframe every
    /// 12 frames.
    static func testPatternClip() throws -> URL {
        try lavfi(
            "testsrc2=size=320x240:rate=30",
            [
                "-frames:v", "60", "-c:v", "libx264", "-preset", "ultrafast",
                "-bf", "2", "-g", "12", "-pix_fmt", "yuv420p",
            ], name: "pattern.mp4")
    }

    /// 10 frames of one flat colour (lavfi `0x3366CC`: Y 98, U 177, V 101), 64x48,
    /// losslessly coded.
    static func flatColourClip() throws -> URL {
        try lavfi(
            "color=c=0x3366CC:size=64x48:rate=25",
            [
                "-frames:v", "10", "-vf", "scale=out_color_matrix=bt709:out_range=tv,format=yuv420p",
                "-c:v", "libx264", "-qp", "0", "-color_range", "tv", "-colorspace", "bt709",
                "-color_primaries", "bt709", "-color_trc", "bt709",
            ], name: "flat.mp4")
    }
}
