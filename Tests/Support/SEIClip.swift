import Foundation

/// H.264 clips whose pictures carry CEA-608 captions in SEI, for the tests that read them
/// (FFmpeg 5.1 cannot put captions from a caption file into SEI).
public enum SEIClip {
    /// An MP4 at 29.97 fps, 64x64 gray, `frames` long, whose pictures carry `words`, one
    /// CEA-608 pair of `field` (1: CC1/CC2, 2: CC3/CC4) a frame (null pairs after them): ffmpeg codes the pictures
    /// (no B-frames, so decode order is display order), an SEI NAL unit with ATSC A/53
    /// cc_data (user_data_registered_itu_t_t35, "GA94") goes before each picture's slice,
    /// and ffmpeg puts them in MP4.
    public static func make(words: [UInt16], frames: Int, field: Int = 1, in folder: URL) throws -> URL {
        let raw = folder.appendingPathComponent("pictures.h264"), withSEI = folder.appendingPathComponent("sei.h264")
        let out = folder.appendingPathComponent("sei.mp4")
        try TestTools.output(
            "ffmpeg",
            [
                "-v", "error", "-f", "lavfi", "-i", "color=c=gray:s=64x64:r=30000/1001", "-frames:v", "\(frames)",
                "-c:v", "libx264", "-bf", "0", "-f", "h264", raw.path,
            ])
        let bytes = [UInt8](try Data(contentsOf: raw))
        // Annex B: NAL units after 00 00 01 start codes.
        var starts: [Int] = []
        var k = 0
        while k + 2 < bytes.count {
            if bytes[k] == 0, bytes[k + 1] == 0, bytes[k + 2] == 1 { starts.append(k + 3); k += 3 } else { k += 1 }
        }
        var output: [UInt8] = []
        var picture = 0
        for (n, start) in starts.enumerated() {
            var end = n + 1 < starts.count ? starts[n + 1] - 3 : bytes.count
            while end > start, bytes[end - 1] == 0 { end -= 1 }
            let type = bytes[start] & 0x1F
            if type == 1 || type == 5 {
                let w = picture < words.count ? words[picture] : 0x8080
                picture += 1
                let payload: [UInt8] =
                    [0xB5, 0x00, 0x31] + Array("GA94".utf8) + [0x03, 0x40 | 1, 0xFF, field == 2 ? 0xFD : 0xFC, UInt8(w >> 8), UInt8(w & 0xFF), 0xFF]
                output += [0, 0, 0, 1, 0x06, 0x04, UInt8(payload.count)] + payload + [0x80]
            }
            output += [0, 0, 0, 1] + bytes[start..<end]
        }
        try Data(output).write(to: withSEI)
        try TestTools.output("ffmpeg", ["-v", "error", "-r", "30000/1001", "-i", withSEI.path, "-c", "copy", out.path])
        return out
    }

    /// "BYE" loaded after ``hiWords`` and popped on at frame 35, erased at frame 50
    /// (60 frames with ``hiWords`` before it).
    public static let byeWords: [UInt16] =
        [0x94AE, 0x94AE, 0x9420, 0x9420, 0xC2D9, 0x4580, 0x942F, 0x942F]
        + Array(repeating: 0x8080, count: 13) + [0x942C, 0x942C]

    /// "HI" popped on at frame 5 and erased at frame 27 (40 frames).
    public static let hiWords: [UInt16] =
        [0x94AE, 0x94AE, 0x9420, 0x9420, 0xC849, 0x942F, 0x942F]
        + Array(repeating: 0x8080, count: 20) + [0x942C, 0x942C]
}
