import Foundation
import ReelComposition
import ReelCore
import ReelIO

extension SourceTrackDescription {
    /// What the composition layer needs of a file's track; `sourceIdentifier` names the
    /// file (its path by default, which ``AssetRenderSources`` opens).
    public init(_ track: AssetTrack, sourceIdentifier: String) {
        var frameDuration = MediaTime.invalid
        if track.mediaType == .video {
            if track.minFrameDuration.isNumeric, track.minFrameDuration > .zero {
                frameDuration = track.minFrameDuration
            } else if track.nominalFrameRate > 0 {
                frameDuration = MediaTime(seconds: 1 / Double(track.nominalFrameRate), preferredTimescale: 90000)
            }
        }
        self.init(
            reference: SourceTrackReference(sourceIdentifier: sourceIdentifier, trackID: track.trackID),
            mediaType: track.mediaType, timeRange: track.timeRange, naturalSize: track.naturalSize,
            nominalFrameDuration: frameDuration, preferredTransform: track.preferredTransform)
    }
}

extension SourceDescription {
    /// A file's tracks as the composition layer sees them (cover pictures and chapter tracks
    /// left out: they are the file's artwork and chapters, carried with its metadata), loading them first. The
    /// identifier is the file's path (a remote asset's whole URL) unless given.
    ///
    /// A metadata track lasts until the file ends: its last sample's values hold until
    /// then. (Outside MP4 and MOV metadata samples are instants, and the stream's own
    /// duration ends at the last one's time, which would leave it out.)
    public init(asset: Asset, identifier: String? = nil) async throws(ReelError) {
        let id = identifier ?? (asset.url.isFileURL ? asset.url.path : asset.url.absoluteString)
        // A cover picture is the file's artwork (in its metadata), a chapter track its
        // chapters: neither is a track to play.
        var tracks = try await asset.load(.tracks).filter { !$0.isCoverPicture && !$0.isChapterList }.map { SourceTrackDescription($0, sourceIdentifier: id) }
        let end = tracks.map(\.timeRange.end).filter(\.isNumeric).max()
        for i in tracks.indices where tracks[i].mediaType == .metadata {
            if let end, tracks[i].timeRange.start.isNumeric, tracks[i].timeRange.end < end {
                tracks[i].timeRange = TimeRange(start: tracks[i].timeRange.start, end: end)
            }
        }
        self.init(identifier: id, tracks: tracks)
    }
}

extension Composition {
    /// Inserts `timeRange` of every track of `asset` at `startTime` (AVMutableComposition's
    /// `insertTimeRange(_:of:at:)`), loading the asset's tracks first. The source is
    /// named by the file's path, which ``AssetRenderSources`` opens.
    public mutating func insertTimeRange(_ timeRange: TimeRange, of asset: Asset, at startTime: MediaTime) async throws(ReelError) {
        let source = try await SourceDescription(asset: asset)
        try insertTimeRange(timeRange, of: source, at: startTime)
    }
}

extension Composition {
    /// A composition playing the whole of `asset`, every track, from where the earliest
    /// track starts: an MPEG-TS file whose clock starts at 1.4 s plays from composition
    /// time zero, its tracks keeping their offsets to each other.
    public init(asset: Asset) async throws(ReelError) {
        let source = try await SourceDescription(asset: asset)
        var composition = Composition()
        let starts = source.tracks.map(\.timeRange.start).filter(\.isNumeric)
        let start = MediaTime.maximum(.zero, starts.min() ?? .zero)
        let end = source.duration
        if start < end {
            try composition.insertTimeRange(TimeRange(start: start, end: end), of: source, at: .zero)
        }
        self.init(composition)
    }
}
