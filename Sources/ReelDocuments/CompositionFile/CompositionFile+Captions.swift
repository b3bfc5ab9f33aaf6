import Foundation
import Reel

extension CompositionFile {
    /// `composition` with its first source's caption tracks under the picture when the file
    /// has no captions track (and `output.captions` is not `false`): one track for each of
    /// that source's caption tracks, playing wherever the first video track plays that
    /// source, so a render keeps the subtitles of what it shows, retimed through the edit.
    public func addingSourceCaptions(to composition: Composition, sources: [String: SourceDescription]) throws(ReelError) -> Composition {
        guard output?.captions != false, !tracks.contains(where: { $0.mediaType == .captions }),
            let name = self.sources.first?.name, let source = sources[name]
        else { return composition }
        return try adding(source.tracks.filter { Track.Kind.captions.plays($0.mediaType) }, underPictureOf: name, to: composition)
    }

    /// `composition` with its caption tracks turned off when `output.captions` is `false`:
    /// they are not written, but a compositor asking for them still gets their captions.
    func disablingCaptionTracks(of composition: Composition) -> Composition {
        guard output?.captions == false else { return composition }
        var mutable = composition.mutableCopy()
        for track in composition.tracks where Track.Kind.captions.plays(track.mediaType) {
            _ = try? mutable.modifyTrack(withTrackID: track.trackID) { (t: inout CompositionTrack) in t.isEnabled = false }
        }
        return mutable
    }
}

extension SourceDescription {
    /// A caption file (iTT, SCC, SRT, WebVTT) as a source: one subtitle track, numbered 1,
    /// from time zero to the end of its last caption.
    /// - Throws: as `CaptionDocument/init(contentsOf:channel:)` does.
    public static func captionFile(_ url: URL, identifier: String) throws(ReelError) -> SourceDescription {
        let captions = try CaptionDocument(contentsOf: url).captions
        let end = captions.map(\.timeRange.end).filter(\.isNumeric).max() ?? .zero
        let track = SourceTrackDescription(
            reference: SourceTrackReference(sourceIdentifier: identifier, trackID: 1), mediaType: .subtitle,
            timeRange: TimeRange(start: .zero, end: end))
        return SourceDescription(identifier: identifier, tracks: [track])
    }
}
