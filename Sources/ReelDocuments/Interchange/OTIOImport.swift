import Foundation
import Reel

/// What a media file offers an OpenTimelineIO conversion: whether it has sound to follow
/// the picture, and a timed-metadata (GPS) track to bring in.
public struct OTIOMediaInfo: Sendable, Hashable {
    public var hasAudio: Bool
    public var hasTimedMetadata: Bool

    public init(hasAudio: Bool, hasTimedMetadata: Bool) {
        self.hasAudio = hasAudio
        self.hasTimedMetadata = hasTimedMetadata
    }
}

/// Reel's own settings, which OpenTimelineIO has no field for, as they travel in a
/// timeline's `metadata.reel` (docs/otio.md).
public struct OTIOReelSettings: Sendable, Hashable, Codable {
    public var compositor: CompositionFile.CompositorReference?
    public var output: CompositionFile.Output?
    public var renderSize: Size?
    public var renderScale: Double?
    public var frameDuration: MediaTime?
    public var sourceTrackIDForFrameTiming: Int32?
    /// False: bring no clip's timed metadata in (true by default).
    public var timedMetadata: Bool?
    /// False: the metadata tracks are written into the output but not handed to the
    /// compositor (true by default: over each clip's span, its track).
    public var compositorReadsMetadata: Bool?

    public init(
        compositor: CompositionFile.CompositorReference? = nil, output: CompositionFile.Output? = nil, renderSize: Size? = nil,
        renderScale: Double? = nil, frameDuration: MediaTime? = nil, sourceTrackIDForFrameTiming: Int32? = nil,
        timedMetadata: Bool? = nil, compositorReadsMetadata: Bool? = nil
    ) {
        self.compositor = compositor
        self.output = output
        self.renderSize = renderSize
        self.renderScale = renderScale
        self.frameDuration = frameDuration
        self.sourceTrackIDForFrameTiming = sourceTrackIDForFrameTiming
        self.timedMetadata = timedMetadata
        self.compositorReadsMetadata = compositorReadsMetadata
    }

    var isEmpty: Bool { self == OTIOReelSettings() }
}

/// An OpenTimelineIO timeline as a composition file, with what did not fit.
public struct OTIOImport: Sendable {
    public var file: CompositionFile
    /// One line each for what the composition cannot hold or Reel does not render.
    public var warnings: [String]
    /// Where each composition source and segment came from in the .otio file.
    var sourceOrigins: [String: Origin] = [:]
    var segmentOrigins: [String: Origin] = [:]

    /// An object of the .otio file: its JSON path and, for a clip, its name.
    struct Origin: Sendable, Hashable {
        var field: String
        var clip: String
        var referenceField: String
        /// The resolved media file.
        var url: URL?
    }

    /// The composition field (`tracks[1].segments[0]...`, `sources[2].path`) of an error as
    /// the .otio object it came from, with the clip's name.
    func translating(_ error: ReelError, otioPath: String) -> ReelError {
        var e = error
        guard let field = error.field else { return e }
        let key = field.range(of: #"^(tracks\[\d+\]\.segments\[\d+\]|sources\[\d+\])"#, options: .regularExpression).map { String(field[$0]) }
        guard let key, let origin = segmentOrigins[key] ?? sourceOrigins[key] else { return e }
        e.field = key.hasPrefix("sources") ? origin.referenceField : origin.field
        e.path = otioPath
        if !origin.clip.isEmpty, !e.message.contains("clip \"\(origin.clip)\"") { e.message = "clip \"\(origin.clip)\": " + e.message }
        return e
    }
}

extension OTIOTimeline {
    /// Reel's settings from `metadata.reel`; defaults when absent.
    public func reelSettings() throws(ReelError) -> OTIOReelSettings {
        guard let value = metadata["reel"] else { return OTIOReelSettings() }
        return try value.decode(OTIOReelSettings.self, fieldPrefix: "metadata.reel")
    }

    /// The timeline as a composition file (docs/otio.md): video tracks layered as the stack
    /// has them (later on top), each with a second track for the clips a dissolve brings
    /// in; audio tracks mixed, with crossfades; each video track's clips' timed metadata as
    /// a metadata track over the clips' spans; markers as chapters.
    ///
    /// - Parameters:
    ///   - baseDirectory: the .otio file's folder (relative paths and the file's sources' paths).
    ///   - otioPath: the file, for errors.
    ///   - media: what each media file offers; nil for a file not probed (then no sound
    ///     follows a video-only timeline and no metadata track is made from it).
    public func compositionFile(
        baseDirectory: URL, otioPath: String? = nil,
        media: (URL) -> OTIOMediaInfo? = { _ in nil }
    ) throws(ReelError) -> OTIOImport {
        let result: Result<OTIOImport, ReelError> = withoutActuallyEscaping(media) { media in
            var builder = OTIOImportBuilder(timeline: self, base: baseDirectory, otioPath: otioPath, media: media)
            do throws(ReelError) { return .success(try builder.build()) } catch { return .failure(error) }
        }
        return try result.get()
    }
}

/// The conversion's working state.
struct OTIOImportBuilder {
    let timeline: OTIOTimeline
    let base: URL
    let otioPath: String?
    let media: (URL) -> OTIOMediaInfo?

    var settings = OTIOReelSettings()
    var sources: [CompositionFile.Source] = []
    var sourceByURL: [URL: String] = [:]
    var sourceURLByName: [String: URL] = [:]
    var warnings: [String] = []
    var tracks: [CompositionFile.Track] = []
    var segmentOrigins: [String: OTIOImport.Origin] = [:]
    var sourceOrigins: [String: OTIOImport.Origin] = [:]
    var frameDuration: MediaTime?

    init(timeline: OTIOTimeline, base: URL, otioPath: String?, media: @escaping (URL) -> OTIOMediaInfo?) {
        self.timeline = timeline
        self.base = base
        self.otioPath = otioPath
        self.media = media
    }

    func fail(_ field: String, _ message: String) -> ReelError {
        ReelError(.invalidComposition, message, path: otioPath, field: field)
    }

    /// A clip or gap laid on a track: where it plays and what it plays.
    struct Piece {
        var field: String
        var childIndex: Int
        var clipName: String
        var source: String?
        var start: MediaTime
        var duration: MediaTime
        /// The part of the source the kept stretch plays, before any handle.
        var sourceStart: MediaTime = .zero
        /// The speed, as the fraction p/q (nil: 1); a freeze holds one frame.
        var speed: (Int32, Int32)?
        var freeze = false
        var extendBefore: MediaTime = .zero
        var extendAfter: MediaTime = .zero
        var roll = 0
        var end: MediaTime { start + duration }
    }

    /// A dissolve between two pieces (either may be missing: a fade from or to nothing).
    struct Dissolve {
        var field: String
        var cut: MediaTime
        var inOffset: MediaTime
        var outOffset: MediaTime
        var outgoingRoll: Int?
        var incomingRoll: Int?
        var range: TimeRange { TimeRange(start: cut - inOffset, end: cut + outOffset) }
    }

    /// One OTIO track laid out.
    struct Laid {
        var otioIndex: Int
        var pieces: [Piece]
        var dissolves: [Dissolve]
        var rolls: Int
        /// The composition track ID of each roll.
        var rollTrackIDs: [Int32] = []
        var metadataTrackID: Int32?
    }

    mutating func build() throws(ReelError) -> OTIOImport {
        settings = try timeline.reelSettings()
        if timeline.tracks.sourceRange != nil { warnings.append("tracks.source_range: a trimmed stack is rendered whole") }
        let rate = firstRate()
        frameDuration = settings.frameDuration ?? rate.map { MediaTime(value: Int64($0.denominator), timescale: $0.numerator) }
        var videos: [Laid] = []
        var audios: [Laid] = []
        for (i, track) in timeline.tracks.children.enumerated() {
            let field = "tracks.children[\(i)]"
            guard track.enabled else {
                warnings.append("\(field): track \"\(track.name)\" is disabled and left out")
                continue
            }
            if track.sourceRange != nil { warnings.append("\(field).source_range: a trimmed track is rendered whole") }
            let laid = try lay(track, field: field, index: i)
            guard laid.pieces.contains(where: { $0.source != nil }) else { continue }
            if track.kind == OTIOTrack.video { videos.append(laid) } else { audios.append(laid) }
        }
        guard !videos.isEmpty || !audios.isEmpty else {
            throw fail("tracks.children", "has no clip to render: the timeline needs at least one clip with media")
        }
        var nextID: Int32 = 1
        for v in videos.indices {
            videos[v].rollTrackIDs = addRollTracks(videos[v], kind: .video, nextID: &nextID)
        }
        // Sound: the audio tracks; with none, the sound of the clips of the first video track.
        var audioMix: [CompositionFile.AudioMixInput] = []
        var audioLaid = audios
        if audios.isEmpty, let first = videos.first {
            var follow = first
            follow.pieces = first.pieces.map { p in
                var q = p
                if p.freeze || !(p.source.map(hasAudio) ?? false) { q.source = nil }
                return q
            }
            if follow.pieces.contains(where: { $0.source != nil }) { audioLaid = [follow] }
        }
        for a in audioLaid.indices {
            audioLaid[a].rollTrackIDs = addRollTracks(audioLaid[a], kind: .audio, nextID: &nextID)
            audioMix += crossfades(audioLaid[a])
        }
        // Timed metadata: each video track's clips' kept stretches.
        var metadataIDs: [Int32] = []
        if settings.timedMetadata != false {
            for v in videos.indices {
                var pieces = videos[v].pieces
                for k in pieces.indices where pieces[k].freeze || !(pieces[k].source.map(hasTimedMetadata) ?? false) {
                    pieces[k].source = nil
                }
                guard pieces.contains(where: { $0.source != nil }) else { continue }
                let id = nextID
                nextID += 1
                let trackIndex = tracks.count
                tracks.append(
                    CompositionFile.Track(
                        trackID: id, mediaType: .metadata,
                        segments: segments(of: pieces, roll: nil, trackIndex: trackIndex)))
                videos[v].metadataTrackID = id
                metadataIDs.append(id)
            }
        }
        let instructions = makeInstructions(videos: videos, metadataIDs: settings.compositorReadsMetadata == false ? [] : metadataIDs)
        var file = CompositionFile(
            sources: sources, tracks: tracks, renderSize: settings.renderSize, renderScale: settings.renderScale,
            frameDuration: frameDuration, sourceTrackIDForFrameTiming: settings.sourceTrackIDForFrameTiming,
            sourceSampleDataTrackIDs: metadataIDs.isEmpty || settings.compositorReadsMetadata == false ? nil : metadataIDs,
            instructions: instructions, compositor: settings.compositor, output: settings.output)
        file.audioMix = audioMix.isEmpty ? nil : audioMix
        let markers = chapters(videos: videos + audios)
        if !markers.isEmpty {
            var output = file.output ?? CompositionFile.Output()
            output.chapters = ((output.chapters ?? []) + markers).sorted { $0.start < $1.start }
            file.output = output
        }
        try file.checkDeclarations(path: otioPath)
        return OTIOImport(
            file: file, warnings: warnings,
            sourceOrigins: sourceOrigins, segmentOrigins: segmentOrigins)
    }

    func hasAudio(_ name: String) -> Bool { sourceURLByName[name].flatMap(media)?.hasAudio ?? false }
    func hasTimedMetadata(_ name: String) -> Bool { sourceURLByName[name].flatMap(media)?.hasTimedMetadata ?? false }

    /// The rate of the global start time, else of the first clip's range.
    func firstRate() -> (numerator: Int32, denominator: Int32)? {
        if let t = timeline.globalStartTime, let r = OTIOTime.exactRate(t.rate) { return r }
        for track in timeline.tracks.children where track.kind == OTIOTrack.video {
            for case .clip(let clip) in track.children {
                if let r = clip.sourceRange.flatMap({ OTIOTime.exactRate($0.duration.rate) }) { return r }
            }
        }
        return nil
    }

    // MARK: Laying out a track

    mutating func lay(_ track: OTIOTrack, field trackField: String, index: Int) throws(ReelError) -> Laid {
        var pieces: [Piece] = []
        var dissolves: [Dissolve] = []
        var cursor = MediaTime.zero
        var roll = 0
        var rolls = 1
        var pendingDissolve: Int?
        for (k, item) in track.children.enumerated() {
            let field = "\(trackField).children[\(k)]"
            switch item {
            case .transition(let t):
                if t.transitionType != OTIOTransition.dissolve {
                    warnings.append("\(field): transition \"\(t.transitionType)\" is rendered as a dissolve")
                }
                if pendingDissolve != nil { throw fail(field, "follows another transition: a clip or gap must come between two transitions") }
                let inOffset = t.inOffset.mediaTime, outOffset = t.outOffset.mediaTime
                guard !(inOffset < .zero), !(outOffset < .zero), inOffset + outOffset > .zero else {
                    throw fail(
                        field,
                        "has in_offset \(inOffset.secondsDescription) s and out_offset \(outOffset.secondsDescription) s: a dissolve needs a positive length")
                }
                var d = Dissolve(field: field, cut: cursor, inOffset: inOffset, outOffset: outOffset)
                if let last = pieces.indices.last, pieces[last].end == cursor, pieces[last].source != nil {
                    d.outgoingRoll = pieces[last].roll
                    pieces[last].extendAfter = outOffset
                    guard !(inOffset > pieces[last].duration) else {
                        throw fail(
                            field + ".in_offset",
                            "is \(inOffset.secondsDescription) s, longer than the clip before it (\(pieces[last].duration.secondsDescription) s)")
                    }
                }
                roll = 1 - roll
                rolls = 2
                dissolves.append(d)
                pendingDissolve = dissolves.count - 1
            case .gap(let gap):
                let duration = gap.duration.mediaTime
                if let p = pendingDissolve, !(dissolves[p].outOffset <= duration) {
                    throw fail(field, "is \(duration.secondsDescription) s, shorter than the out_offset of the transition before it")
                }
                pieces.append(Piece(field: field, childIndex: k, clipName: "", source: nil, start: cursor, duration: duration, roll: roll))
                cursor = cursor + duration
                pendingDissolve = nil
            case .clip(let clip):
                var piece = try clipPiece(clip, field: field, childIndex: k, start: cursor, roll: roll)
                if !clip.enabled { piece.source = nil }
                if let p = pendingDissolve {
                    guard !(dissolves[p].outOffset > piece.duration) else {
                        throw fail(
                            dissolves[p].field + ".out_offset",
                            "is \(dissolves[p].outOffset.secondsDescription) s, longer than the clip after it (\(piece.duration.secondsDescription) s)")
                    }
                    if piece.source != nil {
                        dissolves[p].incomingRoll = roll
                        piece.extendBefore = dissolves[p].inOffset
                    }
                }
                pendingDissolve = nil
                cursor = piece.end
                pieces.append(piece)
            }
        }
        // The handles a dissolve takes must exist in the source.
        for p in pieces where p.source != nil && !p.freeze {
            if sourceOffset(p.extendBefore, p) > p.sourceStart {
                throw fail(
                    p.field + ".source_range",
                    "clip \"\(p.clipName)\" starts at \(p.sourceStart.secondsDescription) s of its media, but the dissolve before it needs \(p.extendBefore.secondsDescription) s of media before that"
                )
            }
        }
        return Laid(otioIndex: index, pieces: pieces, dissolves: dissolves, rolls: rolls)
    }

    /// Source time for `time` of composition time played by `piece`.
    func sourceOffset(_ time: MediaTime, _ piece: Piece) -> MediaTime {
        guard let (p, q) = piece.speed else { return time }
        return time.multiplied(byRatio: p, q)
    }

    mutating func clipPiece(_ clip: OTIOClip, field: String, childIndex: Int, start: MediaTime, roll: Int) throws(ReelError) -> Piece {
        let referenceField = field + (clip.activeMediaReferenceKey.isEmpty ? ".media_reference" : ".media_references.\(clip.activeMediaReferenceKey)")
        let label = clip.name.isEmpty ? "" : "clip \"\(clip.name)\": "
        guard let reference = clip.mediaReference else {
            throw fail(referenceField, "\(label)has no media reference")
        }
        guard case .external(let target, let available, let referenceName, _) = reference else {
            throw fail(referenceField, "\(label)its media is missing (MissingReference): relink it to a file in the editor")
        }
        guard let range = clip.sourceRange ?? available else {
            throw fail(field + ".source_range", "\(label)has no source_range and its media reference no available_range: give the clip a source_range")
        }
        let name = try sourceName(
            for: target, referenceName: referenceName, clipName: clip.name,
            origin: OTIOImport.Origin(field: field, clip: clip.name, referenceField: referenceField + ".target_url"))
        var piece = Piece(
            field: field, childIndex: childIndex, clipName: clip.name, source: name, start: start, duration: range.duration.mediaTime,
            sourceStart: range.startTime.mediaTime, roll: roll)
        guard piece.duration > .zero else { throw fail(field + ".source_range.duration", "\(label)is zero: a clip needs a positive duration") }
        for (e, effect) in clip.effects.enumerated() {
            switch effect {
            case .freezeFrame:
                piece.freeze = true
            case .linearTimeWarp(let scalar):
                guard let ratio = MediaTime(parsing: "\(scalar)"), ratio.isNumeric, let p = Int32(exactly: ratio.value), p > 0 else {
                    throw fail(field + ".effects[\(e)].time_scalar", "is \(scalar): not a speed Reel can keep exact")
                }
                if let (p0, q0) = piece.speed {
                    let combined = MediaTime(value: Int64(p0) * Int64(p), timescale: q0).multiplied(byRatio: 1, ratio.timescale)
                    piece.speed = (Int32(clamping: combined.value), combined.timescale)
                } else {
                    piece.speed = (p, ratio.timescale)
                }
            case .other(let effectName):
                warnings.append("\(field).effects[\(e)]: \(label)effect \"\(effectName)\" is not rendered")
            }
        }
        if piece.speed.map({ $0.0 == $0.1 }) ?? false { piece.speed = nil }
        return piece
    }

    /// The source name for a media reference's target, declaring it on first use.
    mutating func sourceName(for target: String, referenceName: String, clipName: String, origin: OTIOImport.Origin) throws(ReelError) -> String {
        let path: String
        if target.lowercased().hasPrefix("file:") {
            guard let url = URL(string: target), url.isFileURL else {
                throw fail(origin.referenceField, "is \"\(target)\": not a file URL Reel can read")
            }
            path = url.path
        } else if let scheme = target.range(of: "^[A-Za-z][A-Za-z0-9+.-]+://", options: .regularExpression) {
            throw fail(origin.referenceField, "is \"\(target)\": Reel renders local files (file:// URLs and paths), not \(target[scheme].dropLast(3)) URLs")
        } else {
            path = target
        }
        let url = (path.hasPrefix("/") ? URL(fileURLWithPath: path) : base.appendingPathComponent(path)).standardizedFileURL
        if let name = sourceByURL[url] { return name }
        var stem = referenceName.isEmpty ? url.deletingPathExtension().lastPathComponent : referenceName
        if stem.isEmpty { stem = "media" }
        var name = stem
        var n = 2
        while sourceURLByName[name] != nil {
            name = "\(stem)-\(n)"
            n += 1
        }
        sourceByURL[url] = name
        sourceURLByName[name] = url
        sourceOrigins["sources[\(sources.count)]"] = OTIOImport.Origin(field: origin.field, clip: clipName, referenceField: origin.referenceField, url: url)
        sources.append(CompositionFile.Source(name: name, path: path))
        return name
    }

    // MARK: Composition tracks

    /// The composition tracks of one laid track's rolls; returns their IDs.
    mutating func addRollTracks(_ laid: Laid, kind: CompositionFile.Track.Kind, nextID: inout Int32) -> [Int32] {
        var ids: [Int32] = []
        for roll in 0..<laid.rolls {
            let segments = segments(of: laid.pieces, roll: roll, trackIndex: tracks.count)
            guard segments.contains(where: { $0.source != nil }) else {
                ids.append(-1)
                continue
            }
            tracks.append(CompositionFile.Track(trackID: nextID, mediaType: kind, segments: segments))
            ids.append(nextID)
            nextID += 1
        }
        return ids
    }

    /// The segments of the pieces on `roll` (every piece without its dissolve handles
    /// when nil), empty where none plays; records where each came from.
    mutating func segments(of pieces: [Piece], roll: Int?, trackIndex: Int) -> [CompositionFile.Segment] {
        var out: [CompositionFile.Segment] = []
        var cursor = MediaTime.zero
        for p in pieces {
            guard let source = p.source, roll == nil || p.roll == roll else { continue }
            let before = roll == nil ? .zero : p.extendBefore
            let after = roll == nil ? .zero : p.extendAfter
            let start = p.start - before
            if start > cursor { out.append(CompositionFile.Segment(empty: start - cursor)) }
            let length = before + p.duration + after
            var segment = CompositionFile.Segment(source: source)
            if p.freeze {
                let frame = frameDuration ?? MediaTime(value: 1, timescale: 30)
                segment.sourceStart = p.sourceStart
                segment.duration = frame
                if length != frame { segment.scaledDuration = length }
            } else {
                segment.sourceStart = p.sourceStart - sourceOffset(before, p)
                segment.duration = sourceOffset(length, p)
                if p.speed != nil { segment.scaledDuration = length }
            }
            segmentOrigins["tracks[\(trackIndex)].segments[\(out.count)]"] =
                OTIOImport.Origin(field: p.field, clip: p.clipName, referenceField: p.field, url: sourceURLByName[source])
            out.append(segment)
            cursor = start + length
        }
        return out
    }

    /// Volume ramps for the dissolves of a laid audio track.
    func crossfades(_ laid: Laid) -> [CompositionFile.AudioMixInput] {
        var ramps: [Int32: [CompositionFile.Ramp<Float>]] = [:]
        for d in laid.dissolves {
            // Split at the cut (as the instructions are), so the cut can be found again.
            let atCut = Float(d.outOffset.seconds / d.range.duration.seconds)
            var pieces: [(TimeRange, Float, Float)] = []
            if d.inOffset > .zero { pieces.append((TimeRange(start: d.range.start, end: d.cut), 1, atCut)) }
            if d.outOffset > .zero { pieces.append((TimeRange(start: d.cut, end: d.range.end), atCut, 0)) }
            for (range, from, to) in pieces {
                if let r = d.outgoingRoll, laid.rollTrackIDs[r] > 0 {
                    ramps[laid.rollTrackIDs[r], default: []].append(.init(from: from, to: to, timeRange: .init(range)))
                }
                if let r = d.incomingRoll, laid.rollTrackIDs[r] > 0 {
                    ramps[laid.rollTrackIDs[r], default: []].append(.init(from: 1 - from, to: 1 - to, timeRange: .init(range)))
                }
            }
        }
        return ramps.keys.sorted().map { id in
            CompositionFile.AudioMixInput(trackID: id, volumeRamps: ramps[id]!.sorted { $0.timeRange.range.start < $1.timeRange.range.start })
        }
    }

    // MARK: Instructions

    /// Instructions tiling the timeline, split at every cut and dissolve edge: the layers
    /// top first (later OTIO tracks on top; in a dissolve the outgoing clip over the
    /// incoming one, its opacity going down), and the metadata tracks playing over each span.
    func makeInstructions(videos: [Laid], metadataIDs: [Int32]) -> [CompositionFile.Instruction] {
        var edges: Set<MediaTime> = [.zero]
        for v in videos {
            for p in v.pieces { edges.insert(p.start - p.extendBefore); edges.insert(p.start); edges.insert(p.end); edges.insert(p.end + p.extendAfter) }
            for d in v.dissolves { edges.insert(d.range.start); edges.insert(d.range.end) }
        }
        let sorted = edges.sorted()
        var out: [CompositionFile.Instruction] = []
        for i in 0..<(sorted.count - 1) {
            let a = sorted[i], b = sorted[i + 1]
            var layers: [CompositionFile.LayerInstruction] = []
            for v in videos.reversed() {
                if let d = v.dissolves.first(where: { !(a < $0.range.start) && !($0.range.end < b) && $0.range.duration > .zero }) {
                    let span = d.range.duration.seconds
                    func down(_ t: MediaTime) -> Double { 1 - (t - d.range.start).seconds / span }
                    let range = CompositionFile.TimeRangeValue(TimeRange(start: a, end: b))
                    if let r = d.outgoingRoll, v.rollTrackIDs[r] > 0 {
                        layers.append(.init(trackID: v.rollTrackIDs[r], opacityRamps: [.init(from: down(a), to: down(b), timeRange: range)]))
                    }
                    if let r = d.incomingRoll, v.rollTrackIDs[r] > 0 {
                        if d.outgoingRoll == nil {
                            layers.append(.init(trackID: v.rollTrackIDs[r], opacityRamps: [.init(from: 1 - down(a), to: 1 - down(b), timeRange: range)]))
                        } else {
                            layers.append(.init(trackID: v.rollTrackIDs[r]))
                        }
                    }
                } else {
                    for id in v.rollTrackIDs where id > 0 { layers.append(.init(trackID: id)) }
                }
            }
            let playing = videos.compactMap { v -> Int32? in
                guard let id = v.metadataTrackID, metadataIDs.contains(id) else { return nil }
                return v.pieces.contains { $0.source != nil && !$0.freeze && $0.start < b && a < $0.end } ? id : nil
            }
            let range: CompositionFile.TimeRangeValue = i == sorted.count - 2 ? .toEnd(from: a) : .init(TimeRange(start: a, end: b))
            out.append(
                CompositionFile.Instruction(
                    timeRange: range, requiredSourceSampleDataTrackIDs: playing.isEmpty ? nil : playing,
                    layerInstructions: layers))
        }
        return out
    }

    // MARK: Markers

    func chapters(videos laidTracks: [Laid]) -> [CompositionFile.Output.Chapter] {
        var out: [CompositionFile.Output.Chapter] = []
        func add(_ m: OTIOMarker, at start: MediaTime) {
            let title = m.name.isEmpty ? m.comment : m.name
            let length = m.markedRange.duration.mediaTime
            out.append(CompositionFile.Output.Chapter(title: title, start: MediaTime.maximum(start, .zero), duration: length > .zero ? length : nil))
        }
        for m in timeline.tracks.markers { add(m, at: m.markedRange.startTime.mediaTime) }
        for (i, track) in timeline.tracks.children.enumerated() where track.enabled {
            for m in track.markers { add(m, at: m.markedRange.startTime.mediaTime) }
            guard let laid = laidTracks.first(where: { $0.otioIndex == i }) else { continue }
            for (k, child) in track.children.enumerated() {
                guard case .clip(let clip) = child, !clip.markers.isEmpty, let piece = laid.pieces.first(where: { $0.childIndex == k }) else { continue }
                for m in clip.markers {
                    // A clip's markers are in its media's time.
                    var offset = m.markedRange.startTime.mediaTime - piece.sourceStart
                    if let (p, q) = piece.speed { offset = offset.multiplied(byRatio: q, p) }
                    add(m, at: piece.start + offset)
                }
            }
        }
        return out.sorted { $0.start < $1.start }
    }
}
