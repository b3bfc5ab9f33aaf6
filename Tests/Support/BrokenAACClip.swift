import Foundation

/// A QuickTime movie whose AAC track cannot be decoded: `counter-320x240.mp4` copied into
/// MOV by ffmpeg, then the AudioSpecificConfig in the track's `esds` (ISO 14496-3 1.6.2.1)
/// given audio object type 0 ("null"), which no AAC decoder takes: FFmpeg's refuses to
/// open. The video and the sample tables are untouched, so the file opens and its
/// pictures decode.
public enum BrokenAACClip {
    /// The movie, written into `folder`; its audio is track 2.
    public static func make(in folder: URL) throws -> URL {
        let copy = folder.appendingPathComponent("copy.mov")
        try TestTools.output(
            "ffmpeg",
            [
                "-v", "error", "-nostdin", "-y", "-i", TestFiles.fixture("counter-320x240.mp4").path,
                "-c", "copy", copy.path,
            ])
        var bytes = [UInt8](try Data(contentsOf: copy))
        try? FileManager.default.removeItem(at: copy)
        // The DecoderSpecificInfo descriptor (tag 5, size 5 in ffmpeg's four-byte length
        // form) holding the config of 48 kHz mono AAC-LC: 0x11 0x88, then the SBR sync
        // extension.
        let descriptor: [UInt8] = [0x05, 0x80, 0x80, 0x80, 0x05, 0x11, 0x88]
        guard let at = (0...(bytes.count - descriptor.count)).first(where: { Array(bytes[$0..<($0 + descriptor.count)]) == descriptor }) else {
            throw TestTools.ToolFailed(description: "no AudioSpecificConfig of 48 kHz mono AAC-LC in the copy of counter-320x240.mp4")
        }
        // Five bits of object type, four of frequency index, four of channel configuration: all zero.
        bytes[at + 5] = 0
        bytes[at + 6] = 0
        let out = folder.appendingPathComponent("broken-aac.mov")
        try Data(bytes).write(to: out)
        return out
    }
}
