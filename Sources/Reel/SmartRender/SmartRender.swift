import Foundation
import ReelComposition
import ReelCore
import ReelIO

/// A smart render of a composition's video: the source's packets for every group of
/// pictures the composition shows whole and unchanged, and frames encoded with the source's
/// profile and level for the rest, all in one track (docs/smart-render.md). H.264: x264's
/// stretches take parameter-set IDs of their own, and the sample description holds every
/// parameter set. HEVC: each stretch carries its parameter sets in its first sample
/// (``SmartRenderFormat/stretchPrefix``), and a copy that starts at a clean random access
/// picture marks it a broken link, its leading pictures left out and encoded.
///
/// Everything that could make the output unplayable is decided, and the encoded stretches
/// are encoded, before the output writer starts: a source that cannot be matched gives
/// ``Outcome/fallback(_:)`` and the export renders every frame.
struct SmartRender: Sendable {
    /// The packets of one stretch, in decode order, and the output frame each shows.
    struct Piece: Sendable {
        enum Origin: Sendable {
            /// Groups of pictures of a source, from the IDR picture at `firstTime`.
            case source(url: URL, trackID: Int32, firstTime: MediaTime)
            /// A file holding the stretch encoded.
            case encoded(URL)
        }
        let origin: Origin
        /// For each packet in decode order, the index of the output frame it shows.
        let frames: [Int]
        /// Put before the first packet (HEVC's parameter sets).
        var prefix = Data()
        /// Presentation times of source packets left out: the leading pictures of an open
        /// group of pictures the copy starts at, which refer to pictures before the cut.
        var skipped: Set<MediaTime> = []
    }

    enum Outcome: Sendable {
        case smart(SmartRender)
        case fallback(String)
    }

    /// The input the output's video goes through: the source's codec parameters with the
    /// encoded stretches' parameter sets added.
    let input: AssetWriterInput
    let summary: SmartRenderSummary
    let format: SmartRenderFormat
    let pieces: [Piece]
    let grid: FrameGrid
    /// Frames between a packet's decode time and its presentation, at most, over every
    /// piece: decode times are `reorderDelay` frames before the grid.
    let reorderDelay: Int
    let folder: URL

    /// Removes the encoded stretches' files.
    func removeTemporaryFiles() {
        try? FileManager.default.removeItem(at: folder)
    }

    /// Appends every piece's packets, retimed onto the output's frame grid.
    func write(progress: @Sendable (MediaTime) -> Void) async throws(ReelError) {
        var decodeIndex = 0
        for piece in pieces {
            let (url, trackID, from): (URL, Int32?, MediaTime?) =
                switch piece.origin {
                case .source(let url, let trackID, let firstTime): (url, trackID, firstTime)
                case .encoded(let url): (url, nil, nil)
                }
            let reader = try await AssetReader.open(url: url)
            defer { reader.cancelReading() }
            guard let track = trackID.map({ reader.track(withID: $0) }) ?? reader.tracks(withMediaType: .video).first else {
                throw ReelError(.corruptData, "has no video track to copy", path: url.path, trackID: trackID)
            }
            let output = AssetReaderTrackOutput(trackID: track.trackID, settings: .passthrough, bufferCapacity: 32)
            try reader.add(output)
            if let from { reader.timeRange = TimeRange(start: from, end: track.timeRange.end + MediaTime(value: 60, timescale: 1)) }
            try reader.startReading()
            var started = from == nil
            var taken = 0
            while taken < piece.frames.count, let sample = try await output.next() {
                if Task.isCancelled { throw ReelError(.cancelled, "the export was cancelled") }
                guard var buffer = sample.sampleBuffer, buffer.presentationTime.isNumeric else { continue }
                if !started {
                    guard buffer.presentationTime == from, format.startsGroup(buffer.data) else { continue }
                    started = true
                }
                if piece.skipped.contains(buffer.presentationTime) { continue }
                if taken == 0 {
                    if from != nil, case .hevc = format { buffer.data = HEVCNAL.markingCleanRandomAccessAsBrokenLink(buffer.data) }
                    buffer.data = piece.prefix + buffer.data
                }
                let frame = piece.frames[taken]
                buffer.presentationTime = grid.time(frame)
                buffer.duration = grid.duration(frame)
                buffer.decodeTime = grid.start + grid.frameDuration * Int32(clamping: decodeIndex - reorderDelay)
                try await input.append(buffer)
                progress(buffer.presentationTime)
                taken += 1
                decodeIndex += 1
            }
            guard taken == piece.frames.count else {
                throw ReelError(
                    .corruptData, "ended after \(taken) of the \(piece.frames.count) packets planned for the smart render",
                    path: url.path, trackID: trackID, time: from)
            }
        }
        input.markAsFinished()
    }
}

/// The output's frames: `count` frames every `frameDuration` from `start`, the last cut at `end`.
struct FrameGrid: Sendable {
    let start: MediaTime
    let end: MediaTime
    let frameDuration: MediaTime
    let count: Int

    init(range: TimeRange, frameDuration: MediaTime) {
        start = range.start
        end = range.end
        self.frameDuration = frameDuration
        var n = 0
        while start + frameDuration * Int32(clamping: n) < end { n += 1 }
        count = n
    }

    func time(_ k: Int) -> MediaTime { start + frameDuration * Int32(clamping: k) }
    func duration(_ k: Int) -> MediaTime { MediaTime.minimum(time(k) + frameDuration, end) - time(k) }

    /// The frame starting exactly at `t`, if one does.
    func index(startingAt t: MediaTime) -> Int? {
        let offset = (t - start).seconds / frameDuration.seconds
        let k = Int(offset.rounded())
        guard k >= 0, k < count, time(k) == t else { return nil }
        return k
    }
}

extension SmartRender {
    /// What one output frame is.
    private enum FrameKind: Equatable {
        /// Source frame `sourceTime` of `source`, shown unchanged at composition time minus `offset`.
        case source(SourceTrackReference, sourceTime: MediaTime, offset: MediaTime)
        /// Anything else: composed by instruction `instruction`.
        case composed(String)
    }

    /// A source's groups of pictures seen while planning.
    private struct Group {
        var firstTime: MediaTime
        /// Presentation times in decode order.
        var times: [MediaTime] = []
        /// Those of pictures that refer to the group before (HEVC RASL pictures).
        var leading: Set<MediaTime> = []
        /// The first packet that does not parse (``AVCConfiguration/damage(in:lengthSize:pictureParameterSetIDs:)``):
        /// its time and what is wrong. The group is encoded instead of copied.
        var damage: (time: MediaTime, reason: String)?
    }

    /// The plan for rendering `range` of `composition` through `videoComposition` with the
    /// full render's encoder `settings` into a `fileType` file; the encoded stretches are
    /// encoded here, into a folder of their own beside nothing the output uses.
    ///
    /// With `whole`, `range` is a piece of a render of `whole` whose pieces are joined by
    /// merging their parameter sets (a render plan's pieces): the sources are checked over
    /// all of `whole`, so every piece decides alike, and a piece that copies nothing is
    /// still encoded as the smart render encodes.
    static func plan(
        composition: Composition, videoComposition: VideoComposition, range: TimeRange, whole: TimeRange? = nil,
        sources: AssetRenderSources, settings: VideoEncoderSettings, fileType: AssetWriter.FileType,
        engineOptions: RenderEngine.Options, progress: @escaping @Sendable (Double) -> Void
    ) async throws(ReelError) -> Outcome {
        guard fileType == .mp4 || fileType == .mov else { return .fallback("smart render writes MP4 or MOV, and the output is \(fileType.rawValue)") }
        let codecName: String
        switch settings.codec {
        case .h264: codecName = "H.264"
        case .hevc: codecName = "HEVC"
        default: return .fallback("the output codec is \(settings.codec); smart render copies H.264 and HEVC")
        }
        guard settings.codec.isAvailable else { return .fallback("this FFmpeg has no \(settings.codec.encoderName)") }
        guard videoComposition.sourceTrackIDForFrameTiming == nil else {
            return .fallback("the output follows a source track's own frame times (sourceTrackIDForFrameTiming)")
        }
        let size = videoComposition.renderPixelSize
        guard settings.width == size.width, settings.height == size.height else {
            return .fallback("the output is scaled to \(settings.width)x\(settings.height) from \(size.width)x\(size.height)")
        }
        let fd = videoComposition.frameDuration
        guard fd.isNumeric, fd > .zero else { return .fallback("the frame duration is not a positive number") }
        let grid = FrameGrid(range: range, frameDuration: fd)
        guard grid.count > 0 else { return .fallback("there is no frame to render") }

        // 1. What each output frame is. The built-in compositor hands on the source frame
        // itself for one plain layer at the output size (as a passthrough instruction does).
        let builtIn =
            videoComposition.renderScale == 1
            && (videoComposition.customVideoCompositor.map { $0() is StandardVideoCompositor } ?? true)
        func frameKinds(_ grid: FrameGrid) -> [FrameKind] {
            (0..<grid.count).map { k in
                let t = grid.time(k)
                guard let (index, instruction) = videoComposition.instruction(at: t) else { return .composed("no instruction") }
                guard let id = Self.unchangedTrack(instruction, composition: composition, size: size, builtIn: builtIn),
                    let track = composition.track(withTrackID: id),
                    let segment = track.segment(forTrackTime: t), !segment.isEmpty, let ref = segment.sourceTrack,
                    segment.timeMapping.source.duration == segment.timeMapping.target.duration,
                    let sourceTime = segment.sourceTime(forCompositionTime: t)
                else {
                    return .composed(
                        "composed by instruction \(index) (\(SmartRenderSummary.seconds(instruction.timeRange.start))..\(SmartRenderSummary.seconds(instruction.timeRange.end)))"
                    )
                }
                return .source(ref, sourceTime: sourceTime, offset: t - sourceTime)
            }
        }
        let kinds = frameKinds(grid)
        let checkedKinds = whole.map { frameKinds(FrameGrid(range: $0, frameDuration: fd)) } ?? kinds

        // 2. Every source shown unchanged must match: one codec configuration for all.
        var configuration: SmartRenderFormat?
        var description: FormatDescription?
        var checked: Set<SourceTrackReference> = []
        for case .source(let ref, _, _) in checkedKinds where !checked.contains(ref) {
            checked.insert(ref)
            if sources.isInMemory(ref) { return .fallback("\(ref.sourceIdentifier) is held in memory: it has no packets to copy") }
            let url = sources.url(for: ref.sourceIdentifier)
            let name = url.lastPathComponent
            let reader = try await AssetReader.open(url: url)
            defer { reader.cancelReading() }
            guard let d = reader.track(withID: ref.trackID)?.formatDescription else {
                return .fallback("\(name) has no track \(ref.trackID) to copy")
            }
            let c: SmartRenderFormat
            switch settings.codec {
            case .h264:
                guard d.codecName == "h264" else { return .fallback("\(name) is \(d.codecName), not H.264") }
                guard let avc = AVCConfiguration(d.codecConfiguration), avc.lengthSize == 4 else {
                    return .fallback("\(name) has no avcC sample description with 4-byte NAL lengths")
                }
                guard avc.x264Profile != nil else {
                    let sampling = avc.sampling.map { " at \($0.bitDepth) bits, chroma format \($0.chromaFormat)" } ?? ""
                    return .fallback(
                        "\(name) is H.264 profile \(avc.profile)\(sampling); smart render encodes 4:2:0 in 8 bits (Baseline, Main, High) or 10 (High 10) only")
                }
                c = .avc(avc)
            default:
                guard d.codecName == "hevc" else { return .fallback("\(name) is \(d.codecName), not HEVC") }
                guard let hevc = HEVCConfiguration(d.codecConfiguration), hevc.lengthSize == 4 else {
                    return .fallback("\(name) has no hvcC sample description with 4-byte NAL lengths")
                }
                let depth = hevc.lumaBitDepth
                guard hevc.chromaFormat == 1, hevc.chromaBitDepth == depth,
                    (depth == 8 && hevc.isMainCompatible) || (depth == 10 && hevc.isMain10Compatible)
                else {
                    return .fallback(
                        "\(name) is HEVC profile \(hevc.profile) at \(hevc.lumaBitDepth) bits, chroma format \(hevc.chromaFormat); smart render encodes 4:2:0 in 8 bits (Main) or 10 (Main 10) only"
                    )
                }
                c = .hevc(hevc)
            }
            // 4:2:0, video range or full range (`yuvj420p`, as GoPro cameras write), and for
            // High 10 and Main 10, 10 bits: the sources' equal parameter sets (below) make
            // them all one or the other.
            let formats = c.bitDepth == 10 ? ["yuv420p10le"] : ["yuv420p", "yuvj420p"]
            guard let format = d.pixelFormat, formats.contains(format) else {
                return .fallback("\(name) is \(d.pixelFormat ?? "of an unknown pixel format"), not \(formats.joined(separator: " or "))")
            }
            guard let dims = d.dimensions, dims.width == size.width, dims.height == size.height else {
                return .fallback("\(name) is not \(size.width)x\(size.height), the output's size")
            }
            let ts = d.timescale
            guard ts > 0, Int64(ts) * fd.value % Int64(fd.timescale) == 0, Int64(ts) * grid.start.value % Int64(grid.start.timescale) == 0 else {
                return .fallback("the frame duration \(fd.secondsDescription) is not a whole number of \(name)'s time base 1/\(ts)")
            }
            if let configuration, configuration != c {
                return .fallback("\(name)'s \(codecName) parameter sets differ from the first source's; one sample description cannot hold both")
            }
            configuration = c
            if description == nil { description = d }
        }
        guard let configuration, let description else { return .fallback("no frame is a source frame shown unchanged") }

        // 3. Runs of frames from one source at one offset, and the groups of pictures they
        // show whole.
        var copied = [Bool](repeating: false, count: grid.count)
        /// Why a frame of a damaged group, or a leading picture after a cut, is encoded.
        var damaged: [Int: String] = [:]
        var copyPieces: [(first: Int, piece: Piece, reason: String)] = []
        var delay = 0
        var k = 0
        while k < grid.count {
            guard case .source(let ref, let firstSource, let offset) = kinds[k] else { k += 1; continue }
            var last = k
            while last + 1 < grid.count, case .source(let r, _, let o) = kinds[last + 1], r == ref, o == offset { last += 1 }
            let groups = try await Self.groups(of: ref, sources: sources, from: firstSource, through: grid.time(last) - offset, format: configuration)
            let url = sources.url(for: ref.sourceIdentifier)
            var pending: (first: Int, firstTime: MediaTime, frames: [Int], skipped: Set<MediaTime>)?
            func flush() {
                guard let p = pending else { return }
                copyPieces.append(
                    (
                        p.first,
                        Piece(
                            origin: .source(url: url, trackID: ref.trackID, firstTime: p.firstTime), frames: p.frames,
                            prefix: configuration.stretchPrefix, skipped: p.skipped),
                        "\(url.lastPathComponent) from \(SmartRenderSummary.seconds(p.firstTime))"
                    ))
                pending = nil
            }
            /// The output frames of `times`, when each is one and they run without a gap within the run.
            func frames(of times: [MediaTime]) -> [Int]? {
                let indices = times.compactMap { grid.index(startingAt: $0 + offset) }
                guard indices.count == times.count, let lo = indices.min(), let hi = indices.max(), lo >= k, hi <= last,
                    hi - lo + 1 == indices.count
                else { return nil }
                return indices
            }
            for group in groups {
                let indices = group.times.map { grid.index(startingAt: $0 + offset) }
                if let damage = group.damage {
                    let shown = indices.compactMap { $0 }.filter { $0 >= k && $0 <= last }
                    if let first = shown.min() {
                        let why = "a damaged packet at \(SmartRenderSummary.seconds(damage.time)) s of \(url.lastPathComponent) (\(damage.reason))"
                        for f in shown { damaged[f] = why }
                        engineOptions.diagnostics(
                            RenderDiagnostic(
                                kind: .damagedSourcePacket, compositionTime: grid.time(first), trackID: ref.trackID,
                                message: "\(why): its group of pictures is encoded, not copied"))
                    }
                    flush()
                    continue
                }
                // A group that follows the one copied before it in its source is copied whole;
                // one that starts a copy leaves out its pictures that refer to the group before.
                if let whole = frames(of: group.times), let prev = pending?.frames.max(), prev + 1 == whole.min() {
                    let lo = whole.min() ?? 0
                    for (n, f) in whole.enumerated() { delay = max(delay, n - (f - lo)) }
                    for f in whole { copied[f] = true }
                    pending?.frames += whole
                    continue
                }
                flush()
                guard let kept = frames(of: group.times.filter { !group.leading.contains($0) }), let lo = kept.min() else { continue }
                for (n, f) in kept.enumerated() { delay = max(delay, n - (f - lo)) }
                for f in kept { copied[f] = true }
                for t in group.leading {
                    guard let f = grid.index(startingAt: t + offset), f >= k, f <= last else { continue }
                    damaged[f] =
                        "the leading pictures of the open group of pictures at \(SmartRenderSummary.seconds(group.firstTime)) s of \(url.lastPathComponent), which refer to the group before the cut"
                }
                pending = (lo, group.firstTime, kept, group.leading)
            }
            flush()
            k = last + 1
        }
        guard copied.contains(true) || whole != nil else {
            return .fallback("no group of pictures of a source is shown whole and unchanged")
        }

        // 4. The stretches to encode, with the source's profile and level (and for H.264,
        // parameter-set IDs the sources do not use).
        var encoderSettings = settings
        encoderSettings.codesGroupsIndependently = false
        // Tagged with the sources' colour (their primaries, transfer function and matrix,
        // an HDR source's among them) and coded in their range, as their sequence parameter
        // sets say: the writer converts the rendered frames when they are not in that
        // matrix and range already.
        if let source = description.colorProperties {
            var color = encoderSettings.colorProperties ?? videoComposition.colorProperties
            color.primaries = source.primaries ?? color.primaries
            color.transferFunction = source.transferFunction ?? color.transferFunction
            color.matrix = source.matrix ?? color.matrix
            color.fullRange = source.fullRange
            encoderSettings.colorProperties = color
        }
        // A 10-bit source's stretches are coded in 10 bits, from the frames the engine
        // renders (8 bits a sample): one Main 10 stream.
        encoderSettings.bitDepth = configuration.bitDepth
        var spsID: Int?
        switch configuration {
        case .avc(let avc):
            let used = Set(avc.sequenceParameterSetIDs + avc.pictureParameterSetIDs)
            guard let free = (0...31).first(where: { !used.contains($0) }) else { return .fallback("the sources use every parameter-set ID") }
            spsID = free
            encoderSettings.encoderOptions["profile"] = avc.x264Profile
            encoderSettings.encoderOptions["level"] = avc.x264Level
            let params = encoderSettings.encoderOptions["x264-params"].map { $0 + ":" } ?? ""
            encoderSettings.encoderOptions["x264-params"] = params + "sps-id=\(free)"
        case .hevc(let hevc):
            // Closed groups: a stretch's pictures refer to none outside it.
            let params = encoderSettings.encoderOptions["x265-params"].map { $0 + ":" } ?? ""
            let tier = hevc.isHighTier ? ":high-tier=1" : ""
            encoderSettings.encoderOptions["x265-params"] = params + "open-gop=0:level-idc=\(hevc.x265Level)\(tier)"
        }

        var encodeRanges: [(first: Int, last: Int, reason: String)] = []
        k = 0
        while k < grid.count {
            guard !copied[k] else { k += 1; continue }
            var last = k
            while last + 1 < grid.count, !copied[last + 1] { last += 1 }
            // Every distinct reason in the stretch (two cuts close together make one stretch).
            var reasons: [String] = []
            for f in k...last {
                let why =
                    switch kinds[f] {
                    case .composed(let why): why
                    case .source(let ref, _, _): damaged[f] ?? "a cut inside a group of pictures of \(sources.url(for: ref.sourceIdentifier).lastPathComponent)"
                    }
                if !reasons.contains(why) { reasons.append(why) }
            }
            encodeRanges.append((k, last, reasons.joined(separator: "; ")))
            k = last + 1
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("reel-smart-\(UUID().uuidString)")
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw ReelError(.outputFailed, "could not make a folder for the re-encoded stretches: \(error.localizedDescription)", path: folder.path)
        }
        var encodedPieces: [(first: Int, piece: Piece, reason: String)] = []
        var encodedConfiguration: AVCConfiguration?
        let totalToEncode = encodeRanges.reduce(0) { $0 + $1.last - $1.first + 1 }
        var encodedSoFar = 0
        do throws(ReelError) {
            for (n, r) in encodeRanges.enumerated() {
                let url = folder.appendingPathComponent("stretch-\(n).mp4")
                let stretch = TimeRange(start: grid.time(r.first), end: grid.time(r.last) + grid.duration(r.last))
                let before = encodedSoFar
                try await encode(
                    stretch, of: composition, videoComposition: videoComposition, sources: sources, settings: encoderSettings,
                    engineOptions: engineOptions, to: url
                ) { frames in
                    progress(Double(before + frames) / Double(max(totalToEncode, 1)))
                }
                encodedSoFar += r.last - r.first + 1
                let (data, times) = try await Self.packets(ofEncoded: url)
                var prefix = Data()
                switch configuration {
                case .avc:
                    guard let c = AVCConfiguration(data), c.lengthSize == 4, let spsID, c.sequenceParameterSetIDs == [spsID] else {
                        throw ReelError(.encoderFailed, "the encoder did not use parameter-set ID \(spsID ?? 0) with 4-byte NAL lengths", path: url.path)
                    }
                    if let encodedConfiguration,
                        encodedConfiguration.sequenceParameterSets != c.sequenceParameterSets
                            || encodedConfiguration.pictureParameterSets != c.pictureParameterSets
                    {
                        throw ReelError(.encoderFailed, "two encoded stretches have different parameter sets under one ID", path: url.path)
                    }
                    encodedConfiguration = c
                case .hevc:
                    guard let c = HEVCConfiguration(data), c.lengthSize == 4, c.chromaFormat == 1, c.lumaBitDepth == configuration.bitDepth else {
                        throw ReelError(
                            .encoderFailed, "the encoder did not write \(configuration.bitDepth)-bit 4:2:0 HEVC with an hvcC of 4-byte NAL lengths",
                            path: url.path)
                    }
                    prefix = c.parameterSetSample
                }
                let sorted = times.sorted()
                guard sorted.count == r.last - r.first + 1 else {
                    throw ReelError(.encoderFailed, "holds \(sorted.count) frames; \(r.last - r.first + 1) were encoded", path: url.path)
                }
                let frames = times.map { t in r.first + sorted.firstIndex(of: t)! }
                for (i, f) in frames.enumerated() { delay = max(delay, i - (f - r.first)) }
                encodedPieces.append((r.first, Piece(origin: .encoded(url), frames: frames, prefix: prefix), r.reason))
            }
        } catch {
            try? FileManager.default.removeItem(at: folder)
            throw error
        }
        let outputDescription: FormatDescription
        do throws(ReelError) {
            switch configuration {
            case .avc(let avc):
                let merged = encodedConfiguration.map { avc.adding(parameterSetsOf: $0) } ?? avc
                outputDescription = try description.replacingCodecConfiguration(merged.data)
            case .hevc(let hevc):
                // `hev1`: parameter sets may come in the samples (each stretch's first).
                outputDescription = try description.replacingCodecConfiguration(hevc.data, codecTag: "hev1")
            }
        } catch {
            try? FileManager.default.removeItem(at: folder)
            throw error
        }

        let all = (copyPieces.map { ($0.first, $0.piece, $0.reason, true) } + encodedPieces.map { ($0.first, $0.piece, $0.reason, false) })
            .sorted { $0.0 < $1.0 }
        let stretches = all.map { entry in
            let (first, piece, reason, isCopied) = entry
            let lastFrame = first + piece.frames.count - 1
            return SmartRenderSummary.Stretch(
                timeRange: TimeRange(start: grid.time(first), end: grid.time(lastFrame) + grid.duration(lastFrame)),
                frameCount: piece.frames.count, isCopied: isCopied, reason: reason)
        }
        let input = AssetWriterInput(settings: .passthrough(outputDescription))
        return .smart(
            SmartRender(
                input: input, summary: SmartRenderSummary(stretches: stretches), format: configuration, pieces: all.map(\.1),
                grid: grid, reorderDelay: delay, folder: folder))
    }

    /// The video track `instruction` shows unchanged: its passthrough track; or, with the
    /// built-in compositor (`builtIn`), its one layer's when that layer is opaque, with no
    /// transform or crop, over no background, at the output's `size`, with no metadata
    /// asked for (the conditions of ``VideoComposition/passingThroughPlainSpans(of:)``).
    private static func unchangedTrack(
        _ instruction: any VideoCompositionInstructionProtocol, composition: Composition,
        size: (width: Int, height: Int), builtIn: Bool
    ) -> Int32? {
        if let id = instruction.passthroughTrackID { return id }
        guard builtIn, let standard = instruction as? VideoCompositionInstruction,
            standard.requiredSourceSampleDataTrackIDs.isEmpty, standard.backgroundColor == nil,
            standard.layerInstructions.count == 1, let layer = standard.layerInstructions.first,
            layer.opacityRamps.allSatisfy({ $0.start == 1 && $0.end == 1 }),
            layer.transformRamps.allSatisfy({ $0.start.isIdentity && $0.end.isIdentity }),
            layer.cropRectangleRamps.isEmpty,
            let track = composition.track(withTrackID: layer.trackID), track.mediaType == .video,
            Int(track.naturalSize.width) == size.width, Int(track.naturalSize.height) == size.height
        else { return nil }
        return layer.trackID
    }

    /// The groups of pictures of `ref` (each from a picture a copy can start at to the
    /// next, ``SmartRenderFormat/startsGroup(_:)``) that hold a frame from `start` through
    /// `last`, with their packets' presentation times in decode order, and the first packet
    /// of each whose structure does not hold.
    private static func groups(
        of ref: SourceTrackReference, sources: AssetRenderSources, from start: MediaTime,
        through last: MediaTime, format: SmartRenderFormat
    ) async throws(ReelError) -> [Group] {
        let url = sources.url(for: ref.sourceIdentifier)
        let reader = try await AssetReader.open(url: url)
        defer { reader.cancelReading() }
        guard let track = reader.track(withID: ref.trackID) else { throw ReelError(.corruptData, "has no track \(ref.trackID)", path: url.path) }
        let output = AssetReaderTrackOutput(trackID: ref.trackID, settings: .passthrough, bufferCapacity: 64)
        try reader.add(output)
        reader.timeRange = TimeRange(start: start, end: track.timeRange.end + MediaTime(value: 60, timescale: 1))
        try reader.startReading()
        var groups: [Group] = []
        var current: Group?
        while let sample = try await output.next() {
            if Task.isCancelled { throw ReelError(.cancelled, "the export was cancelled") }
            guard let buffer = sample.sampleBuffer, buffer.presentationTime.isNumeric else { continue }
            if format.startsGroup(buffer.data) {
                if let current { groups.append(current) }
                current = nil
                if buffer.presentationTime > last { break }
                current = Group(firstTime: buffer.presentationTime)
            }
            current?.times.append(buffer.presentationTime)
            if current != nil, format.refersToTheGroupBefore(buffer.data) { current?.leading.insert(buffer.presentationTime) }
            if current != nil, current?.damage == nil, let reason = format.damage(in: buffer.data) {
                current?.damage = (buffer.presentationTime, reason)
            }
        }
        if let current { groups.append(current) }
        return groups
    }

    /// The codec configuration (`avcC`, `hvcC`) of an encoded stretch and its packets'
    /// presentation times in decode order.
    private static func packets(ofEncoded url: URL) async throws(ReelError) -> (Data, [MediaTime]) {
        let reader = try await AssetReader.open(url: url)
        defer { reader.cancelReading() }
        guard let track = reader.tracks(withMediaType: .video).first else {
            throw ReelError(.encoderFailed, "the encoded stretch has no video track", path: url.path)
        }
        let configuration = track.formatDescription.codecConfiguration
        let output = AssetReaderTrackOutput(trackID: track.trackID, settings: .passthrough, bufferCapacity: 64)
        try reader.add(output)
        try reader.startReading()
        var times: [MediaTime] = []
        while let sample = try await output.next() {
            if let t = sample.sampleBuffer?.presentationTime, t.isNumeric { times.append(t) }
        }
        return (configuration, times)
    }

    /// Renders `stretch` of the composition and encodes it into `url`.
    private static func encode(
        _ stretch: TimeRange, of composition: Composition, videoComposition: VideoComposition,
        sources: AssetRenderSources, settings: VideoEncoderSettings, engineOptions: RenderEngine.Options,
        to url: URL, progress: @Sendable (Int) -> Void
    ) async throws(ReelError) {
        try await AssetWriter.withWriter(outputURL: url, fileType: .mp4, overwrite: true) { writer throws(ReelError) in
            writer.shouldOptimizeForNetworkUse = false
            let input = AssetWriterInput(settings: .video(settings))
            try writer.add(input)
            try await writer.start()
            writer.startSession(atSourceTime: stretch.start)
            var options = engineOptions
            options.timeRange = stretch
            let engine = RenderEngine(composition: composition, videoComposition: videoComposition, sources: sources, options: options)
            var count = 0
            for try await frame in try engine.frames() {
                try await input.append(frame.pixelBuffer, withPresentationTime: frame.time)
                count += 1
                progress(count)
            }
            input.markAsFinished()
        }
    }
}
