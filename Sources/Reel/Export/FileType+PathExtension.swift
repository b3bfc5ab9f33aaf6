import ReelIO

extension AssetWriter.FileType {
    /// The container a file name's extension stands for: `.mp4`, `.m4v`, `.m4a` (MPEG-4),
    /// `.mov`, `.qt` (QuickTime), `.ts`, `.m2ts`, `.mts` (MPEG-TS), `.mkv` (Matroska); nil
    /// for any other (any case).
    public init?(pathExtension: String) {
        switch pathExtension.lowercased() {
        case "mp4", "m4v", "m4a": self = .mp4
        case "mov", "qt": self = .mov
        case "ts", "m2ts", "mts": self = .mpegts
        case "mkv": self = .mkv
        default: return nil
        }
    }
}
