extension VideoComposition {
    /// Every problem that would stop `composition` rendering correctly with this video
    /// composition over `timeRange` (the whole composition by default), in a stable order:
    /// settings first, then each instruction in order, then the sample-data lists. An empty
    /// array means it is valid.
    ///
    /// Checks: render size, scale and frame duration; each instruction's time range valid and
    /// not empty; instructions tiling the range with no gap or overlap (rule 9); every track
    /// ID known and of the right kind; metadata track IDs in both sample-data lists (rule 1).
    public func validate(for composition: Composition, timeRange: TimeRange? = nil) -> [VideoCompositionProblem] {
        var problems: [VideoCompositionProblem] = []
        let range = timeRange ?? composition.timeRange
        func add(
            _ kind: VideoCompositionProblem.Kind, _ field: String, index: Int? = nil, track: Int32? = nil,
            time: MediaTime? = nil, _ message: String
        ) {
            problems.append(
                VideoCompositionProblem(
                    kind: kind, instructionIndex: index, field: field, trackID: track,
                    time: time, message: "\(field) \(message)"))
        }
        func s(_ t: MediaTime) -> String { t.secondsDescription }

        // Settings.
        let w = renderSize.width, h = renderSize.height
        if !(w.isFinite && h.isFinite && w > 0 && h > 0) {
            add(.badRenderSize, "renderSize", "is \(w) x \(h): both sides must be positive")
        } else if renderScale.isFinite, renderScale > 0, renderPixelSize.width == 0 {
            add(.badRenderSize, "renderSize", "is \(w) x \(h) at scale \(renderScale): the frames would be under 1 or over 32768 pixels on a side")
        }
        if !(renderScale.isFinite && renderScale > 0) {
            add(.badRenderScale, "renderScale", "is \(renderScale): it must be positive")
        }
        if !(frameDuration.isNumeric && frameDuration > .zero) {
            add(
                .badFrameDuration, "frameDuration",
                "is \(frameDuration.isNumeric ? s(frameDuration) : frameDuration.description): it must be a positive time such as 1/30 s")
        }
        if let id = sourceTrackIDForFrameTiming {
            checkTrack(id, expected: [.video], field: "sourceTrackIDForFrameTiming", index: nil, in: composition, add: add)
        }

        // Instructions: each valid, tiling the range.
        if instructions.isEmpty {
            if range.duration > .zero {
                add(.noInstructions, "instructions", "is empty, but the composition lasts from \(s(range.start)) to \(s(range.end))")
            }
        }
        var previousEnd: (index: Int, end: MediaTime)?
        for (i, instruction) in instructions.enumerated() {
            let field = "instructions[\(i)]"
            let r = instruction.timeRange
            if !(r.isValid && r.start.isNumeric && r.duration.isNumeric) {
                add(.invalidTimeRange, field + ".timeRange", index: i, "is \(r): it must have a finite start and a duration of zero or more")
                continue
            }
            if r.duration == .zero {
                add(.emptyTimeRange, field + ".timeRange", index: i, time: r.start, "is empty (starts and ends at \(s(r.start)))")
            }
            if let prev = previousEnd {
                if prev.end < r.start {
                    add(
                        .gap, field + ".timeRange", index: i, time: prev.end,
                        "starts at \(s(r.start)) but instructions[\(prev.index)] ends at \(s(prev.end)) (a gap of \(s(r.start - prev.end)))")
                } else if r.start < prev.end {
                    add(
                        .overlap, field + ".timeRange", index: i, time: r.start,
                        "starts at \(s(r.start)) but instructions[\(prev.index)] ends at \(s(prev.end)) (an overlap of \(s(prev.end - r.start)))")
                }
            } else if range.start < r.start {
                add(
                    .notCovered, field + ".timeRange", index: i, time: range.start,
                    "starts at \(s(r.start)) but the composition starts at \(s(range.start)): nothing covers the time before")
            }
            if previousEnd == nil || previousEnd!.end < r.end { previousEnd = (i, r.end) }

            // Tracks.
            if let ids = instruction.requiredSourceTrackIDs {
                for (k, id) in ids.enumerated() {
                    checkTrack(id, expected: [.video], field: field + ".requiredSourceTrackIDs[\(k)]", index: i, in: composition, add: add)
                }
            }
            if let id = instruction.passthroughTrackID {
                checkTrack(id, expected: [.video], field: field + ".passthroughTrackID", index: i, in: composition, add: add)
            }
            for (k, id) in instruction.requiredSourceSampleDataTrackIDs.enumerated() {
                let f = field + ".requiredSourceSampleDataTrackIDs[\(k)]"
                if checkTrack(id, expected: [.metadata], field: f, index: i, in: composition, add: add),
                    !sourceSampleDataTrackIDs.contains(id)
                {
                    add(
                        .sampleDataTrackInOneListOnly, f, index: i, track: id,
                        "is metadata track \(id), which is not in sourceSampleDataTrackIDs \(sourceSampleDataTrackIDs): its groups would never reach the compositor; add it there too"
                    )
                }
            }
            for (k, id) in instruction.requiredSourceCaptionTrackIDs.enumerated() {
                checkTrack(id, expected: [.text, .subtitle], field: field + ".requiredSourceCaptionTrackIDs[\(k)]", index: i, in: composition, add: add)
            }
            if let standard = instruction as? VideoCompositionInstruction {
                for (k, layer) in standard.layerInstructions.enumerated() {
                    let lf = field + ".layerInstructions[\(k)]"
                    checkRamps(layer.opacityRamps.map(\.timeRange), field: lf + ".opacityRamps", index: i, add: add)
                    checkRamps(layer.transformRamps.map(\.timeRange), field: lf + ".transformRamps", index: i, add: add)
                    checkRamps(layer.cropRectangleRamps.map(\.timeRange), field: lf + ".cropRectangleRamps", index: i, add: add)
                }
            }
        }
        if let last = previousEnd, last.end < range.end {
            add(
                .notCovered, "instructions[\(last.index)].timeRange", index: last.index, time: last.end,
                "ends at \(s(last.end)) but the composition lasts until \(s(range.end)): nothing covers the time after")
        }

        // The video composition's sample-data list.
        for (k, id) in sourceSampleDataTrackIDs.enumerated() {
            let f = "sourceSampleDataTrackIDs[\(k)]"
            guard checkTrack(id, expected: [.metadata], field: f, index: nil, in: composition, add: add) else { continue }
            if !instructions.contains(where: { $0.requiredSourceSampleDataTrackIDs.contains(id) }) {
                add(
                    .sampleDataTrackInOneListOnly, f, track: id,
                    "is metadata track \(id), but no instruction lists it in requiredSourceSampleDataTrackIDs: its groups would never reach the compositor")
            }
        }
        return problems
    }

    /// Throws one `ReelError` (`invalidComposition`) listing every problem, one per line,
    /// when ``validate(for:timeRange:)`` finds any.
    public func validated(for composition: Composition, timeRange: TimeRange? = nil) throws(ReelError) {
        let problems = validate(for: composition, timeRange: timeRange)
        guard let first = problems.first else { return }
        let text =
            problems.count == 1
            ? first.message
            : "\(problems.count) problems:\n" + problems.map { "  " + $0.message }.joined(separator: "\n")
        throw ReelError(.invalidComposition, text, trackID: problems.count == 1 ? first.trackID : nil)
    }

    /// Reports an unknown track or one of the wrong kind; true when the track is fine.
    @discardableResult
    private func checkTrack(
        _ id: Int32, expected: [MediaType], field: String, index: Int?, in composition: Composition,
        add: (VideoCompositionProblem.Kind, String, Int?, Int32?, MediaTime?, String) -> Void
    ) -> Bool {
        guard let track = composition.track(withTrackID: id) else {
            let known = composition.tracks.map { "\($0.trackID) (\($0.mediaType))" }.joined(separator: ", ")
            add(.unknownTrack, field, index, id, nil, "names track \(id), which the composition does not have (it has \(known.isEmpty ? "no tracks" : known))")
            return false
        }
        guard expected.contains(track.mediaType) else {
            let why =
                expected == [.metadata]
                ? "only metadata tracks carry sample data"
                : expected.contains(.subtitle)
                    ? "only caption tracks (text, subtitle) carry captions"
                    : "only \(expected[0]) tracks can be used here"
            let kind = "\(track.mediaType)"
            let article = kind.first.map { "aeiou".contains($0) } == true ? "an" : "a"
            add(.wrongTrackType, field, index, id, nil, "names track \(id), \(article) \(kind) track: \(why)")
            return false
        }
        return true
    }

    private func checkRamps(
        _ ranges: [TimeRange], field: String, index: Int,
        add: (VideoCompositionProblem.Kind, String, Int?, Int32?, MediaTime?, String) -> Void
    ) {
        for (k, r) in ranges.enumerated() {
            if !(r.isValid && r.start.isNumeric && r.duration.isNumeric) {
                add(.invalidRamp, "\(field)[\(k)].timeRange", index, nil, nil, "is \(r): a ramp needs a finite start and a duration of zero or more")
            } else if k > 0, r.start < ranges[k - 1].end {
                add(
                    .invalidRamp, "\(field)[\(k)].timeRange", index, nil, r.start,
                    "starts at \(r.start.secondsDescription) but \(field)[\(k - 1)] ends at \(ranges[k - 1].end.secondsDescription)")
            }
        }
    }
}
