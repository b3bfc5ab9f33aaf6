import Foundation
import ReelCaptions
import ReelComposition
import ReelCore
import ReelIO

/// How an export writes one composition caption track, read and cut before the first frame:
/// each played stretch's captions come from its source file (``AssetReaderOutputCaptionAdaptor``),
/// are retimed through the edit, and are cut at the stretch and at the exported range, so a
/// trimmed export keeps the captions that overlap it, shortened to it.
///
/// The track keeps its language. A track whose every played stretch is a caption track of a
/// media file, at its own speed, in a codec the output container holds
/// (``AssetWriter/canCopyCaptions(codec:into:)``: ASS, WebVTT, SubRip into Matroska, 3GPP
/// timed text into MP4/MOV, CEA-608 into MOV) is stream-copied (``copyParts(of:range:sources:fileType:)``),
/// its styles, placement and codec kept. Any other is written again in the format the
/// container holds: 3GPP timed text in MP4/MOV, SubRip in Matroska, captions that overlap
/// made one caption while they overlap (``oneAtATime(_:)``). MPEG-TS holds no text captions
/// Reel writes: the track is left out with a warning.
struct ExportCaptions: Sendable {
    /// What a plan writes.
    enum Content: Sendable {
        /// Captions in time order, on the composition's timeline, none overlapping.
        case captions([Caption])
        /// The CEA-608 packets of each part that start in it, moved onto the composition's timeline.
        case packets([ExportVideoCopy.Part])
        /// The caption cues of each part that overlap it, cut at it and moved onto the
        /// composition's timeline.
        case cues([ExportVideoCopy.Part])
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
        case .cues(let parts):
            for part in parts { try await Self.copyCues(of: part, into: input) }
        }
        input.markAsFinished()
    }

    /// The plans for every enabled caption track of `composition` with captions in `range`.
    static func plans(
        composition: Composition, range: TimeRange, sources: AssetRenderSources, fileType: AssetWriter.FileType,
        warn: @Sendable (String) -> Void
    ) async throws(ReelError) -> [ExportCaptions] {
        let tracks = composition.tracks.filter { ($0.mediaType == .text || $0.mediaType == .subtitle) && $0.isEnabled && !$0.isEmpty }
        guard !tracks.isEmpty else { return [] }
        let format: CaptionFormat
        switch fileType {
        case .mp4, .mov: format = .movText
        case .mkv: format = .srt
        case .mpegts:
            warn(
                "caption tracks \(tracks.map { String($0.trackID) }.joined(separator: ", ")) are left out: MPEG-TS files hold no text captions Reel writes (write .mp4, .mov or .mkv to keep them)"
            )
            return []
        }
        var plans: [ExportCaptions] = []
        for track in tracks {
            if let (description, parts) = try await copyParts(of: track, range: range, sources: sources, fileType: fileType) {
                guard !parts.isEmpty else { continue }
                let input = AssetWriterInput(settings: .passthrough(description))
                let first = parts[0].part
                input.languageCode = try await Asset(url: first.url).load(.tracks).first { $0.trackID == first.trackID }?.languageCode
                let copied = parts.map(\.part)
                if description.codecName == "eia_608", let time = try await firstFieldTwoPair(in: copied) {
                    warn(
                        "caption track \(track.trackID): its CEA-608 field 2 (CC3, CC4; first at \(time.secondsDescription)) is not carried: FFmpeg's MOV muxer writes field 1 only"
                    )
                }
                plans.append(
                    ExportCaptions(
                        trackID: track.trackID, input: input,
                        content: description.codecName == "eia_608" ? .packets(copied) : .cues(copied)))
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
            } catch  where error.code == .unsupportedFormat {
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
            let (shown, overlaps) = Self.oneAtATime(captions)
            captions = shown
            for time in overlaps {
                warn(
                    "caption track \(track.trackID): captions overlap at \(time.secondsDescription); \(format) shows one caption at a time, so their texts are written as one caption while they overlap"
                )
            }
            guard !captions.isEmpty else { continue }
            let input = AssetWriterInput(settings: .captions(format))
            input.languageCode = language
            plans.append(ExportCaptions(trackID: track.trackID, input: input, content: .captions(captions)))
        }
        return plans
    }

    /// The stream copy of a caption track: its source track's description and, for each
    /// segment playing in `range`, the part of the source it plays; nil (the captions are
    /// decoded and written again) unless every segment plays a caption track of a media file
    /// at its own speed, all in one codec with one header, which `fileType` holds. CEA-608
    /// byte pairs go one frame's worth to a packet, so their cut is made at packets (those
    /// that start in the part are kept); text cues are cut at the part (``copyCues(of:into:)``).
    static func copyParts(
        of track: CompositionTrack, range: TimeRange, sources: AssetRenderSources,
        fileType: AssetWriter.FileType
    ) async throws(ReelError) -> (FormatDescription, [(reference: SourceTrackReference, part: ExportVideoCopy.Part)])? {
        var description: FormatDescription?
        var parts: [(reference: SourceTrackReference, part: ExportVideoCopy.Part)] = []
        for segment in track.segments where !segment.isEmpty {
            guard let ref = segment.sourceTrack, segment.timeMapping.source.duration == segment.timeMapping.target.duration else { return nil }
            let url = sources.url(for: ref.sourceIdentifier)
            guard !sources.isInMemory(ref), !AssetCaptionSource.isCaptionFile(url) else { return nil }
            if !parts.contains(where: { $0.reference == ref }) {
                let reader = try await AssetReader.open(url: url)
                defer { reader.cancelReading() }
                guard let found = reader.track(withID: ref.trackID)?.formatDescription, found.isCaptionFormat,
                    AssetWriter.canCopyCaptions(codec: found.codecName, into: fileType)
                else { return nil }
                if let description {
                    guard description.codecName == found.codecName, description.codecConfiguration == found.codecConfiguration else { return nil }
                } else {
                    description = found
                }
            }
            let played = segment.target.intersection(range)
            guard played.isValid, played.duration > .zero else { continue }
            let offset = segment.target.start - segment.timeMapping.source.start
            let part = ExportVideoCopy.Part(
                url: url, trackID: ref.trackID, source: TimeRange(start: played.start - offset, duration: played.duration), offset: offset)
            parts.append((ref, part))
        }
        return description.map { ($0, parts) }
    }

    /// The composition time of the first CEA-608 pair of field 2 (cc_type 1) that is not
    /// padding in the packets `parts` copy; nil when there is none.
    static func firstFieldTwoPair(in parts: [ExportVideoCopy.Part]) async throws(ReelError) -> MediaTime? {
        for part in parts {
            let reader = try await AssetReader.open(url: part.url)
            defer { reader.cancelReading() }
            let output = AssetReaderTrackOutput(trackID: try part.track(in: reader).trackID, settings: .passthrough, bufferCapacity: 64)
            try reader.add(output)
            if let source = part.source { reader.timeRange = source }
            try reader.startReading()
            while let sample = try await output.next() {
                guard let buffer = sample.sampleBuffer, buffer.presentationTime.isNumeric else { continue }
                if let source = part.source, !source.containsTime(buffer.presentationTime) { continue }
                let b = [UInt8](buffer.data)
                for k in stride(from: 0, to: b.count - 2, by: 3) where b[k] & 0x07 == 0x05 && (b[k + 1] & 0x7F != 0 || b[k + 2] & 0x7F != 0) {
                    return buffer.presentationTime + part.offset
                }
            }
        }
        return nil
    }

    /// Appends the cues of `part` that overlap its source range, as they are (text, markup,
    /// WebVTT settings) but cut at the range and moved by its offset. The whole track is
    /// read: a cue that starts before the range may still show in it.
    static func copyCues(of part: ExportVideoCopy.Part, into input: AssetWriterInput) async throws(ReelError) {
        let reader = try await AssetReader.open(url: part.url)
        defer { reader.cancelReading() }
        let output = AssetReaderTrackOutput(trackID: try part.track(in: reader).trackID, settings: .passthrough, bufferCapacity: 64)
        try reader.add(output)
        try reader.startReading()
        while let sample = try await output.next() {
            if Task.isCancelled { throw ReelError(.cancelled, "the export was cancelled") }
            guard var buffer = sample.sampleBuffer, buffer.presentationTime.isNumeric else { continue }
            var kept = buffer.duration.isNumeric && buffer.duration > .zero ? buffer.timeRange : TimeRange(start: buffer.presentationTime, duration: .zero)
            if let source = part.source {
                if kept.duration > .zero {
                    kept = kept.intersection(source)
                    guard kept.isValid, kept.duration > .zero else { continue }
                } else if !source.containsTime(kept.start) {
                    continue
                }
            }
            buffer.presentationTime = kept.start + part.offset
            buffer.decodeTime = buffer.presentationTime
            if kept.duration > .zero { buffer.duration = kept.duration }
            try await input.append(buffer)
        }
    }

    /// The captions a track that shows one at a time can hold: in start order, and where
    /// captions overlap, one caption for each stretch of time over which the same ones show
    /// (``CaptionGroup/groups(for:)``), their texts one below the other (in start order;
    /// the region and alignment kept when they share them). Gives the times at which an
    /// overlap starts.
    ///
    /// Merging rather than cutting keeps every caption on screen for all of its time: a
    /// caption cut to start where the one before ends shows late, and one cut to end where
    /// the next starts vanishes early, both silently.
    static func oneAtATime(_ captions: [Caption]) -> (captions: [Caption], overlaps: [MediaTime]) {
        let sorted = captions.enumerated().sorted { ($0.element.timeRange.start, $0.offset) < ($1.element.timeRange.start, $1.offset) }.map(\.element)
        var out: [Caption] = []
        var overlaps: [MediaTime] = []
        var run: [Caption] = []
        var runEnd = MediaTime.invalid
        func flush() {
            defer { run = [] }
            guard run.count > 1 else { out += run; return }
            // A run of captions each starting before the ones before it end has no gaps.
            var previousCount = 0
            for group in CaptionGroup.groups(for: run) where !group.captions.isEmpty {
                if group.captions.count > 1, previousCount <= 1 { overlaps.append(group.timeRange.start) }
                previousCount = group.captions.count
                out.append(merged(group.captions, over: group.timeRange))
            }
        }
        for caption in sorted where caption.timeRange.isValid && caption.timeRange.duration > .zero {
            if runEnd.isValid, caption.timeRange.start < runEnd {
                run.append(caption)
                runEnd = MediaTime.maximum(runEnd, caption.timeRange.end)
            } else {
                flush()
                run = [caption]
                runEnd = caption.timeRange.end
            }
        }
        flush()
        return (out, overlaps)
    }

    /// One caption over `range` holding `captions`' texts, one below the other.
    private static func merged(_ captions: [Caption], over range: TimeRange) -> Caption {
        guard var first = captions.first else { return Caption("", timeRange: range) }
        guard captions.count > 1 else {
            first.timeRange = range
            return first
        }
        var spans: [Caption.Span] = []
        for (k, caption) in captions.enumerated() {
            if k > 0 { spans.append(Caption.Span("\n")) }
            spans += caption.spans
        }
        let region = captions.allSatisfy { $0.region == first.region } ? first.region : nil
        let alignment = captions.allSatisfy { $0.textAlignment == first.textAlignment } ? first.textAlignment : nil
        return Caption(spans: spans, timeRange: range, region: region, textAlignment: alignment)
    }
}
