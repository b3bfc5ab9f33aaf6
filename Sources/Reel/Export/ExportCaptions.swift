import Foundation
import ReelCore
import ReelIO
import ReelCaptions
import ReelComposition

/// How an export writes one composition caption track, read and cut before the first frame:
/// each played stretch's captions come from its source file (``AssetReaderOutputCaptionAdaptor``),
/// are retimed through the edit, and are cut at the stretch and at the exported range, so a
/// trimmed export keeps the captions that overlap it, shortened to it.
///
/// The track keeps its language. It is written again (not stream-copied) in the format the container holds: 3GPP
/// timed text in MP4/MOV, SubRip in Matroska. MPEG-TS holds no text captions Reel writes:
/// the track is left out with a warning.
struct ExportCaptions: Sendable {
    let trackID: Int32
    let input: AssetWriterInput
    /// The captions to write, in time order, on the composition's timeline, none overlapping.
    let captions: [Caption]

    /// Writes the captions, then marks the input finished.
    func write() async throws(ReelError) {
        let adaptor = try AssetWriterInputCaptionAdaptor(assetWriterInput: input)
        for caption in captions { try await adaptor.append(caption) }
        input.markAsFinished()
    }

    /// The plans for every enabled caption track of `composition` with captions in `range`.
    static func plans(composition: Composition, range: TimeRange, sources: AssetRenderSources, fileType: AssetWriter.FileType,
                      warn: @Sendable (String) -> Void) async throws(ReelError) -> [ExportCaptions] {
        let tracks = composition.tracks.filter { ($0.mediaType == .text || $0.mediaType == .subtitle) && $0.isEnabled && !$0.isEmpty }
        guard !tracks.isEmpty else { return [] }
        let format: CaptionFormat
        switch fileType {
        case .mp4, .mov: format = .movText
        case .mkv: format = .srt
        case .mpegts:
            warn("caption tracks \(tracks.map { String($0.trackID) }.joined(separator: ", ")) are left out: MPEG-TS files hold no text captions Reel writes (write .mp4, .mov or .mkv to keep them)")
            return []
        }
        var plans: [ExportCaptions] = []
        for track in tracks {
            var language: String?
            var captions: [Caption]
            do {
                captions = try await track.compositionCaptions { ref throws(ReelError) in
                    guard let source = sources.captionSource(for: ref) else {
                        throw ReelError(.invalidComposition, "no caption source for \(ref)", trackID: track.trackID)
                    }
                    if language == nil, let file = source as? AssetCaptionSource { language = try await file.languageCode() }
                    return try await source.captions()
                }
            } catch where error.code == .unsupportedFormat {
                warn("caption track \(track.trackID): \(error.message); the track is left out")
                continue
            }
            // Cut at the exported range.
            captions = captions.compactMap { caption in
                let kept = caption.timeRange.intersection(range)
                guard kept.isValid, kept.duration > .zero else { return nil }
                var cut = caption
                cut.timeRange = kept
                return cut
            }
            captions = Self.oneAtATime(captions)
            guard !captions.isEmpty else { continue }
            let input = AssetWriterInput(settings: .captions(format))
            input.languageCode = language
            plans.append(ExportCaptions(trackID: track.trackID, input: input, captions: captions))
        }
        return plans
    }

    /// The captions in start order with each cut to start where the one before ends (a
    /// caption track shows one at a time); those left empty are dropped.
    static func oneAtATime(_ captions: [Caption]) -> [Caption] {
        var out: [Caption] = []
        for var caption in captions.sorted(by: { $0.timeRange.start < $1.timeRange.start }) {
            if let last = out.last, caption.timeRange.start < last.timeRange.end {
                guard caption.timeRange.end > last.timeRange.end else { continue }
                caption.timeRange = TimeRange(start: last.timeRange.end, end: caption.timeRange.end)
            }
            out.append(caption)
        }
        return out
    }
}
