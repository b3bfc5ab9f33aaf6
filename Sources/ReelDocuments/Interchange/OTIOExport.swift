import Foundation
import Reel

/// A composition file as an OpenTimelineIO timeline, with what did not fit.
public struct OTIOExport: Sendable {
    public var timeline: OTIOTimeline
    /// One line each for what OpenTimelineIO cannot hold.
    public var warnings: [String]
}

extension CompositionFile {
    /// The file as an OpenTimelineIO timeline (docs/otio.md): each video track a `Track`
    /// (two tracks whose clips meet in dissolves, as ``OTIOTimeline/compositionFile(baseDirectory:otioPath:media:)``
    /// makes them, become one track with `Transition`s), layered as the first instruction
    /// stacks them; audio tracks likewise with their crossfades; scaled segments as
    /// `LinearTimeWarp`, one held frame as `FreezeFrame`; Reel's settings in `metadata.reel`.
    ///
    /// - Parameters:
    ///   - composition: the file's composition (``makeComposition(sources:path:)``), whose
    ///     segments have every range resolved against the media.
    ///   - sourceURLs: each source's file, written as `target_url` relative to `outputDirectory`
    ///     when inside it, else as a `file://` URL.
    ///   - outputDirectory: the folder the .otio file is written to.
    ///   - availableRanges: each source track's extent, by source name and kind, for the
    ///     references' `available_range`.
    ///   - name: the timeline's name.
    public func otioTimeline(
        composition: Composition, sourceURLs: [String: URL], outputDirectory: URL,
        availableRanges: [String: TimeRange] = [:], name: String = ""
    ) -> OTIOExport {
        var builder = OTIOExportBuilder(file: self, composition: composition)
        builder.sourceURLs = sourceURLs
        builder.outputDirectory = outputDirectory.standardizedFileURL
        builder.availableRanges = availableRanges
        return builder.build(name: name)
    }
}

struct OTIOExportBuilder {
    let file: CompositionFile
    let composition: Composition
    var sourceURLs: [String: URL] = [:]
    var outputDirectory = URL(fileURLWithPath: "/")
    var availableRanges: [String: TimeRange] = [:]
    var warnings: [String] = []
    let rate: (numerator: Int32, denominator: Int32)?

    init(file: CompositionFile, composition: Composition) {
        self.file = file
        self.composition = composition
        if let d = file.frameDuration, d.isNumeric, d.value > 0, let v = Int32(exactly: d.value) {
            rate = (d.timescale, v)
        } else if let nominal = composition.tracks(withMediaType: .video).first?.nominalFrameDuration, nominal.isNumeric, nominal.value > 0,
            let v = Int32(exactly: nominal.value)
        {
            rate = (nominal.timescale, v)
        } else {
            rate = nil
        }
    }

    /// A played span of one composition track.
    struct Span {
        var trackID: Int32
        var source: String
        var mapping: TimeMapping
        var target: TimeRange { mapping.target }
    }

    /// A dissolve found between two tracks: outgoing ends, incoming starts, cut between.
    struct FoundDissolve {
        var range: TimeRange
        var cut: MediaTime
    }

    mutating func build(name: String) -> OTIOExport {
        let videoIDs = layeredVideoTrackIDs()
        var otioTracks: [OTIOTrack] = []
        for group in pairs(videoIDs, kind: .video) {
            otioTracks.append(track(kind: OTIOTrack.video, ids: group.ids, dissolves: group.dissolves))
        }
        let audioIDs = composition.tracks(withMediaType: .audio).map(\.trackID)
        for group in pairs(audioIDs, kind: .audio) {
            otioTracks.append(track(kind: OTIOTrack.audio, ids: group.ids, dissolves: group.dissolves))
        }
        for (i, t) in file.tracks.enumerated() where t.mediaType == .metadata || t.mediaType == .captions {
            warnings.append(
                t.mediaType == .metadata
                    ? "tracks[\(i)]: metadata track \(t.trackID) is not written (OTIO has no metadata tracks; reading the .otio brings each clip's timed metadata in again)"
                    : "tracks[\(i)]: captions track \(t.trackID) is not written (OTIO has no caption tracks)")
        }
        checkInstructions()
        // The chapters go as markers on the stack, the rest of the output settings under `reel`.
        var output = file.output
        let markers = (output?.chapters ?? []).map { chapter in
            OTIOMarker(name: chapter.title, markedRange: OTIOTimeRange(startTime: time(chapter.start), duration: time(chapter.duration ?? .zero)))
        }
        output?.chapters = nil
        if output == CompositionFile.Output() { output = nil }
        var settings = OTIOReelSettings(
            compositor: file.compositor, output: output, renderSize: file.renderSize, renderScale: file.renderScale,
            frameDuration: file.frameDuration, sourceTrackIDForFrameTiming: nil)
        if file.sourceTrackIDForFrameTiming != nil {
            warnings.append("sourceTrackIDForFrameTiming: not written (the track IDs of a composition read from OTIO differ)")
        }
        if !composition.tracks(withMediaType: .metadata).isEmpty, (file.sourceSampleDataTrackIDs ?? []).isEmpty {
            settings.compositorReadsMetadata = false
        }
        var metadata: [String: JSONValue] = [:]
        if !settings.isEmpty, let data = try? JSONEncoder().encode(settings), let value = try? JSONDecoder().decode(JSONValue.self, from: data) {
            metadata["reel"] = value
        }
        let startTime = rate.map { OTIORationalTime(value: 0, rate: Double($0.numerator) / Double($0.denominator)) }
        let timeline = OTIOTimeline(name: name, globalStartTime: startTime, tracks: OTIOStack(children: otioTracks, markers: markers), metadata: metadata)
        return OTIOExport(timeline: timeline, warnings: warnings)
    }

    /// Video track IDs bottom first: the first instruction's layers reversed (it lists
    /// them top first), then any others below them.
    func layeredVideoTrackIDs() -> [Int32] {
        let all = composition.tracks(withMediaType: .video).map(\.trackID)
        var order: [Int32] = []
        for instruction in file.instructions {
            for layer in (instruction.layerInstructions ?? []).reversed() where all.contains(layer.trackID) && !order.contains(layer.trackID) {
                order.append(layer.trackID)
            }
            if order.count == all.count { break }
        }
        let missing = all.filter { !order.contains($0) }
        return missing + order
    }

    func spans(of id: Int32) -> [Span] {
        guard let t = composition.track(withTrackID: id) else { return [] }
        return t.segments.compactMap { s in
            guard let ref = s.sourceTrack, !s.isEmpty else { return nil }
            return Span(trackID: id, source: ref.sourceIdentifier, mapping: s.timeMapping)
        }
    }

    /// Tracks grouped in pairs that meet only in recognised dissolves; the others alone.
    func pairs(_ ids: [Int32], kind: CompositionFile.Track.Kind) -> [(ids: [Int32], dissolves: [FoundDissolve])] {
        var out: [(ids: [Int32], dissolves: [FoundDissolve])] = []
        var used = Set<Int32>()
        for (i, x) in ids.enumerated() where !used.contains(x) {
            var matched = false
            for y in ids[(i + 1)...] where !used.contains(y) {
                if let dissolves = dissolves(between: x, and: y, kind: kind), !dissolves.isEmpty {
                    out.append(([x, y], dissolves))
                    used.insert(x)
                    used.insert(y)
                    matched = true
                    break
                }
            }
            if !matched {
                used.insert(x)
                out.append(([x], []))
            }
        }
        return out
    }

    /// The dissolves where the played spans of two tracks overlap, when every overlap is one
    /// (nil otherwise).
    func dissolves(between x: Int32, and y: Int32, kind: CompositionFile.Track.Kind) -> [FoundDissolve]? {
        let a = spans(of: x), b = spans(of: y)
        var found: [FoundDissolve] = []
        for s in a {
            for t in b {
                let start = MediaTime.maximum(s.target.start, t.target.start), end = MediaTime.minimum(s.target.end, t.target.end)
                guard start < end else { continue }
                let (outgoing, incoming) = s.target.start < t.target.start ? (s, t) : (t, s)
                // The outgoing span must end inside and the incoming start inside.
                guard outgoing.target.end == end, incoming.target.start == start else { return nil }
                let range = TimeRange(start: start, end: end)
                let cut =
                    kind == .video
                    ? videoCut(range, outgoing: outgoing.trackID, incoming: incoming.trackID)
                    : audioCut(range, outgoing: outgoing.trackID, incoming: incoming.trackID)
                guard let cut else { return nil }
                found.append(FoundDissolve(range: range, cut: cut))
            }
        }
        return found
    }

    /// The cut of a dissolve the instructions draw over `range`: the outgoing layer's
    /// opacity going from 1 to 0 over instructions that tile the range; the cut is the
    /// boundary between its two instructions (the middle when there is one).
    func videoCut(_ range: TimeRange, outgoing: Int32, incoming: Int32) -> MediaTime? {
        let end = composition.duration
        let inside = file.instructions.filter { i in
            let r = i.timeRange.resolved(compositionEnd: end)
            return !(r.start < range.start) && !(range.end < r.end) && r.duration > .zero
        }
        guard !inside.isEmpty else { return nil }
        var boundaries: [MediaTime] = []
        var first: Double?, last: Double?
        for instruction in inside {
            let r = instruction.timeRange.resolved(compositionEnd: end)
            guard let layers = instruction.layerInstructions,
                let out = layers.first(where: { $0.trackID == outgoing }), let ramps = out.opacityRamps, ramps.count == 1,
                ramps[0].timeRange.resolved(compositionEnd: end) == r, ramps[0].from >= ramps[0].to,
                layers.contains(where: { $0.trackID == incoming && $0.opacityRamps == nil && ($0.opacity ?? 1) == 1 })
            else { return nil }
            if first == nil { first = ramps[0].from }
            last = ramps[0].to
            if r.start != range.start { boundaries.append(r.start) }
        }
        guard let first, let last, abs(first - 1) < 1e-9, abs(last) < 1e-9 else { return nil }
        return boundaries.count == 1 ? boundaries[0] : middle(range, boundaries)
    }

    /// The cut of a crossfade the audio mix makes over `range`: the outgoing track's volume
    /// ramps from 1 to 0 and the incoming's from 0 to 1; the cut is where both split them.
    func audioCut(_ range: TimeRange, outgoing: Int32, incoming: Int32) -> MediaTime? {
        let end = composition.duration
        func ramps(_ id: Int32) -> [CompositionFile.Ramp<Float>] {
            (file.audioMix?.first { $0.trackID == id }?.volumeRamps ?? []).filter {
                let r = $0.timeRange.resolved(compositionEnd: end)
                return !(r.start < range.start) && !(range.end < r.end)
            }
        }
        let down = ramps(outgoing), up = ramps(incoming)
        guard let d0 = down.first, let d1 = down.last, let u0 = up.first, let u1 = up.last,
            d0.from == 1, d1.to == 0, u0.from == 0, u1.to == 1,
            d0.timeRange.range.start == range.start, d1.timeRange.resolved(compositionEnd: end).end == range.end
        else { return nil }
        let boundaries = down.dropFirst().map(\.timeRange.range.start)
        return boundaries.count == 1 ? boundaries[0] : middle(range, boundaries)
    }

    /// The boundary nearest the middle of `range`, or the middle.
    func middle(_ range: TimeRange, _ boundaries: [MediaTime]) -> MediaTime {
        let mid = range.start + range.duration.multiplied(byRatio: 1, 2)
        return boundaries.min { ($0 - mid).magnitude < ($1 - mid).magnitude } ?? mid
    }

    /// One OTIO track of the spans of `ids`, with transitions at the dissolves.
    mutating func track(kind: String, ids: [Int32], dissolves: [FoundDissolve]) -> OTIOTrack {
        let all = ids.flatMap(spans(of:)).sorted { $0.target.start < $1.target.start }
        var children: [OTIOItem] = []
        var cursor = MediaTime.zero
        for span in all {
            // The kept stretch: a dissolve's handles trimmed off.
            var keptStart = span.target.start, keptEnd = span.target.end
            var before: FoundDissolve?
            if let d = dissolves.first(where: { $0.range.start == span.target.start }) {
                keptStart = d.cut
                before = d
            }
            if let d = dissolves.first(where: { $0.range.end == span.target.end && $0.range.start > span.target.start }) {
                keptEnd = d.cut
            }
            if let d = before {
                children.append(.transition(OTIOTransition(inOffset: time(d.cut - d.range.start), outOffset: time(d.range.end - d.cut))))
            } else if keptStart > cursor {
                children.append(.gap(OTIOGap(duration: time(keptStart - cursor))))
            }
            children.append(.clip(clip(span, kept: TimeRange(start: keptStart, end: keptEnd))))
            cursor = keptEnd
        }
        let names = ids.map { String($0) }.joined(separator: "+")
        return OTIOTrack(name: (kind == OTIOTrack.video ? "V" : "A") + names, kind: kind, children: children)
    }

    func time(_ t: MediaTime) -> OTIORationalTime { OTIOTime.rationalTime(t, rate: rate) }

    func clip(_ span: Span, kept: TimeRange) -> OTIOClip {
        let m = span.mapping
        // The source stretch played over the kept range.
        let startOffset = kept.start - m.target.start
        let sourceStart: MediaTime
        var effects: [OTIOEffect] = []
        if m.source.duration == m.target.duration {
            sourceStart = m.source.start + startOffset
        } else {
            let ratio = m.source.duration.seconds / m.target.duration.seconds
            let frame = rate.map { MediaTime(value: Int64($0.denominator), timescale: $0.numerator) }
            if let frame, !(m.source.duration > frame) {
                effects.append(.freezeFrame)
                sourceStart = m.source.start
            } else {
                effects.append(.linearTimeWarp(timeScalar: ratio))
                sourceStart = m.source.start + startOffset.multiplied(by: ratio)
            }
        }
        let url = sourceURLs[span.source].map(targetURL) ?? span.source
        let reference = OTIOMediaReference.external(
            targetURL: url, availableRange: availableRanges[span.source].map { OTIOTime.timeRange($0, rate: rate) },
            name: span.source, metadata: [:])
        return OTIOClip(
            name: span.source, sourceRange: OTIOTimeRange(startTime: time(sourceStart), duration: time(kept.duration)),
            mediaReference: reference, effects: effects)
    }

    /// A path relative to the output's folder when the file is inside it, else a `file://` URL.
    func targetURL(_ url: URL) -> String {
        let path = url.standardizedFileURL.path
        let folder = outputDirectory.path.hasSuffix("/") ? outputDirectory.path : outputDirectory.path + "/"
        if path.hasPrefix(folder) { return String(path.dropFirst(folder.count)) }
        return URL(fileURLWithPath: path).absoluteString
    }

    /// Warnings for what instructions and the audio mix say that OTIO cannot.
    mutating func checkInstructions() {
        for (i, instruction) in file.instructions.enumerated() {
            let f = "instructions[\(i)]"
            if instruction.backgroundColor != nil { warnings.append("\(f).backgroundColor: not written (OTIO has no background colour)") }
            if instruction.passthroughTrackID != nil { warnings.append("\(f).passthroughTrackID: not written") }
            if instruction.requiredSourceCaptionTrackIDs != nil {
                warnings.append("\(f).requiredSourceCaptionTrackIDs: not written (OTIO has no caption tracks)")
            }
            for (k, layer) in (instruction.layerInstructions ?? []).enumerated() {
                let lf = "\(f).layerInstructions[\(k)]"
                if layer.transform != nil || layer.transformRamps != nil { warnings.append("\(lf): transforms are not written (OTIO has none)") }
                if layer.cropRectangle != nil || layer.cropRectangleRamps != nil { warnings.append("\(lf): crops are not written (OTIO has none)") }
                if let o = layer.opacity, o != 1 { warnings.append("\(lf).opacity: \(o) is not written (OTIO has no layer opacity)") }
            }
        }
        for (i, input) in (file.audioMix ?? []).enumerated() where input.volume.map({ $0 != 1 }) ?? false {
            warnings.append("audioMix[\(i)].volume: \(input.volume ?? 1) is not written (OTIO has no track volume)")
        }
    }
}
