import Foundation
import Reel

extension CompositionFile {
    /// The composition the file describes, given what each named source holds (its tracks
    /// and their extents). Segment sources are referred to by source name
    /// (`SourceTrackReference.sourceIdentifier` is the name).
    ///
    /// - Throws: `invalidComposition` naming the segment (`tracks[1].segments[0]...`) when a
    ///   source lacks the track asked for, or a part lies outside the source track.
    public func makeComposition(sources: [String: SourceDescription], path: String? = nil) throws(ReelError) -> Composition {
        func fail(_ field: String, _ message: String) -> ReelError {
            ReelError(.invalidComposition, message, path: path, field: field)
        }
        var composition = Composition()
        for (i, track) in tracks.enumerated() {
            // Each segment's source track (nil for an empty edit), found before the track is
            // made: a captions track takes the type of the tracks it plays.
            var played: [SourceTrackDescription?] = []
            for (k, segment) in track.segments.enumerated() {
                let field = "tracks[\(i)].segments[\(k)]"
                guard segment.empty == nil else {
                    played.append(nil)
                    continue
                }
                guard let name = segment.source, let source = sources[name] else {
                    throw fail(field + ".source", "names \"\(segment.source ?? "")\", which was not opened")
                }
                if let wanted = segment.sourceTrackID {
                    guard let t = source.track(withTrackID: wanted) else {
                        let ids = source.tracks.map { "\($0.trackID) (\($0.mediaType))" }.joined(separator: ", ")
                        throw fail(field + ".sourceTrackID", "source \"\(name)\" has no track \(wanted) (it has \(ids.isEmpty ? "none" : ids))")
                    }
                    guard track.mediaType.plays(t.mediaType) else {
                        throw fail(
                            field + ".sourceTrackID",
                            "track \(wanted) of source \"\(name)\" is a \(t.mediaType) track, but tracks[\(i)] is a \(track.mediaType.rawValue) track")
                    }
                    played.append(t)
                } else {
                    guard let t = track.mediaType.defaultTrack(in: source) else {
                        throw fail(field + ".source", "source \"\(name)\" (\(source.identifier)) has no \(track.mediaType.rawValue) track")
                    }
                    played.append(t)
                }
            }
            let mediaType = played.lazy.compactMap { $0?.mediaType }.first ?? track.mediaType.mediaType
            let id = composition.addMutableTrack(withMediaType: mediaType, preferredTrackID: track.trackID)
            var cursor = MediaTime.zero
            for (k, segment) in track.segments.enumerated() {
                let field = "tracks[\(i)].segments[\(k)]"
                guard let sourceTrack = played[k] else {
                    let empty = segment.empty ?? .zero
                    do {
                        try composition.modifyTrack(withTrackID: id) { (t: inout CompositionTrack) throws(ReelError) in
                            try t.insertEmptyTimeRange(TimeRange(start: cursor, duration: empty))
                        }
                    } catch { throw fail(field + ".empty", error.message) }
                    cursor = cursor + empty
                    continue
                }
                let start = segment.sourceStart ?? sourceTrack.timeRange.start
                let duration: MediaTime
                if let d = segment.duration {
                    duration = d
                } else {
                    guard sourceTrack.timeRange.isValid, sourceTrack.timeRange.end.isNumeric, start < sourceTrack.timeRange.end else {
                        throw fail(
                            field + ".sourceStart",
                            "is \(start.secondsDescription), at or after the end of \(sourceTrack.reference) (\(sourceTrack.timeRange.end.secondsDescription)); give a duration"
                        )
                    }
                    duration = sourceTrack.timeRange.end - start
                }
                let range = TimeRange(start: start, duration: duration)
                do {
                    try composition.modifyTrack(withTrackID: id) { (t: inout CompositionTrack) throws(ReelError) in
                        try t.insertTimeRange(range, of: sourceTrack, at: cursor)
                        if let scaled = segment.scaledDuration {
                            try t.scaleTimeRange(TimeRange(start: cursor, duration: duration), toDuration: scaled)
                        }
                    }
                } catch {
                    throw fail(field, error.message)
                }
                cursor = cursor + (segment.scaledDuration ?? duration)
            }
        }
        return composition
    }

    /// The video composition the file describes for `composition`, validated: the
    /// instructions must tile the composition (or `timeRange`), every track ID must name a
    /// track of the right kind, and metadata tracks must be in both sample-data lists.
    ///
    /// - Throws: `invalidComposition` for the first problem, with its JSON path in `field`
    ///   (`instructions[2].timeRange: starts at 4 s but instructions[1] ends at 3.5 s ...`).
    public func makeVideoComposition(
        for composition: Composition, compositor: (any VideoCompositing)? = nil,
        timeRange: TimeRange? = nil, path: String? = nil
    ) throws(ReelError) -> VideoComposition {
        func fail(_ field: String, _ message: String) -> ReelError {
            ReelError(.invalidComposition, message, path: path, field: field)
        }
        let end = composition.duration
        let firstVideo = composition.tracks(withMediaType: .video).first
        let size: Size
        if let renderSize {
            size = renderSize
        } else if let firstVideo, firstVideo.naturalSize.width >= 1, firstVideo.naturalSize.height >= 1 {
            size = firstVideo.uprightSize
        } else {
            throw fail("renderSize", "is missing and the first video track has no known size: give renderSize")
        }
        let frame: MediaTime
        if let frameDuration {
            frame = frameDuration
        } else if let nominal = firstVideo?.nominalFrameDuration, nominal.isNumeric, nominal > .zero {
            frame = nominal
        } else {
            throw fail("frameDuration", "is missing and the first video track has no known frame rate: give frameDuration")
        }
        var built: [VideoCompositionInstruction] = []
        for (i, instruction) in instructions.enumerated() {
            let field = "instructions[\(i)]"
            let range = instruction.timeRange.resolved(compositionEnd: end)
            var layers: [VideoCompositionLayerInstruction] = []
            for (k, layer) in (instruction.layerInstructions ?? []).enumerated() {
                let lf = "\(field).layerInstructions[\(k)]"
                guard let track = composition.track(withTrackID: layer.trackID) else {
                    let known = composition.tracks.map { "\($0.trackID) (\($0.mediaType))" }.joined(separator: ", ")
                    throw fail(lf + ".trackID", "names track \(layer.trackID), which the composition does not have (it has \(known))")
                }
                guard track.mediaType == .video else {
                    throw fail(lf + ".trackID", "names track \(layer.trackID), a \(track.mediaType) track: only video tracks can be layers")
                }
                var l = VideoCompositionLayerInstruction(trackID: layer.trackID)
                if let o = layer.opacity {
                    guard o.isFinite, (0...1).contains(o) else { throw fail(lf + ".opacity", "is \(o): expected 0 to 1") }
                    l.setOpacity(o, at: .zero)
                }
                if let t = layer.transform {
                    l.setTransform(t.transform, at: .zero)
                } else if layer.transformRamps == nil, !track.preferredTransform.isIdentity {
                    // No transform given: drawn as its display matrix shows it (upright).
                    l.setTransform(track.uprightTransform, at: .zero)
                }
                if let c = layer.cropRectangle { l.setCropRectangle(c.rect, at: .zero) }
                for (r, ramp) in (layer.opacityRamps ?? []).enumerated() {
                    guard ramp.from.isFinite, ramp.to.isFinite, (0...1).contains(ramp.from), (0...1).contains(ramp.to) else {
                        throw fail("\(lf).opacityRamps[\(r)]", "goes from \(ramp.from) to \(ramp.to): opacities are 0 to 1")
                    }
                    l.setOpacityRamp(fromStartOpacity: ramp.from, toEndOpacity: ramp.to, timeRange: ramp.timeRange.resolved(compositionEnd: end))
                }
                for ramp in layer.transformRamps ?? [] {
                    l.setTransformRamp(fromStart: ramp.from.transform, toEnd: ramp.to.transform, timeRange: ramp.timeRange.resolved(compositionEnd: end))
                }
                for ramp in layer.cropRectangleRamps ?? [] {
                    l.setCropRectangleRamp(
                        fromStartCropRectangle: ramp.from.rect, toEndCropRectangle: ramp.to.rect, timeRange: ramp.timeRange.resolved(compositionEnd: end))
                }
                layers.append(l)
            }
            built.append(
                VideoCompositionInstruction(
                    timeRange: range, backgroundColor: instruction.backgroundColor?.color, layerInstructions: layers,
                    containsTweening: instruction.containsTweening ?? true, passthroughTrackID: instruction.passthroughTrackID,
                    requiredSourceSampleDataTrackIDs: instruction.requiredSourceSampleDataTrackIDs ?? [],
                    requiredSourceCaptionTrackIDs: instruction.requiredSourceCaptionTrackIDs ?? []))
        }
        var made: (@Sendable () -> any VideoCompositing)?
        if let compositor { made = { compositor } }
        let video = VideoComposition(
            frameDuration: frame, renderSize: size, renderScale: renderScale ?? 1, instructions: built,
            customVideoCompositor: made, sourceTrackIDForFrameTiming: sourceTrackIDForFrameTiming,
            sourceSampleDataTrackIDs: sourceSampleDataTrackIDs ?? [])
        if let problem = video.validate(for: composition, timeRange: timeRange).first {
            var message = problem.message
            if message.hasPrefix(problem.field + " ") { message.removeFirst(problem.field.count + 1) }
            throw ReelError(.invalidComposition, message, path: path, trackID: problem.trackID, field: problem.field)
        }
        return video
    }

    /// The sources' files: each path resolved against `baseDirectory` (the composition
    /// file's folder), after applying `overrides` (`--source NAME=PATH`, or a bare path for
    /// the first source). Checks that each file exists.
    ///
    /// - Throws: `invalidArgument` for an override naming no source; `fileNotFound` with
    ///   field `sources[i].path` for a missing file.
    public func sourceFiles(
        relativeTo baseDirectory: URL, overrides: [SourceOverride] = [],
        path: String? = nil
    ) throws(ReelError) -> [(name: String, url: URL, shownPath: String)] {
        var result: [(name: String, url: URL, shownPath: String)] = []
        var replaced: [String: SourceOverride] = [:]
        for o in overrides {
            let name = o.name ?? sources.first?.name ?? ""
            guard sources.contains(where: { $0.name == name }) else {
                let declared = sources.map { "\"\($0.name)\"" }.joined(separator: ", ")
                throw ReelError(.invalidArgument, "--source \(name)=\(o.path): the composition has no source \"\(name)\" (it declares \(declared))")
            }
            replaced[name] = o
        }
        for (i, source) in sources.enumerated() {
            let url: URL
            let shown: String
            if let override = replaced[source.name] {
                url = override.url
                shown = override.path
            } else {
                url =
                    source.path.hasPrefix("/")
                    ? URL(fileURLWithPath: source.path)
                    : baseDirectory.appendingPathComponent(source.path).standardizedFileURL
                shown = source.path
            }
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue else {
                let how = replaced[source.name] != nil ? "given with --source" : "resolved to \(url.path)"
                throw ReelError(.fileNotFound, "no such file \"\(shown)\" (\(how))", path: path, field: "sources[\(i)].path")
            }
            result.append((source.name, url, shown))
        }
        return result
    }

    /// A `--source` option: `NAME=PATH` replaces the source called NAME, a bare `PATH` the first.
    public struct SourceOverride: Sendable, Hashable {
        public var name: String?
        /// The path as given (what messages show).
        public var path: String
        /// The file: `path`, relative to the folder given at init (else the working directory).
        public var url: URL

        public init(name: String?, path: String, relativeTo folder: URL? = nil) {
            self.name = name
            self.path = path
            self.url = URL(fileURLWithPath: path, relativeTo: folder.map { URL(fileURLWithPath: $0.path, isDirectory: true) }).absoluteURL
        }

        /// Parses `NAME=PATH` or `PATH` (a path that itself contains `=` needs the NAME= form);
        /// a relative PATH is relative to `folder` (else the working directory).
        public init(argument: String, relativeTo folder: URL? = nil) {
            if let eq = argument.firstIndex(of: "="), !argument[..<eq].contains("/") {
                self.init(name: String(argument[..<eq]), path: String(argument[argument.index(after: eq)...]), relativeTo: folder)
            } else {
                self.init(name: nil, path: argument, relativeTo: folder)
            }
        }
    }
}
