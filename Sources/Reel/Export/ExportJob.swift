import Foundation
import ReelComposition
import ReelCore
import ReelIO

/// One run of an ``AssetExportSession``: plans the tracks, opens the writer, and feeds it
/// video, audio, metadata and captions concurrently; cancels the writer (leaving nothing behind) on
/// any failure.
struct ExportJob: Sendable {
    let session: AssetExportSession
    let settings: AssetExportSession.Settings
    let url: URL
    let fileType: AssetWriter.FileType

    /// Whether `fileType` files keep a video track's display matrix (MP4 and MOV `tkhd`).
    static func keepsDisplayMatrix(_ fileType: AssetWriter.FileType) -> Bool {
        fileType == .mp4 || fileType == .mov
    }

    /// The chapters of `range` in the file's time: those that overlap it, cut to it and
    /// moved by its start (a chapter under way at the start begins the file). A chapter with
    /// no length lasts until the next one starts (or the range ends).
    static func chapters(_ groups: [TimedMetadataGroup], in range: TimeRange) -> [TimedMetadataGroup] {
        let sorted = groups.filter { $0.timeRange.start.isNumeric }.sorted { $0.timeRange.start < $1.timeRange.start }
        var out: [TimedMetadataGroup] = []
        for (i, group) in sorted.enumerated() {
            var end = range.end
            if group.timeRange.duration.isNumeric, group.timeRange.duration > .zero {
                end = group.timeRange.end
            } else if let next = sorted[(i + 1)...].first(where: { $0.timeRange.start > group.timeRange.start }) {
                end = next.timeRange.start
            }
            let start = MediaTime.maximum(group.timeRange.start, range.start)
            end = MediaTime.minimum(end, range.end)
            guard start < end else { continue }
            var moved = group
            moved.timeRange = TimeRange(start: start - range.start, end: end - range.start)
            moved.items = group.items.map { item in
                var m = item
                m.time = moved.timeRange.start
                m.duration = moved.timeRange.duration
                return m
            }
            out.append(moved)
        }
        return out
    }

    /// The composition's own video composition, drawn upright when asked.
    static func ownVideoComposition(of composition: Composition, upright: Bool) -> VideoComposition {
        guard upright else { return VideoComposition(propertiesOf: composition) }
        var v = VideoComposition(propertiesOf: composition)
        v.turnUpright(for: composition)
        return v
    }

    /// One warning line when copied video with the display matrix `transform` goes into a
    /// file that cannot keep it: its pictures will play as stored.
    func warnIfTurnLost(_ transform: Transform2D) {
        guard !transform.isIdentity, !Self.keepsDisplayMatrix(fileType) else { return }
        let turn = PixelOrientation(transform).map { "\($0)" } ?? "turned"
        settings.engineOptions.diagnostics(
            RenderDiagnostic(
                kind: .metadataNotCarried, compositionTime: .zero,
                message:
                    "rotation not carried: \(fileType) files have no display matrix and the video is copied, so it plays as stored instead of \(turn); export with a preset that re-encodes (h264) to draw it upright, or write .mp4 or .mov"
            ))
    }

    func run() async throws(ReelError) {
        let composition = session.composition
        let range = try exportRange()
        let videoTracks = composition.tracks(withMediaType: .video).filter { $0.isEnabled && !$0.isEmpty }
        // An .m4a file holds the audio alone, whatever the preset (as AppleM4A).
        let includesVideo = session.preset.includesVideo && !AssetWriter.isAudioOnlyMPEG4(url, fileType: fileType)
        // MPEG-TS (and Matroska, as FFmpeg 5.1 writes it) has no display matrix: frames
        // rendered as stored would play turned, so they are drawn upright instead, as a
        // render draws them. Copied pictures cannot be turned; that is said before the
        // first frame.
        let turnsUpright =
            includesVideo && !Self.keepsDisplayMatrix(fileType) && settings.videoComposition == nil
            && videoTracks.contains { !$0.preferredTransform.isIdentity }
        let videoComposition =
            includesVideo
            ? (settings.videoComposition ?? (videoTracks.isEmpty ? nil : Self.ownVideoComposition(of: composition, upright: turnsUpright)))?
                .passingThroughPlainSpans(of: composition)
            : nil

        let writer = try AssetWriter(outputURL: url, fileType: fileType, overwrite: settings.overwrite)
        writer.shouldOptimizeForNetworkUse = settings.optimizeForNetworkUse
        writer.metadata = settings.metadata
        let notWritten = writer.metadataNotWritten
        if !notWritten.isEmpty {
            // One line for all of them.
            var names: [String] = []
            for item in notWritten where !names.contains(item.identifier.rawValue) { names.append(item.identifier.rawValue) }
            settings.engineOptions.diagnostics(
                RenderDiagnostic(
                    kind: .metadataNotCarried, compositionTime: .zero,
                    message: "metadata not carried: \(fileType) files have no place for "
                        + names.joined(separator: ", ")))
        }
        writer.chapters = Self.chapters(settings.chapters, in: range)
        if !settings.chapters.isEmpty, !AssetWriter.canWriteChapters(into: fileType) {
            settings.engineOptions.diagnostics(
                RenderDiagnostic(
                    kind: .metadataNotCarried, compositionTime: .zero,
                    message: "chapters not carried: \(fileType) files have no place for "
                        + "\(settings.chapters.count) chapter(s)"))
        }
        var videoInput: AssetWriterInput?
        var videoCopy: ExportVideoCopy?
        var smart: SmartRender?
        if let pieces = settings.videoPieces {
            let copy = try await ExportVideoCopy.joining(pieces)
            // As rendered frames: the display matrix only when no video composition drew them.
            if settings.videoComposition == nil { copy.input.transform = composition.sharedVideoTransform }
            warnIfTurnLost(copy.input.transform)
            try writer.add(copy.input)
            videoCopy = copy
        } else if includesVideo, session.preset == .passthrough, settings.videoComposition == nil,
            let copy = try await ExportVideoCopy.plan(composition: composition, range: range, sources: session.sources)
        {
            warnIfTurnLost(copy.input.transform)
            try writer.add(copy.input)
            videoCopy = copy
        } else if let videoComposition {
            let size = videoComposition.renderPixelSize
            guard size.width > 0, size.height > 0 else {
                throw ReelError(.invalidComposition, "the video composition's render size is \(size.width)x\(size.height)", path: url.path)
            }
            // A sized preset scales the rendered frames in the writer (libswscale).
            let coded = session.preset.outputSize(width: size.width, height: size.height)
            var video = session.preset.videoSettings(width: coded.width, height: coded.height, frameDuration: videoComposition.frameDuration)
            // Tagged as the render context's frames are (its colour, else the size's standard one).
            video.colorProperties = video.colorProperties ?? videoComposition.colorProperties
            if settings.smartRendering == .auto {
                smart = try await smartRender(videoComposition: videoComposition, range: videoRange(range), settings: video)
            }
            let input = smart?.input ?? AssetWriterInput(settings: .video(video))
            // Frames rendered as stored keep the tracks' display matrix (as AVAssetExportSession
            // does); a caller's video composition draws the picture as it is to be shown.
            if settings.videoComposition == nil, !turnsUpright { input.transform = composition.sharedVideoTransform }
            try writer.add(input)
            if smart == nil { videoInput = input }
        }
        defer { smart?.removeTemporaryFiles() }
        // The source's timecode, moved to the first exported frame (MP4/MOV keep it).
        if let input = videoInput ?? smart?.input ?? videoCopy?.input, fileType == .mp4 || fileType == .mov {
            let rendered = videoInput != nil || smart != nil
            input.startTimecode = await ExportTimecode.start(
                composition: composition, range: rendered ? videoRange(range) : range,
                sources: session.sources,
                outputFrameDuration: rendered ? videoComposition?.frameDuration : nil)
        }
        let audio =
            settings.audioEnabled
            ? try await ExportAudio.plans(
                composition: composition, range: range, sources: session.sources, audioMix: settings.audioMix,
                codec: settings.audioCodec, format: settings.audioFormat, wholeTimeRange: try wholeRange(of: range)) : []
        // Every source of the mixed sound decodes, before the first frame is rendered.
        for plan in audio { try await plan.checkDecoding() }
        for plan in audio { try writer.add(plan.input) }
        if settings.wholeTimeRange != nil {
            // Joiners place a piece after the previous one's duration, and a piece's sound
            // starts with an edit: both counted exactly in frames and samples.
            writer.movieTimescale = Self.movieTimescale(
                counting: [videoComposition?.frameDuration.timescale].compactMap { $0 }
                    + audio.compactMap { $0.sampleRate.map { Int32(clamping: $0) } })
        }
        let metadataIDs = includesVideo ? settings.metadataTrackIDs ?? videoComposition?.sourceSampleDataTrackIDs ?? [] : []
        let diagnostics = settings.engineOptions.diagnostics
        let metadata = try await ExportMetadata.plans(
            trackIDs: metadataIDs, composition: composition, range: range,
            sources: session.sources, fileType: fileType, format: settings.metadataFormat,
            path: url.path, leaveOut: settings.metadataLeaveOut
        ) { message in
            diagnostics(RenderDiagnostic(kind: .metadataNotCarried, compositionTime: range.start, message: message))
        }
        for plan in metadata { try writer.add(plan.input) }
        let captions =
            !includesVideo
            ? []
            : try await ExportCaptions.plans(composition: composition, range: range, sources: session.sources, fileType: fileType) { message in
                diagnostics(RenderDiagnostic(kind: .metadataNotCarried, compositionTime: range.start, message: message))
            }
        for plan in captions { try writer.add(plan.input) }
        guard !writer.inputs.isEmpty else {
            throw ReelError(.invalidComposition, "the composition has nothing to export in \(range)", path: url.path)
        }

        try await writer.start()
        writer.startSession(atSourceTime: range.start)
        do throws(ReelError) {
            try await feed(
                writer: writer, videoInput: videoInput, videoComposition: videoComposition, videoCopy: videoCopy, smart: smart,
                audio: audio, metadata: metadata, captions: captions, range: range)
            if Task.isCancelled { throw ReelError(.cancelled, "the export was cancelled", path: url.path) }
            try await writer.finishWriting()
        } catch {
            await writer.cancel()
            if Task.isCancelled, error.code != .cancelled {
                throw ReelError(.cancelled, "the export was cancelled", path: url.path, underlying: error)
            }
            throw error
        }
    }

    /// The smart render of `range` (its re-encoded stretches encoded), or nil after one
    /// diagnostic line saying why every frame is rendered instead.
    private func smartRender(videoComposition: VideoComposition, range: TimeRange, settings video: VideoEncoderSettings) async throws(ReelError) -> SmartRender?
    {
        let outcome: SmartRender.Outcome
        if settings.wholeTimeRange != nil {
            outcome = .fallback("the export is a piece of a longer render (--range, wholeTimeRange), rendered whole so that pieces join by stream copy")
        } else {
            let session = self.session
            outcome = try await SmartRender.plan(
                composition: session.composition, videoComposition: videoComposition, range: range,
                whole: settings.smartRenderWhole, sources: session.sources, settings: video, fileType: fileType,
                engineOptions: settings.engineOptions
            ) { p in session.report(progress: min(0.5, 0.5 * p)) }
        }
        switch outcome {
        case .smart(let smart):
            session.record(smart.summary)
            return smart
        case .fallback(let reason):
            session.record(SmartRenderSummary(stretches: [], fallbackReason: reason))
            settings.engineOptions.diagnostics(
                RenderDiagnostic(
                    kind: .smartRenderFallback, compositionTime: range.start,
                    message: "smart render off, every frame rendered: \(reason)"))
            return nil
        }
    }

    /// The composition's range to export: the session's, clipped to the composition.
    func exportRange() throws(ReelError) -> TimeRange {
        let full = session.composition.timeRange
        guard let asked = settings.timeRange else {
            guard full.duration > .zero else { throw ReelError(.invalidComposition, "the composition is empty", path: url.path) }
            return full
        }
        guard asked.isValid, asked.start.isNumeric else {
            throw ReelError(.invalidArgument, "the export time range \(asked) is not valid", path: url.path)
        }
        let clipped = asked.intersection(full)
        guard clipped.isValid, clipped.duration > .zero else {
            throw ReelError(.invalidArgument, "the export time range \(asked) lies outside the composition \(full)", path: url.path)
        }
        return clipped
    }

    /// The smallest timescale counting every one of `timescales` exactly (their least
    /// common multiple); nil when there are none or it overflows 32 bits.
    static func movieTimescale(counting timescales: [Int32]) -> Int32? {
        func gcd(_ a: Int64, _ b: Int64) -> Int64 { b == 0 ? a : gcd(b, a % b) }
        var lcm: Int64 = 1
        for t in timescales where t > 0 {
            lcm = lcm / gcd(lcm, Int64(t)) * Int64(t)
            if lcm > Int64(Int32.max) { return nil }
        }
        return timescales.isEmpty ? nil : Int32(lcm)
    }

    /// The whole timeline `range` is a piece of (``AssetExportSession/wholeTimeRange``), clipped to
    /// the composition; nil when the export stands alone or is the whole.
    func wholeRange(of range: TimeRange) throws(ReelError) -> TimeRange? {
        guard let asked = settings.wholeTimeRange else { return nil }
        let whole = asked.isValid ? asked.intersection(session.composition.timeRange) : asked
        guard whole.isValid, whole.start <= range.start, range.end <= whole.end else {
            throw ReelError(.invalidArgument, "the export time range \(range) is not a piece of \(asked)", path: url.path)
        }
        return whole == range ? nil : whole
    }

    /// The part of `range` the video is rendered over: all of it for a caller's video
    /// composition; else from where the video tracks' pictures start to where they end, so
    /// no black frame is made for audio that starts a little before the first picture (an
    /// MPEG-TS or fragmented MP4 without edit list) and no frame is repeated for audio that
    /// runs past the last, as AVAssetExportSession keeps each track's own timing.
    func videoRange(_ range: TimeRange) -> TimeRange {
        guard settings.videoComposition == nil else { return range }
        let pictures = session.composition.tracks(withMediaType: .video).filter(\.isEnabled)
            .flatMap { $0.segments.filter { !$0.isEmpty }.map(\.target) }
        guard let first = pictures.map(\.start).min(), let last = pictures.map(\.end).max() else { return range }
        let clipped = range.intersection(TimeRange(start: first, end: last))
        return clipped.isValid && clipped.duration > .zero ? clipped : range
    }

    /// Runs the video, audio and metadata feeds side by side; the first failure stops all.
    private func feed(
        writer: AssetWriter, videoInput: AssetWriterInput?, videoComposition: VideoComposition?, videoCopy: ExportVideoCopy?, smart: SmartRender?,
        audio: [ExportAudio], metadata: [ExportMetadata], captions: [ExportCaptions], range: TimeRange
    ) async throws(ReelError) {
        let session = self.session
        var options = settings.engineOptions
        options.timeRange = videoRange(range)
        let engineOptions = options
        let path = url.path
        let firstAudioInput = audio.first?.input
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                if let videoInput, let videoComposition {
                    group.addTask {
                        let engine = RenderEngine(
                            composition: session.composition, videoComposition: videoComposition,
                            sources: session.sources, options: engineOptions)
                        let total = range.duration.seconds
                        for try await frame in try engine.frames() {
                            try await videoInput.append(frame.pixelBuffer, withPresentationTime: frame.time)
                            if total > 0 { session.report(progress: min(0.999, (frame.time + frame.duration - range.start).seconds / total)) }
                        }
                        videoInput.markAsFinished()
                    }
                }
                if let smart {
                    group.addTask {
                        let total = range.duration.seconds
                        try await smart.write { time in
                            if total > 0 { session.report(progress: min(0.999, 0.5 + 0.5 * max(0, (time - range.start).seconds / total))) }
                        }
                    }
                }
                if let videoCopy {
                    group.addTask {
                        let total = range.duration.seconds
                        try await videoCopy.write { time in
                            if total > 0 { session.report(progress: min(0.999, max(0, (time - range.start).seconds / total))) }
                        }
                    }
                }
                for audio in audio {
                    group.addTask {
                        try await audio.write(range: range) { p in
                            if videoInput == nil && videoCopy == nil && smart == nil && audio.input === firstAudioInput {
                                session.report(progress: min(0.999, p))
                            }
                        }
                    }
                }
                for plan in metadata {
                    group.addTask { try await plan.write() }
                }
                for plan in captions {
                    group.addTask { try await plan.write() }
                }
                // The first failure ends the wait (waitForAll would wait for every task,
                // rendering all the video after the audio failed); leaving the group then
                // cancels the others.
                while try await group.next() != nil {}
            }
        } catch let error as ReelError {
            throw error
        } catch is CancellationError {
            throw ReelError(.cancelled, "the export was cancelled", path: path)
        } catch {
            throw ReelError(.internalError, "\(error)", path: path)
        }
    }
}
