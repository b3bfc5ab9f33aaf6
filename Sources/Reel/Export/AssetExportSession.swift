import Foundation
import ReelComposition
import ReelCore
import ReelIO

/// Renders a composition (or a whole file) into a new file (AVAssetExportSession).
///
/// Video frames come from the render engine (the video composition's compositor, or the
/// built-in one) and are encoded with the preset. Every enabled audio track is carried:
/// each as a track of its own, or all mixed into one with ``audioMix``; packets are copied
/// when a track plays one continuous, unscaled stretch of one source at volume 1, and
/// decoded, cut, mixed and re-encoded to AAC otherwise. The metadata tracks named in the
/// video composition's `sourceSampleDataTrackIDs` are written in their own format where
/// the container holds it (``metadataFormat``), retimed through the composition's edits.
///
/// ```swift
/// let session = AssetExportSession(composition: composition, preset: .h264(crf: 20, preset: "fast"))
/// session.videoComposition = videoComposition
/// session.timeRange = TimeRange(start: .zero, duration: MediaTime(value: 10, timescale: 1))
/// Task { for await p in session.progressUpdates() { print(p) } }
/// try await session.export(to: URL(fileURLWithPath: "out.mp4"), as: .mp4)
/// ```
///
/// The output is written beside the destination and moved into place when complete: a
/// failed or cancelled export leaves nothing at the output path, and an existing file is an
/// error unless ``overwrite`` is set.
public final class AssetExportSession: Sendable {
    /// Where the export is in its life.
    public enum Status: Sendable, Hashable {
        case waiting, exporting, completed, failed, cancelled
    }

    public let composition: Composition
    public let preset: ExportPreset
    /// Where the composition's frames and metadata come from (files, by default).
    public let sources: AssetRenderSources

    struct Settings: Sendable {
        var videoComposition: VideoComposition?
        var timeRange: TimeRange?
        /// The whole timeline `timeRange` is a piece of (see ``AssetExportSession/wholeTimeRange``).
        var wholeTimeRange: TimeRange?
        var overwrite = false
        var outputFileType: AssetWriter.FileType?
        var outputURL: URL?
        /// One frame in flight: the encoder is the slowest stage of most exports, so a frame
        /// more would wait for it and only add to the peak memory (the compositor still
        /// runs while the encoder codes the frame before).
        var engineOptions = RenderEngine.Options(maximumRequestsInFlight: 1)
        var metadataTrackIDs: [Int32]?
        var metadataFormat = MetadataOutputFormat.auto
        var metadataLeaveOut = "AssetExportSession.metadataTrackIDs = []"
        var audioEnabled = true
        var audioMix: AudioMix?
        var audioCodec = AudioEncoderSettings.Codec.aac
        var audioFormat = ExportAudio.OutputFormat()
        var optimizeForNetworkUse = true
        var metadata: [MetadataItem] = []
        var chapters: [TimedMetadataGroup] = []
        var fileLengthLimit: Int64 = 0
        /// Video copied from these files (a render plan's pieces) instead of rendered.
        var videoPieces: ExportVideoCopy.Pieces?
        var smartRendering = SmartRendering.off
        /// The whole render this export is a piece of, when the pieces are joined by
        /// merging their parameter sets (``AssetExportSession/smartRenderAsPiece(of:)``).
        var smartRenderWhole: TimeRange?
    }

    struct State {
        var settings = Settings()
        var status: Status = .waiting
        var error: ReelError?
        var progress: Double = 0
        var task: Task<Void, Never>?
        var cancelRequested = false
        var observers: [UUID: AsyncStream<Double>.Continuation] = [:]
        var smartRenderSummary: SmartRenderSummary?
    }
    let state = Lock(State())

    /// File sources as an export reads them (``AssetVideoFrameSource/Options/export``).
    public static var exportSources: AssetRenderSources { AssetRenderSources(videoOptions: .export) }

    /// A session exporting `composition` with `preset`, reading its sources with `sources`
    /// (by default files, read in order with no frames kept for steps back:
    /// ``AssetExportSession/exportSources``).
    public init(composition: Composition, preset: ExportPreset, sources: AssetRenderSources = AssetExportSession.exportSources) {
        self.composition = composition
        self.preset = preset
        self.sources = sources
    }

    /// A session exporting the whole of `asset` (every track, as it is), its container
    /// tags (title, creation date, location, make, model, ...) carried into ``metadata`` and
    /// its chapters into ``chapters``.
    public convenience init(asset: Asset, preset: ExportPreset) async throws(ReelError) {
        self.init(composition: try await Composition(asset: asset), preset: preset)
        try await carryOver(from: asset)
    }

    /// Writes what `asset` carries besides its picture and sound, as an export of the
    /// whole asset does (``init(asset:preset:)``): every metadata track of the composition
    /// (``metadataTrackIDs``), the file's container tags (``metadata``) and its
    /// ``chapters``. For a composition made from the asset with changes of its own (a
    /// caption drawn into the picture, a track added).
    public func carryOver(from asset: Asset) async throws(ReelError) {
        let ids = composition.tracks(withMediaType: .metadata).map(\.trackID)
        let (common, all, chapters) = try await asset.load(.commonMetadata, .metadata, .chapters)
        let tags = common + all
        state.withLock {
            $0.settings.metadataTrackIDs = ids
            $0.settings.metadata = tags
            $0.settings.chapters = chapters
        }
    }

    // MARK: Settings

    /// How frames are composed; `VideoComposition(propertiesOf:)` when nil.
    public var videoComposition: VideoComposition? {
        get { state.withLock { $0.settings.videoComposition } }
        set { state.withLock { $0.settings.videoComposition = newValue } }
    }

    /// The part of the composition to export; all of it when nil.
    public var timeRange: TimeRange? {
        get { state.withLock { $0.settings.timeRange } }
        set { state.withLock { $0.settings.timeRange = newValue } }
    }

    /// The whole timeline that ``timeRange`` is one piece of, when pieces exported with
    /// adjoining ranges are to be joined by stream copy (nil, the default: the export
    /// stands alone). Encoded sound is then coded on the whole timeline's AAC frame grid:
    /// the encoder starts about a second before the piece (the pre-roll, mixed from the
    /// sources as an export of the whole would), those packets are dropped, and the piece
    /// keeps the packets from the frame that holds its start (an edit list hides the part
    /// before the start) to the frame before the one that holds the next piece's start.
    /// Laid end to end, the pieces' packets are those of one encode of the whole, so the
    /// joined sound has no gap, click or drift. Copied sound keeps the source's packets
    /// the same way: those that end in the range. The MP4/MOV movie timescale
    /// counts the frames and samples exactly, so joiners place each piece where it belongs.
    public var wholeTimeRange: TimeRange? {
        get { state.withLock { $0.settings.wholeTimeRange } }
        set { state.withLock { $0.settings.wholeTimeRange = newValue } }
    }

    /// Replace an existing file at the output path instead of failing.
    public var overwrite: Bool {
        get { state.withLock { $0.settings.overwrite } }
        set { state.withLock { $0.settings.overwrite = newValue } }
    }

    /// The container, for ``export()``; when nil, the one ``outputURL``'s extension names
    /// (`.mp4`, `.m4v`, `.m4a`, `.mov`, `.ts`, `.mkv`).
    public var outputFileType: AssetWriter.FileType? {
        get { state.withLock { $0.settings.outputFileType } }
        set { state.withLock { $0.settings.outputFileType = newValue } }
    }

    /// The destination, for ``export()``.
    public var outputURL: URL? {
        get { state.withLock { $0.settings.outputURL } }
        set { state.withLock { $0.settings.outputURL = newValue } }
    }

    /// How the render engine runs (requests in flight, timeout, diagnostics).
    public var renderOptions: RenderEngine.Options {
        get { state.withLock { $0.settings.engineOptions } }
        set { state.withLock { $0.settings.engineOptions = newValue } }
    }

    /// The composition's metadata tracks to write; the video composition's
    /// `sourceSampleDataTrackIDs` when nil.
    public var metadataTrackIDs: [Int32]? {
        get { state.withLock { $0.settings.metadataTrackIDs } }
        set { state.withLock { $0.settings.metadataTrackIDs = newValue } }
    }

    /// The format the metadata tracks are written in: by default each track keeps its own
    /// where the container can hold it, and is converted to the container's natural format
    /// where it cannot (``MetadataOutputFormat``). What a conversion cannot carry is said
    /// once, through ``renderOptions``' diagnostics, before the first frame.
    public var metadataFormat: MetadataOutputFormat {
        get { state.withLock { $0.settings.metadataFormat } }
        set { state.withLock { $0.settings.metadataFormat = newValue } }
    }

    /// How the caller leaves metadata tracks out, as a refusal to write them names it
    /// (a composition-file key, a command-line flag).
    package var metadataLeaveOut: String {
        get { state.withLock { $0.settings.metadataLeaveOut } }
        set { state.withLock { $0.settings.metadataLeaveOut = newValue } }
    }

    /// Whether audio is carried into the output (it is by default).
    public var includesAudio: Bool {
        get { state.withLock { $0.settings.audioEnabled } }
        set { state.withLock { $0.settings.audioEnabled = newValue } }
    }

    /// How the audio tracks are mixed (`AVAssetExportSession.audioMix`): when set, every
    /// enabled audio track is mixed into one output track at the volumes it gives; when
    /// nil, each audio track is written as a track of its own.
    public var audioMix: AudioMix? {
        get { state.withLock { $0.settings.audioMix } }
        set { state.withLock { $0.settings.audioMix = newValue } }
    }

    /// The codec of the audio the export encodes: AAC (the default), 16-bit or 24-bit
    /// PCM for a MOV or Matroska output, or ALAC (16-bit Apple Lossless) for a MOV or
    /// MP4/M4A output (another container is refused before anything is written). PCM and
    /// ALAC output is always decoded and encoded, never copied.
    public var audioCodec: AudioEncoderSettings.Codec {
        get { state.withLock { $0.settings.audioCodec } }
        set { state.withLock { $0.settings.audioCodec = newValue } }
    }

    /// The sample rate the audio is mixed and encoded at (8000 to 192000 Hz); the first
    /// audio track's when nil (the default). A track at another rate is converted with
    /// libswresample; packets are copied only from a track already at this rate.
    public var audioSampleRate: Int? {
        get { state.withLock { $0.settings.audioFormat.sampleRate } }
        set { state.withLock { $0.settings.audioFormat.sampleRate = newValue } }
    }

    /// The channel count the audio is mixed and encoded with (1 to 8, in FFmpeg's standard
    /// layout for the count: 1 mono, 2 stereo, 6 5.1, 8 7.1); the first audio track's (at
    /// most 8) when nil (the default). Other counts are mixed up or down with
    /// libswresample's standard matrix (mono into stereo at -3 dB in each channel).
    public var audioChannelCount: Int? {
        get { state.withLock { $0.settings.audioFormat.channelCount } }
        set { state.withLock { $0.settings.audioFormat.channelCount = newValue } }
    }

    /// Container metadata for the output (title, creation date, location, make, model,
    /// software; see `AssetWriter/metadata`). Nothing by default.
    public var metadata: [MetadataItem] {
        get { state.withLock { $0.settings.metadata } }
        set { state.withLock { $0.settings.metadata = newValue } }
    }

    /// The output's chapters, in the composition's time: each a group whose time range is
    /// the chapter's and whose `common/title` item is its title (the form
    /// `Asset/load(_:)` of `.chapters` gives). Those that start within the exported
    /// ``timeRange`` are written, moved with it and cut at its end (see
    /// `AssetWriter/chapters`); MPEG-TS holds none, which is said in one diagnostic line.
    /// None by default.
    public var chapters: [TimedMetadataGroup] {
        get { state.withLock { $0.settings.chapters } }
        set { state.withLock { $0.settings.chapters = newValue } }
    }

    /// The most bytes the output file may take (`fileLengthLimit`); 0, the default, for no
    /// limit. As AVAssetExportSession does, an export that would be longer stops early: the
    /// file ends at the last whole group of pictures (the last whole sample, without video)
    /// that keeps it within the limit, and is a complete, playable file, shorter than the
    /// time range asked for. When even the first group of pictures does not fit, the export
    /// fails with `.outputFailed` and nothing is written.
    ///
    /// The output is written once in full beside the destination; when that is too long it
    /// is written again over the shorter range its samples show will fit.
    public var fileLengthLimit: Int64 {
        get { state.withLock { $0.settings.fileLengthLimit } }
        set { state.withLock { $0.settings.fileLengthLimit = max(0, newValue) } }
    }

    /// Put the MP4/MOV index at the front of the file (`+faststart`); on by default.
    public var shouldOptimizeForNetworkUse: Bool {
        get { state.withLock { $0.settings.optimizeForNetworkUse } }
        set { state.withLock { $0.settings.optimizeForNetworkUse = newValue } }
    }

    /// Whether the export copies the groups of pictures the composition leaves untouched
    /// and encodes only the frames it changes (``SmartRendering``); `.off` by default,
    /// when every frame is rendered and encoded. Applies to H.264 and HEVC exports into MP4 or MOV
    /// at the sources' size; otherwise, or when a source cannot be matched, every frame
    /// is rendered and the reason is said once through ``renderOptions``' diagnostics.
    public var smartRendering: SmartRendering {
        get { state.withLock { $0.settings.smartRendering } }
        set { state.withLock { $0.settings.smartRendering = newValue } }
    }

    /// With ``smartRendering`` `.auto`, renders ``timeRange`` as its piece of the smart
    /// render of `whole`: the sources are checked over all of `whole`, so every piece
    /// copies or falls back alike, and a piece that copies nothing is still encoded as the
    /// smart render encodes. H.264 pieces may then hold different parameter sets (those of
    /// their encoded stretches, or none): a render plan's join merges them into one sample
    /// description. (A ``wholeTimeRange`` piece, joined by any stream copy, is rendered in full.)
    package func smartRenderAsPiece(of whole: TimeRange) {
        state.withLock { $0.settings.smartRenderWhole = whole }
    }

    /// What the smart render did (copied and encoded stretches, or why it rendered every
    /// frame), once an export with ``smartRendering`` `.auto` has planned its video.
    public var smartRenderSummary: SmartRenderSummary? { state.withLock { $0.smartRenderSummary } }

    func record(_ summary: SmartRenderSummary) {
        state.withLock { $0.smartRenderSummary = summary }
    }

    /// The video stream is copied from `pieces`, one after another, instead of rendered:
    /// how a render plan's pieces are joined while the audio and metadata are written over
    /// the whole timeline.
    package func copyVideo(from pieces: ExportVideoCopy.Pieces) {
        state.withLock { $0.settings.videoPieces = pieces }
    }

    // MARK: Status

    public var status: Status { state.withLock { $0.status } }
    /// Why the export failed, when ``status`` is `.failed`.
    public var error: ReelError? { state.withLock { $0.error } }
    /// How much of the time range is written, 0...1.
    public var progress: Double { state.withLock { $0.progress } }

    /// The progress, 0...1, as it changes, ending when the export ends. Each call gives a
    /// sequence of its own that starts with the current value.
    public func progressUpdates() -> AsyncStream<Double> {
        let (stream, continuation) = AsyncStream.makeStream(of: Double.self, bufferingPolicy: .bufferingNewest(1))
        let id = UUID()
        let (current, ended) = state.withLock { s -> (Double, Bool) in
            let ended = s.status == .completed || s.status == .failed || s.status == .cancelled
            if !ended { s.observers[id] = continuation }
            return (s.progress, ended)
        }
        continuation.yield(current)
        if ended { continuation.finish() }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.observers.removeValue(forKey: id) }
        }
        return stream
    }

    func report(progress value: Double) {
        let observers = state.withLock { s -> [AsyncStream<Double>.Continuation] in
            guard value > s.progress else { return [] }
            s.progress = value
            return Array(s.observers.values)
        }
        for o in observers { o.yield(value) }
    }

    /// Stops the export: ``export(to:as:)`` throws a `.cancelled` error and nothing is
    /// left at the output path.
    public func cancelExport() {
        let task = state.withLock { s -> Task<Void, Never>? in
            s.cancelRequested = true
            return s.task
        }
        task?.cancel()
    }

    // MARK: Export

    /// Exports to ``outputURL`` as ``outputFileType``, or as the container the URL's
    /// extension names when that is nil.
    public func export() async throws(ReelError) {
        guard let url = outputURL else { throw ReelError(.invalidArgument, "set outputURL before export()") }
        guard let fileType = outputFileType ?? AssetWriter.FileType(pathExtension: url.pathExtension) else {
            throw ReelError(
                .invalidArgument,
                "cannot tell the container from the extension \"\(url.pathExtension)\": set outputFileType "
                    + "(.mp4, .mov, .mpegts or .mkv) or use .mp4, .m4v, .m4a, .mov, .ts or .mkv", path: url.path)
        }
        try await export(to: url, as: fileType)
    }

    /// Exports to `url` as `fileType`. Throws `.cancelled` when ``cancelExport()`` was
    /// called or the calling task was cancelled; whatever happens, a half-written file is
    /// never left at `url`. An `.m4a` URL of type `.mp4` gets an MPEG-4 audio file (brand
    /// `M4A `) holding the audio alone, whatever the preset. A preset that cannot write `fileType`, or that the composition
    /// cannot feed (``ExportPreset/appleM4A`` with no audio), is refused before anything
    /// is written.
    public func export(to url: URL, as fileType: AssetWriter.FileType) async throws(ReelError) {
        let kinds = Set(composition.tracks.filter { $0.isEnabled && !$0.isEmpty }.map(\.mediaType))
        if let problem = preset.incompatibility(withMediaTypes: kinds, fileType: fileType) {
            throw ReelError(.invalidArgument, problem, path: url.path)
        }
        if AssetWriter.isAudioOnlyMPEG4(url, fileType: fileType), !kinds.contains(.audio) {
            throw ReelError(.invalidArgument, "an .m4a file holds audio only, and there is no audio track to export", path: url.path)
        }
        let settings = try state.withLock { (s) throws(ReelError) -> Settings in
            guard s.status == .waiting else {
                throw ReelError(.writerState, "an export session exports once; this one is \(s.status)", path: url.path)
            }
            s.status = .exporting
            return s.settings
        }
        let job = ExportJob(session: self, settings: settings, url: url, fileType: fileType)
        let outcome = Lock<ReelError?>(nil)
        let task = Task {
            do throws(ReelError) {
                if settings.fileLengthLimit > 0 {
                    try await job.run(withinLength: settings.fileLengthLimit)
                } else {
                    try await job.run()
                }
            } catch {
                outcome.withLock { $0 = error }
            }
        }
        let cancelledEarly = state.withLock { s -> Bool in
            s.task = task
            return s.cancelRequested
        }
        if cancelledEarly { task.cancel() }
        await withTaskCancellationHandler {
            await task.value
        } onCancel: {
            task.cancel()
        }
        let failure = outcome.withLock { $0 }
        let observers = state.withLock { s -> [AsyncStream<Double>.Continuation] in
            s.task = nil
            if let failure {
                s.status = failure.code == .cancelled ? .cancelled : .failed
                s.error = failure
            } else {
                s.status = .completed
                s.progress = 1
            }
            let list = Array(s.observers.values)
            s.observers.removeAll()
            return list
        }
        for o in observers {
            if failure == nil { o.yield(1) }
            o.finish()
        }
        if let failure { throw failure }
    }
}
