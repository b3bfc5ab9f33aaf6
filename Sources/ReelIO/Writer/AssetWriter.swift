import Foundation
import Synchronization
import ReelCore
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
/// try writer.startWriting()
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
/// Timed metadata: `gpmd` tracks (MP4/MOV) and `klv` (MPEG-TS) go through FFmpeg.
/// `mebx` and `camm` tracks (MP4/MOV), which FFmpeg 5.1 cannot write, are spooled beside
/// the output and added after FFmpeg's trailer by ``MP4TrackAppender``, before the file
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

    private struct State {
        var status: Status = .unknown
        var error: ReelError?
        var inputs: [AssetWriterInput] = []
        var sessionStart: MediaTime = .invalid
        var queue: WriterQueue<WriterCommand>?
        var temporaryURL: URL?
        var threadDone: ThreadLatch?
        var optimizeForNetworkUse = true
        var metadata: [MetadataItem] = []
    }
    private let state = Mutex(State())

    /// A writer for a new file at `outputURL`. Throws when the folder does not exist, the
    /// path is a folder, or a file is there and `overwrite` is false.
    public init(outputURL: URL, fileType: FileType, overwrite: Bool = false) throws(ReelError) {
        self.outputURL = outputURL
        self.fileType = fileType
        self.overwrite = overwrite
        try checkDestination()
    }

    private func checkDestination() throws(ReelError) {
        let path = outputURL.path
        let folder = outputURL.deletingLastPathComponent().path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw ReelError(.fileNotFound, "the output folder does not exist", path: path)
        }
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            if isDirectory.boolValue { throw ReelError(.notAFile, "the output path is a folder", path: path) }
            if !overwrite { throw ReelError(.outputExists, "the output file exists (pass overwrite: true to replace it)", path: path) }
        }
    }

    public var status: Status { state.withLock { $0.status } }
    /// Why the writer failed, when ``status`` is `.failed`.
    public var error: ReelError? { state.withLock { $0.error } }
    public var inputs: [AssetWriterInput] { state.withLock { $0.inputs } }

    /// Move the MP4/MOV index to the front (`movflags +faststart`); on by default.
    public var shouldOptimizeForNetworkUse: Bool {
        get { state.withLock { $0.optimizeForNetworkUse } }
        set { state.withLock { $0.optimizeForNetworkUse = newValue } }
    }

    /// The file's own tags, written into the header (AVAssetWriter.metadata); set before
    /// ``startWriting()``. Common keys become FFmpeg's container tags (title →
    /// `title`, creationDate → `creation_time`, location → `location`, make, model,
    /// software → `encoder`), `container/KEY` items are written as `KEY`; others are
    /// left out.
    public var metadata: [MetadataItem] {
        get { state.withLock { $0.metadata } }
        set { state.withLock { if $0.status == .unknown { $0.metadata = newValue } } }
    }

    /// The FFmpeg container tags for `items`, in order, one per key.
    static func containerTags(_ items: [MetadataItem]) -> [(key: String, value: String)] {
        var tags: [(key: String, value: String)] = []
        for item in items {
            let key: String?
            switch item.identifier {
            case .commonTitle: key = "title"
            case .commonCreationDate: key = "creation_time"
            case .commonLocation: key = "location"
            case .commonMake: key = "make"
            case .commonModel: key = "model"
            case .commonSoftware: key = "encoder"
            case .quickTimeMetadataLocationISO6709: key = "location"
            default: key = item.keySpace == .container ? item.key : nil
            }
            guard let key, !tags.contains(where: { $0.key == key }) else { continue }
            let value: String?
            if case .date(let date) = item.value {
                value = date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
            } else {
                value = item.stringValue
            }
            if let value { tags.append((key, value)) }
        }
        return tags
    }

    // MARK: Inputs

    /// Why `input` cannot go into this file, or nil when it can.
    private func refusal(_ input: AssetWriterInput) -> ReelError? {
        let path = outputURL.path
        if status != .unknown { return ReelError(.writerState, "inputs can only be added before startWriting()", path: path) }
        if input.state.withLock({ $0.writer != nil }) { return ReelError(.writerState, "the input already belongs to a writer", path: path) }
        switch input.settings {
        case .metadata(let format):
            if fileType == .mkv {
                return ReelError(.invalidArgument, "Matroska holds no timed-metadata tracks (FFmpeg writes only audio, video and subtitles there): use .mp4, .mov or .mpegts", path: path)
            }
            switch format {
            case "gpmd" where fileType == .mp4 || fileType == .mov: return nil
            case "gpmd": return ReelError(.invalidArgument, "gpmd tracks go into MP4 or MOV only", path: path)
            case "klv" where fileType == .mpegts: return nil
            case "klv": return ReelError(.invalidArgument, "KLV tracks go into MPEG-TS only: FFmpeg would write an empty sample description into MP4/MOV, a corrupt file", path: path)
            case "camm" where fileType == .mp4 || fileType == .mov, "mebx" where fileType == .mp4 || fileType == .mov: return nil
            case "camm", "mebx": return ReelError(.invalidArgument, "\(format) tracks go into MP4 or MOV only", path: path)
            default:
                return ReelError(.invalidArgument, "no writer for \(format) metadata (gpmd, mebx, camm into MP4/MOV, klv into MPEG-TS)", path: path)
            }
        case .passthrough(let description):
            if description.mediaType != "audio" && description.mediaType != "video" {
                return ReelError(.invalidArgument, "passthrough copies audio or video tracks; write metadata with .metadata(format:)", path: path)
            }
            return nil
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
            return nil
        }
    }

    public func canAdd(_ input: AssetWriterInput) -> Bool { refusal(input) == nil }

    /// Adds a track; throws, saying why, when the input cannot go into this file type.
    public func add(_ input: AssetWriterInput) throws(ReelError) {
        if let error = refusal(input) { throw error }
        let index = state.withLock { s in
            s.inputs.append(input)
            return s.inputs.count - 1
        }
        input.state.withLock {
            $0.writer = self
            $0.index = index
        }
    }

    // MARK: Writing

    /// Opens the encoders, creates the temporary file and writes the header.
    public func startWriting() throws(ReelError) {
        let (inputs, optimize, metadata) = state.withLock { ($0.inputs, $0.optimizeForNetworkUse, $0.metadata) }
        guard status == .unknown else { throw ReelError(.writerState, "startWriting() was already called", path: outputURL.path) }
        guard !inputs.isEmpty else { throw ReelError(.writerState, "add an input before startWriting()", path: outputURL.path) }
        do {
            try checkDestination()
        } catch {
            fail(error)
            throw error
        }
        let temporary = outputURL.deletingLastPathComponent()
            .appendingPathComponent(".\(outputURL.lastPathComponent).\(UUID().uuidString.prefix(8)).reel-partial")
        let core: WriterCore
        do throws(ReelError) {
            let output = try OutputFormatContext(formatName: fileType.muxerName, path: temporary.path)
            output.setMetadata(Self.containerTags(metadata))
            var tracks: [(any TrackWriter)?] = []
            var appended: [(index: Int, input: AssetWriterInput, format: String)] = []
            for (index, input) in inputs.enumerated() {
                switch input.settings {
                case .video(let s): tracks.append(try VideoTrackWriter(s, output: output))
                case .audio(let s): tracks.append(try AudioTrackWriter(s, output: output))
                case .passthrough(let d): tracks.append(try PacketTrackWriter(passthrough: d, output: output))
                case .metadata(let f) where AppendedMetadataTracks.formats.contains(f):
                    tracks.append(nil)
                    appended.append((index, input, f))
                case .metadata(let f): tracks.append(try PacketTrackWriter(metadataFormat: f, output: output))
                }
                let transform = input.transform
                if transform != .identity, input.mediaType == .video, let track = tracks.last ?? nil {
                    try output.setDisplayMatrix(transform, streamIndex: Int(track.streamIndex))
                }
            }
            guard tracks.contains(where: { $0 != nil }) else {
                throw ReelError(.invalidArgument, "mebx and camm tracks describe other tracks: add a video or audio input too", path: outputURL.path)
            }
            let gpmd = inputs.contains { if case .metadata("gpmd") = $0.settings { true } else { false } }
            let postPass = (fileType == .mp4 || fileType == .mov) && (gpmd || !appended.isEmpty)
            // The pass that adds the metadata tracks also puts the index in front, so the
            // muxer's own faststart pass over the file is not needed.
            var options: [String: String] = [:]
            if optimize && !postPass && (fileType == .mp4 || fileType == .mov) { options["movflags"] = "+faststart" }
            let appendedTracks = postPass ? AppendedMetadataTracks(inputs: appended, beside: temporary, moovInFront: optimize) : nil
            core = try WriterCore(output: output, tracks: tracks, appended: appendedTracks, options: options)
        } catch {
            unlink(temporary.path)
            var located = error
            if located.path == nil { located.path = outputURL.path }
            fail(located)
            throw located
        }
        let queue = WriterQueue<WriterCommand>(capacity: 8)
        let latch = ThreadLatch()
        state.withLock {
            $0.status = .writing
            $0.queue = queue
            $0.temporaryURL = temporary
            $0.threadDone = latch
        }
        let thread = Thread { [self] in
            self.run(core: core, queue: queue, temporary: temporary)
            latch.open()
        }
        thread.name = "reel.writer"
        thread.start()
    }

    /// Where the written timeline starts: a sample at `time` lands at 0 in the file.
    /// Samples before it are not written.
    public func startSession(atSourceTime time: MediaTime) {
        state.withLock { if !$0.sessionStart.isValid { $0.sessionStart = time } }
    }

    var hasRoom: Bool { state.withLock { $0.queue }?.hasRoom ?? false }

    /// Throws unless the writer is writing and its session started.
    func checkAccepting() throws(ReelError) {
        let (status, start, error) = state.withLock { ($0.status, $0.sessionStart, $0.error) }
        switch status {
        case .writing: break
        case .unknown: throw ReelError(.writerState, "call startWriting() before appending", path: outputURL.path)
        case .failed: throw error ?? ReelError(.writerState, "the writer failed", path: outputURL.path)
        case .completed: throw ReelError(.writerState, "cannot append after finishWriting()", path: outputURL.path)
        case .cancelled: throw ReelError(.cancelled, "the writer was cancelled", path: outputURL.path)
        }
        if !start.isNumeric { throw ReelError(.writerState, "call startSession(atSourceTime:) before appending", path: outputURL.path) }
    }

    /// Queues a command from an input, waiting while the writer is behind.
    func submit(_ command: WriterCommand) async throws(ReelError) {
        let (status, start, queue, error) = state.withLock { ($0.status, $0.sessionStart, $0.queue, $0.error) }
        switch status {
        case .writing: break
        case .unknown: throw ReelError(.writerState, "call startWriting() before appending", path: outputURL.path)
        case .failed: throw error ?? ReelError(.writerState, "the writer failed", path: outputURL.path)
        case .completed: throw ReelError(.writerState, "cannot append after finishWriting()", path: outputURL.path)
        case .cancelled: throw ReelError(.cancelled, "the writer was cancelled", path: outputURL.path)
        }
        guard start.isNumeric, let queue else {
            throw ReelError(.writerState, "call startSession(atSourceTime:) before appending", path: outputURL.path)
        }
        guard let shifted = command.relative(to: start) else { return }
        try await queue.send(shifted)
    }

    /// Finishes every track, writes the trailer and moves the file into place.
    public func finishWriting() async throws(ReelError) {
        let (status, queue, error) = state.withLock { s in
            let snapshot = (s.status, s.queue, s.error)
            return snapshot
        }
        switch status {
        case .writing: break
        case .unknown: throw ReelError(.writerState, "finishWriting() before startWriting()", path: outputURL.path)
        case .completed: throw ReelError(.writerState, "finishWriting() was already called", path: outputURL.path)
        case .failed: throw error ?? ReelError(.writerState, "the writer failed", path: outputURL.path)
        case .cancelled: throw ReelError(.cancelled, "the writer was cancelled", path: outputURL.path)
        }
        guard let queue else { return }
        for input in inputs { input.markAsFinished() }
        let failure: ReelError? = await withCheckedContinuation { (continuation: CheckedContinuation<ReelError?, Never>) in
            do throws(ReelError) {
                try queue.sendNow(.finish(continuation))
            } catch {
                continuation.resume(returning: error)
            }
        }
        if let failure { throw failure }
    }

    /// Stops writing and removes the temporary file; returns once it is gone.
    public func cancelWriting() {
        let (queue, latch) = state.withLock { s -> (WriterQueue<WriterCommand>?, ThreadLatch?) in
            guard s.status == .writing || s.status == .unknown else { return (nil, nil) }
            s.status = .cancelled
            return (s.queue, s.threadDone)
        }
        guard let queue else { return }
        let dropped = queue.close(error: ReelError(.cancelled, "the writer was cancelled", path: outputURL.path))
        resumeFinishers(in: dropped, with: ReelError(.cancelled, "the writer was cancelled", path: outputURL.path))
        latch?.wait()
    }

    // MARK: The writer thread

    private func run(core: WriterCore, queue: WriterQueue<WriterCommand>, temporary: URL) {
        var core: WriterCore? = core
        var completed = false
        while let command = queue.take(), let active = core {
            if case .finish(let continuation) = command {
                var failure: ReelError?
                do {
                    try active.finish(file: temporary)
                    core = nil
                    try moveIntoPlace(temporary)
                    completed = true
                } catch {
                    failure = error
                }
                core = nil
                if let failure { fail(failure) } else { state.withLock { if $0.status == .writing { $0.status = .completed } } }
                queue.close(error: failure ?? ReelError(.writerState, "cannot append after finishWriting()", path: outputURL.path))
                continuation.resume(returning: failure)
                break
            }
            do {
                try active.handle(command)
            } catch {
                core = nil
                fail(error)
                let dropped = queue.close(error: error)
                resumeFinishers(in: dropped, with: error)
                break
            }
        }
        core = nil
        if !completed { unlink(temporary.path) }
    }

    private func moveIntoPlace(_ temporary: URL) throws(ReelError) {
        if !overwrite && FileManager.default.fileExists(atPath: outputURL.path) {
            throw ReelError(.outputExists, "a file appeared at the output path while writing", path: outputURL.path)
        }
        if rename(temporary.path, outputURL.path) != 0 {
            let code = errno
            throw ReelError(.outputFailed, "could not move the finished file into place (\(String(cString: strerror(code))))", path: outputURL.path)
        }
    }

    private func fail(_ error: ReelError) {
        state.withLock {
            if $0.status == .writing || $0.status == .unknown {
                $0.status = .failed
                $0.error = error
            }
        }
    }

    private func resumeFinishers(in commands: [WriterCommand], with error: ReelError) {
        for command in commands {
            if case .finish(let continuation) = command { continuation.resume(returning: error) }
        }
    }
}

/// A one-shot gate: `wait` blocks until `open` was called.
final class ThreadLatch: @unchecked Sendable {
    // @unchecked: `isOpen` is read and written only while `condition` is locked.
    private let condition = NSCondition()
    private var isOpen = false

    func open() {
        condition.lock()
        isOpen = true
        condition.broadcast()
        condition.unlock()
    }

    func wait() {
        condition.lock()
        while !isOpen { condition.wait() }
        condition.unlock()
    }
}
