import Foundation
import ReelComposition
import ReelCore
import ReelIO

/// The frames of one video track of a file, for the render engine: a `VideoFrameSource`
/// on top of `AssetReader`.
///
/// Reading is sequential: a reader thread decodes ahead of the engine by `lookahead`
/// frames (FFmpeg's codec threading on), so decoding runs in parallel with compositing
/// and encoding. The source seeks only when the composition jumps: backwards (past the
/// few frames it keeps), further forward than ``Options/maximumForwardSkip``, or forward
/// past a keyframe (from the file's index) more than a few frames ahead, since decoding
/// from that keyframe costs less than decoding everything up to it.
///
/// Up to ``Options/maximumCursors`` read positions are kept, so a composition that plays
/// two parts of the same file at once (a crossfade of a clip with itself) reads each part
/// sequentially instead of seeking on every frame. A seek moves the read position used
/// least recently: its reader output, opened for random access, seeks its open demuxer
/// and empties its decoder (`AssetReaderTrackOutput/reset(forReadingTimeRanges:)`)
/// rather than opening and probing the file again. The reader finds the frame showing at
/// the asked time from the packets' time stamps and decodes, from the keyframe before it,
/// only that frame and the pictures it depends on, so the frame returned is exact. A new
/// reader is opened only while fewer than ``Options/maximumCursors`` exist.
///
/// A seek's frame (``seekFrame(at:acceptedFormats:)``) comes out of the decoder as soon as
/// it is decoded, not after the pictures that follow it: the decoder is drained there,
/// and decodes from the keyframe again to read on once a frame after it is asked for.
///
/// Each position keeps the last ``Options/recentFrames`` frames it passed, so a step back
/// by a frame or two (a player's ←) is answered without a seek once it has read on from
/// where it seeked.
public actor AssetVideoFrameSource: VideoFrameSource {
    /// How the source decodes and when it seeks.
    public struct Options: Sendable, Hashable {
        /// The pixel format frames are delivered in (the compositor's, to avoid a conversion).
        public var pixelFormat: PixelFormat
        /// Scale frames to this size when set (libswscale); the track's size otherwise.
        public var size: (width: Int, height: Int)? {
            get { width.flatMap { w in height.map { (w, $0) } } }
            set { width = newValue?.width; height = newValue?.height }
        }
        private var width: Int?
        private var height: Int?
        /// Frames decoded ahead of the engine, per read position; 0 to decode each when the
        /// engine asks for it (`AssetReaderTrackOutput.bufferCapacity`).
        public var lookahead: Int
        /// A request this far past the current position seeks instead of decoding through.
        public var maximumForwardSkip: MediaTime
        /// Read positions kept at once (at least 1).
        public var maximumCursors: Int
        /// How much earlier than the asked time a seek starts delivering frames.
        public var seekPreroll: MediaTime
        /// Frames before the current one each read position keeps, for steps back.
        public var recentFrames: Int

        public init(
            pixelFormat: PixelFormat = .yuv420p, size: (width: Int, height: Int)? = nil, lookahead: Int = 4,
            maximumForwardSkip: MediaTime = MediaTime(value: 2, timescale: 1), maximumCursors: Int = 2,
            seekPreroll: MediaTime = MediaTime(value: 1, timescale: 2), recentFrames: Int = 2
        ) {
            self.pixelFormat = pixelFormat
            self.width = size?.width
            self.height = size?.height
            self.lookahead = max(0, lookahead)
            self.maximumForwardSkip = maximumForwardSkip
            self.maximumCursors = max(1, maximumCursors)
            self.seekPreroll = seekPreroll.isNumeric && seekPreroll > .zero ? seekPreroll : .zero
            self.recentFrames = max(0, recentFrames)
        }

        /// How an export reads: each video track in order, each frame decoded when the
        /// engine asks for it (the decoder's own threads work ahead; a frame decoded
        /// earlier would only wait for the encoder, held in memory), keeping none of the
        /// frames it passed (a player's step back needs them; an export never steps back).
        public static var export: Options { Options(lookahead: 0, recentFrames: 0) }
    }

    public nonisolated let url: URL
    public nonisolated let trackID: Int32
    public nonisolated let options: Options

    private var cursors: [VideoCursor] = []
    private var useCounter = 0
    private let gate = AsyncGate()
    /// How many readers were opened: the first read, and each read position added.
    public private(set) var readerOpenCount = 0
    /// How many seeks moved an open reader instead of opening one.
    public private(set) var seekCount = 0
    /// How many readers are open now (read positions kept); none once closed.
    package var openReaderCount: Int { cursors.count }
    /// How many pictures the open read positions decoded and dropped: to reach the frames
    /// seeks asked for, and again to read on after a seek's frame.
    package var droppedPictureCount: Int { cursors.reduce(0) { $0 + $1.droppedPictureCount } }
    /// When the track's keyframes show, from the file's index; nil until a reader opened it.
    private var keyframes: [MediaTime]?

    /// A source for track `trackID` of the file at `url`. The file is opened on first use.
    public init(url: URL, trackID: Int32, options: Options = Options()) {
        self.url = url
        self.trackID = trackID
        self.options = options
    }

    public func frame(at sourceTime: MediaTime) async throws(ReelError) -> VideoFrame? {
        try await frame(at: sourceTime, format: options.pixelFormat)
    }

    /// The frame in ``Options/pixelFormat`` when `acceptedFormats` holds it, else in the
    /// first accepted format, converted by the reader's scaler on its own thread.
    public func frame(at sourceTime: MediaTime, acceptedFormats: [PixelFormat]?) async throws(ReelError) -> VideoFrame? {
        try await frame(at: sourceTime, format: format(accepting: acceptedFormats))
    }

    /// The frame for a seek, as ``frame(at:acceptedFormats:)`` gives it; when a read
    /// position has to seek for it, its reader drains the decoder at it, so it comes out
    /// without waiting for the pictures after it (FFmpeg's frame threads and the codec's
    /// reordering hold a frame back for a few), and decodes from the keyframe again to read
    /// on when a frame after it is asked for: the frame comes sooner, the ones after it later.
    public func seekFrame(at sourceTime: MediaTime, acceptedFormats: [PixelFormat]?) async throws(ReelError) -> VideoFrame? {
        try await frame(at: sourceTime, format: format(accepting: acceptedFormats), seeking: true)
    }

    /// ``Options/pixelFormat`` when `acceptedFormats` holds it (or is nil), else the first
    /// accepted format.
    private func format(accepting acceptedFormats: [PixelFormat]?) -> PixelFormat {
        acceptedFormats.flatMap { $0.contains(options.pixelFormat) ? nil : $0.first } ?? options.pixelFormat
    }

    private func frame(at sourceTime: MediaTime, format: PixelFormat, seeking: Bool = false) async throws(ReelError) -> VideoFrame? {
        guard sourceTime.isNumeric else { return nil }
        // Calls are served one at a time: a cursor is never read by two callers at once.
        await gate.enter()
        defer { gate.leave() }
        let cursor = try await pickCursor(for: sourceTime, format: format, drainingAtFrame: seeking)
        useCounter += 1
        cursor.lastUse = useCounter
        do {
            return try await cursor.frame(at: sourceTime)
        } catch {
            if error.code == .cancelled, Task.isCancelled {
                // The caller went (a player's seek stops the render reading on): the reader
                // stops at its next packet and stays open, for the next seek to move.
                cursor.interrupt()
            } else {
                cursor.close()
                cursors.removeAll { $0 === cursor }
            }
            throw error
        }
    }

    /// The time the last keyframe at or before `sourceTime` shows, from the file's index
    /// (read once; the file is opened for it when no read has opened it yet); nil when the
    /// index lists no keyframes or the file does not open.
    public func randomAccessTime(atOrBefore sourceTime: MediaTime) async -> MediaTime? {
        if keyframes == nil {
            let reader = try? await AssetReader.open(url: url)
            keyframes = reader?.keyframeTimes(trackID: trackID) ?? []
        }
        return VideoCursor.lastKeyframe(atOrBefore: sourceTime, in: keyframes ?? [])
    }

    /// Stops every reader and lets go of the frames they decoded; the next request opens the
    /// file again. Waits for a request in progress, and for the readers' threads to end: on
    /// return their decoders are freed and their demuxers back with the file for its next
    /// reader.
    public func close() async {
        await gate.enter()
        defer { gate.leave() }
        let closing = cursors
        cursors.removeAll()
        for cursor in closing { await cursor.closeAndWait() }
    }

    /// The cursor that reaches `time` by reading forward the least, or a new one (moved or
    /// opened to read from `time`, draining its decoder at that frame when `drains`).
    private func pickCursor(for time: MediaTime, format: PixelFormat, drainingAtFrame drains: Bool) async throws(ReelError) -> VideoCursor {
        var best: VideoCursor?
        for cursor in cursors where cursor.format == format && cursor.canReach(time, maximumSkip: options.maximumForwardSkip, seeking: drains) {
            if best.map({ $0.position < cursor.position }) ?? true { best = cursor }
        }
        if let best { return best }
        // A position that read to the end of the track has nothing more to give (a clip
        // that plays again from its start, as in a join of the same file): it moves, its
        // demuxer and decoder reused, rather than a second one opening beside it and
        // keeping the first one's decoded frames alive for the rest of the render.
        let oldest = cursors.min(by: { $0.lastUse < $1.lastUse })
        let ended = cursors.filter { ($0.hasEnded || $0.isInterrupted) && $0.format == format }.min(by: { $0.lastUse < $1.lastUse })
        if let movable = ended ?? (cursors.count >= options.maximumCursors && oldest?.format == format ? oldest : nil) {
            do {
                try movable.move(to: time, drainingAtFrame: drains)
                seekCount += 1
                return movable
            } catch {
                // Its reader failed or stopped: open a new one in its place.
                movable.close()
                cursors.removeAll { $0 === movable }
            }
        }
        if cursors.count >= options.maximumCursors, let oldest = cursors.min(by: { $0.lastUse < $1.lastUse }) {
            oldest.close()
            cursors.removeAll { $0 === oldest }
        }
        // The file is opened and probed on a thread of its own, not on the actor.
        let cursor = try VideoCursor(
            reader: try await AssetReader.open(url: url), trackID: trackID, start: time,
            format: format, options: options, drainingAtFrame: drains)
        readerOpenCount += 1
        if keyframes == nil { keyframes = cursor.keyframes }
        cursors.append(cursor)
        return cursor
    }
}

/// One read position in a video track: a reader started at some time (moved by seeks),
/// the frame last returned, the few before it, and the frame read past it.
final class VideoCursor {
    private let reader: AssetReader
    private let output: AssetReaderTrackOutput
    private let nominalDuration: MediaTime
    private let seekPreroll: MediaTime
    private let recentLimit: Int
    /// When the track's keyframes show, from the file's index (empty when unknown).
    let keyframes: [MediaTime]
    /// Where the reader's range starts.
    private(set) var start: MediaTime
    /// The pixel format of the frames.
    let format: PixelFormat
    /// The last frame taken from the reader (returned or skipped).
    private var current: VideoFrame?
    /// Frames before `current`, oldest first, at most `recentLimit`.
    private var recent: [VideoFrame] = []
    /// A frame read ahead, not yet current.
    private var pending: VideoFrame?
    private var ended = false
    var lastUse = 0
    /// Whether every frame of the track up to its end was taken: nothing is left to read.
    var hasEnded: Bool { ended && pending == nil }
    /// Whether a wait for a frame was cancelled, which stops the reader: the cursor gives
    /// nothing more until it moves.
    private(set) var isInterrupted = false
    /// Whether the reader drained its decoder at the frame it moved to and has not read on:
    /// reading on then decodes from the keyframe again, which costs more than a seek to a
    /// later frame of the same group.
    private var drainedAtStart = false

    /// A cursor reading track `trackID` of `reader` (opened, not started) from `start`,
    /// draining the decoder at that frame when `drains`.
    init(
        reader: AssetReader, trackID: Int32, start: MediaTime, format: PixelFormat, options: AssetVideoFrameSource.Options,
        drainingAtFrame drains: Bool = false
    ) throws(ReelError) {
        let url = reader.url
        guard let track = reader.track(withID: trackID) else {
            let known = reader.tracks.map { String($0.trackID) }.joined(separator: ", ")
            throw ReelError(.invalidArgument, "the file has no track \(trackID) (tracks: \(known))", path: url.path, trackID: trackID)
        }
        guard track.mediaType == .video else {
            throw ReelError(.invalidArgument, "track \(trackID) is \(track.mediaType), not video", path: url.path, trackID: trackID)
        }
        let output = AssetReaderTrackOutput(
            trackID: trackID,
            settings: .video(pixelFormat: format, width: options.size?.width, height: options.size?.height),
            bufferCapacity: options.lookahead)
        output.supportsRandomAccess = true
        // A player's or a preview's reads seek often; an export's read on (``Options/export``).
        output.decodesForSeeks = options.recentFrames > 0
        // The read seeks to `start` and delivers from the frame showing then, found from
        // the packets' time stamps. The range starts a little early for files whose packets
        // carry no time stamps, where the reader drops frames that end (by their packet
        // duration) before its range: durations of variable-frame-rate files can be
        // shorter than the time a frame shows, so the cursor picks.
        output.startSeekTime = start
        output.startDrainsAtSeekFrame = drains
        try reader.add(output)
        reader.timeRange = Self.readRange(from: start, preroll: options.seekPreroll)
        try reader.startReading()
        self.reader = reader
        self.output = output
        self.start = start
        self.format = format
        self.seekPreroll = options.seekPreroll
        self.recentLimit = options.recentFrames
        self.keyframes = reader.keyframeTimes(trackID: trackID)
        self.drainedAtStart = drains
        let timescale = track.formatDescription.timescale
        self.nominalDuration = timescale > 0 ? MediaTime(value: 1, timescale: 30).convertScale(timescale) : MediaTime(value: 1, timescale: 30)
    }

    deinit { reader.cancelReading() }

    /// How many pictures the cursor's reader decoded and dropped (``AssetReaderTrackOutput/droppedFrameCount``).
    var droppedPictureCount: Int { output.droppedFrameCount }

    func close() { reader.cancelReading() }

    /// Stops the reader and waits for its thread to end (``AssetReader/cancelReadingAndWait()``).
    func closeAndWait(isolation actor: isolated (any Actor)? = #isolation) async { await reader.cancelReadingAndWait() }

    /// The range a read from `start` asks for: from `preroll` earlier, not before zero.
    private static func readRange(from start: MediaTime, preroll: MediaTime) -> TimeRange {
        let early = start - preroll
        return TimeRange(start: early > .zero ? early : .zero, duration: .positiveInfinity)
    }

    /// Moves the cursor to read from `time`: the reader's output seeks its open file (and
    /// drains its decoder at that frame when `drains`).
    func move(to time: MediaTime, drainingAtFrame drains: Bool = false) throws(ReelError) {
        // The seek goes to the keyframe before the time itself (decoding from one before the
        // early start would decode a whole group more), and the read delivers from the frame
        // showing at it.
        try output.reset(forReadingTimeRanges: [Self.readRange(from: time, preroll: seekPreroll)], seekingTo: time, drainingAtSeekFrame: drains)
        start = time
        current = nil
        recent = []
        pending = nil
        ended = false
        isInterrupted = false
        drainedAtStart = drains
    }

    /// Marks the cursor as stopped by a cancelled wait (its reader's queue is cancelled with
    /// it): it keeps its open file and decoder, and reads again once moved.
    func interrupt() {
        isInterrupted = true
        current = nil
        recent = []
        pending = nil
    }

    /// How far the cursor has read: the end of its current frame, or where it started.
    var position: MediaTime { current?.timeRange.start ?? start }

    /// Whether `time` is in a frame the cursor keeps, or after the current frame and
    /// cheaper to read on to than to seek to (``readsOn(from:to:maximumSkip:)``); for a
    /// seek (`seeking`), not past the frame a drained reader stopped at.
    func canReach(_ time: MediaTime, maximumSkip: MediaTime, seeking: Bool = false) -> Bool {
        if isInterrupted { return false }
        if let current {
            if current.timeRange.containsTime(time) { return true }
            if time < current.timeRange.start { return recent.contains { $0.timeRange.containsTime(time) } }
            if seeking, drainedAtStart { return false }
            return readsOn(from: current.timeRange.end, to: time, maximumSkip: maximumSkip)
        }
        if let pending, time < pending.presentationTime { return !(time < start) }
        return !(time < start) && readsOn(from: start, to: time, maximumSkip: maximumSkip)
    }

    /// How far past the read position a keyframe must be before a seek to it is cheaper
    /// than decoding up to it: a seek empties the decoder, whose threads and reordering
    /// then hold back the first frames.
    static let readOnPastKeyframe = MediaTime(value: 1, timescale: 10)

    /// Whether reading from `position` on to `time` costs less than a seek: `time` is at
    /// most `maximumSkip` ahead, and the last keyframe at or before it (a seek's start) is
    /// not more than ``readOnPastKeyframe`` after `position`.
    func readsOn(from position: MediaTime, to time: MediaTime, maximumSkip: MediaTime) -> Bool {
        if position + maximumSkip < time { return false }
        guard let keyframe = Self.lastKeyframe(atOrBefore: time, in: keyframes) else { return true }
        return !(position + Self.readOnPastKeyframe < keyframe)
    }

    /// The last of `keyframes` (sorted) at or before `time` (binary search).
    static func lastKeyframe(atOrBefore time: MediaTime, in keyframes: [MediaTime]) -> MediaTime? {
        var low = 0, high = keyframes.count
        while low < high {
            let mid = (low + high) / 2
            if time < keyframes[mid] { high = mid } else { low = mid + 1 }
        }
        return low > 0 ? keyframes[low - 1] : nil
    }

    /// The frame whose range holds `time`, reading forward as needed; nil when the track
    /// shows nothing then.
    func frame(at time: MediaTime, isolation actor: isolated (any Actor)? = #isolation) async throws(ReelError) -> VideoFrame? {
        while true {
            if let current, current.timeRange.containsTime(time) { return current }
            if let current, time < current.timeRange.start { return recent.last { $0.timeRange.containsTime(time) } }
            guard let next = try await take() else { return nil }
            if time < next.presentationTime {
                pending = next
                // A frame the packets announced did not come out of the decoder (a damaged
                // packet): the one before shows on until the next, as a player shows it.
                if var shown = current, shown.presentationTime < next.presentationTime {
                    shown.duration = next.presentationTime - shown.presentationTime
                    current = shown
                    return shown
                }
                // A time before the first frame: keep it for later.
                return nil
            }
            let frame = try await complete(next)
            // A frame after the first: the reader has read on.
            if current != nil { drainedAtStart = false }
            if let current, recentLimit > 0 {
                recent.append(current)
                if recent.count > recentLimit { recent.removeFirst(recent.count - recentLimit) }
            }
            current = frame
            if frame.timeRange.containsTime(time) { return frame }
        }
    }

    /// The next decoded frame: the one kept back, else the reader's.
    private func take(isolation actor: isolated (any Actor)? = #isolation) async throws(ReelError) -> VideoFrame? {
        if let pending {
            self.pending = nil
            return pending
        }
        guard !ended else { return nil }
        while let sample = try await output.next(isolation: actor) {
            if let frame = sample.videoFrame { return frame }
        }
        ended = true
        return nil
    }

    /// The frame with its range: until the next frame starts (what a player shows,
    /// whatever the packet durations say), or for its own duration when it is the last.
    /// The first frames after a seek are not kept waiting for the next one to be decoded:
    /// the reader read the packets' time stamps up to it.
    private func complete(_ frame: VideoFrame, isolation actor: isolated (any Actor)? = #isolation) async throws(ReelError) -> VideoFrame {
        var duration = MediaTime.invalid
        if pending == nil, let next = output.timeOfFrame(after: frame.presentationTime), frame.presentationTime < next {
            duration = next - frame.presentationTime
        } else if let next = try await take(isolation: actor) {
            pending = next
            duration = next.presentationTime - frame.presentationTime
        }
        if !(duration.isNumeric && duration > .zero) { duration = frame.duration }
        if !(duration.isNumeric && duration > .zero) { duration = nominalDuration }
        var completed = frame
        completed.duration = duration
        return completed
    }
}
