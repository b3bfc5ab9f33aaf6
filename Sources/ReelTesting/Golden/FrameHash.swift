import ReelCore

/// Stable 64-bit hashes of frames, and the one-line-per-frame text that golden files
/// hold (like FFmpeg's FATE `framecrc` references).
public enum FrameHash {
    /// FNV-1a, 64-bit: the same bytes give the same hash on every machine and run.
    public static func fnv1a64<S: Sequence>(_ bytes: S) -> UInt64 where S.Element == UInt8 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in bytes {
            h ^= UInt64(b)
            h = h &* 0x0000_0100_0000_01b3
        }
        return h
    }

    /// The hash of a frame's visible pixels, plane after plane, row padding left out.
    public static func hash(_ frame: PixelBuffer) -> UInt64 {
        fnv1a64(frame.packedBytes())
    }

    /// `pts duration hash`, e.g. `1/30 1/30 8e3b0c44298fc1c1`: times as exact rationals,
    /// the hash as 16 hex digits.
    public static func line(presentationTime: MediaTime, duration: MediaTime, frame: PixelBuffer) -> String {
        "\(presentationTime) \(duration) \(hex(hash(frame)))"
    }

    /// 16 lower-case hex digits.
    public static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
