import Foundation
import ReelCore
import ReelIO

/// The sample format an export writes its timed-metadata tracks in.
///
/// `auto` keeps each track's own format when the container can hold it, and otherwise
/// converts the track's telemetry into the container's natural format: in MP4 and MOV the
/// QuickTime `mebx` format for tracks that come from Apple devices and GoPro `gpmd` for the
/// rest; in MPEG-TS, KLV (MISB ST 0601). Matroska holds no timed metadata.
public enum MetadataOutputFormat: String, Sendable, Hashable, Codable, CaseIterable {
    case auto, gpmd, mebx, camm, klv

    /// The track formats `fileType` can hold, in the order `auto` prefers them.
    public static func writableFormats(in fileType: AssetWriter.FileType) -> [MetadataFormat] {
        switch fileType {
        case .mp4, .mov: [.gpmd, .mebx, .camm]
        case .mpegts: [.klv]
        case .mkv: []
        }
    }

    /// The track format this choice asks for; nil for `auto`.
    public var metadataFormat: MetadataFormat? { self == .auto ? nil : MetadataFormat(rawValue: rawValue) }

    /// The format to write a track whose sources hold samples of `sourceFormats` in,
    /// and whether its samples must be converted (decoded and encoded again).
    ///
    /// - Parameter leaveOut: how the caller leaves metadata tracks out, named in the
    ///   refusal (a property, a composition-file key, a command-line flag).
    /// - Throws: `.invalidArgument` naming the track and the way out when the container
    ///   holds no timed metadata, or cannot hold the asked format.
    package func resolve(
        sourceFormats: [MetadataFormat], fileType: AssetWriter.FileType, trackID: Int32? = nil, path: String,
        leaveOut: String = "metadataTrackIDs = []"
    ) throws(ReelError) -> (format: MetadataFormat, converts: Bool) {
        // The error's track ID names the track; the message does not repeat it.
        let track = "the metadata track"
        let sources = Set(sourceFormats)
        let writable = Self.writableFormats(in: fileType)
        let described = sources.map(\.rawValue).sorted().joined(separator: "+")
        guard !writable.isEmpty else {
            throw ReelError(
                .invalidArgument,
                "\(track) holds \(described.isEmpty ? "" : described + " ")timed metadata, and \(fileType.rawValue) files hold none: write .mp4, .mov or .ts, or leave the metadata out (\(leaveOut))",
                path: path, trackID: trackID)
        }
        let target: MetadataFormat
        if let requested = metadataFormat {
            guard writable.contains(requested) else {
                throw ReelError(
                    .invalidArgument,
                    "\(requested) metadata does not go into \(fileType.rawValue) files (they hold \(writable.map(\.rawValue).joined(separator: ", "))): choose one of those or auto",
                    path: path, trackID: trackID)
            }
            target = requested
        } else if sources.count == 1, let only = sources.first, writable.contains(only) {
            target = only
        } else if writable.contains(.mebx), sources.contains(.mebx) {
            target = .mebx
        } else {
            target = writable[0]
        }
        return (target, sources != [target])
    }
}
