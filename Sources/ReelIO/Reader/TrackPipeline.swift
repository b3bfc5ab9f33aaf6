internal import CFFmpeg
import Foundation
import ReelCore

/// The demux/decode loop of one reader output, run on a thread of its own: reads the
/// track's packets from its own opened file (the reader's probed one for its first
/// output), decodes and converts them as the output's
/// settings ask, and pushes the results into the output's bounded queue (blocking there
/// when the consumer is behind).
///
/// A time range starts frame-exactly: the loop seeks to the keyframe at or before the
/// start, decodes from there, and drops what ends before the start. A sample is
/// delivered when `[pts, pts + duration)` overlaps the range (samples without a duration
/// when `pts` is inside it; samples without a pts, such as asynchronous KLV, always).
///
/// A video read that seeks to a time (a random-access output's seek) first reads the
/// packets from the keyframe to the first one decoded after that time, so it knows the
/// frame showing then: the frames before it are not converted or delivered, and those no
/// other picture refers to are not decoded at all. When the seek drains at its frame
/// (``run(seekingTo:drainingAtSeekFrame:)``), that frame comes out as soon as it is decoded,
/// and the packets from the keyframe are decoded again to read on once the consumer asks
/// for a frame after it.
final class TrackPipeline {
    let input: InputFormatContext
    let streamIndex: Int
    let trackID: Int32
    let kind: StreamKind
    let settings: AssetReaderTrackOutput.Settings
    private(set) var start: MediaTime
    private(set) var end: MediaTime
    private(set) var queue: BoundedQueue<AssetReaderSample>
    private let timeBase: AVRational
    private let formatName: String
    private var decoder: Decoder?
    private var scaler: Scaler?
    private var pool: PixelBufferPool?
    /// Whether the read seeks often (a player's, a preview's). Such a read decodes with a
    /// thread more (``Decoder/seekingThreadCount``); it hands on copies of the decoder's
    /// pictures, not the pictures themselves; and it starts its own frame pool afresh at
    /// each seek. FFmpeg's decoder keeps every picture buffer it ever needed at once until
    /// it is closed, and a player holds the frames it was given for a varying while (the
    /// recent frames kept for a step back, a render under way when a seek comes): lent to
    /// the player, the decoder's pictures made the decoder's memory the most it ever was,
    /// which grew over a long run of seeks. Copied, they leave the decoder only what it
    /// holds itself, the same at every seek. Copying a 1080p picture takes about 0.65 ms.
    private let seeks: Bool
    private var resampler: Resampler?
    private let fallbackFrameDuration: MediaTime
    /// For an MP4/QuickTime metadata track: each sample's place through the edit list.
    private let metadataTimes: MetadataSampleTimes?
    /// A metadata sample waiting for the next one, which gives its duration when the
    /// container does not (fragmented MP4, MPEG-TS).
    private var heldSample: SampleBuffer?
    /// Whether the next metadata packet without a time is the track's first, read from
    /// its start (no seek): it is placed at the stream's start, and a decoder places the
    /// ones after it by their own time stamps relative to it (asynchronous KLV).
    private var untimedPacketStartsTrack = true
    /// After a seek to a time: the packets read ahead to find the frame showing then, not
    /// yet decoded.
    private var readAhead: [Packet] = []
    /// After a seek to a time: the presentation time stamp of the frame showing then (in
    /// the stream's time base). Frames before it are neither delivered nor, when no picture
    /// refers to them, decoded. Nil when the read delivers by the range's start instead.
    private var firstShown: Int64?
    /// After a seek that drains at its frame: the presentation time stamp of that frame,
    /// until its packet is sent, and the packets sent since the seek, kept to be sent again.
    private var drainTarget: Int64?
    private var sentSinceSeek: [Packet] = []
    /// While the decoder is drained at a seek's frame: that frame's time stamp. The frames
    /// after it that come out now are dropped; they come again, in order, after the packets
    /// are sent again.
    private var drainingThrough: Int64?
    /// After a drain: the latest time stamp delivered. The frames up to it, decoded again to
    /// read on, are not delivered twice (and, when no picture refers to them, not decoded).
    private var deliveredThrough: Int64?
    /// The time stamp of the last video frame delivered since the seek.
    private var lastDelivered: Int64?
    /// After a drain: the packets are sent again only once a consumer asks for a frame after
    /// the seek's (the next request may well be another seek).
    private var replayWaitsForDemand = false
    /// How many frames after the one showing at a seek's time are timed from the packets
    /// read ahead: the ones a consumer asks for before the decoder has caught up.
    static let framesTimedAhead = 3
    /// The presentation time stamps of the video packets sent to the decoder whose frames
    /// have not come out yet, ascending, and the latest decode time stamp sent (or whether
    /// the decoder has had the stream's end): what tells when the frame after a delivered
    /// one starts (``noteNextFrame(after:)``).
    private var sentTimes: [Int64] = []
    private var lastSentOrder = Int64.min
    private var sentEverything = false
    /// Counts the decoded pictures dropped before what the read delivers.
    private let dropped: Lock<Int>?
    /// Packets the decoder refused as damaged since it last gave a frame (``refuse(_:)``).
    private var refusedInARow = 0
    /// Damaged packets in a row a read goes on past: a second of pictures at 15 fps.
    static let refusalLimit = 15
    /// Where the frame showing at a seek's time and the next one's time are noted.
    private let frameTimes: Lock<FrameTimes>?
    /// The file read, which counts the pictures decoded.
    private let file: MediaFile
    /// For an H.264 track: how its NAL units are framed (prefixed by lengths of the size its
    /// `avcC` gives, or after start codes), to find the pictures no other refers to
    /// (``H264NonReferencePicture``); nil for other codecs, whose decoder skips them.
    private let h264Framing: H264Framing?
    private enum H264Framing { case lengthPrefixed(Int), startCodes }
    /// For a decoded H.264 track that may be coded as field pictures: which packets are
    /// the second field of a frame (``FieldPairing``); nil otherwise.
    private let fieldPairing: FieldPairing?

    /// A loop reading track `trackID` of `input`, which it uses alone until it is gone. Made
    /// on the output's own thread: it takes a metadata track's sample times from the file's
    /// MP4 boxes (parsed once per file) and opens the decoder, with a thread more when the
    /// read `seeks` (``Decoder/seekingThreadCount``). ``check(_:track:path:)`` has already run.
    init(
        input: InputFormatContext, trackID: Int32, settings: AssetReaderTrackOutput.Settings, timeRange: TimeRange,
        queue: BoundedQueue<AssetReaderSample>, file: MediaFile, dropped: Lock<Int>? = nil,
        frameTimes: Lock<FrameTimes>? = nil, seeks: Bool = false
    ) throws(ReelError) {
        guard let index = input.streamIndex(forTrackID: trackID) else {
            throw ReelError(.invalidArgument, "the file has no such track", path: input.path, trackID: trackID)
        }
        self.input = input
        self.streamIndex = index
        self.trackID = trackID
        self.kind = input.kind(ofStreamAt: index)
        self.seeks = seeks
        self.settings = settings
        self.start = timeRange.start
        self.end = timeRange.end
        self.queue = queue
        self.dropped = dropped
        self.frameTimes = frameTimes
        self.file = file
        let stream = input.stream(index)
        self.timeBase = stream.pointee.time_base
        let rate = stream.pointee.avg_frame_rate
        self.fallbackFrameDuration = rate.num > 0 && rate.den > 0 ? MediaTime(value: Int64(rate.den), timescale: rate.num) : .invalid
        let isQuickTime = ContainerFamily(formatName: input.formatName) == .quickTime
        switch kind {
        case .metadata(let format):
            formatName = format.rawValue
            metadataTimes = isQuickTime ? file.sampleTimes(trackID: trackID, using: input) : nil
        default:
            metadataTimes = nil
            formatName =
                fourCCString(stream.pointee.codecpar.pointee.codec_tag)
                ?? String(cString: avcodec_get_name(stream.pointee.codecpar.pointee.codec_id))
        }
        let parameters = stream.pointee.codecpar.pointee
        if case .video = settings, parameters.codec_id == AV_CODEC_ID_H264 {
            let extra = parameters.extradata.map { UnsafeBufferPointer(start: $0, count: Int(parameters.extradata_size)) }
            // An `avcC` record starts with its version, 1; its fifth byte holds the length size.
            if let extra, extra.count >= 7, extra[0] == 1 {
                h264Framing = .lengthPrefixed(Int(extra[4] & 3) + 1)
            } else {
                h264Framing = .startCodes
            }
        } else {
            h264Framing = nil
        }
        if case .video = settings { fieldPairing = FieldPairing(stream) } else { fieldPairing = nil }
        try configure(threadCount: seeks ? Decoder.seekingThreadCount : Decoder.defaultThreadCount)
        input.discardAllStreams(except: index)
    }

    /// Checks that `settings` fit `track` without touching the file: the track's kind, the
    /// output size, and that a decoder exists for its codec (``AssetTrack/isDecodable``,
    /// from `avcodec_find_decoder`). ``AssetReader/startReading()`` throws what this throws.
    static func check(_ settings: AssetReaderTrackOutput.Settings, track: AssetTrack, path: String) throws(ReelError) {
        switch settings {
        case .passthrough:
            return
        case .video(_, let width, let height):
            // Cover art is a video stream of one attached picture: not a track to decode.
            guard track.mediaType == .video, !track.isCoverPicture else {
                throw ReelError(.invalidArgument, "track is not a video track: use .passthrough or .audioPCM", path: path, trackID: track.trackID)
            }
            if let width, let height, width <= 0 || height <= 0 || width > 16384 || height > 16384 {
                throw ReelError(.invalidArgument, "output size \(width)x\(height) is out of range", path: path, trackID: track.trackID)
            }
        case .audioPCM:
            guard track.mediaType == .audio else {
                throw ReelError(.invalidArgument, "track is not an audio track: use .video or .passthrough", path: path, trackID: track.trackID)
            }
        }
        guard track.isDecodable else {
            throw ReelError(.decoderFailed, "no decoder for \(track.formatDescription.codecName) in this FFmpeg", path: path, trackID: track.trackID)
        }
    }

    /// Opens the decoder the settings need (``check(_:track:path:)`` has passed), with
    /// `threadCount` threads.
    private func configure(threadCount: Int32) throws(ReelError) {
        let stream = input.stream(streamIndex)
        switch settings {
        case .passthrough:
            return
        case .video:
            // Slice threads for the conversion: it then overlaps the decoder's frame threads.
            scaler = Scaler(threads: 0)
        case .audioPCM:
            break
        }
        do {
            let made = try Decoder(parameters: stream.pointee.codecpar, timeBase: timeBase, threadCount: threadCount)
            decoder = made
            if case .audioPCM = settings { resampler = try Resampler(decoder: made.pointer) }
        } catch {
            throw ReelError(
                .decoderFailed, "could not open a decoder for \(String(cString: avcodec_get_name(stream.pointee.codecpar.pointee.codec_id)))",
                path: input.path, trackID: trackID, underlying: error)
        }
    }

    /// The loop: runs until the track or the range ends, the consumer cancels, or an
    /// error, which it returns. The caller then finishes the queue. `seekTime`, when later
    /// than the range's start, is where the read seeks, and `drains` whether it drains there,
    /// as for ``run(timeRange:seekingTo:drainingAtSeekFrame:into:)``.
    func run(seekingTo seekTime: MediaTime? = nil, drainingAtSeekFrame drains: Bool = false) -> ReelError? {
        do throws(ReelError) {
            if let seekTime, seekTime.isNumeric, start.isNumeric, seekTime > start {
                try seek(to: seekTime, drainingAtFrame: drains)
            } else {
                try seekToStart()
            }
        } catch {
            return error
        }
        return readToEnd()
    }

    /// Reads `timeRange` next, into `queue`, with the same opened file and decoder: seeks
    /// the demuxer to the keyframe at or before its start (`avformat_seek_file`), or at or
    /// before `seekTime` when that is later (frames before it are then not wanted, though
    /// the range starts earlier), empties the decoder (`avcodec_flush_buffers`), then runs
    /// as ``run()`` does. What the last range left half-read is dropped.
    ///
    /// With `drains`, a video read seeking to `seekTime` gives out the frame showing then as
    /// soon as its packet is decoded: the decoder is drained there (FFmpeg's frame threads
    /// and the codec's reordering would hold that frame back until the next few pictures
    /// are decoded), emptied, and sent the packets from the keyframe again to read on, once
    /// a consumer waits for a frame after it. The frame comes sooner, the frames after it
    /// later: for a seek whose frame is shown alone first (a player's, a preview's), not for
    /// a read that plays on from it.
    func run(
        timeRange: TimeRange, seekingTo seekTime: MediaTime? = nil, drainingAtSeekFrame drains: Bool = false,
        into queue: BoundedQueue<AssetReaderSample>
    ) -> ReelError? {
        start = timeRange.start
        end = timeRange.end
        self.queue = queue
        heldSample = nil
        decoder?.flush()
        do throws(ReelError) {
            let target = seekTime.flatMap { $0.isNumeric && $0 > start ? $0 : nil } ?? start
            try seek(to: target, drainingAtFrame: drains && target != start)
        } catch {
            return error
        }
        return readToEnd()
    }

    /// Seeks the demuxer to the keyframe at or before `target`; for a video read, then finds
    /// the frame showing at `target` (and, with `drains`, drains the decoder once its packet
    /// is sent).
    private func seek(to target: MediaTime, drainingAtFrame drains: Bool = false) throws(ReelError) {
        // The pool's idle buffers are freed with it; frames still out are freed when let go.
        if seeks { pool = nil }
        readAhead = []
        fieldPairing?.reset()
        firstShown = nil
        drainTarget = nil
        sentSinceSeek = []
        deliveredThrough = nil
        lastDelivered = nil
        replayWaitsForDemand = false
        sentTimes = []
        lastSentOrder = .min
        sentEverything = false
        frameTimes?.withLock { $0 = FrameTimes() }
        let streamStart = input.stream(streamIndex).pointee.start_time
        let wanted = target.isNumeric ? target.ffmpegTimestamp(in: timeBase, method: .roundTowardNegativeInfinity) : nil
        var ts = wanted ?? (streamStart != reel_nopts_value() ? streamStart : 0)
        if streamStart != reel_nopts_value(), ts < streamStart { ts = streamStart }
        untimedPacketStartsTrack = streamStart != reel_nopts_value() && ts <= streamStart
        try input.seek(streamIndex: Int32(streamIndex), timestamp: ts)
        if target.isNumeric, start.isNumeric, !(target < start) { try findFirstShown(at: target) }
        if drains { drainTarget = firstShown }
    }

    /// Reads this stream's packets from where the demuxer stands up to the first one decoded
    /// after `target` (no packet after it can show at or before `target`: a presentation
    /// time is never before its decode time, and decode times grow), keeps them in
    /// ``readAhead`` and sets ``firstShown`` to the latest presentation time at or before
    /// `target`. Reads on until no later packet can show before the first few frames after
    /// it either, and notes their times in ``frameTimes``: how long each of those frames
    /// shows is then known before the next one comes out of the decoder. When the demuxer
    /// landed after `target` (a keyframe shown after it), seeks further back, a few times
    /// at most. Leaves ``firstShown`` nil when the packets do not tell (no time stamps), and
    /// the read then delivers by the range's start.
    ///
    /// A demuxer with no keyframe index (MPEG-TS, MPEG-PS) lands on whatever packet comes
    /// before `target`, most often inside a group of pictures, whose pictures cannot be
    /// decoded without the keyframe before them. Then the read starts at the last keyframe
    /// shown at or before `target`, and where none was read, seeks back from `target` by
    /// twice as far each time (``keyframeSearchSteps``).
    private func findFirstShown(at target: MediaTime) throws(ReelError) {
        guard case .video = settings, decoder != nil,
            let t = target.ffmpegTimestamp(in: timeBase, method: .roundTowardNegativeInfinity)
        else { return }
        let none = reel_nopts_value()
        let streamStart = input.stream(streamIndex).pointee.start_time
        var stepsBack = Self.keyframeSearchSteps(in: timeBase)[...]
        /// Whether the last step back went to before the stream's start.
        var seekedToStart = false
        for attempt in 0..<(4 + stepsBack.count) {
            readAhead = []
            fieldPairing?.reset()
            var shown = ShownTimes(target: t)
            var timed = true
            /// The first and last decode times read, and whether the stream ended.
            var firstOrder: Int64?
            var lastOrder = Int64.min
            var ended = false
            /// When the keyframe the demuxer landed on shows; whether it landed on one.
            var keyframeShows: Int64?
            var landedOnKeyframe = true
            /// Where a demuxer that landed between keyframes can start decoding: the last
            /// keyframe shown at or before `target`, its place in ``readAhead``.
            var lastKeyframe: Int?
            while true {
                let packet = Packet()
                guard try input.readPacket(into: packet) else {
                    ended = true
                    break
                }
                guard packet.streamIndex == Int32(streamIndex) else {
                    packet.unref()
                    continue
                }
                fieldPairing?.mark(packet)
                readAhead.append(packet)
                let pts = packet.pts, order = packet.dts != none ? packet.dts : packet.pts
                guard order != none else {
                    timed = false
                    break
                }
                if firstOrder == nil {
                    firstOrder = order
                    landedOnKeyframe = packet.isKeyframe
                    if packet.isKeyframe, pts != none { keyframeShows = pts }
                }
                if packet.isKeyframe, pts != none, pts <= t { lastKeyframe = readAhead.count - 1 }
                lastOrder = max(lastOrder, order)
                shown.note(packet)
                if queue.isCancelled { break }
                // Between keyframes with none read by `target`: nothing here can be decoded.
                if !landedOnKeyframe, lastKeyframe == nil, order > t, !stepsBack.isEmpty { break }
                // Past `target`: stop once no later packet can show before those frames either.
                if order > t, pts == none || shown.followsAfterDecodeTime(order) { break }
            }
            guard timed, !queue.isCancelled, let firstOrder else { return }
            let atStreamStart = streamStart != none && firstOrder <= streamStart
            if !landedOnKeyframe {
                if let lastKeyframe {
                    // Decode from that keyframe: what comes before it is not needed.
                    readAhead.removeFirst(lastKeyframe)
                    shown = ShownTimes(target: t)
                    for packet in readAhead { shown.note(packet) }
                } else if !seekedToStart, let step = stepsBack.popFirst() {
                    // A step to before the stream's start goes a step further still: its
                    // first decode time may come before its start (a presentation time) by
                    // the reordering delay, and a time before it lands on the first packet.
                    seekedToStart = streamStart != none && t - step < streamStart
                    try input.seek(streamIndex: Int32(streamIndex), timestamp: seekedToStart ? streamStart - step : t - step)
                    continue
                }
            }
            // The frame showing at `target` shows before the keyframe it is decoded after: a
            // leading picture of an open group of pictures (an HEVC RASL picture, a B-frame
            // before an open-GOP I-frame in H.264), which may refer to the group before and
            // which a decoder starting at this keyframe drops. Decode from the keyframe before.
            if let latest = shown.latest, let keyframeShows, latest < keyframeShows, attempt < 3, !atStreamStart {
                try input.seek(streamIndex: Int32(streamIndex), timestamp: min(firstOrder, keyframeShows) - 1)
                continue
            }
            if let latest = shown.latest {
                firstShown = latest
                // Those no later packet can come before (all of them at the stream's end).
                let certain = shown.following.prefix { ended || $0 <= lastOrder }
                let times = ([latest] + certain).map { MediaTime(ffmpeg: $0, timeBase: timeBase) }
                frameTimes?.withLock { $0 = FrameTimes(times: times) }
                return
            }
            // Nothing shows at or before `target` among these packets: before the stream's
            // first frame (nothing to find), or the seek landed after `target`. FFmpeg 5.1's
            // MP4 demuxer picks the keyframe by its decode time, so a time between a
            // keyframe's decode and presentation times lands on it: seek to before that
            // keyframe's decode time, which lands on the one before.
            guard let earliest = shown.earliest, attempt < 3, streamStart == none || earliest > streamStart else { return }
            try input.seek(streamIndex: Int32(streamIndex), timestamp: min(firstOrder, earliest) - 1)
        }
    }

    /// How far before a seek's time a demuxer that lands between keyframes is sent back
    /// when no keyframe was read before that time: 1 s, then twice as far each time, up to
    /// 32 s (a longer group of pictures is then decoded from where the last step landed,
    /// as far as its pictures decode).
    static func keyframeSearchSteps(in timeBase: AVRational) -> [Int64] {
        guard timeBase.num > 0, timeBase.den > 0 else { return [] }
        return [1, 2, 4, 8, 16, 32].map { av_rescale_q($0, AVRational(num: 1, den: 1), timeBase) }
    }

    /// The presentation times of the packets read after a seek, against the seek's time `target`
    /// (in the stream's time base): pictures an edit list cuts away are decoded but never
    /// shown, and are left out.
    struct ShownTimes {
        let target: Int64
        /// The latest presentation time at or before `target`, and the earliest of all.
        var latest: Int64?
        var earliest: Int64?
        /// The earliest presentation times after `target`, ascending, ``framesTimedAhead`` at most.
        var following: [Int64] = []

        init(target: Int64) { self.target = target }

        mutating func note(_ packet: Packet) {
            let pts = packet.pts
            // A frame's second field shows as part of the frame, at the first field's time.
            guard pts != reel_nopts_value(), packet.secondFieldOf == nil, packet.pointer.pointee.flags & AV_PKT_FLAG_DISCARD == 0
            else { return }
            if pts <= target, latest.map({ pts > $0 }) ?? true { latest = pts }
            if pts > target, !following.contains(pts) {
                following.insert(pts, at: following.firstIndex { pts < $0 } ?? following.count)
                if following.count > TrackPipeline.framesTimedAhead { following.removeLast() }
            }
            if earliest.map({ pts < $0 }) ?? true { earliest = pts }
        }

        /// Whether the frames after `target` are all known once a packet decoded at `order`
        /// has been read: none decoded later can show before them.
        func followsAfterDecodeTime(_ order: Int64) -> Bool {
            following.count == TrackPipeline.framesTimedAhead && order >= following[following.count - 1]
        }
    }

    private func readToEnd() -> ReelError? {
        do throws(ReelError) {
            let read = Packet()
            let frame = Frame()
            var done = false
            while !done {
                // The packets read ahead after a seek first, then the demuxer's.
                // The next packet is read only once the consumer has room for what it may
                // give: a frame decoded ahead is never held here waiting for a place.
                queue.waitForRoomBlocking()
                if replayWaitsForDemand {
                    queue.waitForDemandBlocking()
                    replayWaitsForDemand = false
                }
                let packet: Packet
                // Whether the packet is kept to be sent again after a drain at a seek's frame.
                var kept = false
                if !readAhead.isEmpty {
                    packet = readAhead.removeFirst()
                    if drainTarget != nil {
                        sentSinceSeek.append(packet)
                        kept = true
                    }
                } else {
                    // The packets read ahead hold the seek's frame: past them, nothing to drain at.
                    drainTarget = nil
                    sentSinceSeek = []
                    guard try input.readPacket(into: read) else { break }
                    if read.streamIndex == Int32(streamIndex) { fieldPairing?.mark(read) }
                    packet = read
                }
                defer { if !kept { packet.unref() } }
                if queue.isCancelled {
                    readAhead = []
                    sentSinceSeek = []
                    return nil
                }
                guard packet.streamIndex == Int32(streamIndex) else { continue }
                if let decoder {
                    if case .video = settings {
                        // A picture that will not be delivered is decoded only if others
                        // refer to it: after a seek, about half of the frames up to the one
                        // asked for are B-frames nothing refers to. An H.264 one is not
                        // sent at all; for other codecs, the decoder skips it.
                        let skip = isBeforeFirstDelivered(packet)
                        noteSent(packet)
                        if skip, isNonReferenceH264(packet) {
                            file.countPictureLeftOut()
                            continue
                        }
                        if decoder.skipsNonReferenceFrames != skip { decoder.skipsNonReferenceFrames = skip }
                    }
                    done = try decode(packet, with: decoder, into: frame)
                    // The seek's frame is whole once its packet, or its second field's, is sent.
                    if !done, let target = drainTarget, packet.framePTS == target, !packet.isFirstField {
                        drainTarget = nil
                        let replay = sentSinceSeek
                        sentSinceSeek = []
                        // Not drained when the frame is out already (no threads, no reordering).
                        if lastDelivered.map({ $0 < target }) ?? true {
                            done = try drain(decoder, through: target, into: frame)
                            deliveredThrough = lastDelivered
                            readAhead = replay + readAhead
                            replayWaitsForDemand = true
                        }
                    }
                } else {
                    done = try passThrough(packet)
                }
            }
            readAhead = []
            sentSinceSeek = []
            if !done, let decoder {
                sentEverything = true
                _ = try decode(nil, with: decoder, into: frame)
            }
            if !done { try releaseHeldSample(before: streamEnd) }
            return nil
        } catch {
            return error
        }
    }

    /// Gives out the frames the decoder holds (`avcodec_send_packet` with no packet), the
    /// seek's frame (`target`) among them and none after it, then empties the decoder for
    /// the packets sent again; true once past the range's end or cancelled.
    private func drain(_ decoder: Decoder, through target: Int64, into frame: Frame) throws(ReelError) -> Bool {
        drainingThrough = target
        defer { drainingThrough = nil }
        let stopped = try decode(nil, with: decoder, into: frame)
        decoder.flush()
        return stopped
    }

    /// Whether the packet is an H.264 picture no other picture refers to, which the decoder
    /// is then not sent at all (``H264NonReferencePicture``).
    private func isNonReferenceH264(_ packet: Packet) -> Bool {
        guard let h264Framing, let data = packet.pointer.pointee.data, packet.pointer.pointee.size > 0 else { return false }
        let bytes = UnsafeRawBufferPointer(start: data, count: Int(packet.pointer.pointee.size))
        switch h264Framing {
        case .lengthPrefixed(let size): return H264NonReferencePicture.holds(bytes, lengthSize: size)
        case .startCodes: return H264NonReferencePicture.holds(bytes, lengthSize: nil)
        }
    }

    /// Whether the packet's picture comes before the first frame delivered: before the frame
    /// showing at the seek time, or shown and gone before the range starts (by its time
    /// stamp and duration), or delivered already before a drain; false when it has no time
    /// stamp.
    private func isBeforeFirstDelivered(_ packet: Packet) -> Bool {
        let pts = packet.framePTS
        guard pts != reel_nopts_value() else { return false }
        if let deliveredThrough, pts <= deliveredThrough { return true }
        if let firstShown { return pts < firstShown }
        // A field's duration is half its frame's: not told from the packet alone.
        guard start.isNumeric, start > .zero, !packet.isFirstField, packet.secondFieldOf == nil else { return false }
        let duration = packet.duration > 0 ? MediaTime(ffmpeg: packet.duration, timeBase: timeBase) : fallbackFrameDuration
        guard duration.isNumeric, duration > .zero else { return false }
        return !(MediaTime(ffmpeg: packet.pts, timeBase: timeBase) + duration > start)
    }

    private func seekToStart() throws(ReelError) {
        guard start.isNumeric, start > .zero, let ts = start.ffmpegTimestamp(in: timeBase, method: .roundTowardNegativeInfinity) else { return }
        let streamStart = input.stream(streamIndex).pointee.start_time
        if streamStart != reel_nopts_value(), ts <= streamStart { return }
        untimedPacketStartsTrack = false
        try input.seek(streamIndex: Int32(streamIndex), timestamp: ts)
        // A video read starts at the frame showing at the range's start, decoded from the
        // keyframe before it (where a demuxer without a keyframe index landed on none).
        try findFirstShown(at: start)
    }

    private func decodeError(_ error: FFmpegError) -> ReelError {
        ReelError(.decoderFailed, "could not decode", path: input.path, trackID: trackID, underlying: error)
    }

    /// Whether a sample at `pts` lasting `duration` overlaps the range; `.pastEnd` once it
    /// starts at or after the end.
    private enum Placement { case before, inside, pastEnd }
    private func place(_ pts: MediaTime, _ duration: MediaTime) -> Placement {
        guard pts.isNumeric else { return .inside }
        if end.isNumeric || end.isNegativeInfinity, !(pts < end) { return .pastEnd }
        if duration.isNumeric, duration > .zero { return pts + duration > start ? .inside : .before }
        return pts < start ? .before : .inside
    }

    /// Records a packet the decoder refused as damaged (`AVERROR_INVALIDDATA`). It is
    /// skipped, as players and the ffmpeg CLI skip it (the decoder conceals the pictures
    /// that refer to it), unless the decoder has refused every packet for longer than
    /// ``refusalLimit``: then the stream is broken, not damaged, and the read fails.
    private func refuse(_ error: FFmpegError) throws(ReelError) {
        refusedInARow += 1
        if refusedInARow > Self.refusalLimit { throw decodeError(error) }
    }

    /// Feeds a packet (nil: the end of the stream) and hands on the frames it gives; true
    /// once past the range's end or cancelled.
    private func decode(_ packet: Packet?, with decoder: Decoder, into frame: Frame) throws(ReelError) -> Bool {
        let went = try CodecExchange.feed(
            send: { () throws(ReelError) -> FFmpegState in
                do throws(FFmpegError) {
                    if let packet { return try decoder.send(packet) }
                    return try decoder.sendEndOfStream()
                } catch {
                    guard packet != nil, error.isInvalidData else { throw decodeError(error) }
                    try refuse(error)
                    return .ok
                }
            },
            receive: { () throws(ReelError) -> FFmpegState in
                do throws(FFmpegError) {
                    let state = try decoder.receive(into: frame)
                    if state == .ok { refusedInARow = 0 }
                    return state
                } catch {
                    // A frame thread's refusal of an earlier packet comes out here.
                    guard error.isInvalidData else { throw decodeError(error) }
                    try refuse(error)
                    return .again
                }
            },
            take: { () throws(ReelError) -> Bool in try deliver(frame) },
            stuck: { ReelError(.decoderFailed, "the \(decoder.name) decoder took no packet and gave no frame", path: input.path, trackID: trackID) })
        return !went
    }

    /// Hands on a decoded frame as the settings ask; false once past the range's end or
    /// cancelled.
    private func deliver(_ frame: Frame) throws(ReelError) -> Bool {
        defer { frame.unref() }
        let pts = MediaTime(ffmpeg: frame.presentationTimestamp, timeBase: timeBase)
        let sample: AssetReaderSample
        switch settings {
        case .video(let format, let width, let height):
            file.countDecodedPicture()
            var duration = frame.packetDuration > 0 ? MediaTime(ffmpeg: frame.packetDuration, timeBase: timeBase) : fallbackFrameDuration
            // A frame coded as two fields lasts until its second field ends.
            if let end = fieldPairing?.end(ofFrameAt: frame.presentationTimestamp), end > frame.presentationTimestamp {
                duration = MediaTime(ffmpeg: end - frame.presentationTimestamp, timeBase: timeBase)
            }
            // After a seek to a time, delivered from the frame showing then.
            if let firstShown, frame.presentationTimestamp != reel_nopts_value() {
                // Draining at the seek's frame: the frames after it come again after it.
                if let drainingThrough, frame.presentationTimestamp > drainingThrough { return true }
                if frame.presentationTimestamp < firstShown || deliveredThrough.map({ frame.presentationTimestamp <= $0 }) ?? false {
                    dropped?.withLock { $0 += 1 }
                    return true
                }
                if end.isNumeric || end.isNegativeInfinity, !(pts < end) { return false }
            } else {
                switch place(pts, duration) {
                case .before:
                    dropped?.withLock { $0 += 1 }
                    return true
                case .pastEnd: return false
                case .inside: break
                }
            }
            var captions: Data?
            if let side = av_frame_get_side_data(frame.pointer, AV_FRAME_DATA_A53_CC), side.pointee.size > 0 {
                captions = Data(bytes: side.pointee.data, count: Int(side.pointee.size))
            }
            noteNextFrame(after: frame)
            lastDelivered = frame.presentationTimestamp
            let width = width ?? Int(frame.width), height = height ?? Int(frame.height)
            let buffer: PixelBuffer
            if !seeks, width == Int(frame.width), height == Int(frame.height), let shown = frame.movedIntoPixelBuffer(as: format) {
                // The decoder's own picture, no copy: what the ffmpeg CLI hands its encoder.
                buffer = shown
            } else {
                buffer = makeBuffer(format: format, width: width, height: height)
                // The scaler also sets the buffer's colour: the frame's, with the matrix and range it holds.
                try scaler?.convert(frame, into: buffer)
            }
            sample = .videoFrame(VideoFrame(pixelBuffer: buffer, presentationTime: pts, duration: duration, closedCaptions: captions))
        case .audioPCM:
            guard let resampler else { return true }
            let rate = frame.pointer.pointee.sample_rate
            let duration = rate > 0 ? MediaTime(value: Int64(frame.pointer.pointee.nb_samples), timescale: rate) : .invalid
            switch place(pts, duration) {
            case .before: return true
            case .pastEnd: return false
            case .inside: break
            }
            let samples: [Float]
            do { samples = try resampler.interleavedFloats(of: frame) } catch { throw decodeError(error) }
            sample = .audio(
                DecodedAudio(
                    samples: samples, channelCount: resampler.outputChannelCount,
                    sampleRate: resampler.outputSampleRate, presentationTime: pts))
        case .passthrough:
            return true
        }
        return push(sample)
    }

    /// Records the presentation time of a video packet about to be decoded (one an edit
    /// list cuts away is never shown) and its decode time.
    private func noteSent(_ packet: Packet) {
        let none = reel_nopts_value()
        let pts = packet.pts
        guard pts != none else { return }
        let order = packet.dts != none ? packet.dts : pts
        lastSentOrder = max(lastSentOrder, order)
        guard packet.secondFieldOf == nil, packet.pointer.pointee.flags & AV_PKT_FLAG_DISCARD == 0 else { return }
        let at = sentTimes.lastIndex { $0 < pts }.map { $0 + 1 } ?? 0
        if at < sentTimes.count, sentTimes[at] == pts { return }
        sentTimes.insert(pts, at: at)
    }

    /// Notes in ``frameTimes`` when the frame after `frame` (about to be delivered) starts,
    /// when the packets sent so far tell for certain: the earliest presentation time sent
    /// after the frame's is the next frame's once no packet still to come can show before
    /// it (a presentation time is never before its decode time, and decode times grow).
    /// The consumer then knows how long the frame shows without holding the next one
    /// decoded. Not noted when the next frame starts at or after the range's end (the
    /// frame then lasts its own duration, as when no frame follows).
    private func noteNextFrame(after frame: Frame) {
        guard let frameTimes else { return }
        let pts = frame.pointer.pointee.pts
        guard pts != reel_nopts_value(), pts == frame.presentationTimestamp else { return }
        if let past = sentTimes.firstIndex(where: { $0 > pts }) {
            sentTimes.removeFirst(past)
        } else {
            sentTimes.removeAll()
        }
        guard let next = sentTimes.first, sentEverything || next <= lastSentOrder else { return }
        let shown = MediaTime(ffmpeg: pts, timeBase: timeBase), following = MediaTime(ffmpeg: next, timeBase: timeBase)
        if end.isNumeric, !(following < end) { return }
        frameTimes.withLock { $0.note(following, after: shown) }
    }

    /// Hands `sample` to the consumer, blocking while the queue is full; false once the
    /// consumer cancelled (the loop stops).
    private func push(_ sample: AssetReaderSample) -> Bool {
        do {
            try queue.sendBlocking(sample)
            return true
        } catch {
            return false
        }
    }

    private func makeBuffer(format: PixelFormat, width: Int, height: Int) -> PixelBuffer {
        if let pool, pool.width == width, pool.height == height, pool.format == format { return pool.makeBuffer() }
        // Buffers out: the queue's plus the consumer's and one being filled.
        let made = PixelBufferPool(width: width, height: height, format: format, maximumIdleCount: queue.capacity + 4)
        pool = made
        return made.makeBuffer()
    }

    /// Hands on a packet's bytes; true once past the range's end or cancelled.
    private func passThrough(_ packet: Packet) throws(ReelError) -> Bool {
        var sample = SampleBuffer(
            data: packet.data, presentationTime: MediaTime(ffmpeg: packet.pts, timeBase: timeBase),
            duration: packet.duration > 0 ? MediaTime(ffmpeg: packet.duration, timeBase: timeBase) : .invalid,
            format: formatName, decodeTime: MediaTime(ffmpeg: packet.dts, timeBase: timeBase), isSync: packet.isKeyframe)
        if formatName == "webvtt" {
            sample.cueSettings = packet.sideDataText(AV_PKT_DATA_WEBVTT_SETTINGS)
            sample.cueIdentifier = packet.sideDataText(AV_PKT_DATA_WEBVTT_IDENTIFIER)
        }
        guard case .metadata = kind else { return try deliver(sample) }
        if let placement = metadataTimes?.placement(atOffset: packet.pointer.pointee.pos) {
            guard case .shown(let range) = placement else { return false }
            sample.presentationTime = range.start
            sample.duration = range.duration
            sample.decodeTime = range.start
            return try deliver(sample)
        }
        guard sample.presentationTime.isNumeric else {
            if untimedPacketStartsTrack, streamStart.isNumeric {
                sample.presentationTime = streamStart
                sample.decodeTime = streamStart
            }
            untimedPacketStartsTrack = false
            return try deliver(sample)
        }
        untimedPacketStartsTrack = false
        if try releaseHeldSample(before: sample.presentationTime) { return true }
        heldSample = sample
        return false
    }

    /// Delivers the held metadata sample, lasting until `next` when it has no duration of
    /// its own; true once past the range's end or cancelled.
    @discardableResult
    private func releaseHeldSample(before next: MediaTime) throws(ReelError) -> Bool {
        guard var sample = heldSample else { return false }
        heldSample = nil
        if !sample.duration.isNumeric, next.isNumeric, sample.presentationTime < next {
            sample.duration = next - sample.presentationTime
        }
        return try deliver(sample)
    }

    /// Where the stream starts: its own start time, else the container's.
    private var streamStart: MediaTime {
        let own = MediaTime(ffmpeg: input.stream(streamIndex).pointee.start_time, timeBase: timeBase)
        return own.isNumeric ? own : MediaTime(ffmpeg: input.pointer.pointee.start_time, timeBase: AVRational(num: 1, den: reel_time_base()))
    }

    /// The end of the stream: its start plus its duration, or the container's end when
    /// that is later (a stream of instants, such as KLV in MPEG-TS, ends at its last
    /// packet's time, which still holds until the file ends).
    private var streamEnd: MediaTime {
        let stream = input.stream(streamIndex).pointee
        let start = MediaTime(ffmpeg: stream.start_time, timeBase: timeBase)
        let duration = MediaTime(ffmpeg: stream.duration, timeBase: timeBase)
        let own = start.isNumeric && duration.isNumeric ? start + duration : MediaTime.invalid
        let format = input.pointer.pointee
        let fileStart = MediaTime(ffmpeg: format.start_time, timeBase: AVRational(num: 1, den: reel_time_base()))
        let fileDuration = MediaTime(ffmpeg: format.duration, timeBase: AVRational(num: 1, den: reel_time_base()))
        let fileEnd = fileStart.isNumeric && fileDuration.isNumeric ? fileStart + fileDuration : MediaTime.invalid
        guard fileEnd.isNumeric else { return own }
        return own.isNumeric ? MediaTime.maximum(own, fileEnd) : fileEnd
    }

    /// Pushes a sample that overlaps the range; true once past the range's end or cancelled.
    private func deliver(_ sample: SampleBuffer) throws(ReelError) -> Bool {
        // Packets come in decode order: stop on the decode time, filter on the presentation time.
        if sample.decodeTime.isNumeric, end.isNumeric, !(sample.decodeTime < end) { return true }
        switch place(sample.presentationTime, sample.duration) {
        case .before: return false
        case .pastEnd: return kind != .video
        case .inside: break
        }
        return !push(.sampleBuffer(sample))
    }
}
