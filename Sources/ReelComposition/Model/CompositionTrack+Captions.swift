extension CompositionTrackSegment {
    /// `caption` (in source time) as this segment plays it: cut to the part of the source the
    /// segment plays and moved (and scaled, for a speed change) to composition time; nil
    /// when none of it plays here or the segment is empty.
    public func compositionCaption(_ caption: Caption) -> Caption? {
        guard !isEmpty else { return nil }
        let played = caption.timeRange.intersection(timeMapping.source)
        guard played.isValid, played.duration > .zero,
            let mapped = compositionTimeRange(forSourceTimeRange: played), mapped.isValid, mapped.duration > .zero
        else { return nil }
        var retimed = caption
        retimed.timeRange = mapped
        return retimed
    }
}

extension CompositionTrack {
    /// The captions this caption track shows, in composition time and segment order: each
    /// segment's source captions (from `captionsOf`, asked once per source track) cut to the
    /// segment and retimed through its edit.
    public func compositionCaptions(
        _ captionsOf: (SourceTrackReference) async throws(ReelError) -> [Caption]
    ) async throws(ReelError) -> [Caption] {
        var read: [SourceTrackReference: [Caption]] = [:]
        var out: [Caption] = []
        for segment in segments where !segment.isEmpty {
            guard let ref = segment.sourceTrack else { continue }
            let captions: [Caption]
            if let known = read[ref] {
                captions = known
            } else {
                captions = try await captionsOf(ref)
                read[ref] = captions
            }
            out += captions.compactMap(segment.compositionCaption)
        }
        return out
    }
}
