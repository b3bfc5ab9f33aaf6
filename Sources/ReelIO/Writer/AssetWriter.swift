import Foundation
import ReelCore
import ReelMetadata

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes media to a new file: encodes video and audio, copies packets, and writes timed
/// metadata tracks (AVAssetWriter).
///
/// ```swift
/// let writer = try AssetWriter(outputURL: url, fileType: .mp4)
/// let video = AssetWriterInput(settings: .video(.init(codec: .h264, width: 1920, height: 1080)))
/// try writer.add(video)
/// try await writer.start()  // startWriting() from code on a thread of its own
/// writer.startSession(atSourceTime: .zero)
/// try await video.append(buffer, withPresentationTime: t)
/// try await writer.finishWriting()
/// ```
///
/// The file is written to a hidden temporary file beside the destination and renamed
/// into place only when ``finishWriting()`` succeeds: a failed or cancelled write leaves
/// nothing at the output path. An existing file at the output path is an error unless
/// `overwrite` is true. Encoding and muxing run on a thread of the writer's own; appends
/// wait (suspend) when it is behind.
///
/// Of a ``finishWriting()`` and a cancel racing, exactly one wins: either the file is in
/// place and the status is `.completed`, or nothing is at the output path and the status
/// is `.cancelled`.
///
/// Timed metadata: `gpmd` tracks (MP4/MOV) and `klv` (MPEG-TS) go through FFmpeg.
/// `mebx` and `camm` tracks (MP4/MOV), which FFmpeg 5.1 cannot write, are spooled beside
/// the output and added after FFmpeg's trailer by `MP4TrackAppender`, before the file
/// is moved into place. In MP4/MOV every metadata track is linked to the first video
/// track by a `tref`/`cdsc` reference (FFmpeg writes none for data tracks; the same pass
/// adds it to the `gpmd` tracks).
public final class AssetWriter: Sendable {
    /// The container to write.
    public enum FileType: String, Sendable, Hashable, CaseIterable {
        case mp4, mov, mpegts, mkv

        var muxerName: String {
            switch self {
            case .mp4: "mp4"
            case .mov: "mov"
            case .mpegts: "mpegts"
            case .mkv: "matroska"
            }
        }
    }

    public enum Status: Sendable, Hashable {
        case unknown, writing, completed, failed, cancelled
    }

    public let outputURL: URL
    public let fileType: FileType
    public let overwrite: Bool

    let state: Lock<AssetWriterState>

    /// A writer for a new file at `outputURL`. Throws when the folder does not exist, the
    /// path is a folder, or a file is there and `overwrite` is false.
    ///
    /// Opens nothing and writes nothing (it only looks the path up); ``start()`` or
    /// ``startWriting()`` create the file.
    public init(outputURL: URL, fileType: FileType, overwrite: Bool = false) throws(ReelError) {
        self.outputURL = outputURL
        self.fileType = fileType
        self.overwrite = overwrite
        state = Lock(AssetWriterState(path: outputURL.path))
        _ = try AtomicFile(outputURL, replacing: overwrite)
    }

    /// Makes a writer as ``init(outputURL:fileType:overwrite:)`` does, runs `body` with it,
    /// and returns what `body` returns once the file is in place. `body` adds the inputs,
    /// starts the writer and appends; it need not finish.
    ///
    /// - `body` returns with the writer writing: ``finishWriting()``, and its error is
    ///   thrown if it fails (then nothing is at the output path). A writer that failed while
    ///   `body` went on throws its error the same way.
    /// - `body` returns having finished or cancelled the writer itself: nothing more is done.
    /// - `body` returns without starting the writer: it is cancelled, nothing is written.
    /// - `body` throws: the writer is cancelled (``cancel()``: the partial file is removed and
    ///   the writer's thread has ended) and the error is thrown unchanged.
    /// - The task is cancelled by the time `body` returns and the file is not in place yet:
    ///   the writer is cancelled and this throws `.cancelled`.
    ///
    /// Nothing is at the output path after a throw, and a file that was there before (with
    /// `overwrite`) is left as it was: the writer writes beside it and replaces it only when
    /// the finish succeeds. Throws what the initializer throws (`body` does not run): an
    /// existing file at `outputURL` is `.outputExists` unless `overwrite` is true.
    public static func withWriter<Result>(
        outputURL: URL, fileType: FileType, overwrite: Bool = false, isolation: isolated (any Actor)? = #isolation,
        _ body: (AssetWriter) async throws(ReelError) -> Result
    ) async throws(ReelError) -> Result {
        let writer = try AssetWriter(outputURL: outputURL, fileType: fileType, overwrite: overwrite)
        do throws(ReelError) {
            let result = try await body(writer)
            let status = writer.status
            if Task.isCancelled, status != .completed {
                throw ReelError(.cancelled, "the task writing the file was cancelled", path: outputURL.path)
            }
            switch status {
            // A failed writer's finishWriting() throws its error.
            case .writing, .failed: try await writer.finishWriting()
            case .unknown: await writer.cancel()
            case .completed, .cancelled: break
            }
            return result
        } catch {
            await writer.cancel()
            throw error
        }
    }

    /// Whether the file is an MPEG-4 audio file: an `.m4a` output of type `.mp4`, written by
    /// FFmpeg's `ipod` muxer with the `M4A ` brand (`ftyp`), as iTunes and AVFoundation
    /// write them. It takes audio inputs only.
    public var isAudioOnlyMPEG4: Bool { Self.isAudioOnlyMPEG4(outputURL, fileType: fileType) }

    /// Whether a file at `url` of `fileType` is an MPEG-4 audio file (see ``isAudioOnlyMPEG4``).
    public static func isAudioOnlyMPEG4(_ url: URL, fileType: FileType) -> Bool {
        fileType == .mp4 && url.pathExtension.lowercased() == "m4a"
    }

    public var status: Status { state.withLock { $0.status } }
    /// Why the writer failed, when ``status`` is `.failed`.
    public var error: ReelError? { state.withLock { $0.error } }
    public var inputs: [AssetWriterInput] { state.withLock { $0.inputs } }

    /// Move the MP4/MOV index to the front (`movflags +faststart`); on by default. Set it
    /// before ``startWriting()``.
    public var shouldOptimizeForNetworkUse: Bool {
        get { state.withLock { $0.optimizeForNetworkUse } }
        set { state.withLock { $0.setOptimizeForNetworkUse(newValue) } }
    }

    /// The MP4/MOV movie timescale (`mvhd`), in which the file's duration and every edit
    /// list are counted; nil (the default) for FFmpeg's 1000. A file that is to be joined
    /// by stream copy needs one that counts its video's frames and its audio's samples
    /// exactly: joiners place each file after the previous one's duration, and a track
    /// that starts before or after the video has its offset written as an edit. Set it before
    /// ``startWriting()``.
    public var movieTimescale: Int32? {
        get { state.withLock { $0.movieTimescale } }
        set { state.withLock { $0.setMovieTimescale(newValue) } }
    }

    /// The file's own tags, written into the header (AVAssetWriter.metadata); set before
    /// ``startWriting()``. Every item the container can hold is written: in MOV as
    /// QuickTime user data, in MP4 as iTunes items, and in both as QuickTime metadata keys
    /// (`com.apple.quicktime.*`) when an item needs them; in Matroska under FFmpeg's tag
    /// names (`container/KEY` items as `KEY`). MPEG-TS holds none. A JPEG or PNG artwork
    /// item is the cover picture: in MP4 the iTunes `covr` item (or the
    /// `com.apple.quicktime.artwork` key with metadata keys), in MOV that key, in Matroska
    /// an attachment. The items left out are in ``metadataNotWritten``.
    public var metadata: [MetadataItem] {
        get { state.withLock { $0.metadata } }
        set { state.withLock { $0.setMetadata(newValue) } }
    }

    /// The items of ``metadata`` this file cannot hold, in order: data other than one JPEG
    /// or PNG cover picture (every picture in MPEG-TS), and keys the container has no place for (see ``metadata``). Empty when all are written.
    public var metadataNotWritten: [MetadataItem] {
        ContainerTagPlan(items: metadata, fileType: fileType).notWritten
    }

    /// The file's chapters, each a group whose time range is the chapter's stretch of the
    /// file (0 is the file's start, whatever ``startSession(atSourceTime:)`` is given) and
    /// whose `common/title` item is its title, as `Asset/load(_:)` of `.chapters` reads
    /// them back; set before ``startWriting()``. MP4 and MOV hold them as a QuickTime chapter
    /// track (MP4 also as a Nero `chpl` list), Matroska as its own chapters; MPEG-TS holds
    /// none (``canWriteChapters(into:)``), and they are left out there.
    public var chapters: [TimedMetadataGroup] {
        get { state.withLock { $0.chapters } }
        set { state.withLock { $0.setChapters(newValue) } }
    }

    /// Whether a `fileType` file holds chapters: MP4, MOV and Matroska do, MPEG-TS does not.
    public static func canWriteChapters(into fileType: FileType) -> Bool { fileType != .mpegts }

    // MARK: Inputs

    /// Whether a caption track of `codec` (FFmpeg's name) can be copied into a `fileType`
    /// file as it is: 3GPP timed text (`mov_text`) into MP4/MOV, CEA-608 (`eia_608`) into
    /// MOV (FFmpeg's muxer has no MP4 tag for `c608`), SubRip, WebVTT and ASS into Matroska.
    public static func canCopyCaptions(codec: String, into fileType: FileType) -> Bool {
        switch codec {
        case "mov_text": fileType == .mp4 || fileType == .mov
        case "eia_608": fileType == .mov
        case "subrip", "webvtt", "ass": fileType == .mkv
        default: false
        }
    }

    /// Why `input` cannot go into this file, or nil when it can.
    private func refusal(_ input: AssetWriterInput) -> ReelError? {
        let path = outputURL.path
        if status != .unknown { return ReelError(.writerState, "inputs can only be added before startWriting()", path: path) }
        if input.state.withLock({ $0.writer != nil }) { return ReelError(.writerState, "the input already belongs to a writer", path: path) }
        if isAudioOnlyMPEG4, input.mediaType != .audio {
            return ReelError(.invalidArgument, "an .m4a file holds audio only: write the \(input.mediaType.rawValue) track into .mp4, .m4v or .mov", path: path)
        }
        switch input.settings {
        case .metadata(let format):
            if fileType == .mkv {
                return ReelError(
                    .invalidArgument,
                    "Matroska holds no timed-metadata tracks (FFmpeg writes only audio, video and subtitles there): use .mp4, .mov or .mpegts", path: path)
            }
            switch format {
            case .gpmd where fileType == .mp4 || fileType == .mov: return nil
            case .gpmd: return ReelError(.invalidArgument, "gpmd tracks go into MP4 or MOV only", path: path)
            case .klv where fileType == .mpegts: return nil
            case .klv:
                return ReelError(
                    .invalidArgument, "KLV tracks go into MPEG-TS only: FFmpeg would write an empty sample description into MP4/MOV, a corrupt file", path: path
                )
            case .camm where fileType == .mp4 || fileType == .mov, .mebx where fileType == .mp4 || fileType == .mov: return nil
            case .camm, .mebx: return ReelError(.invalidArgument, "\(format) tracks go into MP4 or MOV only", path: path)
            default:
                return ReelError(.invalidArgument, "no writer for \(format) metadata (gpmd, mebx, camm into MP4/MOV, klv into MPEG-TS)", path: path)
            }
        case .passthrough(let description):
            if description.isCaptionFormat {
                let codec = description.codecName
                return Self.canCopyCaptions(codec: codec, into: fileType)
                    ? nil
                    : ReelError(
                        .invalidArgument,
                        "a \(codec) caption track cannot be copied into \(fileType.rawValue): 3GPP timed text (mov_text) goes into MP4/MOV, CEA-608 (eia_608) into MOV, SubRip, WebVTT and ASS into Matroska",
                        path: path)
            }
            if description.mediaType != .audio && description.mediaType != .video {
                return ReelError(.invalidArgument, "passthrough copies audio, video or caption tracks; write metadata with .metadata(format:)", path: path)
            }
            return nil
        case .captions(let format):
            switch format {
            case .movText where fileType == .mp4 || fileType == .mov: return nil
            case .srt where fileType == .mkv, .webVTT where fileType == .mkv: return nil
            default:
                return ReelError(
                    .invalidArgument,
                    "\(format) caption tracks cannot go into \(fileType.rawValue): 3GPP timed text (.movText) goes into MP4/MOV, SubRip and WebVTT into Matroska",
                    path: path)
            }
        case .video(let settings):
            switch settings.codec {
            case .proRes where fileType != .mov && fileType != .mkv:
                return ReelError(.invalidArgument, "ProRes goes into MOV or Matroska", path: path)
            case .ffv1 where fileType != .mkv && fileType != .mov:
                return ReelError(.invalidArgument, "FFV1 goes into Matroska or MOV", path: path)
            default: break
            }
            if !Encoder.exists(settings.codec.encoderName) {
                return ReelError(.encoderFailed, "this FFmpeg has no \(settings.codec.encoderName) encoder", path: path)
            }
            return nil
        case .audio(let settings):
            if settings.codec.isPCM, fileType != .mov, fileType != .mkv {
                return ReelError(.invalidArgument, "PCM audio goes into MOV or Matroska, not \(fileType.rawValue): use AAC or a .mov/.mkv output", path: path)
            }
            // Matroska times packets in whole milliseconds, and ALAC's 4096-sample packets
            // (a size FFmpeg's encoder fixes) do not start on them at 44.1 or 48 kHz.
            if settings.codec == .alac, fileType != .mov, fileType != .mp4 {
                return ReelError(
                    .invalidArgument, "ALAC goes into MOV or MP4 (M4A), not \(fileType.rawValue): use AAC or PCM, or a .mov/.m4a output", path: path)
            }
            return nil
        }
    }

    public func canAdd(_ input: AssetWriterInput) -> Bool { refusal(input) == nil }

    /// Adds a track; throws, saying why, when the input cannot go into this file type.
    public func add(_ input: AssetWriterInput) throws(ReelError) {
        if let error = refusal(input) { throw error }
        guard let index = state.withLock({ $0.add(input) }) else {
            throw ReelError(.writerState, "inputs can only be added before startWriting()", path: outputURL.path)
        }
        input.state.withLock {
            $0.writer = self
            $0.index = index
        }
    }

    // MARK: Writing

    /// Opens the encoders, creates the temporary file and writes the header. Only one
    /// call starts the writer: another, concurrent or later, throws.
    ///
    /// Blocks the calling thread while the encoders open, the file is created
    /// (`avio_open`) and the header is written: async code calls ``start()`` instead,
    /// which does the same on a thread of its own while the caller suspends.
    @available(*, noasync, message: "blocks the thread while the file is created: use try await start()")
    public func startWriting() throws(ReelError) {
        try state.withLock { (s) throws(ReelError) in try s.beginStart() }
        let (inputs, optimize, metadata, chapters, timescale) = state.withLock {
            ($0.inputs, $0.optimizeForNetworkUse, $0.metadata, $0.chapters, $0.movieTimescale)
        }
        var file: AtomicFile?
        var core: WriterCore?
        do throws(ReelError) {
            let destination = try AtomicFile(outputURL, replacing: overwrite)
            file = destination
            core = try makeCore(
                inputs: inputs, optimize: optimize, metadata: metadata, chapters: chapters, movieTimescale: timescale,
                temporary: destination.temporaryURL)
        } catch {
            file?.discard()
            var located = error
            if located.path == nil { located.path = outputURL.path }
            Self.resume(state.withLock { $0.startFailed(located) })
            throw located
        }
        // The encoder is the slowest stage of most renders, so a frame queued here would wait
        // for it, held in memory. A frame is handed to the writer's thread instead (its
        // `append` returns once the thread has taken it): the caller makes the next frame
        // while this one is encoded, as the ffmpeg CLI decodes the next frame while x264's
        // threads code the last. Sound and metadata samples, which are small, may wait.
        let queue = BoundedQueue<WriterCommand>(capacity: 2)
        switch state.withLock({ $0.started(queue: queue) }) {
        case .run:
            guard let core, let file else { preconditionFailure("the writer started without its core") }
            startDedicatedThread(named: "reel.writer") { [self] in self.run(core: core, queue: queue, file: file) }
        case .discard(let waiters):
            core = nil
            file?.discard()
            Self.resume(waiters)
            throw ReelError(.cancelled, "the writer was cancelled while it started", path: outputURL.path)
        }
    }

    /// Starts the writer as ``startWriting()`` does (same checks, same errors), suspending
    /// while a thread of its own opens the encoders, creates the file and writes the
    /// header, so that none of it blocks Swift's cooperative pool.
    public func start() async throws(ReelError) {
        try await onDedicatedThread(named: "reel.writer.start") { [self] () throws(ReelError) in try self.startWriting() }
    }

    /// Opens the muxer on `temporary`, makes a track writer per input and writes the header.
    private func makeCore(
        inputs: [AssetWriterInput], optimize: Bool, metadata: [MetadataItem], chapters: [TimedMetadataGroup], movieTimescale: Int32?,
        temporary: URL
    ) throws(ReelError) -> WriterCore {
        let output = try OutputFormatContext(formatName: isAudioOnlyMPEG4 ? "ipod" : fileType.muxerName, path: temporary.path)
        let tagPlan = ContainerTagPlan(items: metadata, fileType: fileType)
        output.setMetadata(tagPlan.tags)
        if Self.canWriteChapters(into: fileType) {
            try output.setChapters(
                chapters.map { group in
                    let title =
                        group.items.first { $0.identifier == .commonIdentifierTitle }?.stringValue
                        ?? group.items.lazy.compactMap(\.stringValue).first ?? ""
                    return (title, group.timeRange.start, group.timeRange.end)
                })
        }
        var tracks: [(any TrackWriter)?] = []
        var appended: [(index: Int, input: AssetWriterInput, format: MetadataFormat)] = []
        for (index, input) in inputs.enumerated() {
            switch input.settings {
            case .video(let s): tracks.append(try VideoTrackWriter(s, output: output))
            case .audio(let s): tracks.append(try AudioTrackWriter(s, output: output))
            case .passthrough(let d): tracks.append(try PacketTrackWriter(passthrough: d, output: output))
            case .metadata(let f) where AppendedMetadataTracks.formats.contains(f):
                tracks.append(nil)
                appended.append((index, input, f))
            case .metadata(let f): tracks.append(try PacketTrackWriter(metadataFormat: f, output: output))
            case .captions(let f): tracks.append(try PacketTrackWriter(captionFormat: f, output: output))
            }
            let transform = input.transform
            if transform != .identity, input.mediaType == .video, let track = tracks.last ?? nil {
                try output.setDisplayMatrix(transform, streamIndex: Int(track.streamIndex))
            }
            if let language = input.languageCode, let track = tracks.last ?? nil {
                output.setLanguage(language, streamIndex: Int(track.streamIndex))
            }
            if let timecode = input.startTimecode, let track = tracks.last ?? nil {
                guard input.mediaType == .video else {
                    throw ReelError(.invalidArgument, "a start timecode belongs on a video input, not \(input.mediaType)", path: outputURL.path)
                }
                output.setTimecode(timecode, streamIndex: Int(track.streamIndex))
            }
        }
        guard tracks.contains(where: { $0 != nil }) else {
            throw ReelError(.invalidArgument, "mebx and camm tracks describe other tracks: add a video or audio input too", path: outputURL.path)
        }
        // The cover picture: an attached picture FFmpeg's MP4 muxer writes as `covr`, a
        // Matroska attachment, or a metadata key the pass after the trailer adds.
        var attachedPicture: (data: Data, streamIndex: Int32)?
        var artwork: MP4Artwork?
        if let picture = tagPlan.picture {
            switch picture.place {
            case .attachedPicture:
                attachedPicture = (picture.data, try output.addAttachedPicture(png: picture.kind == .png, width: picture.width, height: picture.height))
            case .attachment:
                try output.addAttachment(
                    picture.data, fileName: picture.kind == .png ? "cover.png" : "cover.jpg",
                    mimeType: picture.kind == .png ? "image/png" : "image/jpeg")
            case .metadataKey:
                artwork = MP4Artwork(bytes: [UInt8](picture.data), dataType: picture.kind == .png ? QuickTimeDataType.png : QuickTimeDataType.jpeg)
            }
        }
        let gpmd = inputs.contains { if case .metadata(.gpmd) = $0.settings { true } else { false } }
        let postPass = (fileType == .mp4 || fileType == .mov) && (gpmd || !appended.isEmpty || artwork != nil)
        // The pass that adds the metadata tracks also puts the index in front, so the
        // muxer's own faststart pass over the file is not needed.
        var options: [String: String] = [:]
        var movflags = ""
        if optimize && !postPass && (fileType == .mp4 || fileType == .mov) { movflags += "+faststart" }
        if tagPlan.usesMetadataKeys { movflags += "+use_metadata_tags" }
        if !movflags.isEmpty { options["movflags"] = movflags }
        if let movieTimescale, fileType == .mp4 || fileType == .mov { options["movie_timescale"] = String(movieTimescale) }
        let appendedTracks = postPass ? AppendedMetadataTracks(inputs: appended, beside: temporary, moovInFront: optimize, artwork: artwork) : nil
        return try WriterCore(output: output, tracks: tracks, appended: appendedTracks, options: options, attachedPicture: attachedPicture)
    }

    /// Where the written timeline starts: a sample at `time` lands at 0 in the file.
    /// Samples before it are not written.
    public func startSession(atSourceTime time: MediaTime) {
        state.withLock { $0.startSession(at: time) }
    }

    var hasRoom: Bool { state.withLock { $0.hasRoom } }

    /// Throws unless the writer is writing and its session started.
    func checkAccepting() throws(ReelError) {
        _ = try state.withLock { (s) throws(ReelError) in try s.accepting() }
    }

    /// Queues a command from an input, waiting while the writer is behind.
    func submit(_ command: WriterCommand) async throws(ReelError) {
        let (queue, start) = try state.withLock { (s) throws(ReelError) in try s.accepting() }
        guard let shifted = command.relative(to: start) else { return }
        var isFrame = false
        if case .video = shifted { isFrame = true }
        do {
            try await queue.send(shifted, untilTaken: isFrame)
        } catch {
            throw state.withLock { $0.explain(error) }
        }
    }

    /// Finishes every track, writes the trailer and moves the file into place. Throws
    /// `.cancelled` when a cancel came first: then nothing is at the output path.
    public func finishWriting() async throws(ReelError) {
        let failure: ReelError? = await withCheckedContinuation { (continuation: CheckedContinuation<ReelError?, Never>) in
            do throws(ReelError) {
                let (queue, inputs) = try state.withLock { (s) throws(ReelError) in (try s.finish(continuation), s.inputs) }
                for input in inputs { input.markAsFinished() }
                // The writer thread drains what waits, then writes the trailer.
                queue.finish()
            } catch {
                continuation.resume(returning: error)
            }
        }
        if let failure { throw failure }
    }

    /// Stops writing and removes the temporary file; returns once the writer thread has
    /// ended. Unless a ``finishWriting()`` has already won (the file is being moved into
    /// place), nothing is at the output path afterwards and the status is `.cancelled`.
    ///
    /// Blocks the calling thread until the writer thread ends, as AVAssetWriter's does:
    /// async code calls ``cancel()`` instead, which suspends.
    @available(*, noasync, message: "blocks the thread: use await cancel()")
    public func cancelWriting() {
        stop()
        state.withLock(when: { $0.isIdle }) { _ in }
    }

    /// Stops writing and removes the temporary file, like ``cancelWriting()``, suspending
    /// (not blocking) until the writer thread has ended.
    public func cancel() async {
        stop()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            if !state.withLock({ $0.parkUntilIdle(continuation) }) { continuation.resume() }
        }
    }

    /// The cancel transition, and the queue it stops.
    private func stop() {
        let (queue, error) = state.withLock { ($0.cancel(), $0.cancelledError) }
        queue?.cancel(error: error)
    }

    // MARK: The writer thread

    /// Encodes and muxes the queue's commands until the queue ends (finish: write the
    /// trailer and move the file into place) or fails (cancel, failure: remove the file).
    private func run(core: WriterCore, queue: BoundedQueue<WriterCommand>, file: AtomicFile) {
        var core: WriterCore? = core
        var moved = false
        do throws(ReelError) {
            while let command = try queue.nextBlocking() {
                try core?.handle(command)
            }
            try core?.finish(file: file.temporaryURL)
            core = nil
            if state.withLock({ $0.commit() }) {
                var failure: ReelError?
                do throws(ReelError) {
                    try file.commit()
                    moved = true
                } catch {
                    failure = error
                }
                state.withLock { $0.moved(failure) }
            }
        } catch {
            state.withLock { $0.fail(error) }?.cancel(error: error)
        }
        // The encoders, the muxer and the metadata spool go before anyone hears the outcome.
        core = nil
        if !moved { file.discard() }
        let ended = state.withLock { $0.threadEnded() }
        ended.finisher?.resume(returning: ended.outcome)
        Self.resume(ended.waiters)
    }

    private static func resume(_ waiters: [CheckedContinuation<Void, Never>]) {
        for waiter in waiters { waiter.resume() }
    }
}
