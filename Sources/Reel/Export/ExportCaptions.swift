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
            var captions: [Caption] = []
            var language: String?
            for segment in track.segments where !segment.isEmpty {
                guard let ref = segment.sourceTrack else { continue }
                let target = segment.target.intersection(range)
                guard target.isValid, target.duration > .zero else { continue }
                let m = segment.timeMapping
                let url = sources.url(for: ref.sourceIdentifier)
                let read: [Caption]
                do {
                    (read, language) = try await Self.captions(of: ref.trackID, in: url)
                } catch where error.code == .unsupportedFormat {
                    warn("caption track \(track.trackID): \(error.message); the track is left out")
                    captions = []
                    break
                }
                for caption in read {
                    // The caption's part inside the edit, on the composition's timeline.
                    let played = caption.timeRange.intersection(m.source)
                    guard played.isValid, played.duration > .zero else { continue }
                    let mapped = TimeRange(start: TimeRange.mapTime(played.start, from: m.source, to: m.target),
                                           end: TimeRange.mapTime(played.end, from: m.source, to: m.target)).intersection(target)
                    guard mapped.isValid, mapped.duration > .zero else { continue }
                    var retimed = caption
                    retimed.timeRange = mapped
                    captions.append(retimed)
                }
            }
            captions = Self.oneAtATime(captions)
            guard !captions.isEmpty else { continue }
            let input = AssetWriterInput(settings: .captions(format))
            input.languageCode = language
            plans.append(ExportCaptions(trackID: track.trackID, input: input, captions: captions))
        }
        return plans
    }

    /// Every caption of source track `trackID` of `url`, and the track's language.
    static func captions(of trackID: Int32, in url: URL) async throws(ReelError) -> (captions: [Caption], language: String?) {
        let reader = try await AssetReader.open(url: url)
        guard let track = reader.track(withID: trackID) else {
            throw ReelError(.invalidComposition, "the source has no track \(trackID)", path: url.path, trackID: trackID)
        }
        let format = track.formatDescription.format
        guard CaptionSample.readableFormats.contains(format) || CaptionSample.readableFormats.contains(track.formatDescription.codecName) else {
            throw ReelError(.unsupportedFormat, "its source track holds \(track.formatDescription.codecName) captions, which Reel cannot read", path: url.path, trackID: trackID)
        }
        let output = AssetReaderTrackOutput(trackID: trackID, settings: .passthrough, bufferCapacity: 64)
        try reader.add(output)
        let adaptor = try AssetReaderOutputCaptionAdaptor(assetReaderTrackOutput: output)
        try reader.startReading()
        var captions: [Caption] = []
        while let caption = try await adaptor.next() { captions.append(caption) }
        let language = try await Asset(url: url).load(.tracks).first { $0.trackID == trackID }?.languageCode
        return (captions, language)
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
