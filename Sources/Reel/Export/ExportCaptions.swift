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
/// The track keeps its language. It is written again in the format the container holds: 3GPP
/// timed text in MP4/MOV, SubRip in Matroska. MPEG-TS holds no text captions Reel writes:
/// the track is left out with a warning. A CEA-608 (`c608`) track exported to MOV, played
/// at its own speed, is stream-copied instead (``copyParts(of:range:sources:)``).
struct ExportCaptions: Sendable {
    /// What a plan writes.
    enum Content: Sendable {
        /// Captions in time order, on the composition's timeline, none overlapping.
        case captions([Caption])
        /// The source packets of each part, moved onto the composition's timeline.
        case packets([ExportVideoCopy.Part])
    }

    let trackID: Int32
    let input: AssetWriterInput
    let content: Content

    /// Writes the captions or copies the packets, then marks the input finished.
    func write() async throws(ReelError) {
        switch content {
        case .captions(let captions):
            let adaptor = try AssetWriterInputCaptionAdaptor(assetWriterInput: input)
            for caption in captions { try await adaptor.append(caption) }
        case .packets(let parts):
            for part in parts { try await part.copy(into: input, startsInSource: true) }
        }
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
            if fileType == .mov, let (description, parts) = try await copyParts(of: track, range: range, sources: sources) {
                guard !parts.isEmpty else { continue }
                let input = AssetWriterInput(settings: .passthrough(description))
                let first = parts[0].part
                input.languageCode = try await Asset(url: first.url).load(.tracks).first { $0.trackID == first.trackID }?.languageCode
                plans.append(ExportCaptions(trackID: track.trackID, input: input, content: .packets(parts.map(\.part))))
                continue
            }
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
            plans.append(ExportCaptions(trackID: track.trackID, input: input, content: .captions(captions)))
        }
        return plans
    }

    /// The stream copy of a CEA-608 track: its source track's description and, for each
    /// segment playing in `range`, the part of the source it plays; nil (the captions are
    /// decoded and written again) unless every segment plays a CEA-608 track of a media file
    /// at its own speed. Byte pairs go one frame's worth to a packet, so the cut is made at
    /// packets: those that start in the part are kept.
    static func copyParts(of track: CompositionTrack, range: TimeRange,
                          sources: AssetRenderSources) async throws(ReelError) -> (FormatDescription, [(reference: SourceTrackReference, part: ExportVideoCopy.Part)])? {
        var description: FormatDescription?
        var parts: [(reference: SourceTrackReference, part: ExportVideoCopy.Part)] = []
        for segment in track.segments where !segment.isEmpty {
            guard let ref = segment.sourceTrack, segment.timeMapping.source.duration == segment.timeMapping.target.duration else { return nil }
            let url = sources.url(for: ref.sourceIdentifier)
            guard !AssetCaptionSource.isCaptionFile(url) else { return nil }
            if !parts.contains(where: { $0.reference == ref }) {
                let reader = try await AssetReader.open(url: url)
                defer { reader.cancelReading() }
                guard let found = reader.track(withID: ref.trackID)?.formatDescription, found.codecName == "eia_608" else { return nil }
                description = description ?? found
            }
            let played = segment.target.intersection(range)
            guard played.isValid, played.duration > .zero else { continue }
            let offset = segment.target.start - segment.timeMapping.source.start
            let part = ExportVideoCopy.Part(url: url, trackID: ref.trackID, source: TimeRange(start: played.start - offset, duration: played.duration), offset: offset)
            parts.append((ref, part))
        }
        return description.map { ($0, parts) }
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
